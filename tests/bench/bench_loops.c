/* bench_loops.c - minimal C loops that fsmix's engine is measured against (tests/bench/
 * bench_engine.sh): the same system calls on the same files, with nothing else around them.
 *
 *   bench_loops stat TREE_DATA_DIR SECONDS       fstatat() of random files of an fsmix tree
 *   bench_loops openclose TREE_DATA_DIR SECONDS  openat(O_RDONLY)+close() of random files
 *   bench_loops create DIR NFILES BLOCKSIZE      single-threaded creation of NFILES files with
 *                                                the 2010 profile's size mix, written in
 *                                                BLOCKSIZE writes (the tree-build baseline)
 * Prints one line "<mode> <ops> ops in <s> s = <ops/s> ops/s".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler.h"
#include "rng.h"

struct file_ref {
	int dirfd;
	char name[24];
};

/* Every regular file directly in data/ and in its d* subdirectories. */
static struct file_ref *collect(const char *data, size_t *n)
{
	size_t cap = 1024, k = 0;
	struct file_ref *v = malloc(cap * sizeof(*v));
	int top = open(data, O_RDONLY | O_DIRECTORY);
	if (top < 0 || !v) {
		perror(data);
		exit(1);
	}
	int dirs[4096];
	size_t nd = 0;
	dirs[nd++] = top;
	DIR *d = fdopendir(dup(top));
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] == 'd' && nd < 4096)
			dirs[nd++] = openat(top, de->d_name, O_RDONLY | O_DIRECTORY);
	closedir(d);
	for (size_t i = 0; i < nd; i++) {
		DIR *dd = fdopendir(dup(dirs[i]));
		while ((de = readdir(dd))) {
			if (de->d_name[0] != 'f')
				continue;
			if (k == cap)
				v = realloc(v, (cap *= 2) * sizeof(*v));
			v[k].dirfd = dirs[i];
			snprintf(v[k].name, sizeof(v[k].name), "%s", de->d_name);
			k++;
		}
		closedir(dd);
	}
	*n = k;
	return v;
}

static int loop_files(const char *mode, const char *data, double seconds)
{
	size_t n;
	struct file_ref *f = collect(data, &n);
	struct rng r;
	struct stat st;
	uint64_t ops = 0, t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
	bool is_stat = !strcmp(mode, "stat");
	if (!n) {
		fprintf(stderr, "no files in %s\n", data);
		return 1;
	}
	rng_seed(&r, 1, 0);
	/* Check the clock every 1024 operations only: the loop is meant to be minimal. */
	for (;;) {
		for (int i = 0; i < 1024; i++) {
			const struct file_ref *x = &f[rng_below(&r, n)];
			if (is_stat) {
				if (fstatat(x->dirfd, x->name, &st, AT_SYMLINK_NOFOLLOW))
					return perror("fstatat"), 1;
			} else {
				int fd =
				    openat(x->dirfd, x->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
				if (fd < 0)
					return perror("openat"), 1;
				close(fd);
			}
		}
		ops += 1024;
		if (now_ns() >= end)
			break;
	}
	double s = (double)(now_ns() - t0) / 1e9;
	printf("%s %llu ops in %.2f s = %.0f ops/s\n", mode, (unsigned long long)ops, s,
	       (double)ops / s);
	return 0;
}

static int loop_create(const char *dir, long nfiles, long bs)
{
	/* The 2010 profile's size_weight table. */
	static const uint64_t sizes[] = {1 << 10,   2 << 10,   4 << 10,  8 << 10,
	                                 16 << 10,  32 << 10,  64 << 10, 128 << 10,
	                                 256 << 10, 512 << 10, 1 << 20};
	static const uint64_t weights[] = {10, 15, 16, 16, 15, 10, 8, 4, 3, 2, 1};
	char *buf = aligned_alloc(4096, (size_t)bs);
	struct rng r;
	char name[32];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || !buf)
		return perror(dir), 1;
	/* The same spread as the 2010 profile's tree: 1000 directories (a single directory of
	 * 100 000 files would make the loop, not the comparison, slow). Making them is part of
	 * building the tree, as in fsmix's figure. */
	enum { NDIRS = 1000 };
	static int dirs[NDIRS];
	uint64_t t0 = now_ns();
	for (int d = 0; d < NDIRS; d++) {
		snprintf(name, sizeof(name), "d%03d", d);
		if (mkdirat(dfd, name, 0700) ||
		    (dirs[d] = openat(dfd, name, O_RDONLY | O_DIRECTORY)) < 0)
			return perror(name), 1;
	}
	memset(buf, 0x5a, (size_t)bs);
	rng_seed(&r, 3, 0);
	for (long i = 0; i < nfiles; i++) {
		uint64_t x = rng_below(&r, 100), size = 0;
		for (size_t k = 0; k < 11; k++) {
			if (x < weights[k]) {
				size = sizes[k];
				break;
			}
			x -= weights[k];
		}
		snprintf(name, sizeof(name), "f%ld", i);
		int fd =
		    openat(dirs[i % NDIRS], name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return perror(name), 1;
		for (uint64_t left = size; left;) {
			size_t m = left < (uint64_t)bs ? (size_t)left : (size_t)bs;
			if (write(fd, buf, m) != (ssize_t)m)
				return perror("write"), 1;
			left -= m;
		}
		close(fd);
	}
	double s = (double)(now_ns() - t0) / 1e9;
	printf("create %ld files in %.2f s = %.0f files/s\n", nfiles, s, (double)nfiles / s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && (!strcmp(argv[1], "stat") || !strcmp(argv[1], "openclose")))
		return loop_files(argv[1], argv[2], atof(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "create"))
		return loop_create(argv[2], atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: bench_loops stat|openclose DATA_DIR SECONDS\n"
	                "       bench_loops create DIR NFILES BLOCKSIZE\n");
	return 2;
}
