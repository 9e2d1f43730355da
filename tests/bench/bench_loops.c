/* bench_loops.c - minimal C loops that fsmix's engine is measured against (tests/bench/
 * bench_engine.sh): the same system calls on the same files, with nothing else around them.
 *
 *   bench_loops stat TREE_DATA_DIR SECONDS       fstatat() of random files of an fsmix tree
 *   bench_loops openclose TREE_DATA_DIR SECONDS  openat(O_RDONLY)+close() of random files
 *   bench_loops create DIR NFILES BLOCKSIZE      single-threaded creation of NFILES files with
 *                                                the 2010 profile's size mix, written in
 *                                                BLOCKSIZE writes (the tree-build baseline)
 *   bench_loops tree DIR NFILES NDIRS            single-threaded creation of NFILES empty files
 *                                                with fsmix's names (fID in dNNN, id by id
 *                                                modulo NDIRS + 1, the last share in DIR
 *                                                itself), directory by directory, as fsmix's
 *                                                builders do: mkdirat + openat(O_CREAT) + close
 *   bench_loops mix DIR SECONDS THREADS          the 2010 profile's operation mix (below) on a
 *                                                tree of 2000 files in 100 directories that it
 *                                                first builds, untimed, in the empty DIR
 * Prints one line "<mode> <ops> ops in <s> s = <ops/s> ops/s".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* ---- mix: the system calls of profiles/ext4-barrier-2010.ffsb's operation mix ----
 *
 * The loop makes exactly the calls docs/ops.md lists for each of the profile's operations, with
 * its weights and sizes (read/write_blocksize 512 KiB, write_size 64 KiB, size_weight for
 * creates, directio=0 as bench_engine.sh runs fsmix), and nothing else: no timing, no
 * statistics, no locks. Each thread owns its share of the files (a dense array of name and
 * size, the least that still lets it name an existing file and read it to its end), so threads
 * share nothing. */
enum {
	MIX_FILES = 2000,
	MIX_DIRS = 100,
	MIX_BS = 512 << 10,       /* read_blocksize = write_blocksize */
	MIX_WRITE_SIZE = 64 << 10 /* write_size: one append */
};

enum mix_op {
	MIX_READALL,
	MIX_CREATE,
	MIX_CREATE_FSYNC,
	MIX_DELETE,
	MIX_APPEND,
	MIX_APPEND_FSYNC,
	MIX_STAT,
	MIX_WRITEALL,
	MIX_WRITEALL_FSYNC,
	MIX_OPEN_CLOSE,
};

/* The profile's weights, one entry per unit of weight (14 in all). */
static const unsigned char mix_table[] = {
    MIX_READALL,      MIX_READALL,  MIX_READALL,        MIX_READALL,      MIX_CREATE_FSYNC,
    MIX_CREATE_FSYNC, MIX_DELETE,   MIX_APPEND,         MIX_APPEND_FSYNC, MIX_STAT,
    MIX_CREATE,       MIX_WRITEALL, MIX_WRITEALL_FSYNC, MIX_OPEN_CLOSE,
};

/* The 2010 profile's size_weight table (also the tree build's). */
static const uint64_t mix_sizes[] = {1 << 10,  2 << 10,   4 << 10,   8 << 10,   16 << 10, 32 << 10,
                                     64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20};
static const uint64_t mix_weights[] = {10, 15, 16, 16, 15, 10, 8, 4, 3, 2, 1};

static uint64_t mix_size(struct rng *r)
{
	uint64_t x = rng_below(r, 100);
	for (size_t k = 0; k < ARRAY_SIZE(mix_sizes); k++) {
		if (x < mix_weights[k])
			return mix_sizes[k];
		x -= mix_weights[k];
	}
	return mix_sizes[0];
}

struct mix_file {
	uint32_t dir, name; /* directory index; the file is "f<name>" */
	uint64_t size;      /* bytes */
};

struct mix_thread {
	pthread_t tid;
	const int *dirs;
	struct mix_file *files;
	size_t n, cap;
	uint32_t next_name;
	char *buf;
	struct rng rng;
	uint64_t end_ns, ops;
	pthread_barrier_t *start;
	int failed;
};

/* write(bs) x n + tail, as fsmix's write_blocks. */
static int mix_write(int fd, const char *buf, uint64_t total, size_t bs)
{
	for (; total;) {
		size_t m = total < bs ? (size_t)total : bs;
		if (write(fd, buf, m) != (ssize_t)m)
			return -1;
		total -= m;
	}
	return 0;
}

static int mix_add(struct mix_thread *t, uint32_t dir, uint32_t name, uint64_t size)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct mix_file *v = realloc(t->files, cap * sizeof(*v));
		if (!v)
			return -1;
		t->files = v;
		t->cap = cap;
	}
	t->files[t->n++] = (struct mix_file){dir, name, size};
	return 0;
}

/* One operation; returns 0 or -1 (errno set). */
static int mix_op(struct mix_thread *t, enum mix_op op)
{
	char name[24];
	struct stat st;
	int fd;
	if (op == MIX_CREATE || op == MIX_CREATE_FSYNC) {
		uint32_t dir = (uint32_t)rng_below(&t->rng, MIX_DIRS), id = t->next_name++;
		uint64_t size = mix_size(&t->rng);
		snprintf(name, sizeof(name), "f%u", id);
		fd = openat(t->dirs[dir], name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW,
		            0600);
		if (fd < 0 || mix_write(fd, t->buf, size, MIX_BS) ||
		    (op == MIX_CREATE_FSYNC && fsync(fd)) || close(fd))
			return -1;
		return mix_add(t, dir, id, size);
	}
	if (!t->n)
		return 0; /* fsmix counts a skip: no call */
	size_t i = rng_below(&t->rng, t->n);
	struct mix_file *f = &t->files[i];
	int dfd = t->dirs[f->dir];
	snprintf(name, sizeof(name), "f%u", f->name);
	switch (op) {
	case MIX_READALL:
		if ((fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
			return -1;
		for (uint64_t left = f->size; left;) {
			size_t m = left < MIX_BS ? (size_t)left : MIX_BS;
			if (read(fd, t->buf, m) != (ssize_t)m)
				return -1;
			left -= m;
		}
		return close(fd);
	case MIX_DELETE:
		if (unlinkat(dfd, name, 0))
			return -1;
		*f = t->files[--t->n];
		return 0;
	case MIX_APPEND:
	case MIX_APPEND_FSYNC:
		fd = openat(dfd, name, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || mix_write(fd, t->buf, MIX_WRITE_SIZE, MIX_BS) ||
		    (op == MIX_APPEND_FSYNC && fsync(fd)) || close(fd))
			return -1;
		f->size += MIX_WRITE_SIZE;
		return 0;
	case MIX_STAT:
		return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	case MIX_WRITEALL:
	case MIX_WRITEALL_FSYNC:
		fd = openat(dfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || mix_write(fd, t->buf, f->size, MIX_BS) ||
		    (op == MIX_WRITEALL_FSYNC && fsync(fd)) || close(fd))
			return -1;
		return 0;
	case MIX_OPEN_CLOSE:
		if ((fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
			return -1;
		return close(fd);
	default:
		return -1;
	}
}

static void *mix_worker(void *arg)
{
	struct mix_thread *t = arg;
	pthread_barrier_wait(t->start);
	/* Check the clock every 64 operations only (an operation is several calls). */
	for (;;) {
		for (int i = 0; i < 64; i++) {
			if (mix_op(t, mix_table[rng_below(&t->rng, ARRAY_SIZE(mix_table))])) {
				t->failed = errno ? errno : EIO;
				return NULL;
			}
		}
		t->ops += 64;
		if (now_ns() >= t->end_ns)
			return NULL;
	}
}

static int loop_mix(const char *dir, double seconds, unsigned nthreads)
{
	static int dirs[MIX_DIRS];
	char name[24];
	struct rng r;
	struct mix_thread *t = calloc(nthreads, sizeof(*t));
	char *buf = aligned_alloc(4096, 1 << 20);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || !t || !buf || !nthreads)
		return perror(dir), 1;
	memset(buf, 0x5a, 1 << 20);
	/* The tree, as fsmix builds it for num_files=2000, num_dirs=100 (create_blocksize 1 MiB):
	 * file i in directory i % 100, owned by thread i % THREADS. Untimed. */
	for (int d = 0; d < MIX_DIRS; d++) {
		snprintf(name, sizeof(name), "d%03d", d);
		if (mkdirat(dfd, name, 0700) ||
		    (dirs[d] = openat(dfd, name, O_RDONLY | O_DIRECTORY)) < 0)
			return perror(name), 1;
	}
	rng_seed(&r, 3, 0);
	for (unsigned k = 0; k < nthreads; k++) {
		t[k].dirs = dirs;
		t[k].buf = buf; /* contents do not matter; reads and writes may share it */
		t[k].next_name = MIX_FILES + k * (UINT32_MAX / 2 / nthreads);
		rng_seed(&t[k].rng, 5, k);
	}
	for (uint32_t i = 0; i < MIX_FILES; i++) {
		uint64_t size = mix_size(&r);
		snprintf(name, sizeof(name), "f%u", i);
		int fd =
		    openat(dirs[i % MIX_DIRS], name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0 || mix_write(fd, buf, size, 1 << 20) || close(fd) ||
		    mix_add(&t[i % nthreads], i % MIX_DIRS, i, size))
			return perror(name), 1;
	}
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (unsigned k = 0; k < nthreads; k++) {
		t[k].start = &start;
		if (pthread_create(&t[k].tid, NULL, mix_worker, &t[k]))
			return perror("pthread_create"), 1;
	}
	uint64_t t0 = now_ns(), ops = 0;
	for (unsigned k = 0; k < nthreads; k++)
		t[k].end_ns = t0 + (uint64_t)(seconds * 1e9);
	pthread_barrier_wait(&start);
	int failed = 0;
	for (unsigned k = 0; k < nthreads; k++) {
		pthread_join(t[k].tid, NULL);
		ops += t[k].ops;
		failed = failed ? failed : t[k].failed;
		free(t[k].files);
	}
	double s = (double)(now_ns() - t0) / 1e9;
	if (failed) {
		fprintf(stderr, "mix: %s\n", strerror(failed));
		return 1;
	}
	printf("mix %llu ops in %.2f s = %.0f ops/s\n", (unsigned long long)ops, s,
	       (double)ops / s);
	return 0;
}

/* Empty files with fsmix's names, directory by directory (the tree-build baseline at millions
 * of files: is the growth the filesystem's own?). */
static int loop_tree(const char *dir, long nfiles, long ndirs)
{
	int top = open(dir, O_RDONLY | O_DIRECTORY);
	if (top < 0 || nfiles < 0 || ndirs < 0) {
		perror(dir);
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char name[32];
	long made = 0;
	for (long d = 0; d <= ndirs; d++) {
		int dfd = top;
		if (d < ndirs) {
			snprintf(name, sizeof(name), "d%03ld", d);
			if (mkdirat(top, name, 0700) < 0 ||
			    (dfd = openat(top, name, O_RDONLY | O_DIRECTORY)) < 0) {
				perror(name);
				return 1;
			}
		}
		for (long id = d; id < nfiles; id += ndirs + 1) {
			snprintf(name, sizeof(name), "f%ld", id);
			int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0600);
			if (fd < 0) {
				perror(name);
				return 1;
			}
			close(fd);
			made++;
		}
		if (dfd != top)
			close(dfd);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("tree %ld ops in %.2f s = %.0f ops/s\n", made, s, (double)made / s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && (!strcmp(argv[1], "stat") || !strcmp(argv[1], "openclose")))
		return loop_files(argv[1], argv[2], atof(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "create"))
		return loop_create(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "tree"))
		return loop_tree(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "mix"))
		return loop_mix(argv[2], atof(argv[3]), (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: bench_loops stat|openclose DATA_DIR SECONDS\n"
	                "       bench_loops create DIR NFILES BLOCKSIZE\n"
	                "       bench_loops tree DIR NFILES NDIRS\n"
	                "       bench_loops mix DIR SECONDS THREADS\n");
	return 2;
}
