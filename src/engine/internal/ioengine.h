/* ioengine.h - the I/O engine seam: how a worker issues the system calls of its operations
 * (docs/engines.md). The operation bodies (opexec.c, opfile.c, opns.c, oplink.c, durhook.c)
 * make every call through optimed.h's timed wrappers, and those through the worker's engine,
 * a table of functions (fio's struct ioengine_ops is the model). Each engine is a file of its
 * own (engine_sync.c, engine_uring.c) and is registered in one list (ioengine.c).
 *
 * Contract of every call entry: it makes the one call it is named after, with the arguments
 * and meaning of the POSIX call, and returns what the call returns when it succeeds (0, a
 * count, an offset, a descriptor) or -errno; it never touches errno's meaning for the caller.
 * When a call entry returns, the call is complete: its effect is what the plain system call's
 * would be, so the bodies, their timing and the durability log's acknowledgements stay as they
 * are. At iodepth 1 the entry blocks until then. At iodepth > 1 (an engine with `reap`) a call
 * made on a fiber (w->fiber, worker_depth.c) is prepared, and the entry yields the fiber
 * (fiber_yield(w->fiber, IO_YIELD_CALL)) instead of waiting; the worker's loop submits every
 * call prepared meanwhile at once (reap) and resumes the fiber with the call's result, which
 * the entry returns. */
#ifndef FSMIX_IOENGINE_H
#define FSMIX_IOENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "failure.h"

struct worker;
struct engine;
struct fiber;

/* What a call entry yields its fiber with (fiber_yield): a call is prepared, resume with its
 * result. */
#define IO_YIELD_CALL 1

/* A completed call of a fiber (reap). */
struct io_done {
	struct fiber *fiber;
	int64_t res; /* the call's result, or -errno */
};

/* The kinds of call an engine makes: what the probe checks and a warning names. */
enum io_call {
	IOC_OPENAT,
	IOC_READ,
	IOC_WRITE,
	IOC_LSEEK,
	IOC_CLOSE,
	IOC_STAT,
	IOC_UNLINKAT,
	IOC_MKDIRAT,
	IOC_RENAMEAT,
	IOC_LINKAT,
	IOC_FSYNC,
	IOC_FDATASYNC,
	IOC_SYNCFS,
	IOC_SYNC,
	IOC_FTRUNCATE,
	IOC_FALLOCATE,
	IOC_COUNT
};

struct io_engine_ops {
	const char *name; /* the profile's word (key engine) */
	/* Once per run, in the main thread, before anything is built: whether this engine can run
	 * here (FAIL_UNSUPPORTED with err when not); `missing` gets, for each call kind, whether
	 * it is made synchronously (the kernel cannot do it through this engine). NULL: always. */
	enum failure (*check)(bool missing[IOC_COUNT], char *err, size_t errlen);
	/* In the main thread, as the worker is made (worker_new: a failure is the setup's error),
	 * before its thread starts: its state in w->io_ctx; the worker's first call, from its own
	 * thread with its own descriptor table, binds that state to the thread. 0, or -errno with
	 * err. NULL: no state. */
	int (*setup)(struct worker *w, char *err, size_t errlen);
	void (*teardown)(struct worker *w); /* as the worker is freed (worker_free); NULL: none */
	/* iodepth > 1 (worker_depth.c), from the worker's own stack: submits every call its
	 * fibers prepared since the last reap, with one system call, and waits for at least one
	 * completion; up to max of them in done. Returns how many (>= 1), or -errno when no
	 * completion can come (the ring broke): every fiber waiting for a call then gets that
	 * error. The calls prepared but refused are in done with the refusal's error. until_ns
	 * (now_ns's clock; 0: none): the wait ends then, returning 0 when nothing completed (a
	 * schedule's next start, an op_delay's end: worker_depth.c). NULL: the engine cannot keep
	 * more than one call in flight (iodepth 1 only: engine=sync). */
	int (*reap)(struct worker *w, struct io_done *done, size_t max, uint64_t until_ns);
	int (*openat)(struct worker *w, int dfd, const char *name, int flags, mode_t mode);
	ssize_t (*read)(struct worker *w, int fd, void *buf, size_t n);
	ssize_t (*write)(struct worker *w, int fd, const void *buf, size_t n);
	off_t (*lseek)(struct worker *w, int fd, off_t off, int whence);
	int (*close)(struct worker *w, int fd);
	/* fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW): st_mode, st_size, st_ino, st_nlink,
	 * st_blocks at least */
	int (*stat)(struct worker *w, int dfd, const char *name, struct stat *st);
	int (*unlinkat)(struct worker *w, int dfd, const char *name, int flags);
	int (*mkdirat)(struct worker *w, int dfd, const char *name, mode_t mode);
	int (*renameat)(struct worker *w, int ofd, const char *from, int nfd, const char *to,
	                unsigned flags); /* renameat2's flags */
	int (*linkat)(struct worker *w, int ofd, const char *from, int nfd, const char *to);
	int (*fsync)(struct worker *w, int fd, bool datasync); /* fdatasync when datasync */
	int (*syncfs)(struct worker *w, int fd);
	void (*sync)(struct worker *w);
	int (*ftruncate)(struct worker *w, int fd, off_t len);
	int (*fallocate)(struct worker *w, int fd, int mode, off_t off, off_t len);
};

/* The engines (engine_sync.c, engine_uring.c). */
extern const struct io_engine_ops io_engine_sync;
#if FSMIX_HAVE_URING
extern const struct io_engine_ops io_engine_uring;
#endif

/* io_engine_of - the engine of kind k (enum io_engine_kind), NULL when this build has none. */
const struct io_engine_ops *io_engine_of(int k);

/* io_engine_check - before setup: every engine a group of the plan uses is built in and can
 * run here; one warning on the log for each call kind such an engine will make
 * synchronously, naming the operations of those groups that make it. FAIL_NONE, or
 * FAIL_UNSUPPORTED with err. */
enum failure io_engine_check(struct engine *e, char *err, size_t errlen);

#endif
