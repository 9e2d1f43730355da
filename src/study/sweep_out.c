/* sweep_out.c - a sweep's summary table, JSON document and CSV file (sweep_int.h). */
#include "sweep_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exitcode.h"
#include "metrics.h"
#include "outfile.h"
#include "plot.h"
#include "report_data.h"

void sweep_until_stat(const struct point *pt, struct metric_stat *st)
{
	metric_stat_of(pt->runs, pt->n_runs, M_TRANS_PER_S, st);
}

static size_t runs_done(const struct point *pt)
{
	size_t done = 0;
	for (size_t r = 0; r < pt->n_runs; r++)
		done += pt->runs[r] != NULL;
	return done;
}

/* --repeat until: what became of a point's target. */
static const char *until_word(const struct sweep_spec *s, const struct point *pt)
{
	if (pt->reached)
		return "reached";
	return runs_done(pt) < s->repeat ? "stopped" : "not reached";
}

/* The second table: per point and metric, the 95 % confidence interval of the mean, in % of
 * the mean; with --repeat until, what became of the target. Only when a point has 2 runs. */
static void print_ci_table(const struct sweep_spec *s, struct point *pts, size_t n_pts, FILE *out)
{
	bool any = false, until = s->until_pct > 0;
	for (size_t i = 0; i < n_pts; i++)
		any |= runs_done(&pts[i]) >= 2;
	if (!any)
		return;
	fprintf(out, "\n%-28s %4s", "95% CI of the mean", "runs");
	for (int m = 0; m < METRIC_COUNT; m++)
		fprintf(out, " %19s", metric_table[m].title);
	fprintf(out, "%s\n", until ? "  target" : "");
	for (size_t i = 0; i < n_pts; i++) {
		struct point *pt = &pts[i];
		size_t done = runs_done(pt);
		if (!done)
			continue;
		fprintf(out, "%-28s %4zu", pt->label, done);
		for (int m = 0; m < METRIC_COUNT; m++) {
			struct metric_stat st;
			char cell[40];
			metric_stat_of(pt->runs, pt->n_runs, (enum metric_id)m, &st);
			double pct = metric_ci95_pct(&st);
			if (isnan(pct))
				snprintf(cell, sizeof(cell), "n/a");
			else if (st.n != done)
				snprintf(cell, sizeof(cell), "±%.3g%% (n=%zu)", pct, st.n);
			else
				snprintf(cell, sizeof(cell), "±%.3g%%", pct);
			/* "±" is two bytes: one more column of padding keeps the table straight */
			fprintf(out, " %*s", strstr(cell, "±") ? 20 : 19, cell);
		}
		if (until)
			fprintf(out, "  %s", until_word(s, pt));
		fputc('\n', out);
	}
	fprintf(out, "\n(mean ± t_{0.975,n-1} · stddev / √n, Student's t, in %% of the mean; n/a: "
	             "fewer than 2 runs)\n");
	if (until)
		fprintf(out,
		        "(--repeat until: a point stops once the 95%% CI of its mean trans/s is "
		        "within ±%g%% of the mean, after %d to %u runs)\n",
		        s->until_pct, SWEEP_UNTIL_MIN, s->repeat);
}

void sweep_print_table(const struct sweep_spec *s, struct point *pts, size_t n_pts, FILE *out)
{
	fprintf(out, "\n%-28s %4s", "point", "runs");
	for (int m = 0; m < METRIC_COUNT; m++)
		fprintf(out, " %19s", metric_table[m].title);
	fprintf(out, "  %s\n", "tree");
	for (size_t i = 0; i < n_pts; i++) {
		struct point *pt = &pts[i];
		size_t done = 0, reused = 0;
		for (size_t r = 0; r < pt->n_runs; r++) {
			done += pt->runs[r] != NULL;
			reused += pt->runs[r] && pt->reused[r];
		}
		if (!done)
			continue;
		fprintf(out, "%-28s %4zu", pt->label, done);
		for (int m = 0; m < METRIC_COUNT; m++) {
			struct metric_stat st;
			char cell[40];
			metric_stat_of(pt->runs, pt->n_runs, (enum metric_id)m, &st);
			if (!st.n)
				snprintf(cell, sizeof(cell), "n/a");
			else if (st.n > 1)
				snprintf(cell, sizeof(cell), "%.4g ± %.2g", st.mean, st.stddev);
			else
				snprintf(cell, sizeof(cell), "%.4g", st.mean);
			fprintf(out, " %19s", cell);
		}
		fprintf(out, "  %s\n",
		        reused == done ? "reused"
		        : reused       ? "reused/built"
		                       : "built");
	}
	fprintf(out, "\n(mean ± sample standard deviation over the repeats; n/a: not measured)\n");
	print_ci_table(s, pts, n_pts, out);
}

/* A number, or null for NaN (not defined: json_real refuses it). */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(struct point *pt)
{
	json_t *o = json_object();
	for (int m = 0; m < METRIC_COUNT; m++) {
		struct metric_stat st;
		metric_stat_of(pt->runs, pt->n_runs, (enum metric_id)m, &st);
		bool ci = st.n >= 2;
		json_object_set_new(
		    o, metric_table[m].key,
		    st.n ? json_pack(
		               "{sIsfsfsosososo}", "n", (json_int_t)st.n, "mean", st.mean, "stddev",
		               st.stddev, "ci95_half", jnum(st.ci95_half), "ci95_low",
		               ci ? json_real(st.mean - st.ci95_half) : json_null(), "ci95_high",
		               ci ? json_real(st.mean + st.ci95_half) : json_null(), "ci95_pct",
		               jnum(metric_ci95_pct(&st)))
		         : json_null());
	}
	return o;
}

/* What the sweep's JSON and CSV documents are made from. */
struct sweep_doc {
	const struct sweep_spec *s;
	struct point *pts;
	size_t n_pts;
	bool interrupted;
	int exit_status;
};

static json_t *sweep_json(const struct sweep_doc *c)
{
	const struct sweep_spec *s = c->s;
	json_t *root = json_object(), *dims = json_array(), *points = json_array(),
	       *cmd = json_array();
	for (size_t d = 0; d < s->n_dims; d++) {
		json_t *vals = json_array();
		for (size_t i = 0; i < s->dims[d].n; i++)
			json_array_append_new(vals, json_string(s->dims[d].values[i]));
		json_array_append_new(dims, json_pack("{sssssbso}", "label", s->dims[d].label,
		                                      "target", s->dims[d].target, "threads",
		                                      s->dims[d].threads, "values", vals));
	}
	for (int i = 0; i < s->argc; i++)
		json_array_append_new(cmd, json_string(s->argv[i]));
	for (size_t i = 0; i < c->n_pts; i++) {
		struct point *pt = &c->pts[i];
		json_t *params = json_object(), *runs = json_array(), *setup = json_array(),
		       *tree = json_array();
		size_t done = 0;
		for (size_t d = 0; d < s->n_dims; d++)
			json_object_set_new(params, s->dims[d].label,
			                    json_string(s->dims[d].values[pt->idx[d]]));
		for (size_t r = 0; r < pt->n_runs; r++) {
			if (!pt->runs[r])
				continue;
			done++;
			json_array_append(runs, pt->runs[r]);
			json_array_append_new(setup, json_real(pt->setup_s[r]));
			json_array_append_new(tree,
			                      json_string(pt->reused[r] ? "reused" : "built"));
		}
		if (!done) {
			json_decref(params);
			json_decref(runs);
			json_decref(setup);
			json_decref(tree);
			continue;
		}
		json_t *point =
		    json_pack("{sssososososo}", "label", pt->label, "params", params, "tree", tree,
		              "setup_s", setup, "summary", summary_json(pt), "runs", runs);
		if (point && s->until_pct > 0) {
			struct metric_stat st;
			sweep_until_stat(pt, &st);
			json_object_set_new(point, "until",
			                    json_pack("{sbsssIso}", "reached", pt->reached,
			                              "outcome", until_word(s, pt), "runs",
			                              (json_int_t)done, "trans_per_s_ci95_pct",
			                              jnum(metric_ci95_pct(&st))));
		}
		json_array_append_new(points, point);
	}
	json_object_set_new(root, "schema", json_string("fsmix-sweep"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "fsmix_version", json_string(FSMIX_VERSION));
	json_object_set_new(root, "profile_path", json_string(s->profile_path));
	json_object_set_new(root, "command_line", cmd);
	json_object_set_new(root, "repeat", json_integer(s->repeat));
	json_object_set_new(root, "repeat_until",
	                    s->until_pct > 0
	                        ? json_pack("{sfsIsIss}", "target_pct", s->until_pct, "min_runs",
	                                    (json_int_t)SWEEP_UNTIL_MIN, "max_runs",
	                                    (json_int_t)s->repeat, "metric", "trans_per_s")
	                        : json_null());
	json_object_set_new(root, "interrupted", json_boolean(c->interrupted));
	json_object_set_new(root, "exit_status", json_integer(c->exit_status));
	json_object_set_new(root, "dimensions", dims);
	json_object_set_new(root, "points", points);
	return root;
}

static int fill_json(FILE *f, void *arg)
{
	json_t *doc = sweep_json(arg);
	int rc = doc ? json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
	if (!rc)
		fputc('\n', f);
	json_decref(doc);
	return rc ? -1 : 0;
}

static int fill_csv(FILE *f, void *arg)
{
	const struct sweep_doc *c = arg;
	const struct sweep_spec *s = c->s;
	fputs("point", f);
	for (size_t d = 0; d < s->n_dims; d++) {
		fputc(',', f);
		report_csv_field(f, s->dims[d].label);
	}
	fputs(",repeat,tree,setup_s", f);
	for (int m = 0; m < METRIC_COUNT; m++)
		fprintf(f, ",%s", metric_table[m].key);
	fputc('\n', f);
	for (size_t i = 0; i < c->n_pts; i++) {
		struct point *pt = &c->pts[i];
		for (size_t r = 0; r < pt->n_runs + 2; r++) {
			bool stat_row = r >= pt->n_runs;
			if (!stat_row && !pt->runs[r])
				continue;
			report_csv_field(f, pt->label);
			for (size_t d = 0; d < s->n_dims; d++) {
				fputc(',', f);
				report_csv_field(f, s->dims[d].values[pt->idx[d]]);
			}
			if (stat_row)
				fprintf(f, ",%s,,", r == pt->n_runs ? "mean" : "stddev");
			else
				fprintf(f, ",%zu,%s,%.3f", r + 1,
				        pt->reused[r] ? "reused" : "built", pt->setup_s[r]);
			for (int m = 0; m < METRIC_COUNT; m++) {
				double v;
				struct metric_stat st;
				fputc(',', f);
				if (stat_row) {
					metric_stat_of(pt->runs, pt->n_runs, (enum metric_id)m,
					               &st);
					if (st.n)
						fprintf(f, "%.6g",
						        r == pt->n_runs ? st.mean : st.stddev);
				} else if (metric_get(pt->runs[r], (enum metric_id)m, &v)) {
					fprintf(f, "%.6g", v);
				}
			}
			fputc('\n', f);
		}
	}
	return ferror(f) ? -1 : 0;
}

enum failure sweep_write_outputs(const struct sweep_spec *s, struct point *pts, size_t n_pts,
                                 bool interrupted, enum failure rc)
{
	struct sweep_doc ctx = {.s = s,
	                        .pts = pts,
	                        .n_pts = n_pts,
	                        .interrupted = interrupted,
	                        .exit_status = exit_status_of(rc)};
	char err[MSG_MAX];
	if (s->csv_path && outfile_write(s->csv_path, fill_csv, &ctx, err, sizeof(err))) {
		fprintf(s->eopts.log, "fsmix: %s\n", err);
		rc = failure_first(rc, FAIL_IO);
	}
	if (s->plot_path) {
		json_t *doc = sweep_json(&ctx);
		enum failure prc =
		    doc ? plot_write(doc, NULL, s->plot_path, s->eopts.log) : FAIL_IO;
		json_decref(doc);
		rc = failure_first(rc, prc);
	}
	if (outfile_stdout_failed(err, sizeof(err))) { /* the text report: not again by main */
		fprintf(s->eopts.log, "fsmix: %s\n", err);
		rc = failure_first(rc, FAIL_IO);
	}
	/* the JSON last: its exit_status counts every output before it */
	ctx.exit_status = exit_status_of(rc);
	if (s->json_path && outfile_write(s->json_path, fill_json, &ctx, err, sizeof(err))) {
		fprintf(s->eopts.log, "fsmix: %s\n", err);
		rc = failure_first(rc, FAIL_IO);
	}
	return rc;
}
