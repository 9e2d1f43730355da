/* bench_content.c - speed of verifiable content (content.h): GB/s of content_fill and of
 * content_check on one thread, for a 64 KiB buffer (in cache, as a worker's I/O buffer) and a
 * 4 KiB one at an unaligned offset, in each content mode (random; zero;
 * compressible:50; dedupe:30; header). Prints figures, asserts nothing (the target is >= 2 GB/s
 * for the fill). Run time per figure: env BENCH_CONTENT_MS (default 300 ms). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "content.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const char *what, const char *mode, size_t len, uint64_t off, double ms)
{
	unsigned char *buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!buf)
		return;
	struct content_key key = {.seed = 42, .fs = 0, .file = 1234};
	char err[128], name[64];
	if (content_parse(mode, &key.mode, &key.pct, err, sizeof(err))) {
		fprintf(stderr, "bench_content: %s\n", err);
		exit(1);
	}
	snprintf(name, sizeof(name), "%s, %s", mode, what);
	uint64_t bytes = 0, bad = 0;
	double t0 = now_s(), t;
	uint32_t gen = 1;
	do {
		for (int k = 0; k < 64; k++, gen++) {
			content_fill(buf, len, &key, gen, off + (uint64_t)k * len);
			bytes += len;
		}
		t = now_s();
	} while (t - t0 < ms / 1000);
	double fill = (double)bytes / (t - t0) / 1e9;
	content_fill(buf, len, &key, 7, off);
	bytes = 0;
	t0 = now_s();
	do {
		for (int k = 0; k < 64; k++) {
			bad += (uint64_t)content_check(buf, len, &key, off, 1, 7, NULL);
			bytes += len;
		}
		t = now_s();
	} while (t - t0 < ms / 1000);
	double check = (double)bytes / (t - t0) / 1e9;
	printf("%-36s fill %6.2f GB/s   check %6.2f GB/s%s\n", name, fill, check,
	       bad ? "   (CHECK FAILED)" : "");
	free(buf);
}

int main(void)
{
	const char *e = getenv("BENCH_CONTENT_MS");
	double ms = e ? atof(e) : 300;
	if (ms <= 0)
		ms = 300;
	printf("content generator, one thread\n");
	static const char *const modes[] = {"random", "zero", "compressible:50", "dedupe:30",
	                                    "header"};
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		run("64 KiB aligned", modes[m], 65536, 0, ms);
		run("4 KiB aligned", modes[m], 4096, 1 << 20, ms);
		run("4 KiB at offset +13", modes[m], 4096, (1 << 20) + 13, ms);
		run("1 MiB aligned", modes[m], 1 << 20, 0, ms);
	}
	return 0;
}
