/* bench_chain.c - what linked submissions save (issue 29; docs/engines.md, "Where the CPU
 * goes"): one operation of the fsync-bound mixes, open -> write -> fsync -> close of a file of
 * its own (O_DIRECT, as the 2010 profile's directio=1), kept DEPTH at a time in flight, in
 * three ways:
 *   sync   DEPTH threads, each making the four system calls (engine=sync's way);
 *   calls  one thread, one ring: each call one submission, the next submitted when its
 *          completion arrives (engine=io_uring's way at iodepth DEPTH);
 *   chain  one thread, one ring: the four calls as one chain of linked submissions
 *          (IOSQE_IO_LINK) on a direct descriptor (a registered file slot per operation in
 *          flight: openat_direct, then IOSQE_FIXED_FILE, close_direct), only the last
 *          completion posted on success (IOSQE_CQE_SKIP_SUCCESS on the others); a failed
 *          call's completion is posted and the rest of its chain is cancelled (-ECANCELED);
 *   chain-async  the same with IOSQE_ASYNC on the chain's head: the whole chain runs in an
 *          io-wq worker, no call tried inline first.
 * The ring modes with "+defer" (calls+defer, chain+defer, ...) make the ring with
 * IORING_SETUP_DEFER_TASKRUN and SINGLE_ISSUER instead of COOP_TASKRUN.
 * Prints operations/s and the process's CPU (user + system, io-wq's threads included) per
 * operation. Asserts nothing.
 *
 *   bench_chain DIR sync|calls|chain|chain-async[+defer] [DEPTH [SECONDS [BYTES]]]   (32, 4, 16384)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static size_t bytes;
static void *buf;
static atomic_bool stop;
static atomic_ulong ops_done;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void name_of(char *name, size_t len, unsigned slot)
{
	snprintf(name, len, "%s/chain.%u", dir, slot);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_chain: %s: %s\n", what, strerror(err));
	exit(1);
}

static void *sync_thread(void *arg)
{
	char name[4096];
	name_of(name, sizeof(name), (unsigned)(uintptr_t)arg);
	while (!atomic_load(&stop)) {
		int fd = open(name, O_WRONLY | O_DIRECT);
		if (fd < 0 || pwrite(fd, buf, bytes, 0) != (ssize_t)bytes || fsync(fd) || close(fd))
			die("sync op", errno);
		atomic_fetch_add(&ops_done, 1);
	}
	return NULL;
}

/* calls: the step each slot's operation is at (0 open, 1 write, 2 fsync, 3 close). */
struct slot {
	int step, fd;
};

static void calls_submit(struct io_uring *r, struct slot *s, unsigned i, char (*names)[4096])
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	switch (s->step) {
	case 0:
		io_uring_prep_openat(sqe, AT_FDCWD, names[i], O_WRONLY | O_DIRECT, 0);
		break;
	case 1:
		io_uring_prep_write(sqe, s->fd, buf, (unsigned)bytes, 0);
		break;
	case 2:
		io_uring_prep_fsync(sqe, s->fd, 0);
		break;
	default:
		io_uring_prep_close(sqe, s->fd);
	}
	io_uring_sqe_set_data64(sqe, i);
}

static bool chain_async; /* chain-async: the chain's head (so all of it) straight to io-wq */
static bool defer;       /* MODE+defer: the ring with DEFER_TASKRUN (else COOP_TASKRUN) */

static void chain_submit(struct io_uring *r, unsigned i, char (*names)[4096])
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, names[i], O_WRONLY | O_DIRECT, 0, i);
	sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS | (chain_async ? IOSQE_ASYNC : 0);
	io_uring_sqe_set_data64(sqe, i);
	sqe = io_uring_get_sqe(r);
	io_uring_prep_write(sqe, (int)i, buf, (unsigned)bytes, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data64(sqe, i);
	sqe = io_uring_get_sqe(r);
	io_uring_prep_fsync(sqe, (int)i, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data64(sqe, i);
	sqe = io_uring_get_sqe(r);
	io_uring_prep_close_direct(sqe, i);
	io_uring_sqe_set_data64(sqe, i);
}

static void ring_run(unsigned depth, bool chain, double secs)
{
	struct io_uring r;
	struct io_uring_params p = {.flags = defer ? IORING_SETUP_SINGLE_ISSUER |
	                                                 IORING_SETUP_DEFER_TASKRUN
	                                           : IORING_SETUP_COOP_TASKRUN};
	int rc = io_uring_queue_init_params(depth * 4, &r, &p);
	if (rc)
		die("io_uring_queue_init", -rc);
	unsigned limits[2] = {depth, 0};
	(void)io_uring_register_iowq_max_workers(&r, limits);
	if (chain && (rc = io_uring_register_files_sparse(&r, depth)))
		die("io_uring_register_files_sparse", -rc);
	char(*names)[4096] = calloc(depth, 4096);
	struct slot *s = calloc(depth, sizeof(*s));
	for (unsigned i = 0; i < depth; i++) {
		name_of(names[i], 4096, i);
		if (chain)
			chain_submit(&r, i, names);
		else
			calls_submit(&r, &s[i], i, names);
	}
	double end = now_s() + secs;
	unsigned live = depth;
	while (live) {
		struct io_uring_cqe *cqe;
		rc = io_uring_submit_and_wait(&r, 1);
		if (rc < 0 && rc != -EINTR)
			die("io_uring_submit_and_wait", -rc);
		while (io_uring_peek_cqe(&r, &cqe) == 0) {
			unsigned i = (unsigned)io_uring_cqe_get_data64(cqe);
			int res = cqe->res;
			io_uring_cqe_seen(&r, cqe);
			if (res < 0)
				die(chain ? "chain" : "call", -res); /* the first failed call's */
			bool op_end = chain || s[i].step == 3;
			if (!chain && s[i].step == 0)
				s[i].fd = res;
			if (op_end)
				atomic_fetch_add(&ops_done, 1);
			if (op_end && now_s() >= end) {
				live--;
				continue;
			}
			if (chain)
				chain_submit(&r, i, names);
			else {
				s[i].step = (s[i].step + 1) % 4;
				calls_submit(&r, &s[i], i, names);
			}
		}
	}
	io_uring_queue_exit(&r);
	free(names);
	free(s);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
		        "usage: bench_chain DIR sync|calls|chain|chain-async[+defer] [DEPTH "
		        "[SECONDS [BYTES]]]\n");
		return 2;
	}
	dir = argv[1];
	const char *mode = argv[2];
	char base[32];
	snprintf(base, sizeof(base), "%s", mode);
	char *plus = strchr(base, '+');
	if (plus && !strcmp(plus, "+defer")) {
		*plus = 0;
		defer = true;
	}
	bool ring =
	    !strcmp(base, "calls") || !strcmp(base, "chain") || !strcmp(base, "chain-async");
	if (!ring && strcmp(mode, "sync")) {
		fprintf(stderr,
		        "bench_chain: mode %s: sync, calls, chain or chain-async (the last three "
		        "may end in +defer)\n",
		        mode);
		return 2;
	}
	unsigned depth = argc > 3 ? (unsigned)atoi(argv[3]) : 32;
	if (depth < 1 || depth > 4096) {
		fprintf(stderr, "bench_chain: depth %s: 1 to 4096\n", argv[3]);
		return 2;
	}
	double secs = argc > 4 ? atof(argv[4]) : 4;
	bytes = argc > 5 ? (size_t)atol(argv[5]) : 16384;
	if (posix_memalign(&buf, 4096, bytes))
		die("posix_memalign", ENOMEM);
	memset(buf, 'c', bytes);
	for (unsigned i = 0; i < depth; i++) { /* the files, laid out once */
		char name[4096];
		name_of(name, sizeof(name), i);
		int fd = open(name, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || pwrite(fd, buf, bytes, 0) != (ssize_t)bytes || fsync(fd) || close(fd))
			die(name, errno);
	}
	double c0 = cpu_s(), t0 = now_s();
	if (!strcmp(mode, "sync")) {
		pthread_t *t = calloc(depth, sizeof(*t));
		for (unsigned i = 0; i < depth; i++)
			pthread_create(&t[i], NULL, sync_thread, (void *)(uintptr_t)i);
		struct timespec ts = {.tv_sec = (time_t)secs,
		                      .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9)};
		nanosleep(&ts, NULL);
		atomic_store(&stop, true);
		for (unsigned i = 0; i < depth; i++)
			pthread_join(t[i], NULL);
		free(t);
	} else {
		chain_async = !strcmp(base, "chain-async");
		ring_run(depth, strcmp(base, "calls") != 0, secs);
	}
	double t = now_s() - t0, c = cpu_s() - c0;
	unsigned long n = atomic_load(&ops_done);
	printf("%s depth %u: %lu ops in %.2f s: %.0f ops/s, %.1f us CPU per op\n", mode, depth, n,
	       t, (double)n / t, n ? c / (double)n * 1e6 : 0.0);
	for (unsigned i = 0; i < depth; i++) {
		char name[4096];
		name_of(name, sizeof(name), i);
		unlink(name);
	}
	return 0;
}
