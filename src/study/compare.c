/* compare.c - before/after comparison (see compare.h). */
#include "compare.h"

#include "docschema.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "docschema.h"
#include "metrics.h"
#include "plot.h"
#include "outfile.h"
#include "report_data.h"
#include "tstat.h"

/* A document's points: label and the runs (array of run results). A single run is one point
 * labelled "run", and a single run in phases one more per phase, "phase0", "phase1", ...:
 * a run of its own made of the phase's object as its total (extra owns them, names their
 * labels). */
struct doc {
	const char *path;
	json_t *root;
	size_t n;
	const char **labels;
	json_t ***runs;
	size_t *n_runs;
	json_t *extra;
	char (*names)[24];
};

static void doc_free(struct doc *d)
{
	for (size_t i = 0; d->runs && i < d->n; i++)
		free(d->runs[i]);
	free(d->runs);
	free(d->n_runs);
	free(d->labels);
	free(d->names);
	json_decref(d->extra);
	json_decref(d->root);
}

/* A single run in phases: point 1 + k is phase k, its object the total of a run of its own
 * (the metrics read a run's total). 0, or -1 when out of memory. */
static int doc_phases(struct doc *d, const json_t *phases)
{
	size_t n = json_array_size(phases);
	d->extra = json_array();
	d->names = calloc(n + 1, sizeof(*d->names));
	if (!d->extra || !d->names)
		return -1;
	for (size_t k = 0; k < n; k++) {
		json_t *run = json_pack("{sO}", "total", json_array_get(phases, k));
		if (!run || json_array_append_new(d->extra, run) ||
		    !(d->runs[1 + k] = calloc(2, sizeof(json_t *))))
			return -1;
		snprintf(d->names[k], sizeof(d->names[k]), "phase%zu", k);
		d->labels[1 + k] = d->names[k];
		d->runs[1 + k][0] = run;
		d->n_runs[1 + k] = 1;
	}
	return 0;
}

/* The points of a parsed document; takes a reference to root. -1 with a message on log when it
 * is not a run or sweep; the document is then still doc_free()d. */
static int doc_from_json(struct doc *d, const char *path, json_t *root, FILE *log)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->root = json_incref(root);
	const json_t *pts = json_object_get(d->root, "points");
	bool single = !pts && json_object_get(d->root, "total");
	if (!single && !json_is_array(pts)) {
		fprintf(log,
		        "fsmix: %s: not an fsmix result (neither a run from 'run --json' nor a "
		        "sweep)\n",
		        path);
		return -1;
	}
	const json_t *phases = single ? json_object_get(d->root, "phases") : NULL;
	size_t n_phases = json_is_array(phases) ? json_array_size(phases) : 0;
	d->n = single ? 1 + n_phases : json_array_size(pts);
	d->labels = calloc(d->n + 1, sizeof(*d->labels));
	d->runs = calloc(d->n + 1, sizeof(*d->runs));
	d->n_runs = calloc(d->n + 1, sizeof(*d->n_runs));
	if (!d->labels || !d->runs || !d->n_runs)
		return -1;
	for (size_t i = 0; i < d->n; i++) {
		const json_t *pt = single ? NULL : json_array_get(pts, i);
		const json_t *runs = single ? NULL : json_object_get(pt, "runs");
		size_t k = single ? 1 : json_array_size(runs);
		d->labels[i] = single ? "run" : json_string_value(json_object_get(pt, "label"));
		if (!d->labels[i])
			d->labels[i] = "?";
		d->runs[i] = calloc(k + 1, sizeof(json_t *));
		if (!d->runs[i])
			return -1;
		for (size_t r = 0; r < k; r++)
			d->runs[i][r] = single ? d->root : json_array_get(runs, r);
		d->n_runs[i] = k;
		if (single)
			break; /* the phases' points are doc_phases's */
	}
	return n_phases ? doc_phases(d, phases) : 0;
}

/* The resolved profile of a document (of its first run). */
static const json_t *doc_profile(const struct doc *d)
{
	return d->n && d->n_runs[0] ? json_object_get(d->runs[0][0], "profile") : NULL;
}

/* Keys that may differ between a base and a new run of the same profile: where it ran, for
 * how long, with which seed, and whatever was swept. */
static bool ignored_key(const char *key, const struct doc *a, const struct doc *b)
{
	if (!strcmp(key, "location") || !strcmp(key, "time") || !strcmp(key, "seed"))
		return true;
	const struct doc *docs[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		size_t k;
		const json_t *dim;
		json_array_foreach(json_object_get(docs[i]->root, "dimensions"), k, dim)
		{
			const char *label = json_string_value(json_object_get(dim, "label"));
			if (!label)
				continue;
			if (json_is_true(json_object_get(dim, "threads")) &&
			    !strcmp(key, "num_threads"))
				return true;
			const char *dot = strrchr(label, '.');
			if (dot ? !strcmp(dot + 1, key) : !strcmp(label, key)) /* "iodepth" */
				return true;
		}
	}
	return false;
}

/* First differing key of two resolved profiles (section/key), or NULL when they match. */
static const char *profile_diff(const json_t *pa, const json_t *pb, const struct doc *a,
                                const struct doc *b, char *buf, size_t len)
{
	const char *lists[] = {"filesystems", "threadgroups"};
	const json_t *sa[64], *sb[64];
	size_t n = 0;
	sa[n] = json_object_get(pa, "global");
	sb[n++] = json_object_get(pb, "global");
	for (int l = 0; l < 2; l++) {
		const json_t *x = json_object_get(pa, lists[l]), *y = json_object_get(pb, lists[l]);
		if (json_array_size(x) != json_array_size(y)) {
			snprintf(buf, len, "a different number of %s", lists[l]);
			return buf;
		}
		for (size_t i = 0; i < json_array_size(x) && n + 2 < 64; i++) {
			sa[n] = json_array_get(x, i);
			sb[n++] = json_array_get(y, i);
			sa[n] = json_object_get(json_array_get(x, i), "stats");
			sb[n++] = json_object_get(json_array_get(y, i), "stats");
		}
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *ka = json_object_get(sa[i], "keys"),
		             *kb = json_object_get(sb[i], "keys");
		const char *key;
		const json_t *va;
		json_object_foreach((json_t *)ka, key, va)
		{
			if (ignored_key(key, a, b))
				continue;
			const json_t *vb = json_object_get(kb, key);
			if (!json_equal(json_object_get(va, "value"),
			                json_object_get(vb, "value"))) {
				const char *sec = json_string_value(json_object_get(sa[i], "name"));
				snprintf(buf, len, "[%s] %s", sec ? sec : "?", key);
				return buf;
			}
		}
	}
	return NULL;
}

struct row {
	const char *label;
	enum metric_id m;
	struct metric_stat base, now;
	char mark;
	/* Welch's t-test of NEW against BASE, when both have n >= 2 and some spread; the CI of
	 * the difference is also given in % of BASE AVG (when that is not 0) */
	bool tested, pct;
	struct tstat_welch w;
	double lo_pct, hi_pct;
	/* 100 * (NEW AVG - BASE AVG) / BASE AVG (0 when BASE AVG is 0) */
	double change;
	/* a figure is not finite: valid documents whose values (1e308) overflow a sum, a
	 * square or the change; those figures are "n/a (overflow)" and null, the mark '?' */
	bool overflow;
};

/* r->tested and its figures from r->base and r->now. */
static void row_test(struct row *r)
{
	struct tstat_sample a = {r->base.n, r->base.mean, r->base.stddev},
	                    b = {r->now.n, r->now.mean, r->now.stddev};
	r->tested = tstat_welch(&a, &b, &r->w);
	r->pct = r->tested && r->base.mean != 0;
	if (r->pct) {
		r->lo_pct = 100 * r->w.lo / r->base.mean;
		r->hi_pct = 100 * r->w.hi / r->base.mean;
		if (r->lo_pct > r->hi_pct) { /* a negative base mean */
			double t = r->lo_pct;
			r->lo_pct = r->hi_pct;
			r->hi_pct = t;
		}
	}
}

/* The p-value and the CI of the change for the text table ("n/a" when not tested). */
static void row_test_text(const struct row *r, char *p, size_t plen, char *ci, size_t cilen)
{
	if (!r->tested) {
		snprintf(p, plen, "n/a");
		snprintf(ci, cilen, "n/a");
		return;
	}
	snprintf(p, plen, r->w.p >= 0.001 ? "%.3f" : "%.1e", r->w.p);
	if (r->pct)
		snprintf(ci, cilen, "[%+.1f%%, %+.1f%%]", r->lo_pct, r->hi_pct);
	else
		snprintf(ci, cilen, "[%+.4g, %+.4g]", r->w.lo, r->w.hi);
}

/* v by fmt into buf (16 bytes), or "n/a" when v is not finite (an overflowed figure). */
static const char *cell(char buf[16], const char *fmt, double v)
{
	if (!isfinite(v))
		return "n/a";
	snprintf(buf, 16, fmt, v);
	return buf;
}

/* v as a JSON real, null when not finite (JSON has no inf: jansson refuses it). */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* v as a CSV field: empty when not finite. */
static void csv_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
}

static void print_rows(FILE *out, const struct row *rows, size_t n, const char *bp, const char *np)
{
	fprintf(out, "BASE: %s\nNEW:  %s\n", bp, np);
	fprintf(out, "%-24s %-12s %14s %12s %14s %12s %9s  %s  %9s  %s\n", "point", "metric",
	        "BASE AVG", "STDDEV", "NEW AVG", "STDDEV", "change", "mark", "p (Welch)",
	        "95% CI of change");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char p[16], ci[48];
		row_test_text(r, p, sizeof(p), ci, sizeof(ci));
		if (r->overflow) {
			char c[4][16], ch[16];
			fprintf(out, "%-24s %-12s %14s %12s %14s %12s %9s  (%c)  %9s  %s\n",
			        r->label, metric_table[r->m].title,
			        cell(c[0], "%.6g", r->base.mean),
			        cell(c[1], "%.4g", r->base.stddev), cell(c[2], "%.6g", r->now.mean),
			        cell(c[3], "%.4g", r->now.stddev), cell(ch, "%.1f%%", r->change),
			        r->mark, p, "n/a (overflow)");
			continue;
		}
		fprintf(out, "%-24s %-12s %14.6g %12.4g %14.6g %12.4g %8.1f%%  (%c)  %9s  %s\n",
		        r->label, metric_table[r->m].title, r->base.mean, r->base.stddev,
		        r->now.mean, r->now.stddev, r->change, r->mark, p, ci);
	}
	fprintf(out,
	        "(%s rose with 2*STDDEV reliability, %s fell, 0: within the noise; runs "
	        "per point: BASE %zu, NEW %zu)\n",
	        "+:", "-:", n ? rows[0].base.n : 0, n ? rows[0].now.n : 0);
	fprintf(out, "(p: two-sided p-value of Welch's t-test; 95%% CI: of NEW AVG - BASE AVG, in "
	             "%% of BASE AVG; n/a: fewer than 2 runs on a side, or no spread on either)\n");
	for (size_t i = 0; i < n; i++)
		if (rows[i].overflow) {
			fprintf(out,
			        "(n/a (overflow), mark ?: a figure beyond the range of a double "
			        "(an input value near 1e308))\n");
			break;
		}
	fputc('\n', out);
}

struct out_ctx {
	const struct row *rows;
	size_t n;
	const char *base, *now;
};

static int fill_csv(FILE *f, void *arg)
{
	const struct out_ctx *c = arg;
	fprintf(
	    f,
	    "point,metric,base_avg,base_stddev,base_n,new_avg,new_stddev,new_n,change_pct,p_value,"
	    "ci95_low_pct,ci95_high_pct,mark\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		report_csv_field(f, r->label);
		fprintf(f, ",%s,", metric_table[r->m].key);
		csv_num(f, "%.6g", r->base.mean);
		fputc(',', f);
		csv_num(f, "%.6g", r->base.stddev);
		fprintf(f, ",%zu,", r->base.n);
		csv_num(f, "%.6g", r->now.mean);
		fputc(',', f);
		csv_num(f, "%.6g", r->now.stddev);
		fprintf(f, ",%zu,", r->now.n);
		csv_num(f, "%.3f", r->change);
		fputc(',', f);
		if (r->tested)
			fprintf(f, "%.6g", r->w.p);
		fputc(',', f);
		if (r->pct)
			fprintf(f, "%.6g,%.6g", r->lo_pct, r->hi_pct);
		else
			fputc(',', f);
		fprintf(f, ",%c\n", r->mark);
	}
	return ferror(f) ? -1 : 0;
}

static int fill_json(FILE *f, void *arg)
{
	const struct out_ctx *c = arg;
	json_t *rows = json_array();
	bool fail = !rows;
	for (size_t i = 0; !fail && i < c->n; i++) {
		const struct row *r = &c->rows[i];
		char mark[2] = {r->mark, 0};
		/* "o" hands ci and welch over to the row, also when json_pack fails (jansson then
		 * releases them) */
		json_t *ci = r->pct ? json_pack("[ff]", r->lo_pct, r->hi_pct) : json_null();
		json_t *welch = r->tested ? json_pack("{sfsfsfsf}", "t", r->w.t, "df", r->w.df,
		                                      "diff_low", r->w.lo, "diff_high", r->w.hi)
		                          : json_null();
		/* json_array_append_new fails for a NULL row (json_pack failed) and releases it */
		fail |=
		    json_array_append_new(
		        rows,
		        json_pack("{sssss{sososI}s{sososI}sososososs}", "point", r->label, "metric",
		                  metric_table[r->m].key, "base", "avg", jreal(r->base.mean),
		                  "stddev", jreal(r->base.stddev), "n", (json_int_t)r->base.n,
		                  "new", "avg", jreal(r->now.mean), "stddev", jreal(r->now.stddev),
		                  "n", (json_int_t)r->now.n, "change_pct", jreal(r->change),
		                  "p_value", r->tested ? json_real(r->w.p) : json_null(),
		                  "ci95_change_pct", ci, "welch", welch, "mark", mark)) != 0;
	}
	if (fail) {
		json_decref(rows);
		return -1;
	}
	/* "o" hands rows over to doc, also when json_pack fails (jansson then releases it) */
	json_t *doc = json_pack("{sssissssso}", "schema", "fsmix-compare", "schema_version", 1,
	                        "base", c->base, "new", c->now, "rows", rows);
	int rc = doc ? json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
	if (!rc)
		fputc('\n', f);
	json_decref(doc);
	return rc ? -1 : 0;
}

/* Compares b with the base a, prints the table to o->out and, for the first NEW (first), writes
 * the CSV, JSON and plot outputs. FAIL_INPUT for documents of different profiles (without
 * --force) or without a point in common; FAIL_IO when out of memory or an output cannot be
 * written; plot_write's failure for the plot. */
static enum failure compare_two(struct doc *a, struct doc *b, const struct compare_opts *o,
                                bool first)
{
	char why[256];
	const char *diff = profile_diff(doc_profile(a), doc_profile(b), a, b, why, sizeof(why));
	if (diff && !o->force) {
		fprintf(o->log,
		        "fsmix: %s and %s come from different profiles (%s differs); compare them "
		        "anyway with --force\n",
		        a->path, b->path, diff);
		return FAIL_INPUT;
	}
	if (diff)
		fprintf(o->log,
		        "fsmix: warning: different profiles (%s differs); compared because "
		        "of --force\n",
		        diff);
	struct row *rows = calloc(b->n * METRIC_COUNT + 1, sizeof(*rows));
	size_t n = 0;
	if (!rows)
		return FAIL_IO;
	for (size_t i = 0; i < b->n; i++) {
		size_t j = 0;
		while (j < a->n && strcmp(a->labels[j], b->labels[i]))
			j++;
		if (j == a->n)
			continue;
		for (int m = 0; m < METRIC_COUNT; m++) {
			struct row *r = &rows[n];
			r->label = b->labels[i];
			r->m = (enum metric_id)m;
			metric_stat_of(a->runs[j], a->n_runs[j], r->m, &r->base);
			metric_stat_of(b->runs[i], b->n_runs[i], r->m, &r->now);
			if (!r->base.n || !r->now.n)
				continue; /* not measured on one side (e.g. flushes on tmpfs) */
			r->change =
			    r->base.mean ? 100.0 * (r->now.mean - r->base.mean) / r->base.mean : 0;
			r->overflow = !isfinite(r->base.mean) || !isfinite(r->base.stddev) ||
			              !isfinite(r->now.mean) || !isfinite(r->now.stddev) ||
			              !isfinite(r->change);
			r->mark = r->overflow ? '?' : metric_mark(&r->base, &r->now);
			if (!r->overflow) /* no test of overflowed figures: n/a */
				row_test(r);
			n++;
		}
	}
	enum failure rc = FAIL_NONE;
	if (!n) {
		fprintf(o->log, "fsmix: %s and %s have no point in common\n", a->path, b->path);
		rc = FAIL_INPUT;
	} else {
		print_rows(o->out, rows, n, a->path, b->path);
		struct out_ctx ctx = {rows, n, a->path, b->path};
		char err[MSG_MAX];
		if (first && o->csv_path &&
		    outfile_write(o->csv_path, fill_csv, &ctx, err, sizeof(err))) {
			fprintf(o->log, "fsmix: %s\n", err);
			rc = FAIL_IO;
		}
		if (first && o->json_path &&
		    outfile_write(o->json_path, fill_json, &ctx, err, sizeof(err))) {
			fprintf(o->log, "fsmix: %s\n", err);
			rc = FAIL_IO;
		}
		if (first && o->plot_path && !rc)
			rc = plot_write(b->root, a->root, o->plot_path, o->log);
	}
	free(rows);
	return rc;
}

static int doc_load(struct doc *d, const char *path, FILE *log)
{
	json_error_t e;
	json_t *root = json_load_file(path, 0, &e);
	if (!root) {
		memset(d, 0, sizeof(*d));
		fprintf(log, "fsmix: %s:%d: not a JSON document: %s\n", path, e.line, e.text);
		return -1;
	}
	char why[MSG_MAX];
	if (doc_check(root, why, sizeof(why))) { /* docschema.h: the documented schema */
		memset(d, 0, sizeof(*d));
		fprintf(log, "fsmix: %s: not a valid fsmix result: %s\n", path, why);
		json_decref(root);
		return -1;
	}
	int rc = doc_from_json(d, path, root, log);
	json_decref(root);
	return rc;
}

enum failure compare_json(json_t *base, const char *base_name, json_t *now, const char *now_name,
                          const struct compare_opts *o)
{
	struct doc a, b;
	enum failure rc = FAIL_INPUT;
	int ra = doc_from_json(&a, base_name, base, o->log);
	int rb = doc_from_json(&b, now_name, now, o->log);
	if (!ra && !rb)
		rc = compare_two(&a, &b, o, true);
	doc_free(&a);
	doc_free(&b);
	return rc;
}

enum failure compare_files(const char *const *files, size_t n, const struct compare_opts *o)
{
	if (n < 2) {
		fprintf(o->log, "fsmix: compare needs a BASE and at least one NEW result file\n");
		return FAIL_INPUT;
	}
	struct doc base;
	if (doc_load(&base, files[0], o->log)) {
		doc_free(&base);
		return FAIL_INPUT;
	}
	enum failure rc = FAIL_NONE;
	for (size_t i = 1; i < n; i++) {
		struct doc now;
		/* An unreadable NEW file is named as the failure even after another NEW's: the
		 * user gave a file fsmix could not compare at all. */
		if (doc_load(&now, files[i], o->log))
			rc = FAIL_INPUT;
		else
			rc = failure_first(rc, compare_two(&base, &now, o, i == 1));
		doc_free(&now);
	}
	doc_free(&base);
	return rc;
}
