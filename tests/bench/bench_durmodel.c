/* bench_durmodel.c - the durability model's replay alone (durmodel_build) on synthetic journals
 * of N, 2N, 4N and 8N records: one thread's 4 KiB writes at random 512-byte-aligned offsets into
 * ONE 64 MiB file, each followed by its fsync (issue 26's worst case: fsmix fc73ac9 copied the
 * file's whole range list at every settled write, quadratic), and a check that reads nothing
 * (the file absent: one finding). Prints microseconds per record and the growth per doubling
 * beyond linear (1.00x: linear; target at most 1.2x). Asserts nothing. N: env BENCH_RECORDS
 * (default 100000). tests/bench/bench_verify.sh times whole `fsmix verify` runs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "durmodel.h"
#include "rng.h"

#define FILE_LEN (64ull << 20)

static int64_t no_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs, (void)dir, (void)file;
	return -ENOENT;
}

static int64_t no_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off, void *buf,
                       size_t len)
{
	(void)ctx, (void)fs, (void)dir, (void)file, (void)off, (void)buf, (void)len;
	return -ENOENT;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n records: a base file and setup's syncfs, then write-start, write, fsync per op. */
static size_t journal(struct durlog_rec *j, size_t n, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed, 0);
	uint64_t t = 1;
	size_t k = 0;
	j[k++] = (struct durlog_rec){.kind = DL_BASE, .t_start = t, .t_end = t, .size = FILE_LEN};
	t++;
	j[k++] = (struct durlog_rec){.kind = DL_SYNCFS, .t_start = t, .t_end = t};
	for (uint32_t gen = 2; k + 3 <= n; gen++) {
		uint64_t off = (rng_next(&r) % (FILE_LEN / 512 - 8)) * 512;
		t += 3;
		j[k++] = (struct durlog_rec){.kind = DL_WSTART, .t_end = t, .gen = gen};
		j[k++] = (struct durlog_rec){
		    .kind = DL_WRITE, .t_end = t + 1, .gen = gen, .off = off, .len = 4096};
		j[k++] = (struct durlog_rec){
		    .kind = DL_FSYNC, .t_end = t + 2, .gen = gen, .size = FILE_LEN};
	}
	for (size_t i = 0; i < k; i++)
		j[i].seq = i;
	return k;
}

int main(void)
{
	const char *e = getenv("BENCH_RECORDS");
	size_t n0 = e ? strtoull(e, NULL, 10) : 100000;
	struct durlog_header h = {.version = DURLOG_VERSION, .n_fs = 1, .n_workers = 1};
	const struct dm_files files = {NULL, no_size, no_read, NULL, NULL, NULL};
	printf("%10s %10s %12s %10s\n", "records", "seconds", "us_per_rec", "growth");
	double prev = 0;
	for (size_t n = n0; n <= 8 * n0; n *= 2) {
		struct durlog_rec *j = calloc(n, sizeof(*j));
		if (!j)
			return 1;
		size_t k = journal(j, n, 42);
		double t0 = now_s();
		struct durmodel *m = durmodel_build(&h, j, k, true, DM_LINUX);
		static struct dm_report rep;
		char err[128];
		if (!m || durmodel_check(m, &files, &rep, err, sizeof(err)))
			return 1;
		double dt = now_s() - t0, per = dt * 1e6 / (double)k;
		durmodel_free(m);
		free(j);
		if (prev > 0)
			printf("%10zu %10.3f %12.3f %9.2fx\n", k, dt, per, per / prev);
		else
			printf("%10zu %10.3f %12.3f %10s\n", k, dt, per, "-");
		prev = per;
	}
	return 0;
}
