/* durmodel.h - the durability model `fsmix verify` checks a tree against (docs/durability.md,
 * "Durability model"): a journal of promises (durlog.h) replayed into what each file must hold
 * after a crash, then checked against the files as they are, through callbacks (so the rules
 * are tested on synthetic journals and contents).
 *
 * Rules: the table of promises (durpromise.def) says what each acknowledged call promises, under
 * --model linux and posix; the replay takes records in the order of their t_end (ties by worker
 * and seq) and applies each by its row:
 *   - data: a byte a promise settled holds the highest generation of the settled writes that
 *     cover it, or a later one (a later write that was not acknowledged may have landed, wholly
 *     or partly); the file is at least the acknowledged length long. An O_SYNC / O_DSYNC write
 *     settles its own extent and the length to it, no other write of the file.
 *   - names: a covered create makes the file's name durable; a covered delete makes its name
 *     stay gone: found after the crash (and no later create of the id in the log) it is
 *     broken, kind "resurrected". A covering call (sync, syncfs, a directory fsync) covers what
 *     completed before it started.
 *   - directories (mkdir, rmdir, createdir: DL_MKDIR, DL_RMDIR): as names, by the same
 *     covering calls (a directory fsync reaches the directories its directory is the parent
 *     of): a covered mkdir's directory must be there (missing), a covered rmdir's must stay
 *     gone (resurrected); uncovered, either. A name made in a directory createdir made is
 *     promised only with the directory's own entry: under linux a promise of the name promises
 *     the directory too (the mkdir row's names column), under posix a file found in none is
 *     not broken until the directory's entry was promised as well.
 *   - rename, replace_fsync, truncate, link and unlink: their rows, and the rules the columns
 *     cannot say (where a renamed file may be, the directories it durably left, a replace's
 *     old-or-new content, what a truncate takes back, a second name's): durmodel_ns.h.
 *   - a file deleted after its promise (the delete completed) is not expected at all; a file
 *     present when the run started (DL_BASE) is covered by the syncfs fsmix makes before the
 *     run phase (recorded after the DL_BASE records).
 *   - the generations acceptable for a byte: from the one promised to the highest generation
 *     any write of the file began (DL_WSTART), so a write cut short by the crash is not an
 *     error.
 *   - a log without its end record (a power cut took its tail: the records of the last moments
 *     never reached it) is a prefix of what the run did: the changes after its last records
 *     are unknown. Then any later generation is acceptable (a write whose records were lost),
 *     and a finding such a change may explain is not a broken promise but one of its own class,
 *     "lost tail" (dm_report.lost_tail): a missing file where the run deleted files (or the
 *     file was created in the run: a create that fails removes its own file), and a short one,
 *     or one whose bytes are all of generations from 1 on (or zeroes), where it also created
 *     files (the id deleted and made anew, the new file cut short by the crash); a resurrected
 *     name where it created files (a create of the id after the last record); a second name's
 *     finding where it deleted, renamed, replaced, linked or unlinked files. Bytes of no
 *     generation of the file and an unreadable file are broken whatever the log's end; the
 *     header's DLH_NO_DELETES / DLH_NO_CREATES / DLH_NO_LINKS say what the run did not do (a
 *     link or unlink never moves f<id>: it does not excuse a missing f<id>).
 *
 * Cost: O(records log records) to replay, memory O(records); the check reads each promised
 * byte once (twice or three times where a lost tail is weighed).
 */
#ifndef FSMIX_DURMODEL_H
#define FSMIX_DURMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "content.h"
#include "durlog.h"
#include "durrange.h"

enum dm_model { DM_LINUX, DM_POSIX };

/* The kinds of broken promise. */
enum dm_kind {
	DM_MISSING,     /* a promised name is gone */
	DM_SHORT,       /* shorter than the acknowledged length */
	DM_WRONG,       /* bytes that are no generation of this file at this offset */
	DM_STALE,       /* an older generation than the promised one */
	DM_TORN,        /* a block partly promised content and partly not */
	DM_ZEROED,      /* zeroes where promised content should be */
	DM_UNREADABLE,  /* the file cannot be opened or read (EIO, EBADMSG, ...: a corrupt inode or
	                 * directory block) where a promise says it is */
	DM_RESURRECTED, /* a name whose unlink a later call made durable is back */
	DM_MIXED,       /* replace_fsync: blocks of the new content and of the old in one file */
	DM_EMPTIED,     /* replace_fsync: an empty file where neither content was empty */
	DM_SPLIT,       /* a durable second name l<id> names another inode than f<id> */
	DM_KIND_COUNT
};
const char *dm_kind_name(enum dm_kind k); /* "missing", "short", "wrong", "stale", ... */

#define DM_EXAMPLES 10

struct dm_finding {
	enum dm_kind kind;
	uint32_t fs, file, dir;
	uint64_t off;          /* first bad byte (short: the length found) */
	uint64_t expected_len; /* short: the acknowledged length */
	uint32_t gen_min, gen_max, gen_found;
	int err;     /* unreadable: the errno */
	bool is_dir; /* a directory the run made or removed: file its id, dir its parent
	              * (DURLOG_DIR_META: meta/m<file>; TREE_DIR_TOP: data/d<file>) */
	bool second; /* about the file's second name l<id> (in dir), not f<id> */
	size_t shown;
	uint8_t expected[CONTENT_SHOW], found[CONTENT_SHOW];
	struct dm_ref ref;
};

/* One file's verdict (durmodel_check, in the order of the check): kind DM_KIND_COUNT when every
 * promise of the file was kept, else its first finding's kind, broken or (lost) lost tail. */
struct dm_verdict {
	uint32_t fs, file;
	uint8_t kind;
	bool lost;
	bool is_dir;     /* a directory's verdict (file its id) */
	uint32_t parent; /* ...its parent, as dm_finding's dir */
};

struct dm_report {
	enum dm_model model;
	uint64_t records;               /* journal records read */
	uint64_t torn;                  /* records of the log dropped (its own torn end) */
	bool log_complete;              /* the end record was found: the run ended */
	uint64_t mono_ns, real_ns;      /* one instant in both clocks (the header) */
	uint64_t acks[DL_KIND_COUNT];   /* acknowledgements by record kind */
	uint64_t osync_writes;          /* O_SYNC / O_DSYNC writes acknowledged */
	uint64_t files_expected;        /* files with a promise (data or name) */
	uint64_t checked, kept, broken; /* promises: one per file for data, one for its name, one
	                                 * for a name whose unlink is durable */
	uint64_t data_promises, name_promises, unlink_promises;
	uint64_t dir_promises;  /* directories: a made one's entry, a removed one's removal */
	uint64_t link_promises; /* of those names and unlinks, second names' (durmodel_ns.h) */
	uint64_t names_created_promised; /* names of files created in the run that are promised */
	uint64_t created;                /* files created in the run */
	uint64_t absent_unpromised;      /* files not found whose names were not promised */
	uint64_t by_kind[DM_KIND_COUNT];
	struct dm_finding examples[DM_KIND_COUNT][DM_EXAMPLES];
	size_t n_examples[DM_KIND_COUNT];
	/* a log without its end record: promises not found as made that a change after the log's
	 * last record may explain (not broken; checked = kept + broken + lost_tail) */
	bool tail_lost;
	uint64_t lost_tail;
	uint64_t lost_by_kind[DM_KIND_COUNT];
	struct dm_finding lost_examples[DM_KIND_COUNT][DM_EXAMPLES];
	size_t n_lost_examples[DM_KIND_COUNT];
	struct dm_verdict *verdicts; /* one per file checked (malloc'ed: free() it) */
	size_t n_verdicts;
	/* the log cut at a crash's moment (engine_verify_cut; 0: whole): its CLOCK_MONOTONIC ns,
	 * and the records acknowledged at or after it, checked as the run's known tail */
	uint64_t cut_ns, after_cut;
};

/* How the checker sees the tree. size: the file's length, or -errno (-ENOENT: no such name;
 * -EEXIST: the name is there but is no regular file, a directory or a symlink: not fsmix's file,
 * yet a name a durable unlink removed is back).
 * read: bytes read at off (short at the end of the file), or -errno. A file id with
 * DM_SECOND_NAME set names the file's second name l<id> (ids stay below 2^26). same: whether
 * two names are one inode (1), not (0), or -errno; NULL: never compared. */
#define DM_SECOND_NAME 0x80000000u
struct dm_files {
	void *ctx;
	int64_t (*size)(void *ctx, uint32_t fs, uint32_t dir, uint32_t file);
	int64_t (*read)(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off,
	                void *buf, size_t len);
	/* dir: directory id under parent (DURLOG_DIR_META: meta/m<id>; TREE_DIR_TOP: data/d<id>):
	 * 0 when it is there (a directory), -EEXIST when the name holds no directory (a file, a
	 * symlink), -ENOENT when nothing is there, -errno when it cannot be looked up.
	 * NULL: directories are not checked. */
	int (*dir)(void *ctx, uint32_t fs, uint32_t parent, uint32_t id);
	int (*same)(void *ctx, uint32_t fs, uint32_t dir_a, uint32_t file_a, uint32_t dir_b,
	            uint32_t file_b);
	/* prefetch: a hint, before the checks, that file's content is about to be read (where the
	 * model last put it; errors ignored). NULL: none. */
	void (*prefetch)(void *ctx, uint32_t fs, uint32_t dir, uint32_t file);
};

struct durmodel;

/* durmodel_build - replay the journal (its records are sorted in place); complete: the log
 * has its end record (false: its tail may be lost, see above). NULL with errno ENOMEM when out
 * of memory, EINVAL when a record is impossible (an extent past 2^64): a bad log. Memory is
 * O(records) whatever the ids, offsets and generations the records name. */
struct durmodel *durmodel_build(const struct durlog_header *h, struct durlog_rec *recs, size_t n,
                                bool complete, enum dm_model model);
/* durmodel_known_tail - the log was cut at a crash state's moment (fsmix crashtest) and the
 * records after the cut, tail, are known: what they may have done replaces the lost tail's
 * guesses. A file may have vanished or been made anew (its deleted name back, its second name
 * gone or back) only when a tail record deletes, renames, replaces, creates, truncates,
 * fallocates, links or unlinks it; deletes and creates explain nothing when the tail has none.
 * Call after durmodel_build (complete false). */
void durmodel_known_tail(struct durmodel *m, const struct durlog_rec *tail, size_t n);
/* durmodel_check - check every promise against the files; fills rep (zeroed, or a report of an
 * earlier check: its verdicts are freed). A file that cannot be
 * opened or read (size or read giving -errno other than -ENOENT) breaks its promises as
 * DM_UNREADABLE, and the check goes on. 0 (-ENOMEM with err set when out of memory). */
int durmodel_check(struct durmodel *m, const struct dm_files *files, struct dm_report *rep,
                   char *err, size_t errlen);
void durmodel_free(struct durmodel *m);

#endif
