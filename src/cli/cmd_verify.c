/* cmd_verify.c - `fsmix verify PROFILE --location L --durability-log FILE [--model linux|posix]
 * [--cut-at NS] [--json F]`: after a crash and a remount, every promise of a run's durability
 * log (as it stood at the power cut: engine_verify_cut) checked against its trees (read-only),
 * reported as text and JSON (docs/output.md, "fsmix verify"). Exit 0: every promise kept; 1: one
 * broken (or a file unreadable); 2: bad input (a log that is not one, a bad log, or one of another
 * tree). --json F is always about this verify: a document that says no report yet replaces F before
 * anything is checked, and the report, or a document naming the failure, replaces that at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "commands.h"
#include "diag.h"
#include "durcheck.h"
#include "durmodel.h"
#include "engine.h"
#include "exitcode.h"
#include "load.h"
#include "outfile.h"
#include "plan.h"
#include "profile.h"

struct verify_doc {
	const struct cli *c;
	const struct plan *pl;
	const struct dm_report *rep;
	int exit_status;   /* the document's exit_status (-1: null, not finished) */
	const char *error; /* no report: why (NULL: the report) */
};

/* CLOCK_REALTIME of a record's CLOCK_MONOTONIC time, as ISO 8601 UTC with microseconds. */
static void real_time(const struct dm_report *rep, uint64_t mono, char *buf, size_t len)
{
	int64_t d = (int64_t)(mono - rep->mono_ns);
	uint64_t real = rep->real_ns + (uint64_t)d;
	time_t s = (time_t)(real / 1000000000u);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06uZ", (unsigned)(real % 1000000000u / 1000u));
}

static void file_path(const struct plan *pl, const struct dm_finding *f, char *buf, size_t len)
{
	const char *loc = f->fs < pl->n_fs ? pl->fs[f->fs].location : "?";
	unsigned index = f->fs < pl->n_fs ? pl->fs[f->fs].index : f->fs;
	char c = f->second ? 'l' : 'f'; /* the second name l<id> (durmodel.h) */
	if (f->is_dir && f->dir == DURLOG_DIR_META)
		snprintf(buf, len, "%s/fsmix.fs%u/meta/m%u", loc, index, f->file);
	else if (f->is_dir)
		snprintf(buf, len, "%s/fsmix.fs%u/data/d%03u", loc, index, f->file);
	else if (f->dir == TREE_DIR_TOP)
		snprintf(buf, len, "%s/fsmix.fs%u/data/%c%u", loc, index, c, f->file);
	else
		snprintf(buf, len, "%s/fsmix.fs%u/data/d%03u/%c%u", loc, index, f->dir, c, f->file);
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static void print_finding(FILE *o, const struct verify_doc *d, const struct dm_finding *f)
{
	char path[PATH_MAX + 64], when[48], ex[2 * CONTENT_SHOW + 1], fo[2 * CONTENT_SHOW + 1];
	file_path(d->pl, f, path, sizeof(path));
	real_time(d->rep, f->ref.t_ns, when, sizeof(when));
	fprintf(o, "    %s: %s", dm_kind_name(f->kind), path);
	if (f->kind == DM_SHORT)
		fprintf(o, ": %" PRIu64 " bytes, acknowledged %" PRIu64, f->off, f->expected_len);
	else if (f->kind == DM_UNREADABLE)
		fprintf(o, ": %s (errno %d)", strerror(f->err), f->err);
	else if (f->kind == DM_MIXED)
		fprintf(o,
		        " at offset %" PRIu64
		        ": generation %u, where the replace wrote %u: old and "
		        "new content in one file",
		        f->off, f->gen_found, f->gen_min);
	else if (f->kind == DM_EMPTIED)
		fprintf(o, ": 0 bytes, the replace wrote %" PRIu64, f->expected_len);
	else if (f->kind != DM_MISSING && f->kind != DM_RESURRECTED) {
		hex(f->expected, f->shown, ex);
		hex(f->found, f->shown, fo);
		fprintf(o,
		        " at offset %" PRIu64
		        ": generation %u..%u promised, found %u (expected %s, "
		        "found %s)",
		        f->off, f->gen_min, f->gen_max, f->gen_found, ex, fo);
	}
	fprintf(o, "; promised by %s (worker %d, seq %" PRIu64 ", %s)\n",
	        durlog_kind_name((enum durlog_kind)f->ref.kind),
	        f->ref.worker == DURLOG_WORKER_MAIN ? -1 : (int)f->ref.worker, f->ref.seq, when);
}

/* The findings by kind, with their examples, each line after indent. */
static void print_kinds(FILE *o, const struct verify_doc *d, const char *indent,
                        const uint64_t by_kind[DM_KIND_COUNT],
                        const struct dm_finding examples[DM_KIND_COUNT][DM_EXAMPLES],
                        const size_t n_examples[DM_KIND_COUNT])
{
	for (int k = 0; k < DM_KIND_COUNT; k++) {
		if (!by_kind[k])
			continue;
		fprintf(o, "%s%s: %" PRIu64 "%s\n", indent, dm_kind_name((enum dm_kind)k),
		        by_kind[k], by_kind[k] > n_examples[k] ? " (the first ones:)" : "");
		for (size_t i = 0; i < n_examples[k]; i++) {
			fputs(indent + 2, o); /* print_finding indents by 4 */
			print_finding(o, d, &examples[k][i]);
		}
	}
}

static void print_text(FILE *o, const struct verify_doc *d)
{
	const struct dm_report *r = d->rep;
	fprintf(o, "fsmix verify: %s, log %s, model %s\n", d->c->profile, d->c->durability_log_path,
	        r->model == DM_POSIX ? "posix" : "linux");
	fprintf(o,
	        "  journal: %" PRIu64 " records%s; acknowledged: %" PRIu64 " fsync, %" PRIu64
	        " fdatasync, %" PRIu64 " O_SYNC/O_DSYNC writes, %" PRIu64 " sync, %" PRIu64
	        " syncfs, %" PRIu64 " dirsync, %" PRIu64 " replace\n",
	        r->records,
	        r->log_complete || r->cut_ns ? "" : " (no end record: the run did not end)",
	        r->acks[DL_FSYNC], r->acks[DL_FDATASYNC], r->osync_writes, r->acks[DL_SYNC],
	        r->acks[DL_SYNCFS], r->acks[DL_DIRSYNC], r->acks[DL_REPLACE]);
	if (r->cut_ns) {
		char when[48];
		real_time(r, r->cut_ns, when, sizeof(when));
		fprintf(o,
		        "  power cut at %s (--cut-at %" PRIu64 "): %" PRIu64
		        " record%s acknowledged from then on, checked as what the run did after "
		        "the crash, not as promises\n",
		        when, r->cut_ns, r->after_cut, r->after_cut == 1 ? "" : "s");
	}
	fprintf(o,
	        "  files with a promise: %" PRIu64 " (data %" PRIu64 ", names %" PRIu64
	        "); files created in the run: %" PRIu64 ", their names promised: %" PRIu64
	        "; unlinks promised: %" PRIu64 "\n",
	        r->files_expected, r->data_promises, r->name_promises, r->created,
	        r->names_created_promised, r->unlink_promises);
	if (r->acks[DL_MKDIR] || r->acks[DL_RMDIR])
		fprintf(o,
		        "  directories: %" PRIu64 " made, %" PRIu64 " removed; promised (made or "
		        "removed): %" PRIu64 "\n",
		        r->acks[DL_MKDIR], r->acks[DL_RMDIR], r->dir_promises);
	if (r->link_promises)
		fprintf(o, "  second names promised (there, or gone): %" PRIu64 "\n",
		        r->link_promises);
	if (r->model == DM_POSIX && r->created && !r->acks[DL_DIRSYNC])
		fprintf(o,
		        "  posix model: no directory was fsynced (dirsync=0), so no name of a file "
		        "created in the run is promised\n");
	if (r->absent_unpromised)
		fprintf(o, "  files absent whose names were not promised (allowed): %" PRIu64 "\n",
		        r->absent_unpromised);
	fprintf(o, "  promises checked %" PRIu64 ", kept %" PRIu64 ", broken %" PRIu64, r->checked,
	        r->kept, r->broken);
	if (r->lost_tail)
		fprintf(o, ", unsettled by the lost tail %" PRIu64, r->lost_tail);
	fputc('\n', o);
	print_kinds(o, d, "  ", r->by_kind, r->examples, r->n_examples);
	if (r->lost_tail) {
		fprintf(o,
		        "  lost tail: %" PRIu64 " promise%s not found as made, which a delete or "
		        "create after %s may explain: not counted as broken\n",
		        r->lost_tail, r->lost_tail == 1 ? "" : "s",
		        r->cut_ns ? "the cut"
		                  : "the log's last record (the log has no end record)");
		print_kinds(o, d, "    ", r->lost_by_kind, r->lost_examples, r->n_lost_examples);
	}
	if (r->broken)
		fprintf(o, "fsmix verify: %" PRIu64 " promise%s broken\n", r->broken,
		        r->broken == 1 ? "" : "s");
	else if (r->lost_tail)
		fprintf(o, "fsmix verify: no promise broken (%" PRIu64 " unsettled: lost tail)\n",
		        r->lost_tail);
	else
		fprintf(o, "fsmix verify: every promise kept\n");
}

static json_t *finding_json(const struct verify_doc *d, const struct dm_finding *f)
{
	char path[PATH_MAX + 64], when[48], ex[2 * CONTENT_SHOW + 1], fo[2 * CONTENT_SHOW + 1];
	file_path(d->pl, f, path, sizeof(path));
	real_time(d->rep, f->ref.t_ns, when, sizeof(when));
	hex(f->expected, f->shown, ex);
	hex(f->found, f->shown, fo);
	json_t *p = json_pack(
	    "{s:s, s:i, s:I, s:s, s:I}", "kind", durlog_kind_name((enum durlog_kind)f->ref.kind),
	    "worker", f->ref.worker == DURLOG_WORKER_MAIN ? -1 : (int)f->ref.worker, "seq",
	    (json_int_t)f->ref.seq, "time", when, "monotonic_ns", (json_int_t)f->ref.t_ns);
	json_t *j =
	    json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:o}", "kind",
	              dm_kind_name(f->kind), "path", path, "filesystem", (int)f->fs, "file",
	              (json_int_t)f->file, "offset", (json_int_t)f->off, "expected_length",
	              (json_int_t)f->expected_len, "gen_min", (json_int_t)f->gen_min, "gen_max",
	              (json_int_t)f->gen_max, "gen_found", (json_int_t)f->gen_found, "expected", ex,
	              "found", fo, "promise", p);
	if (j && f->kind == DM_UNREADABLE) {
		json_object_set_new(j, "errno", json_integer(f->err));
		json_object_set_new(j, "error", json_string(strerror(f->err)));
	}
	return j;
}

/* Counts by kind ({missing: N, ...}) and the examples of each kind ({missing: [...], ...}). */
static void kinds_json(const struct verify_doc *d, const uint64_t by_kind[DM_KIND_COUNT],
                       const struct dm_finding examples[DM_KIND_COUNT][DM_EXAMPLES],
                       const size_t n_examples[DM_KIND_COUNT], json_t **by, json_t **ex)
{
	*by = json_object(), *ex = json_object();
	for (int k = 0; k < DM_KIND_COUNT; k++) {
		json_object_set_new(*by, dm_kind_name((enum dm_kind)k),
		                    json_integer((json_int_t)by_kind[k]));
		json_t *a = json_array();
		for (size_t i = 0; i < n_examples[k]; i++)
			json_array_append_new(a, finding_json(d, &examples[k][i]));
		json_object_set_new(*ex, dm_kind_name((enum dm_kind)k), a);
	}
}

/* Every checked file's verdict, for a file-by-file comparison: [fs, file, verdict, kind]; dirs:
 * every checked directory's, [fs, "meta" or "data" (its parent), id, verdict, kind]. */
static json_t *files_json(const struct dm_report *r, bool dirs)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < r->n_verdicts; i++) {
		const struct dm_verdict *v = &r->verdicts[i];
		bool kept = v->kind == DM_KIND_COUNT;
		if (v->is_dir != dirs)
			continue;
		if (dirs) {
			json_array_append_new(
			    a, json_pack("[I, s, I, s, s?]", (json_int_t)v->fs,
			                 v->parent == DURLOG_DIR_META ? "meta" : "data",
			                 (json_int_t)v->file,
			                 kept      ? "kept"
			                 : v->lost ? "lost_tail"
			                           : "broken",
			                 kept ? NULL : dm_kind_name(v->kind)));
			continue;
		}
		json_array_append_new(a, json_pack("[I, I, s, s?]", (json_int_t)v->fs,
		                                   (json_int_t)v->file,
		                                   kept      ? "kept"
		                                   : v->lost ? "lost_tail"
		                                             : "broken",
		                                   kept ? NULL : dm_kind_name(v->kind)));
	}
	return a ? a : json_null();
}

static int fill_json(FILE *o, void *arg)
{
	const struct verify_doc *d = arg;
	const struct dm_report *r = d->rep;
	json_t *by, *ex, *lost_by, *lost_ex;
	kinds_json(d, r->by_kind, r->examples, r->n_examples, &by, &ex);
	kinds_json(d, r->lost_by_kind, r->lost_examples, r->n_lost_examples, &lost_by, &lost_ex);
	json_t *acks =
	    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "fsync", (json_int_t)r->acks[DL_FSYNC],
	              "fdatasync", (json_int_t)r->acks[DL_FDATASYNC], "osync_writes",
	              (json_int_t)r->osync_writes, "sync", (json_int_t)r->acks[DL_SYNC], "syncfs",
	              (json_int_t)r->acks[DL_SYNCFS], "dirsync", (json_int_t)r->acks[DL_DIRSYNC],
	              "replace", (json_int_t)r->acks[DL_REPLACE]);
	json_t *doc = json_pack(
	    "{s:i, s:s, s:s, s:s, s:b, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:o, s:o, s:I, s:o, s:o}",
	    "fsmix_verify", 1, "profile", d->c->profile, "log", d->c->durability_log_path, "model",
	    r->model == DM_POSIX ? "posix" : "linux", "log_complete", r->log_complete, "records",
	    (json_int_t)r->records, "torn_records", (json_int_t)r->torn, "acknowledged", acks,
	    "files_expected", (json_int_t)r->files_expected, "data_promises",
	    (json_int_t)r->data_promises, "name_promises", (json_int_t)r->name_promises,
	    "unlink_promises", (json_int_t)r->unlink_promises, "created", (json_int_t)r->created,
	    "created_names_promised", (json_int_t)r->names_created_promised, "absent_unpromised",
	    (json_int_t)r->absent_unpromised, "checked", (json_int_t)r->checked, "kept",
	    (json_int_t)r->kept, "broken", (json_int_t)r->broken, "broken_by_kind", by, "examples",
	    ex, "lost_tail", (json_int_t)r->lost_tail, "lost_tail_by_kind", lost_by,
	    "lost_tail_examples", lost_ex);
	if (doc) /* second names (link, unlink): whose last change is durable */
		json_object_set_new(doc, "second_name_promises",
		                    json_integer((json_int_t)r->link_promises));
	if (!doc)
		return -1;
	json_object_set_new(doc, "exit_status", json_integer(d->exit_status));
	json_object_set_new(doc, "error", json_null());
	json_object_set_new(doc, "files", files_json(r, false));
	json_object_set_new(doc, "directories", files_json(r, true));
	json_object_set_new(doc, "dir_promises", json_integer((json_int_t)r->dir_promises));
	json_object_set_new(doc, "cut_at_ns",
	                    r->cut_ns ? json_integer((json_int_t)r->cut_ns) : json_null());
	json_object_set_new(doc, "records_after_cut", json_integer((json_int_t)r->after_cut));
	json_object_set_new(acks, "mkdir", json_integer((json_int_t)r->acks[DL_MKDIR]));
	json_object_set_new(acks, "rmdir", json_integer((json_int_t)r->acks[DL_RMDIR]));
	int rc = json_dumpf(doc, o, JSON_INDENT(2));
	fputc('\n', o);
	json_decref(doc);
	return rc ? -1 : 0;
}

/* The document of a verify without a report: it has not finished (exit_status null), or it
 * failed (exit_status, error). Every key of a verdict is null, so that it never passes for one. */
static int fill_no_report(FILE *o, void *arg)
{
	const struct verify_doc *d = arg;
	json_t *doc = json_pack(
	    "{s:i, s:s, s:s, s:s, s:o, s:s, s:n, s:n, s:n, s:n, s:n, s:n}", "fsmix_verify", 1,
	    "profile", d->c->profile, "log", d->c->durability_log_path, "model",
	    d->c->model == DM_POSIX ? "posix" : "linux", "exit_status",
	    d->exit_status < 0 ? json_null() : json_integer(d->exit_status), "error", d->error,
	    "log_complete", "records", "checked", "kept", "broken", "lost_tail");
	if (!doc)
		return -1;
	int rc = json_dumpf(doc, o, JSON_INDENT(2));
	fputc('\n', o);
	json_decref(doc);
	return rc ? -1 : 0;
}

/* --json F is a file that is replaced whole (a regular file or a new name; not standard output,
 * a FIFO or a device, where a first document would stay in front of the second). */
static bool json_replaced(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return false;
	return stat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode);
}

/* What engine_verify says goes to stderr as it comes; its last line is kept for the document
 * of a verify that ends without a report. */
struct tee {
	char last[MSG_MAX + 1024];
	size_t len;
	bool ended; /* the last line ended: the next byte starts a new one */
};

static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
	struct tee *t = cookie;
	fwrite(buf, 1, n, stderr);
	for (size_t i = 0; i < n; i++) {
		if (t->ended && buf[i] != '\n')
			t->len = 0, t->ended = false;
		if (buf[i] == '\n')
			t->ended = true;
		else if (t->len + 1 < sizeof(t->last))
			t->last[t->len++] = buf[i];
	}
	t->last[t->len] = '\0';
	return (ssize_t)n;
}

/* The verify (engine_verify) with its messages on stderr; err gets the last of them. */
static enum failure run_verify(struct cli *c, const struct plan *pl, struct dm_report *rep,
                               char *err, size_t errlen)
{
	static struct tee t;
	memset(&t, 0, sizeof(t));
	FILE *log = fopencookie(&t, "w", (cookie_io_functions_t){.write = tee_write});
	if (log)
		setvbuf(log, NULL, _IONBF, 0);
	enum failure f = engine_verify_cut(pl, c->durability_log_path, c->model, c->cut_at_ns, rep,
	                                   log ? log : stderr);
	if (log)
		fclose(log);
	const char *m = !strncmp(t.last, "fsmix: ", 7) ? t.last + 7 : t.last;
	snprintf(err, errlen, "%s", m[0] ? m : "verify failed");
	return f;
}

/* The --json document: the report (rep, with f FAIL_NONE or a broken promise's), or the one of
 * a verify that failed (error). */
static enum failure write_json(struct verify_doc *doc, enum failure f, const char *error)
{
	char err[MSG_MAX + 64];
	doc->exit_status = exit_status_of(f);
	doc->error = error;
	if (!doc->c->json_path)
		return f;
	if (outfile_write(doc->c->json_path, error ? fill_no_report : fill_json, doc, err,
	                  sizeof(err))) {
		fprintf(stderr, "fsmix: --json %s\n", err);
		return f ? f : FAIL_IO;
	}
	return f;
}

enum failure cmd_verify(struct cli *c)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	static struct dm_report rep; /* 60 examples: too big for the stack */
	struct verify_doc doc = {c, &pl, &rep, -1,
	                         "verify has not finished (it is running, or it "
	                         "ended before its report)"};
	char err[MSG_MAX + 1024];
	/* first, F says no report yet: a verify killed mid-way leaves no older report there */
	if (c->json_path && json_replaced(c->json_path) &&
	    outfile_write(c->json_path, fill_no_report, &doc, err, sizeof(err))) {
		fprintf(stderr, "fsmix: --json %s\n", err);
		return FAIL_IO;
	}
	int rc = load_profile(c, false, &p, &pl, &d);
	diag_print(&d, stderr);
	enum failure f = FAIL_NONE;
	if (rc) {
		snprintf(err, sizeof(err), "%zu error%s in %s; nothing was verified", d.errors,
		         d.errors == 1 ? "" : "s", c->profile);
		fprintf(stderr, "fsmix: %s\n", err);
		f = write_json(&doc, FAIL_INPUT, err);
		profile_free(&p);
		diag_free(&d);
		return f;
	}
	f = run_verify(c, &pl, &rep, err, sizeof(err));
	if (f == FAIL_NONE) {
		bool json_stdout = c->json_path && !strcmp(c->json_path, "-");
		print_text(json_stdout ? stderr : stdout, &doc);
		f = write_json(&doc, rep.broken ? FAIL_IO : FAIL_NONE,
		               NULL); /* 1: a promise broken */
	} else
		f = write_json(&doc, f, err);
	free(rep.verdicts);
	rep.verdicts = NULL;
	plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	return f;
}
