/* durlog.h - the journal of promises (--durability-log FILE): every durability point the kernel
 * acknowledged during a run, and every change to the tree that tells what such a point covers,
 * for `fsmix verify` to check after a crash (docs/output.md, "Durability log").
 *
 * Format (version 1, every field little-endian whatever the host):
 *   header  DURLOG_HEADER_LEN bytes: magic "FSMIXDUR", version, header and record lengths,
 *           the CLOCK_MONOTONIC and CLOCK_REALTIME times of one instant (records carry
 *           monotonic times), flags, the number of filesystems and workers, the run id, then per
 *           filesystem (at most DURLOG_MAX_FS) its index, tree id, content seed and spec hash,
 *           and a 64-bit FNV-1a of everything before it;
 *   records DURLOG_REC_LEN bytes each (struct durlog_rec), each with its own FNV-1a check, so
 *           a torn tail (the log's own power cut) is found and ignored.
 *
 * Writing: every worker appends native records to a ring of its own (allocated before the
 * start, written by that worker only: no lock, no system call); a logger thread moves them to
 * the file every DURLOG_DRAIN_MS and fdatasyncs it every DURLOG_SYNC_MS. A worker whose ring is
 * full waits for the logger (counted: durlog_stats.waits). durlog_stop drains every ring before it
 * returns.
 */
#ifndef FSMIX_DURLOG_H
#define FSMIX_DURLOG_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

#define DURLOG_VERSION    1
#define DURLOG_MAX_FS     64
#define DURLOG_HEADER_LEN (64 + DURLOG_MAX_FS * 32 + 8)
#define DURLOG_REC_LEN    80
#define DURLOG_RING       1024 /* records per worker ring (80 KiB) */
/* The largest ring any fsmix wrote with (4096 until 7f0f782): how many records verify allows a
 * torn log to have lost in each worker's ring. Logs of older builds are read with it. */
#define DURLOG_RING_MAX    4096
#define DURLOG_SYNC_MS     100        /* the logger fdatasyncs the log at least this often */
#define DURLOG_DRAIN_MS    10         /* ... and moves the rings to it this often */
#define DURLOG_WORKER_MAIN UINT32_MAX /* records of the main thread (setup) */

/* What a record says. Times: t_start when the call began, t_end when it returned. */
enum durlog_kind {
	DL_NONE = 0,
	DL_BASE,   /* file present when the run started (built or reused): file, dir, size, gen */
	DL_WSTART, /* a writing op on file began: gen is the generation it writes */
	DL_WRITE,  /* write completed: file, gen, extent [off, off+len), size = new length;
	            * DLF_SYNC: an O_SYNC/O_DSYNC write, acknowledged durable on return */
	DL_FSYNC,  /* fsync(file) returned 0: size = acknowledged length, gen = its generation */
	DL_FDATASYNC, /* fdatasync(file) returned 0: likewise */
	DL_CREATE,    /* file created (its name now exists in dir): gen 1 */
	DL_DELETE,    /* file unlinked from dir */
	DL_DIRSYNC,   /* fsync of directory dir returned 0 (dirsync=1): its names are durable */
	DL_SYNCFS,    /* syncfs on filesystem fs returned 0 */
	DL_SYNC,      /* sync(2) returned: every filesystem */
	DL_END,       /* the run ended: the log is complete (seq = records before it) */
	/* Kinds added after the first logs (appended: the values above never change, so a log
	 * of an older fsmix still reads as it did). */
	DL_RENAME,   /* file renamed from directory aux (TREE_DIR_TOP, UINT32_MAX: data/) to dir,
	              * keeping its name f<id> */
	DL_REPLACE,  /* replace_fsync, logged once its rename(2) returned: a temporary file holding
	              * generation gen of file, size bytes long, was fsynced (acknowledged) and was
	              * renamed over file in dir; off = the file's length before */
	DL_TRUNCATE, /* ftruncate of file returned (or failed after --crash-after's shutdown):
	              * size = its new length, off = the length before */
	/* fallocate of file returned (or failed after --crash-after's shutdown): aux = enum
	 * durlog_falloc (the mode), extent [off, off+len), size = its length after the call */
	DL_FALLOCATE,
	/* link(2) of file's f<id> to its second name l<id> in directory dir returned (or failed
	 * after --crash-after's shutdown began); aux = the directory f<id> is in */
	DL_LINK = 16,
	/* unlink(2) of file's second name l<id> in directory dir returned (or failed after the
	 * shutdown began); aux = the directory f<id> is in */
	DL_UNLINK = 17,
	/* a directory made (mkdir(2) returned, or failed after --crash-after's shutdown): file =
	 * its id, dir = its parent: DURLOG_DIR_META (mkdir op: meta/m<id>) or TREE_DIR_TOP with
	 * DLF_TOP (createdir: data/d<id>) */
	DL_MKDIR = 18,
	DL_RMDIR = 19, /* a directory removed (rmdir op, meta/m<id>): file, dir as DL_MKDIR */
	DL_KIND_COUNT
};

/* A DL_FALLOCATE's mode (its aux; any other value is a bad log). */
enum durlog_falloc {
	/* FALLOC_FL_KEEP_SIZE: blocks allocated, length and content unchanged */
	DL_FALLOC_KEEP = 0,
	/* FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: the extent reads as zeroes */
	DL_FALLOC_PUNCH = 1,
	/* FALLOC_FL_ZERO_RANGE: the extent reads as zeroes, the length may grow */
	DL_FALLOC_ZERO = 2,
	DL_FALLOC_COUNT
};

#define DLF_SYNC 1u /* DL_WRITE: O_SYNC or O_DSYNC */
#define DLF_TOP  2u /* dir is data/ itself (TREE_DIR_TOP) */
#define DLF_UNSURE                                                                                 \
	4u /* DL_REPLACE logged after --crash-after's shutdown began: the temporary                \
	    * file's fsync may have returned too late to promise anything */

/* One record, native. */
struct durlog_rec {
	uint8_t kind, flags;
	uint16_t fs;
	uint32_t worker; /* DURLOG_WORKER_MAIN: the main thread */
	uint64_t seq;    /* per worker, from 0, no gaps */
	uint64_t t_start, t_end;
	uint32_t file, dir;
	uint64_t off, len, size;
	uint32_t gen, aux;
};

/* What the log belongs to (the header). */
struct durlog_fs_id {
	uint32_t index;
	uint64_t tree_id, content_seed, spec_hash;
	uint8_t content_mode, content_pct; /* the content key's mode (content.h); 0: random (and
	                                    * in logs of fsmix before content modes) */
};

struct durlog_header {
	uint32_t version;
	uint64_t mono_ns, real_ns; /* one instant in both clocks */
	uint32_t flags;            /* DLH_* */
	uint32_t n_fs, n_workers;
	uint64_t
	    run_id; /* the run's id, also in its trees' markers; 0: a log of fsmix before them */
	struct durlog_fs_id fs[DURLOG_MAX_FS];
};

#define DLH_DIRSYNC 1u /* some group had dirsync=1 */
#define DLH_STREAM  2u /* written to a character device or FIFO: never fdatasynced */
/* What no group of the run does, so that a lost tail of the log cannot hide it (fsmix verify,
 * durmodel.h). Absent (a log of fsmix before these flags): the run may have done it. */
#define DLH_NO_DELETES 4u  /* no group deletes, renames or replaces files (f<id> stays put) */
#define DLH_NO_CREATES 8u  /* no group creates files */
#define DLH_NO_LINKS   16u /* no group links or unlinks second names (l<id>) */
#define DLH_NO_RMDIRS  32u /* no group removes directories (rmdir of meta/) */

/* A worker's ring: head written by the worker, tail by the logger. */
struct durlog_ring {
	alignas(CACHELINE) _Atomic uint64_t head;
	uint64_t tail_seen; /* the worker's last look at tail */
	uint64_t seq;
	uint64_t waits; /* times the worker found the ring full and waited */
	uint32_t worker;
	alignas(CACHELINE) _Atomic uint64_t tail;
	struct durlog_rec *recs; /* DURLOG_RING */
};

struct durlog_stats {
	uint64_t records, waits, syncs;
};

struct durlog {
	int fd;
	const char *path;
	bool durable; /* a regular file, fdatasynced; false: a character device or FIFO (/dev/null,
	               * a pipe), written in place and never synced (it cannot be) */
	struct durlog_ring **rings;
	size_t n_rings;
	pthread_t thread;
	bool running;
	_Atomic int quit;
	_Atomic int err;    /* first write or fdatasync error (errno) */
	uint64_t written;   /* records written */
	uint64_t syncs;     /* fdatasyncs */
	unsigned char *out; /* encode buffer */
};

/* ---- encoding ---- */
void durlog_encode_rec(const struct durlog_rec *r, unsigned char out[DURLOG_REC_LEN]);
/* 0, or -EBADMSG when the record's check fails (a torn or foreign record). */
int durlog_decode_rec(const unsigned char in[DURLOG_REC_LEN], struct durlog_rec *r);
void durlog_encode_header(const struct durlog_header *h, unsigned char out[DURLOG_HEADER_LEN]);
/* 0, or -1 with the reason in err (not a log, another version, a bad checksum). */
int durlog_decode_header(const unsigned char in[DURLOG_HEADER_LEN], struct durlog_header *h,
                         char *err, size_t errlen);
const char *durlog_kind_name(enum durlog_kind k);

/* ---- the same-device rule ---- */
/* durlog_check_place - the log at path (its directory when it does not exist yet), symbolic
 * links followed (a dangling one to the file open(2) would create), must not be on the
 * filesystem of any of the n locations: not the same st_dev, and not the same block device
 * behind them (devstat). A character device, FIFO or socket keeps nothing on the
 * filesystem its name is in: no rule. 0, or -1 with a message naming the log and the location. */
int durlog_check_place(const char *path, const char *const *locations, size_t n, char *err,
                       size_t errlen);

/* ---- writing ---- */
/* durlog_check_new - FILE may be written: it does not exist, is an empty regular file of the
 * running user's that no one else may write, or is not a regular file (/dev/null, a FIFO). A
 * regular file that holds anything is never overwritten: -EEXIST with a message
 * (docs/output.md, "Durability log"); another user's, or one group or others may write:
 * -EPERM. 0 otherwise (other problems are durlog_open's to report). */
int durlog_check_new(const char *path, char *err, size_t errlen);
/* durlog_open - create FILE, or open an empty one, in place (not through a temporary file: it
 * must be readable after a crash; never truncated: durlog_check_new's rule, checked again on
 * the open file). A character device or FIFO is opened in place too (a FIFO without a reader
 * is waited for: outfile_wait_reader) and l->durable is false: its records are written but
 * never fdatasynced. A new file is made 0644 (before the umask). 0, or -errno with err
 * (-EEXIST: a file that holds something; -EPERM: another user's, or one others may write;
 * -EINTR: a stop signal ended the wait for a FIFO's reader; -EINVAL: neither a regular file
 * nor a character device or FIFO). */
int durlog_open(struct durlog *l, const char *path, char *err, size_t errlen);
/* durlog_begin - write the header and main-thread records (setup's), then start the logger
 * over n ring(s) (made here, one per worker). 0, or -errno with err. */
int durlog_begin(struct durlog *l, const struct durlog_header *h, const struct durlog_rec *pre,
                 size_t n_pre, size_t n_rings, char *err, size_t errlen);
static inline struct durlog_ring *durlog_ring_of(struct durlog *l, size_t i)
{
	return l && i < l->n_rings ? l->rings[i] : NULL;
}
/* durlog_wait_room - the ring is full: wait for the logger (cold path). */
void durlog_wait_room(struct durlog_ring *r);
/* durlog_add - append one record (the worker's own ring; seq and worker are set here). */
static inline void durlog_add(struct durlog_ring *r, struct durlog_rec *rec)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (UNLIKELY(h - r->tail_seen >= DURLOG_RING)) {
		r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (h - r->tail_seen >= DURLOG_RING)
			durlog_wait_room(r);
	}
	rec->worker = r->worker;
	rec->seq = r->seq++;
	r->recs[h % DURLOG_RING] = *rec;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
}
/* durlog_stop - end the logger after draining every ring, write DL_END, fdatasync and close.
 * 0, or -errno of the first failure (err). Safe when never begun. */
int durlog_stop(struct durlog *l, struct durlog_stats *st, char *err, size_t errlen);
/* durlog_free - free the rings (after durlog_stop). */
void durlog_free(struct durlog *l);

/* ---- reading ---- */
/* Slots are the 80-byte places after the header, numbered from 1 (the first record). */
struct durlog_span {
	size_t at, count; /* slots at..at+count-1 */
};

struct durlog_read {
	struct durlog_header h;
	struct durlog_rec *recs; /* the good records before the end record, in file order */
	size_t n;
	size_t slots;            /* slots in the file (a partial last one counts) */
	size_t torn;             /* bad slots at the end, after the last good record (a bad check, a
	                          * partial record): the log's torn end */
	size_t partial;          /* bytes of a partial last slot (0: none) */
	struct durlog_span *bad; /* runs of bad slots with a good record after them */
	size_t n_bad;
	size_t corrupt;       /* the slots of those runs */
	size_t first_corrupt; /* the first of them */
	bool complete;        /* DL_END found */
	size_t end_at;        /* its slot */
	uint64_t end_seq;     /* its seq: the records before it */
	size_t after_end;     /* good records after it (none in a log fsmix wrote) */
	size_t first_after_end;
};
/* durlog_read_file - the whole log; 0, or -1 with err (cannot read it, a directory, not a log).
 * Whether what was read is a log fsmix can have written is durlog_check's (durcheck.h). */
int durlog_read_file(const char *path, struct durlog_read *out, char *err, size_t errlen);
void durlog_read_free(struct durlog_read *r);

#endif
