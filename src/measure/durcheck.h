/* durcheck.h - a durability log read back (durlog_read_file) checked against what fsmix's logger
 * can have written, before anything is replayed or sized by it (fsmix verify; docs/output.md,
 * "fsmix verify", and docs/durability.md, "A log fsmix can have written").
 *
 * How the log is written (durlog.c): the main thread writes the header and its setup records
 * (every file's `base`, then a `syncfs` per filesystem; seq 0, 1, ...) and fdatasyncs them
 * before the logger starts; the logger then appends whole records, taking each worker's ring
 * in turn and each ring in its order (so a worker's records are in the file in seq order, from
 * 0, without gaps), and fdatasyncs at least every DURLOG_SYNC_MS; `end` comes last, counting
 * every record before it. So a log fsmix wrote is:
 *   - with its end record: every slot before it good, nothing after it, the count right;
 *   - without it (the log's own crash cut what was not synced yet): its setup records whole,
 *     each worker's records a gap-free run from seq 0, and bad slots (a record cut in two,
 *     zeroes, lost pages) only where some worker's records may end: at the file's end, or
 *     where some worker has no later record (only the last records of a worker may be torn).
 * Anything else is a bad log: records removed, added or damaged after they were written. */
#ifndef FSMIX_DURCHECK_H
#define FSMIX_DURCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "durlog.h"

/* What the profile and its trees allow a record to name, per filesystem (fsmix verify fills
 * it from the plan: engine_fs_bounds). */
struct durlog_fs_bounds {
	uint64_t files; /* file ids are below this: the file pool's capacity */
	uint64_t dirs;  /* directory indexes are below this (data/ itself and meta/ apart) */
};

struct durlog_bounds {
	uint32_t max_workers; /* workers a run can have */
	struct durlog_fs_bounds fs[DURLOG_MAX_FS];
};

/* What a DL_DIRSYNC of meta/ names (durhook.h: DURHOOK_DIR_META). */
#define DURLOG_DIR_META (UINT32_MAX - 1)
/* Directories meta/ can hold (the meta pool's capacity: populate.c's META_CAPACITY). */
#define DURLOG_META_MAX (1u << 22)
/* No file offset or length reaches this (off_t is signed 64-bit). */
#define DURLOG_OFF_MAX ((uint64_t)INT64_MAX)

/* durlog_check - is rd a log fsmix can have written (above), every record within b? 0; -EINVAL
 * with the first reason in err (naming the slot, the worker, its seq, the field and its bound);
 * -ENOMEM. */
int durlog_check(const struct durlog_read *rd, const struct durlog_bounds *b, char *err,
                 size_t errlen);

#endif
