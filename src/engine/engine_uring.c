/* engine_uring.c - the io_uring I/O engine (engine=io_uring; docs/engines.md): each worker has a
 * ring of its own, and every call of an operation is one submission on it, waited for before
 * the body goes on (iodepth 1): one io_uring_enter(2) per call, which submits it and returns
 * with its completion. The calls the kernel cannot do through io_uring (the probe at start,
 * io_engine_check's warning; sync and syncfs have no opcode at all) are the sync engine's.
 *
 * lseek has no opcode either: the engine keeps the file position of the files the worker opens
 * itself (a few at a time: an operation holds at most two) and gives it as the explicit offset
 * of each read and write, as pread and pwrite do; what lseek returns is computed, no call is
 * made. A file opened with O_APPEND writes at its end whatever the offset, so it keeps none.
 * At iodepth N > 1 a call made on a fiber (worker_depth.c) is prepared with the fiber as its
 * user_data and the fiber yields; uring_reap submits every call prepared meanwhile with one
 * io_uring_enter and hands the completions back to the worker's loop. Each fiber has at most
 * one call outstanding, so a ring of N entries never fills. The kept positions are then those
 * of up to 2N + 2 files (an operation holds at most two); a descriptor is one file's while it
 * is open, whichever fiber opened it.
 * Built only where pkg-config finds liburing (CMake: FSMIX_HAVE_URING). */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "engine_int.h"
#include "fiber.h"
#include "ioengine.h"

/* IORING_OP_FTRUNCATE came with Linux 6.9, after liburing 2.3's header: its number in the
 * kernel's ABI (include/uapi/linux/io_uring.h), for the probe and the submission. */
#ifndef FSMIX_IORING_OP_FTRUNCATE
#define FSMIX_IORING_OP_FTRUNCATE 55
#endif

/* The files whose position the engine keeps (see above): an operation holds one or two. */
#define URING_FILES(depth) (2 * (depth) + 2)

struct uring_file {
	int fd;      /* -1: a free slot */
	int64_t pos; /* the next read or write's offset; -1: the file's own (O_APPEND) */
};

struct uring_ctx {
	struct io_uring ring;
	struct io_uring_sqe *sqe;  /* the entry of the call being made (sqe_get -> run_one) */
	uint64_t seq;              /* the calls submitted: each entry's user_data, 1, 2, ... */
	bool sync_call[IOC_COUNT]; /* the calls made synchronously (no opcode, or a broken ring) */
	struct uring_file *files;  /* URING_FILES(iodepth) of them */
	unsigned n_files;
	/* iodepth > 1: the fibers whose calls are prepared but not yet submitted, in the ring's
	 * order (the kernel takes them from the front); after a refusal that broke the ring they
	 * get its error (broken_err) from uring_reap, never their completion */
	struct fiber **pending;
	unsigned n_pending;
	bool broken;
	int broken_err;
	bool sqpoll; /* sqpoll=1: a kernel thread takes the submissions */
};

static struct uring_ctx *ctx_of(struct worker *w)
{
	return w->io_ctx;
}

/* The opcode of each call kind, -1: none (made synchronously). */
static int call_opcode(enum io_call c)
{
	switch (c) {
	case IOC_OPENAT:
		return IORING_OP_OPENAT;
	case IOC_READ:
		return IORING_OP_READ;
	case IOC_WRITE:
		return IORING_OP_WRITE;
	case IOC_CLOSE:
		return IORING_OP_CLOSE;
	case IOC_STAT:
		return IORING_OP_STATX;
	case IOC_UNLINKAT:
		return IORING_OP_UNLINKAT;
	case IOC_MKDIRAT:
		return IORING_OP_MKDIRAT;
	case IOC_RENAMEAT:
		return IORING_OP_RENAMEAT;
	case IOC_LINKAT:
		return IORING_OP_LINKAT;
	case IOC_FSYNC:
	case IOC_FDATASYNC:
		return IORING_OP_FSYNC;
	case IOC_FTRUNCATE:
		return FSMIX_IORING_OP_FTRUNCATE;
	case IOC_FALLOCATE:
		return IORING_OP_FALLOCATE;
	case IOC_LSEEK: /* kept by the engine: no call at all */
		return -2;
	default: /* sync, syncfs */
		return -1;
	}
}

/* Which calls this kernel cannot do through io_uring: FAIL_UNSUPPORTED when io_uring itself is
 * not available (an old kernel, kernel.io_uring_disabled, a seccomp filter). */
static void probe_missing(const struct io_uring_probe *p, bool missing[IOC_COUNT])
{
	for (int c = 0; c < IOC_COUNT; c++) {
		int op = call_opcode((enum io_call)c);
		missing[c] = op == -1 || (op >= 0 && !io_uring_opcode_supported(p, op));
	}
}

static enum failure uring_check(bool missing[IOC_COUNT], char *err, size_t errlen)
{
	struct io_uring_probe *p = io_uring_get_probe();
	if (!p) {
		snprintf(err, errlen,
		         "engine=io_uring: io_uring is not available here (an old kernel, "
		         "sysctl kernel.io_uring_disabled or a seccomp filter)");
		return FAIL_UNSUPPORTED;
	}
	probe_missing(p, missing);
	io_uring_free_probe(p);
	return FAIL_NONE;
}

/* sqpoll=1: the ring gets a kernel thread of the process (iou-sqp-PID, made with the ring, so
 * sharing the descriptor table of the thread that makes it; worker.c keeps the worker on that
 * table) that polls its submission queue: a submission needs no system call while the thread
 * is awake, which it stays while busy and for URING_SQ_IDLE_MS after (then the next submission
 * wakes it with one io_uring_enter). It replaces COOP_TASKRUN, which the kernel refuses with
 * SQPOLL. True when p asks for it. */
#define URING_SQ_IDLE_MS 50
static bool uring_sqpoll_params(const struct worker *w, struct io_uring_params *p)
{
	if (!w->g->sqpoll)
		return false;
	memset(p, 0, sizeof(*p));
	p->flags = IORING_SETUP_SQPOLL;
	p->sq_thread_idle = URING_SQ_IDLE_MS;
	return true;
}

/* sqpoll=1: hands the entry to the polling thread (no system call unless it sleeps) and looks
 * for the completion up to URING_SPINS times (some 10 to 100 us) before run_one enters the
 * kernel to wait for it: a call the polling thread completes inline (a cached read, an open of
 * a cached name) then costs no system call at all. A refused submission stays queued and goes
 * again with run_one's io_uring_submit_and_wait, which handles it. */
#define URING_SPINS 4096
static void uring_sqpoll_submit(struct uring_ctx *c)
{
	(void)io_uring_submit(&c->ring);
	for (unsigned i = 0; i < URING_SPINS && !io_uring_cq_ready(&c->ring); i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ __volatile__("yield");
#endif
	}
}

/* iodepth > 1: as many io-wq workers for the calls on regular files (fsync, fallocate, writes
 * the kernel cannot complete inline) as operations in flight. The kernel's default, the
 * smaller of the ring's entries and 4 per CPU (8 on a 2-CPU machine), would serve 32 fsyncs in
 * flight 8 at a time, where 32 sync threads make 32 at once (the journal commits them
 * together). The limit is the ring's, taken by the worker's thread on its first submission;
 * a kernel without IORING_REGISTER_IOWQ_MAX_WORKERS (before 5.15) keeps its default. */
static void uring_wq_workers(const struct worker *w, struct uring_ctx *c)
{
	if (w->iodepth <= 1)
		return;
	unsigned limits[2] = {w->iodepth, 0}; /* bounded (regular files), unbounded: unchanged */
	(void)io_uring_register_iowq_max_workers(&c->ring, limits);
}

/* The ring: 8 entries (one submission at a time needs one), or iodepth (each operation in
 * flight has at most one call outstanding). COOP_TASKRUN (Linux 5.19): the
 * completion's task work runs when the worker enters the kernel to wait for it anyway, not
 * by interrupting it; without it where the kernel refuses the flag. */
static int uring_setup(struct worker *w, char *err, size_t errlen)
{
	struct uring_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory for its io_uring state");
		return -ENOMEM;
	}
	unsigned entries = w->iodepth > 8 ? w->iodepth : 8;
	if (w->g->sqpoll) /* two per fiber: see sqe_get */
		entries *= 2;
	c->n_files = URING_FILES(w->iodepth);
	c->files = calloc(c->n_files, sizeof(*c->files));
	c->pending = calloc(w->iodepth, sizeof(*c->pending));
	if (!c->files || !c->pending) {
		free(c->files);
		free(c->pending);
		free(c);
		snprintf(err, errlen, "out of memory for its io_uring state");
		return -ENOMEM;
	}
	struct io_uring_params p = {.flags = IORING_SETUP_COOP_TASKRUN};
	c->sqpoll = uring_sqpoll_params(w, &p);
	int rc = io_uring_queue_init_params(entries, &c->ring, &p);
	if (rc == -EINVAL && !c->sqpoll) {
		memset(&p, 0, sizeof(p));
		rc = io_uring_queue_init_params(entries, &c->ring, &p);
	}
	struct io_uring_probe *pr = rc ? NULL : io_uring_get_probe_ring(&c->ring);
	if (rc || !pr) {
		if (!rc)
			io_uring_queue_exit(&c->ring);
		snprintf(err, errlen, "io_uring_queue_init: %s", strerror(rc ? -rc : ENOMEM));
		free(c->files);
		free(c->pending);
		free(c);
		return rc ? rc : -ENOMEM;
	}
	probe_missing(pr, c->sync_call);
	io_uring_free_probe(pr);
	uring_wq_workers(w, c);
	for (unsigned i = 0; i < c->n_files; i++)
		c->files[i].fd = -1;
	w->io_ctx = c;
	return 0;
}

static void uring_teardown(struct worker *w)
{
	struct uring_ctx *c = ctx_of(w);
	if (!c)
		return;
	io_uring_queue_exit(&c->ring);
	free(c->files);
	free(c->pending);
	free(c);
	w->io_ctx = NULL;
}

/* The n fibers at the front of the pending list were submitted. */
static void pending_drop(struct uring_ctx *c, unsigned n)
{
	n = n < c->n_pending ? n : c->n_pending;
	memmove(c->pending, c->pending + n, (c->n_pending - n) * sizeof(*c->pending));
	c->n_pending -= n;
}

/* A submission entry: the ring is empty between calls at depth 1, and holds at most one entry
 * per fiber above, so there always is one. With sqpoll=1 the kernel's polling thread moves the
 * ring's head only after a batch, so an entry whose completion has already arrived may still
 * count as queued: the ring has room for two per fiber (uring_setup), and where even that is
 * short the worker waits for the polling thread to take entries (io_uring_sqring_wait). */
static struct io_uring_sqe *sqe_get(struct uring_ctx *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	while (UNLIKELY(!sqe) && c->sqpoll) {
		int rc = io_uring_sqring_wait(&c->ring);
		sqe = io_uring_get_sqe(&c->ring);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN)
			break;
	}
	if (UNLIKELY(!sqe)) { /* cannot happen without sqpoll: every call reaps its completion */
		int rc = io_uring_submit(&c->ring);
		if (rc > 0)
			pending_drop(c, (unsigned)rc);
		sqe = io_uring_get_sqe(&c->ring);
	}
	FSMIX_ASSERT(sqe);
	return c->sqe = sqe;
}

/* Submits the prepared entry (sqe_get's) and waits for its completion: its result (the call's
 * return value or -errno). One io_uring_enter per call; a wait interrupted by a signal is
 * resumed (the call itself goes on in the kernel), and so is a submission refused for a
 * while (-EAGAIN: no memory for the request yet; -EBUSY: completions not reaped, never here):
 * a refused entry stays in the ring, and went late with a later call's, its buffer and names
 * long gone. Any other refusal (a broken ring) is the call's error, and the ring is never
 * entered again: every later call of the worker is made synchronously (its refused entry,
 * still queued, would otherwise go with the next call's). Each entry carries its number
 * (user_data), so a completion of an earlier entry is never taken for this call's: one
 * completion per entry, in order. */
static int64_t run_one_wait(struct uring_ctx *c)
{
	uint64_t id = ++c->seq;
	io_uring_sqe_set_data64(c->sqe, id);
	if (c->sqpoll)
		uring_sqpoll_submit(c);
	for (;;) {
		struct io_uring_cqe *cqe;
		if (io_uring_peek_cqe(&c->ring, &cqe) == 0) {
			uint64_t of = io_uring_cqe_get_data64(cqe);
			int64_t res = cqe->res;
			io_uring_cqe_seen(&c->ring, cqe);
			FSMIX_ASSERT_MSG(of && of <= id, "completion of entry %llu, %llu submitted",
			                 (unsigned long long)of, (unsigned long long)id);
			if (of == id)
				return res;
			continue; /* a refused entry's, submitted late: its call had failed */
		}
		int rc = io_uring_submit_and_wait(&c->ring, 1);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
			for (int i = 0; i < IOC_COUNT; i++)
				c->sync_call[i] = true;
			return rc;
		}
	}
}

/* A call on a fiber (iodepth > 1): its entry tagged with the fiber, which yields; the worker's
 * loop resumes it with the completion's result (uring_reap). */
static int64_t run_on_fiber(struct worker *w, struct uring_ctx *c)
{
	FSMIX_ASSERT(c->n_pending < w->iodepth); /* one call per fiber */
	io_uring_sqe_set_data(c->sqe, w->fiber);
	c->pending[c->n_pending++] = w->fiber;
	return fiber_yield(w->fiber, IO_YIELD_CALL);
}

/* The prepared call (sqe_get's), made: its result. */
static int64_t run_one(struct worker *w, struct uring_ctx *c)
{
	return w->fiber ? run_on_fiber(w, c) : run_one_wait(c);
}

/* The completions there are, up to max, into done: how many. */
static int reap_ready(struct uring_ctx *c, struct io_done *done, size_t max)
{
	size_t n = 0;
	struct io_uring_cqe *cqe;
	while (n < max && io_uring_peek_cqe(&c->ring, &cqe) == 0) {
		done[n].fiber = io_uring_cqe_get_data(cqe);
		done[n].res = cqe->res;
		FSMIX_ASSERT(done[n].fiber);
		io_uring_cqe_seen(&c->ring, cqe);
		n++;
	}
	return (int)n;
}

/* A refusal of a submission that breaks the ring (not one for a while: -EINTR, -EAGAIN,
 * -EBUSY): the calls not submitted get rc, every later call is made synchronously. */
static void uring_refused(struct uring_ctx *c, int rc)
{
	if (rc >= 0 || rc == -EINTR || rc == -EAGAIN || rc == -EBUSY)
		return;
	c->broken = true;
	c->broken_err = rc;
	for (int i = 0; i < IOC_COUNT; i++)
		c->sync_call[i] = true;
}

/* uring_reap with a deadline (a schedule's next start, an op_delay's end): submits what the
 * fibers prepared, then waits for a completion until until_ns. Two system calls where
 * io_uring_submit_and_wait is one, so that the calls submitted are counted (pending_drop); a
 * worker that waits for a start is ahead of its schedule, so the second costs it nothing.
 * False when the deadline passed. */
static bool uring_wait_until(struct uring_ctx *c, uint64_t until_ns)
{
	int rc = io_uring_submit(&c->ring);
	if (rc > 0)
		pending_drop(c, (unsigned)rc);
	uring_refused(c, rc);
	if (c->broken || c->n_pending) /* the caller's loop: the refused calls' errors, or again */
		return true;
	uint64_t now = now_ns();
	if (now >= until_ns)
		return false;
	uint64_t left = until_ns - now;
	struct __kernel_timespec ts = {.tv_sec = (long long)(left / 1000000000u),
	                               .tv_nsec = (long long)(left % 1000000000u)};
	struct io_uring_cqe *cqe;
	rc = io_uring_wait_cqe_timeout(&c->ring, &cqe, &ts);
	return rc != -ETIME;
}

/* iodepth > 1: submits what the fibers prepared and waits for a completion (ioengine.h), until
 * until_ns if given. A submission refused for a while is submitted again, as at depth 1
 * (run_one_wait); any other refusal breaks the ring: the calls not submitted get its error,
 * every later call is made synchronously, and the ring is entered only to wait for the
 * completions of the calls submitted before (their fibers, buffers and names live until
 * then). */
static int uring_reap(struct worker *w, struct io_done *done, size_t max, uint64_t until_ns)
{
	struct uring_ctx *c = ctx_of(w);
	for (;;) {
		int n = reap_ready(c, done, max);
		if (n)
			return n;
		if (c->broken && c->n_pending) {
			for (; (size_t)n < max && c->n_pending; n++) {
				done[n] =
				    (struct io_done){.fiber = c->pending[0], .res = c->broken_err};
				pending_drop(c, 1);
			}
			return n;
		}
		int rc;
		if (c->broken) {
			struct io_uring_cqe *cqe;
			rc = io_uring_wait_cqe(&c->ring, &cqe);
			if (rc < 0 && rc != -EINTR && rc != -EAGAIN)
				return rc; /* nothing will complete: the waiting fibers get rc */
			continue;
		}
		if (until_ns) { /* at the deadline: 0, or what completed last */
			if (!uring_wait_until(c, until_ns))
				return reap_ready(c, done, max);
			continue;
		}
		rc = io_uring_submit_and_wait(&c->ring, 1);
		if (rc > 0)
			pending_drop(c, (unsigned)rc);
		uring_refused(c, rc);
	}
}

/* ---- the positions of the worker's own files (lseek) ---- */

static struct uring_file *file_of(struct uring_ctx *c, int fd)
{
	for (unsigned i = 0; i < c->n_files; i++)
		if (c->files[i].fd == fd)
			return &c->files[i];
	return NULL;
}

/* The offset of a read or write on fd: its kept position, or -1 (the file's own). */
static uint64_t pos_of(struct uring_ctx *c, int fd, struct uring_file **f)
{
	*f = file_of(c, fd);
	return *f && (*f)->pos >= 0 ? (uint64_t)(*f)->pos : (uint64_t)-1;
}

static void advance(struct uring_file *f, int64_t res)
{
	if (f && f->pos >= 0 && res > 0)
		f->pos += res;
}

/* ---- the calls ---- */

static int uring_openat(struct worker *w, int dfd, const char *name, int flags, mode_t mode)
{
	struct uring_ctx *c = ctx_of(w);
	int fd;
	if (UNLIKELY(c->sync_call[IOC_OPENAT]))
		fd = io_engine_sync.openat(w, dfd, name, flags, mode);
	else {
		io_uring_prep_openat(sqe_get(c), dfd, name, flags, mode);
		fd = (int)run_one(w, c);
	}
	/* a descriptor the kernel hands out is not one whose position is kept: every file the
	 * engine opens is closed through it (uring_close frees its slot) */
	FSMIX_ASSERT(fd < 0 || !file_of(c, fd));
	struct uring_file *f = fd >= 0 ? file_of(c, -1) : NULL;
	if (f) /* else: no slot (never: 2 per operation in flight): the file's own position */
		*f = (struct uring_file){.fd = fd, .pos = (flags & O_APPEND) ? -1 : 0};
	return fd;
}

/* A read or write (wr) at the file's kept position, or at its own (pos_of); the position then
 * moves by the bytes done. */
static ssize_t uring_rw(struct worker *w, int fd, void *buf, size_t n, bool wr)
{
	struct uring_ctx *c = ctx_of(w);
	struct uring_file *f;
	uint64_t off = pos_of(c, fd, &f);
	int64_t r;
	if (UNLIKELY(c->sync_call[wr ? IOC_WRITE : IOC_READ])) {
		if (off == (uint64_t)-1)
			r = wr ? write(fd, buf, n) : read(fd, buf, n);
		else
			r = wr ? pwrite(fd, buf, n, (off_t)off) : pread(fd, buf, n, (off_t)off);
		r = r < 0 ? -errno : r;
	} else {
		FSMIX_ASSERT(n <= UINT32_MAX); /* the entry's length: blocksizes are <= 1 GiB */
		io_uring_prep_rw(wr ? IORING_OP_WRITE : IORING_OP_READ, sqe_get(c), fd, buf,
		                 (unsigned)n, off);
		r = run_one(w, c);
	}
	advance(f, r);
	return (ssize_t)r;
}

static ssize_t uring_read(struct worker *w, int fd, void *buf, size_t n)
{
	return uring_rw(w, fd, buf, n, false);
}

static ssize_t uring_write(struct worker *w, int fd, const void *buf, size_t n)
{
	return uring_rw(w, fd, (void *)buf, n, true);
}

/* lseek on a file whose position the engine keeps: computed (SEEK_SET, SEEK_CUR); any other
 * file: the system call. Any other whence (SEEK_END, SEEK_DATA, SEEK_HOLE: from the file's
 * size or extents, not its position): the system call, whose result becomes the kept one. */
static off_t uring_lseek(struct worker *w, int fd, off_t off, int whence)
{
	struct uring_file *f = file_of(ctx_of(w), fd);
	if (!f || f->pos < 0)
		return io_engine_sync.lseek(w, fd, off, whence);
	if (whence != SEEK_SET && whence != SEEK_CUR) {
		off_t r = io_engine_sync.lseek(w, fd, off, whence);
		if (r >= 0)
			f->pos = r;
		return r;
	}
	int64_t to = whence == SEEK_SET ? (int64_t)off : f->pos + (int64_t)off;
	if (to < 0)
		return -EINVAL;
	f->pos = to;
	return (off_t)to;
}

static int uring_close(struct worker *w, int fd)
{
	struct uring_ctx *c = ctx_of(w);
	struct uring_file *f = file_of(c, fd);
	if (f)
		f->fd = -1;
	if (UNLIKELY(c->sync_call[IOC_CLOSE]))
		return io_engine_sync.close(w, fd);
	io_uring_prep_close(sqe_get(c), fd);
	return (int)run_one(w, c);
}

/* statx, with what the bodies read of struct stat copied over. */
static int uring_stat(struct worker *w, int dfd, const char *name, struct stat *st)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_STAT]))
		return io_engine_sync.stat(w, dfd, name, st);
	struct statx sx;
	io_uring_prep_statx(sqe_get(c), dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx);
	int rc = (int)run_one(w, c);
	if (rc < 0)
		return rc;
	memset(st, 0, sizeof(*st));
	st->st_mode = sx.stx_mode;
	st->st_nlink = sx.stx_nlink;
	st->st_uid = sx.stx_uid;
	st->st_gid = sx.stx_gid;
	st->st_ino = sx.stx_ino;
	st->st_size = (off_t)sx.stx_size;
	st->st_blocks = (blkcnt_t)sx.stx_blocks;
	st->st_blksize = (blksize_t)sx.stx_blksize;
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_mtim.tv_sec = sx.stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = sx.stx_mtime.tv_nsec;
	return 0;
}

static int uring_unlinkat(struct worker *w, int dfd, const char *name, int flags)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_UNLINKAT]))
		return io_engine_sync.unlinkat(w, dfd, name, flags);
	io_uring_prep_unlinkat(sqe_get(c), dfd, name, flags);
	return (int)run_one(w, c);
}

static int uring_mkdirat(struct worker *w, int dfd, const char *name, mode_t mode)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_MKDIRAT]))
		return io_engine_sync.mkdirat(w, dfd, name, mode);
	io_uring_prep_mkdirat(sqe_get(c), dfd, name, mode);
	return (int)run_one(w, c);
}

static int uring_renameat(struct worker *w, int ofd, const char *from, int nfd, const char *to,
                          unsigned flags)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_RENAMEAT]))
		return io_engine_sync.renameat(w, ofd, from, nfd, to, flags);
	io_uring_prep_renameat(sqe_get(c), ofd, from, nfd, to, flags);
	return (int)run_one(w, c);
}

static int uring_linkat(struct worker *w, int ofd, const char *from, int nfd, const char *to)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_LINKAT]))
		return io_engine_sync.linkat(w, ofd, from, nfd, to);
	io_uring_prep_linkat(sqe_get(c), ofd, from, nfd, to, 0);
	return (int)run_one(w, c);
}

/* fsync, or fdatasync with IORING_FSYNC_DATASYNC. Its return is the completion's arrival: the
 * moment the durability log records as the acknowledgement (optimed.h t_sync_call). */
static int uring_fsync(struct worker *w, int fd, bool datasync)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[datasync ? IOC_FDATASYNC : IOC_FSYNC]))
		return io_engine_sync.fsync(w, fd, datasync);
	io_uring_prep_fsync(sqe_get(c), fd, datasync ? IORING_FSYNC_DATASYNC : 0);
	return (int)run_one(w, c);
}

static int uring_ftruncate(struct worker *w, int fd, off_t len)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_FTRUNCATE]))
		return io_engine_sync.ftruncate(w, fd, len);
	io_uring_prep_rw(FSMIX_IORING_OP_FTRUNCATE, sqe_get(c), fd, NULL, 0, (uint64_t)len);
	return (int)run_one(w, c);
}

static int uring_fallocate(struct worker *w, int fd, int mode, off_t off, off_t len)
{
	struct uring_ctx *c = ctx_of(w);
	if (UNLIKELY(c->sync_call[IOC_FALLOCATE]))
		return io_engine_sync.fallocate(w, fd, mode, off, len);
	io_uring_prep_fallocate(sqe_get(c), fd, mode, off, len);
	return (int)run_one(w, c);
}

/* syncfs and sync: no opcode; the sync engine's calls (io_engine_check warned). */
static int uring_syncfs(struct worker *w, int fd)
{
	return io_engine_sync.syncfs(w, fd);
}

static void uring_sync(struct worker *w)
{
	io_engine_sync.sync(w);
}

const struct io_engine_ops io_engine_uring = {
    .name = "io_uring",
    .check = uring_check,
    .setup = uring_setup,
    .teardown = uring_teardown,
    .reap = uring_reap,
    .openat = uring_openat,
    .read = uring_read,
    .write = uring_write,
    .lseek = uring_lseek,
    .close = uring_close,
    .stat = uring_stat,
    .unlinkat = uring_unlinkat,
    .mkdirat = uring_mkdirat,
    .renameat = uring_renameat,
    .linkat = uring_linkat,
    .fsync = uring_fsync,
    .syncfs = uring_syncfs,
    .sync = uring_sync,
    .ftruncate = uring_ftruncate,
    .fallocate = uring_fallocate,
};
