/* durcheck.c - a durability log checked against what fsmix's logger can have written: the end
 * record and what follows it, each worker's sequence, where bad slots may be, the setup
 * records, and every field that names a filesystem, file, directory or extent (durcheck.h). */
#include "durcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tree.h"

/* "worker 3" or "the main thread". */
static const char *who(uint32_t worker, char *buf, size_t len)
{
	if (worker == DURLOG_WORKER_MAIN)
		snprintf(buf, len, "the main thread");
	else
		snprintf(buf, len, "worker %" PRIu32, worker);
	return buf;
}

/* The end record, what follows it and the count it holds; an empty log. 0 or -EINVAL. */
static int check_shape(const struct durlog_read *rd, char *err, size_t errlen)
{
	if (!rd->n && !rd->complete) {
		if (rd->torn)
			snprintf(
			    err, errlen,
			    "it holds no good record, only %zu torn one%s after its header: no "
			    "promise to check",
			    rd->torn, rd->torn == 1 ? "" : "s");
		else
			snprintf(err, errlen,
			         "it holds no record after its header: no promise to "
			         "check");
		return -EINVAL;
	}
	if (!rd->complete)
		return 0;
	if (rd->after_end) {
		snprintf(err, errlen,
		         "%zu record%s after its end record (the first: record %zu): the logger "
		         "writes nothing after it",
		         rd->after_end, rd->after_end == 1 ? "" : "s", rd->first_after_end);
		return -EINVAL;
	}
	if (rd->torn || (rd->n_bad && rd->bad[rd->n_bad - 1].at > rd->end_at)) {
		snprintf(err, errlen,
		         "bytes after its end record (slot %zu on): the logger writes "
		         "nothing after it",
		         rd->end_at + 1);
		return -EINVAL;
	}
	if (rd->corrupt) {
		snprintf(err, errlen,
		         "%zu record%s fail their check before its end record (the first: record "
		         "%zu): the log was damaged after it was written (a run that ended "
		         "fdatasynced every record), and a promise or a delete may be lost from it",
		         rd->corrupt, rd->corrupt == 1 ? "" : "s", rd->first_corrupt);
		return -EINVAL;
	}
	return 0;
}

/* With the end record: the count it holds (after check_seqs, which names a gap more exactly). */
static int check_count(const struct durlog_read *rd, char *err, size_t errlen)
{
	if (!rd->complete || rd->end_seq == rd->n)
		return 0;
	snprintf(err, errlen,
	         "its end record counts %" PRIu64 " records before it, but %zu are there: records "
	         "were removed from it (a worker's last ones) or added",
	         rd->end_seq, rd->n);
	return -EINVAL;
}

/* The file ids a log can name beyond its base records' (see durcheck.h): a new id is taken only
 * when no freed one is left, so ids stay below the tree's (1 + its highest base id) plus the
 * files made since, each with a record, plus one in flight per worker; records lost to the
 * log's torn end, or still in the rings after it, may have made some of those files: at most
 * the bad slots and a ring per worker (the largest any fsmix used). */
static uint64_t id_reach(const struct durlog_read *rd)
{
	return (uint64_t)rd->n + rd->corrupt + rd->torn +
	       ((uint64_t)rd->h.n_workers + 1) * (DURLOG_RING_MAX + 1);
}

/* A DL_MKDIR or DL_RMDIR (durlog.h): a directory of meta/, its id below what the log's records
 * can have made (ids are taken lowest first, as files') and the meta pool's capacity; or one
 * createdir made in data/ (never removed), its index below the directories fb allows. */
static int check_dir_rec(const struct durlog_read *rd, const struct durlog_rec *r,
                         const struct durlog_fs_bounds *fb, const char *what, char *err,
                         size_t errlen)
{
	uint64_t reach = id_reach(rd) < DURLOG_META_MAX ? id_reach(rd) : DURLOG_META_MAX;
	if (r->dir == TREE_DIR_TOP && r->kind == DL_MKDIR)
		reach = fb->dirs;
	else if (r->dir != DURLOG_DIR_META) {
		snprintf(err, errlen,
		         "%s: parent directory %" PRIu32 " is neither meta/ (%" PRIu32
		         ") nor, for a mkdir, data/ (%" PRIu32 ")",
		         what, r->dir, (uint32_t)DURLOG_DIR_META, (uint32_t)TREE_DIR_TOP);
		return -EINVAL;
	}
	if (r->file >= reach) {
		snprintf(err, errlen,
		         "%s: directory id %" PRIu32
		         " is beyond the directories filesystem %u can have (below %" PRIu64 ")",
		         what, r->file, r->fs, reach);
		return -EINVAL;
	}
	return 0;
}

/* Record r (at slot) names filesystems, files, directories and extents within b; base[fs] is
 * 1 + the highest file id of fs's base records so far (they come first). */
static int check_fields(const struct durlog_read *rd, const struct durlog_rec *r, size_t slot,
                        const struct durlog_bounds *b, uint64_t *base, char *err, size_t errlen)
{
	char w[32], what[160];
	snprintf(what, sizeof(what), "record %zu (%s, seq %" PRIu64 ", %s)", slot,
	         who(r->worker, w, sizeof(w)), r->seq, durlog_kind_name((enum durlog_kind)r->kind));
	if (r->fs >= rd->h.n_fs) {
		snprintf(err, errlen, "%s: filesystem %u, but the log has %" PRIu32, what, r->fs,
		         rd->h.n_fs);
		return -EINVAL;
	}
	const struct durlog_fs_bounds *fb = &b->fs[r->fs];
	if (r->kind == DL_MKDIR || r->kind == DL_RMDIR)
		return check_dir_rec(rd, r, fb, what, err, errlen);
	bool names_file = r->kind != DL_DIRSYNC && r->kind != DL_SYNCFS && r->kind != DL_SYNC;
	bool names_dir = names_file && r->kind != DL_WSTART;
	uint64_t reach = base[r->fs] + id_reach(rd);
	if (r->kind == DL_BASE || reach > fb->files)
		reach = fb->files;
	if (names_file && r->file >= reach) {
		snprintf(err, errlen,
		         "%s: file id %" PRIu32 " is beyond the file ids filesystem %u can have "
		         "(below %" PRIu64 ": %s)",
		         what, r->file, r->fs, reach,
		         reach == fb->files ? "no file pool is larger"
		                            : "its base files' ids and what the log's records can "
		                              "have made since");
		return -EINVAL;
	}
	if (r->kind == DL_BASE && r->file >= base[r->fs])
		base[r->fs] = (uint64_t)r->file + 1;
	bool dir_ok = r->dir < fb->dirs || r->dir == TREE_DIR_TOP ||
	              (r->kind == DL_DIRSYNC && r->dir == DURLOG_DIR_META);
	bool aux_dir = r->kind == DL_RENAME || r->kind == DL_LINK || r->kind == DL_UNLINK;
	if (aux_dir && r->aux >= fb->dirs && r->aux != TREE_DIR_TOP) {
		snprintf(err, errlen,
		         "%s: the directory %s, %" PRIu32 ", is beyond the directories of "
		         "filesystem %u (below %" PRIu64 ")",
		         what, r->kind == DL_RENAME ? "it left" : "its first name is in", r->aux,
		         r->fs, fb->dirs);
		return -EINVAL;
	}
	if (r->kind == DL_FALLOCATE && r->aux >= DL_FALLOC_COUNT) {
		snprintf(err, errlen, "%s: fallocate mode %" PRIu32 " is none of 0 to %d", what,
		         r->aux, DL_FALLOC_COUNT - 1);
		return -EINVAL;
	}
	if ((names_dir || r->kind == DL_DIRSYNC) && !dir_ok) {
		snprintf(err, errlen,
		         "%s: directory %" PRIu32 " is beyond the directories of filesystem %u "
		         "(below %" PRIu64 ": num_dirs and what createdir can add)",
		         what, r->dir, r->fs, fb->dirs);
		return -EINVAL;
	}
	if (r->off > DURLOG_OFF_MAX || r->len > DURLOG_OFF_MAX - r->off ||
	    r->size > DURLOG_OFF_MAX) {
		snprintf(err, errlen,
		         "%s: extent [%" PRIu64 ", +%" PRIu64 "), length %" PRIu64
		         " beyond the largest file offset (2^63 - 1)",
		         what, r->off, r->len, r->size);
		return -EINVAL;
	}
	return 0;
}

/* Each worker's records from seq 0, in order, without gaps; every worker one of the header's.
 * last[w]: the slot of worker w's last record (0: none; the main thread at n_workers). */
static int check_seqs(const struct durlog_read *rd, const struct durlog_bounds *b, uint64_t *next,
                      size_t *last, char *err, size_t errlen)
{
	uint32_t nw = rd->h.n_workers;
	uint64_t base[DURLOG_MAX_FS] = {0};
	size_t slot = 0, bi = 0;
	for (size_t i = 0; i < rd->n; i++) {
		const struct durlog_rec *r = &rd->recs[i];
		slot++;
		while (bi < rd->n_bad && rd->bad[bi].at == slot)
			slot += rd->bad[bi++].count; /* the good record after a bad run */
		char w[32];
		if (r->worker != DURLOG_WORKER_MAIN && r->worker >= nw) {
			snprintf(err, errlen,
			         "record %zu: worker %" PRIu32 ", but its header has %" PRIu32
			         " workers",
			         slot, r->worker, nw);
			return -EINVAL;
		}
		uint32_t k = r->worker == DURLOG_WORKER_MAIN ? nw : r->worker;
		if (r->seq > next[k]) {
			snprintf(err, errlen,
			         "%s: records %" PRIu64 "-%" PRIu64
			         " missing (record %zu, its next "
			         "in the log, has seq %" PRIu64 ")",
			         who(r->worker, w, sizeof(w)), next[k], r->seq - 1, slot, r->seq);
			return -EINVAL;
		}
		if (r->seq < next[k]) {
			snprintf(err, errlen,
			         "%s: record %zu has seq %" PRIu64 " after seq %" PRIu64
			         ": repeated or out of order",
			         who(r->worker, w, sizeof(w)), slot, r->seq, next[k] - 1);
			return -EINVAL;
		}
		next[k]++;
		last[k] = slot;
		if (check_fields(rd, r, slot, b, base, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* Bad slots before the last good record: each must be where some worker's records may end
 * (one whose last record is before it; the main thread's setup records never are, they are
 * synced before the logger starts), and the setup records whole (a syncfs per filesystem). */
static int check_torn(const struct durlog_read *rd, const uint64_t *next, const size_t *last,
                      char *err, size_t errlen)
{
	uint32_t nw = rd->h.n_workers;
	size_t quiet = SIZE_MAX; /* the slot after which some worker wrote nothing */
	for (uint32_t w = 0; w < nw; w++)
		quiet = last[w] < quiet ? last[w] : quiet;
	for (size_t i = 0; i < rd->n_bad; i++) {
		const struct durlog_span *s = &rd->bad[i];
		if (s->at > last[nw] && quiet < s->at)
			continue;
		char range[96];
		if (s->count == 1)
			snprintf(range, sizeof(range), "record %zu fails its check", s->at);
		else
			snprintf(range, sizeof(range), "records %zu-%zu fail their check", s->at,
			         s->at + s->count - 1);
		snprintf(err, errlen,
		         "%s, and %s: the log was damaged in the middle after it was written (only "
		         "the last records of a worker may be torn)",
		         range,
		         s->at < last[nw] ? "setup records of the main thread follow (they are "
		                            "fdatasynced before any other)"
		                          : "every worker has a later record");
		return -EINVAL;
	}
	uint32_t syncfs = 0;
	for (size_t i = 0; i < rd->n && rd->recs[i].worker == DURLOG_WORKER_MAIN; i++)
		syncfs += rd->recs[i].kind == DL_SYNCFS;
	if (syncfs < rd->h.n_fs) {
		snprintf(err, errlen,
		         "its setup records end before the syncfs of every filesystem (%" PRIu32
		         " of %" PRIu32 "; %" PRIu64 " setup records): the log was cut before its "
		         "run phase began, so it holds no promise to check",
		         syncfs, rd->h.n_fs, next[nw]);
		return -EINVAL;
	}
	return 0;
}

int durlog_check(const struct durlog_read *rd, const struct durlog_bounds *b, char *err,
                 size_t errlen)
{
	int rc = check_shape(rd, err, errlen);
	if (rc)
		return rc;
	uint32_t nw = rd->h.n_workers;
	if (nw > b->max_workers) {
		snprintf(err, errlen,
		         "its header has %" PRIu32 " workers; a run has at most %" PRIu32, nw,
		         b->max_workers);
		return -EINVAL;
	}
	uint64_t *next = calloc((size_t)nw + 1, sizeof(*next));
	size_t *last = calloc((size_t)nw + 1, sizeof(*last));
	if (!next || !last) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc)
		rc = check_seqs(rd, b, next, last, err, errlen);
	if (!rc)
		rc = check_count(rd, err, errlen);
	if (!rc)
		rc = check_torn(rd, next, last, err, errlen);
	free(next);
	free(last);
	return rc;
}
