/* outfile.h - every file fsmix writes for the user: --json, --csv, --lat-log, the sweep's and
 * compare's --json/--csv, and the images of --plot / plot -o.
 *
 * The rules (docs/output.md, "Output files"):
 *   - "-" is standard output, written in place;
 *   - a symbolic link is followed to its target (up to 40 links; a dangling link names a new
 *     file), and the rules below apply to the target: a link is never replaced;
 *   - a regular file or a path that does not exist yet is written atomically: a temporary file
 *     "<target>.tmp-<pid>-<n>" in the same directory (mode 0666 & ~umask, or the replaced
 *     file's permission bits) is written, fsync()ed and renamed over the target at commit; a
 *     failure removes it and leaves the target as it was;
 *   - a character device (/dev/null, a terminal) or a FIFO is opened and written in place
 *     (streamed), never removed or replaced;
 *   - anything else (a directory, a block device, a socket) is refused with a message.
 *
 * outfile_check validates a path before anything is created (the directory exists and is
 * writable, the type is allowed); outfile_open does it again and opens. Messages name the path
 * as given and, when it differs, the resolved target.
 */
#ifndef FSMIX_OUTFILE_H
#define FSMIX_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "compiler.h"
#include "failure.h" /* MSG_MAX: the size of err buffers */

enum outfile_mode {
	OUTFILE_STDOUT, /* "-" */
	OUTFILE_ATOMIC, /* temp file + rename at commit */
	OUTFILE_STREAM  /* character device or FIFO: written in place */
};

struct outfile {
	enum outfile_mode mode;
	int fd;                  /* where to write; -1 when closed */
	const char *path;        /* as given (borrowed), for messages */
	char target[PATH_MAX];   /* the path after following symbolic links */
	char tmp[PATH_MAX + 32]; /* OUTFILE_ATOMIC: the temporary file */
	unsigned mode_bits;      /* OUTFILE_ATOMIC: permission bits of the replaced file, or 0 */
	bool replaces;           /* OUTFILE_ATOMIC: the target existed (a regular file) */
};

#define OUTFILE_APPEND 1u /* O_APPEND: several threads write whole buffers (--lat-log) */

/* outfile_check - can `path` be written by the rules above? Creates and opens nothing (a FIFO
 * is not opened: that would wait for a reader). 0, or -errno with "PATH: reason" in err. */
int outfile_check(const char *path, char *err, size_t errlen);

/* outfile_open - open `path` for writing (flags: OUTFILE_APPEND). 0, or -errno with the reason
 * in err; on failure nothing is left behind. A FIFO blocks here until a reader opens it. */
MUST_CHECK int outfile_open(struct outfile *o, const char *path, unsigned flags, char *err,
                            size_t errlen);

/* outfile_commit - finish: fsync and rename the temporary file over the target (ATOMIC), or
 * just close (STREAM; STDOUT is flushed, not closed). 0, or -errno with the reason in err, in
 * which case the target is left as it was (ATOMIC). The outfile is closed either way. */
MUST_CHECK int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* outfile_abort - close without committing: the temporary file is removed. Idempotent. */
void outfile_abort(struct outfile *o);

/* outfile_write - the whole cycle for a document written by fill(f, arg) through stdio: open,
 * fill, check every stdio error, commit (or abort). fill returns 0 or -1 (out of memory or a
 * failed build: -ENOMEM here); it need not check stdio errors. 0, or -errno with "PATH: reason"
 * in err, as outfile_open and outfile_commit: -EINTR when a stop signal ended the wait for a
 * FIFO's reader (nothing was written). */
MUST_CHECK int outfile_write(const char *path, int (*fill)(FILE *f, void *arg), void *arg,
                             char *err, size_t errlen);

/* outfile_wait_reader - open(target, flags) of a FIFO without a reader (flags with O_NONBLOCK:
 * it fails with ENXIO until a reader comes). A blocking open would wait where no signal can end
 * it (the stop signals are blocked and read by a watcher), so after saying on stderr that fsmix
 * waits for a reader of `path`, the open is retried every 50 ms until a reader comes (0, *fd
 * set), it fails otherwise (0, *fd < 0, errno set) or a stop signal arrives (-1, *fd < 0). */
MUST_CHECK int outfile_wait_reader(const char *target, int flags, const char *path, int *fd);

/* What a path names, to tell two outputs (or an output and an input) that are one file. */
enum outfile_id_kind {
	OUTFILE_ID_UNKNOWN, /* cannot be told (a missing directory: outfile_check says so) */
	OUTFILE_ID_FILE,    /* an existing file (after symbolic links): dev and ino */
	OUTFILE_ID_NEW,     /* a name that does not exist yet: its resolved path */
	OUTFILE_ID_STREAM   /* a character device, FIFO or socket: written in place, in turn */
};

struct outfile_id {
	enum outfile_id_kind kind;
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX]; /* OUTFILE_ID_NEW: realpath of its directory + its name */
};

/* outfile_identify - what `path` names: "-" is standard output as it is now (a regular file
 * there is that file); symbolic links are followed as outfile_open follows them. 0, or -errno
 * (then id->kind is OUTFILE_ID_UNKNOWN). */
int outfile_identify(const char *path, struct outfile_id *id);

/* outfile_id_same - do a and b name one file: the same device and inode, or the same path once
 * resolved? Streams never count: two outputs on one terminal or FIFO are both written, in turn,
 * and nothing replaces the other. */
bool outfile_id_same(const struct outfile_id *a, const struct outfile_id *b);

/* outfile_stdout_failed - true, once, when writing standard output has failed (a closed pipe:
 * EPIPE, a full device: ENOSPC) and that has not been reported yet; the reason goes to err.
 * Flushes stdout first. main() calls it last, so the failure is reported after the other
 * outputs and the clean-up are done. */
bool outfile_stdout_failed(char *err, size_t errlen);

/* outfile_ignore_sigpipe - make a write to a closed pipe fail with EPIPE instead of killing
 * the process. A handler, not SIG_IGN: programs fsmix starts (the callout, gnuplot) get the
 * default action back when they exec. */
void outfile_ignore_sigpipe(void);

#endif
