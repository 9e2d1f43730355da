/* latlog.h - the per-operation latency log (--lat-log FILE): one text line per operation,
 *
 *   t_s group thread op lat_ns bytes sync_ns resp_ns
 *
 * t_s: the op's start in seconds since the run's start (6 decimals); group: its thread group
 * index; thread: the worker's index within the group; op: the operation's name; lat_ns: its
 * latency; bytes: read + written; sync_ns: the time it spent in fsync/fdatasync/sync/syncfs
 * (fsync-tester's "fsync time"); resp_ns: its response time, from its scheduled start (op_period
 * groups) to its end, otherwise lat_ns.
 *
 * Memory is bounded and nothing is shared on the hot path: every worker formats its lines into
 * its own buffer and, when the buffer is full, hands it to the kernel with one write() on the
 * shared O_APPEND descriptor (whole buffers never interleave inside a line). Lines of different
 * threads therefore come in per-thread chunks: `sort -n` orders them by time.
 */
#ifndef FSMIX_LATLOG_H
#define FSMIX_LATLOG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "outfile.h"

#define LATLOG_BUF (64 * 1024) /* per worker */
/* longest line, 27 + 24 + 40 + 4 * 21 + 1 = 176 bytes: flush before less room than this is left */
#define LATLOG_LINE_MAX 200

struct latlog {
	struct outfile out; /* FILE by outfile.h's rules: a regular file is renamed into place */
	int fd;             /* out.fd */
	_Atomic int err;    /* first write error (errno), 0 if none */
	_Atomic uint64_t lines; /* lines written (counted per flush) */
};

struct latlog_buf {
	struct latlog *log;
	char *text;
	size_t len;
	uint64_t lines;
	char prefix[24]; /* " <group> <thread> " */
	size_t prefix_len;
};

/* latlog_open - open FILE for output (outfile.h: a regular file gets a temporary file that
 * latlog_close renames into place; a FIFO or character device is written in place) and write
 * the header line, so that an unwritable FILE (/dev/full) is found before anything else is
 * done. 0, or -errno with the reason in err. */
MUST_CHECK int latlog_open(struct latlog *l, const char *path, char *err, size_t errlen);

/* latlog_buf_init - a worker's buffer. 0 or -ENOMEM. */
int latlog_buf_init(struct latlog_buf *b, struct latlog *l, unsigned group, unsigned thread);

/* latlog_add - one line: t_ns since the start, op name, latency, bytes, time in sync calls,
 * response time. */
void latlog_add(struct latlog_buf *b, uint64_t t_ns, const char *op, uint64_t lat_ns,
                uint64_t bytes, uint64_t sync_ns, uint64_t resp_ns);

/* latlog_flush - write the buffered lines (the worker itself, or the main thread after the
 * join). Errors are latched in the log. */
void latlog_flush(struct latlog_buf *b);

void latlog_buf_free(struct latlog_buf *b);

/* latlog_close - commit FILE (after every buffer was flushed). 0, or -errno of the first write,
 * fsync, close or rename error (reason in err); then FILE is left as it was. */
MUST_CHECK int latlog_close(struct latlog *l, char *err, size_t errlen);

/* latlog_abort - close without committing (the temporary file is removed). Idempotent. */
void latlog_abort(struct latlog *l);

#endif
