/* content_ratio.c - what the content mode of a tree achieved (tests/e2e/content_modes.sh):
 * reads every regular file below the directories given and prints
 *
 *   bytes B compressed C ratio R blocks N duplicates D dup_pct P
 *
 * C is the sum over the files of zlib's deflate (level 6, the default) of each whole file, R =
 * 100 C / B (the compressed size in % of the original); N counts the files' whole 4 KiB blocks
 * on the file-offset grid and D those equal to an earlier one (N minus the distinct blocks,
 * as a dedupe engine saves them), P = 100 D / N. Exit 0, or 1 when a file cannot be read. */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define BLK 4096

static uint64_t bytes, compressed, blocks;
static uint64_t *hashes;
static size_t n_hash, cap_hash;
static int failed;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t block_hash(const unsigned char *p)
{
	uint64_t h = 0x636f6e74656e7421ull;
	for (size_t i = 0; i < BLK; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = mix(h ^ w) + i;
	}
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void one_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		failed = 1;
		return;
	}
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		close(fd);
		failed = 1;
		return;
	}
	static unsigned char in[1 << 16], out[1 << 17];
	size_t have = 0; /* bytes of in[] not yet hashed as a block */
	for (;;) {
		ssize_t n = read(fd, in + have, sizeof(in) - have);
		if (n < 0) {
			perror(path);
			failed = 1;
			break;
		}
		bytes += (uint64_t)n;
		z.next_in = in + have;
		z.avail_in = (uInt)n;
		int flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
		int rc;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			rc = deflate(&z, flush);
			compressed += sizeof(out) - z.avail_out;
		} while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
		have += (size_t)n;
		size_t whole = have / BLK * BLK;
		for (size_t o = 0; o < whole; o += BLK) {
			if (n_hash == cap_hash) {
				cap_hash = cap_hash ? 2 * cap_hash : 4096;
				hashes = realloc(hashes, cap_hash * sizeof(*hashes));
				if (!hashes) {
					perror("realloc");
					exit(1);
				}
			}
			hashes[n_hash++] = block_hash(in + o);
			blocks++;
		}
		memmove(in, in + whole, have - whole);
		have -= whole;
		if (n == 0)
			break;
	}
	deflateEnd(&z);
	close(fd);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		one_file(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: content_ratio DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (nftw(argv[i], visit, 16, FTW_PHYS)) {
			perror(argv[i]);
			failed = 1;
		}
	qsort(hashes, n_hash, sizeof(*hashes), cmp_u64);
	uint64_t dups = 0;
	for (size_t i = 1; i < n_hash; i++)
		dups += hashes[i] == hashes[i - 1];
	printf("bytes %llu compressed %llu ratio %.2f blocks %llu duplicates %llu dup_pct %.2f\n",
	       (unsigned long long)bytes, (unsigned long long)compressed,
	       bytes ? 100.0 * (double)compressed / (double)bytes : 0.0, (unsigned long long)blocks,
	       (unsigned long long)dups, blocks ? 100.0 * (double)dups / (double)blocks : 0.0);
	free(hashes);
	return failed;
}
