/* optimed.h - the timed system call wrappers of the operation bodies (opexec.c, opns.c): each
 * makes one system call through the worker's I/O engine (w->io, ioengine.h: the seam; the
 * bodies' untimed calls of their error paths go to w->io directly) and records its latency
 * when the worker times that call; the sync family (fsync, fdatasync, syncfs, sync) and the
 * sync an op's flags ask for. Included by the files of the bodies only (static inline). */
#ifndef FSMIX_OPTIMED_H
#define FSMIX_OPTIMED_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_int.h"
#include "ioengine.h"

/* ---- timed system calls: record latency when this worker times the call ----
 *
 * One error convention for the whole file (docs/design.md, "Errors"): every function returns
 * 0 (or a count, an offset, a descriptor) or -errno. The first failure of an operation is
 * latched in the worker's error record (worker.err: op, system call, path, errno) by fail(),
 * where it is found, and its -errno passed up to op_execute. */

/* With every syscall timed, the operation's latency reuses these clock reads: it runs from
 * the start of its first system call to the end of its last (worker.op_t0, worker.last_ts),
 * which saves two clock_gettime() per operation on the hot path. */
static inline uint64_t timed_begin(struct worker *w, enum sys_id s)
{
	if (!w->timed[s])
		return 0;
	uint64_t t = now_ns();
	if (!w->op_t0)
		w->op_t0 = t;
	return t;
}

static inline void timed_end(struct worker *w, enum sys_id s, uint64_t t0)
{
	if (w->timed[s]) {
		uint64_t t = now_ns();
		stats_sys_record(&w->st, s, t - t0);
		w->last_ts = t;
	}
}

static inline int t_openat(struct worker *w, enum sys_id s, int dfd, const char *name, int flags,
                           mode_t mode)
{
	uint64_t t0 = timed_begin(w, s);
	int fd = w->io->openat(w, dfd, name, flags, mode);
	timed_end(w, s, t0);
	return fd;
}

static inline ssize_t t_read(struct worker *w, int fd, void *buf, size_t n)
{
	uint64_t t0 = timed_begin(w, SYS_read);
	ssize_t r = w->io->read(w, fd, buf, n);
	timed_end(w, SYS_read, t0);
	return r;
}

static inline ssize_t t_write(struct worker *w, int fd, const void *buf, size_t n)
{
	uint64_t t0 = timed_begin(w, SYS_write);
	ssize_t r = w->io->write(w, fd, buf, n);
	timed_end(w, SYS_write, t0);
	return r;
}

static inline off_t t_lseek(struct worker *w, int fd, off_t off, int whence)
{
	uint64_t t0 = timed_begin(w, SYS_lseek);
	off_t r = w->io->lseek(w, fd, off, whence);
	timed_end(w, SYS_lseek, t0);
	return r;
}

static inline int t_close(struct worker *w, int fd)
{
	uint64_t t0 = timed_begin(w, SYS_close);
	int r = w->io->close(w, fd);
	timed_end(w, SYS_close, t0);
	return r;
}

static inline int t_fstatat(struct worker *w, int dfd, const char *name, struct stat *st)
{
	uint64_t t0 = timed_begin(w, SYS_stat);
	int r = w->io->stat(w, dfd, name, st);
	timed_end(w, SYS_stat, t0);
	return r;
}

static inline int t_unlinkat(struct worker *w, int dfd, const char *name, int flags, enum sys_id s)
{
	uint64_t t0 = timed_begin(w, s);
	int r = w->io->unlinkat(w, dfd, name, flags);
	timed_end(w, s, t0);
	return r;
}

static inline int t_mkdirat(struct worker *w, int dfd, const char *name)
{
	uint64_t t0 = timed_begin(w, SYS_mkdir);
	int r = w->io->mkdirat(w, dfd, name, 0700);
	timed_end(w, SYS_mkdir, t0);
	return r;
}

static inline int t_renameat(struct worker *w, int dfd, const char *from, const char *to)
{
	uint64_t t0 = timed_begin(w, SYS_rename);
	int r = w->io->renameat(w, dfd, from, dfd, to, 0);
	timed_end(w, SYS_rename, t0);
	return r;
}

/* The sync family (fsync, fdatasync, syncfs, sync). Besides the usual timing, the time spent
 * in them is summed per operation for --lat-log (its sync_ns column), so they are also clocked
 * when the group does not time system calls but a latency log is being written. */
static inline int t_sync_call(struct worker *w, enum sys_id s, int fd)
{
	bool tm = w->timed[s];
	uint64_t t0 = tm || w->ll || w->dl ? now_ns() : 0;
	if (tm && !w->op_t0)
		w->op_t0 = t0;
	int r = 0;
	switch (s) {
	case SYS_fsync:
		r = w->io->fsync(w, fd, false);
		break;
	case SYS_fdatasync:
		r = w->io->fsync(w, fd, true);
		break;
	case SYS_syncfs:
		r = w->io->syncfs(w, fd);
		break;
	default:
		w->io->sync(w);
		break;
	}
	if (t0) {
		uint64_t t = now_ns();
		if (tm) {
			stats_sys_record(&w->st, s, t - t0);
			w->last_ts = t;
		}
		w->op_sync_ns += t - t0;
		w->dl_t0 = t0, w->dl_t1 = t; /* --durability-log: the call's times */
	}
	return r;
}

/* The sync call an op's flags ask for after its writes (when OPF_FSYNC or OPF_FDATASYNC). */
static inline enum sys_id sync_sys(enum op_id op)
{
	return (op_table[op].flags & OPF_FDATASYNC) ? SYS_fdatasync : SYS_fsync;
}

/* Makes that sync call, if any: 0, or -errno (the call that failed is sync_sys(op)). */
static inline int sync_after(struct worker *w, enum op_id op, int fd)
{
	if (!(op_table[op].flags & (OPF_FSYNC | OPF_FDATASYNC)))
		return 0;
	return t_sync_call(w, sync_sys(op), fd);
}

#endif
