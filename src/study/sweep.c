/* sweep.c - thread-count and key sweeps with repeats (see sweep.h). */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exitcode.h"
#include "metrics.h"
#include "plot.h"
#include "preflight.h"
#include "outfile.h"
#include "report_data.h"
#include "tree.h"

/* ---- lists ---- */

bool sweep_is_list(const char *value)
{
	const char *v = strchr(value, '=');
	v = v ? v + 1 : value;
	return strpbrk(v, ",-:") != NULL;
}

static int push_value(struct sweep_dim *d, const char *v, size_t len)
{
	if (d->n >= SWEEP_MAX_VALUES)
		return -E2BIG;
	char **nv = realloc(d->values, (d->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	d->values = nv;
	d->values[d->n] = strndup(v, len);
	if (!d->values[d->n])
		return -ENOMEM;
	d->n++;
	return 0;
}

static bool parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (s == end)
		return false;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s) || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* "LO-HI", "LO-HI:xF" (multiply) or "LO-HI:+S" (add). */
static const char *expand_range(struct sweep_dim *d, const char *item, size_t len, char *err,
                                size_t errlen)
{
	const char *end = item + len, *dash = memchr(item, '-', len),
	           *colon = memchr(item, ':', len);
	uint64_t lo, hi, step = 1;
	bool mul = false;
	if (!colon)
		colon = end;
	if (!dash || dash > colon || !parse_u64(item, dash, &lo) ||
	    !parse_u64(dash + 1, colon, &hi))
		goto bad;
	if (colon < end) {
		if (colon + 1 >= end || (colon[1] != 'x' && colon[1] != '+') ||
		    !parse_u64(colon + 2, end, &step))
			goto bad;
		mul = colon[1] == 'x';
	}
	if (lo > hi || step == 0 || (mul && (step < 2 || lo == 0))) {
		snprintf(
		    err, errlen,
		    "'%.*s': the range must go up (LO <= HI) with a step of at least 1 (+S) or a "
		    "factor of at least 2 (xF, from LO >= 1)",
		    (int)len, item);
		return err;
	}
	for (uint64_t v = lo; v <= hi;) {
		char buf[24];
		int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);
		int rc = push_value(d, buf, (size_t)n);
		if (rc == -E2BIG) {
			snprintf(err, errlen, "'%.*s' gives more than %d values", (int)len, item,
			         SWEEP_MAX_VALUES);
			return err;
		}
		if (rc)
			return "out of memory";
		if (mul ? v > hi / step : v > hi - step)
			break;
		v = mul ? v * step : v + step;
	}
	return NULL;
bad:
	snprintf(err, errlen,
	         "'%.*s' is not a value or a range (examples: 1,2,4  1-64:x2  1-8:+1  1-8)",
	         (int)len, item);
	return err;
}

const char *sweep_parse_list(const char *spec, struct sweep_dim *d, char *err, size_t errlen)
{
	const char *p = spec;
	if (!*spec) {
		snprintf(err, errlen, "empty list of values");
		return err;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		if (!len) {
			snprintf(err, errlen, "'%s': empty value in the list", spec);
			return err;
		}
		/* A range starts with a digit and has a dash after it; anything else is a value. */
		const char *dash = memchr(p, '-', len);
		if (dash && dash > p && isdigit((unsigned char)p[0])) {
			const char *e = expand_range(d, p, len, err, errlen);
			if (e)
				return e;
		} else {
			int rc = push_value(d, p, len);
			if (rc) {
				snprintf(err, errlen,
				         rc == -E2BIG ? "more than %d values" : "out of memory",
				         SWEEP_MAX_VALUES);
				return err;
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return NULL;
}

void sweep_dim_free(struct sweep_dim *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->values[i]);
	free(d->values);
	d->values = NULL;
	d->n = 0;
}

/* ---- running ---- */

struct point {
	char label[256];
	size_t idx[SWEEP_MAX_DIMS]; /* value index per dimension */
	json_t **runs;              /* repeat entries, NULL where not run */
	size_t n_runs;
	double *setup_s; /* wall time of each run minus its run phase: setup, reuse or rebuild */
	bool *reused;
};

/* The overrides of one point: the user's, then the point's values (later ones win). */
static int point_overrides(const struct sweep_spec *s, const struct point *pt,
                           struct override **out, size_t *n_out)
{
	size_t n = s->n_ovr + s->n_dims;
	struct override *v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, s->ovr, s->n_ovr * sizeof(*v));
	for (size_t d = 0; d < s->n_dims; d++) {
		const struct sweep_dim *dim = &s->dims[d];
		const char *val = dim->values[pt->idx[d]];
		char *text = malloc(strlen(dim->target) + strlen(val) + 2);
		if (!text) {
			free(v);
			return -ENOMEM;
		}
		if (dim->threads && !dim->target[0])
			strcpy(text, val);
		else
			sprintf(text, "%s=%s", dim->target, val);
		override_init(&v[s->n_ovr + d], dim->threads ? OVR_THREADS : OVR_SET, text);
		/* override_init borrows arg; keep text alive in the override's label-owned copy */
		v[s->n_ovr + d].arg = text;
	}
	*out = v;
	*n_out = n;
	return 0;
}

static void free_point_overrides(const struct sweep_spec *s, struct override *v)
{
	for (size_t d = 0; d < s->n_dims; d++)
		free((char *)v[s->n_ovr + d].arg);
	free(v);
}

/* Runs the engine on one point's plan: *doc gets the JSON results (the run command's --json
 * document) when the run phase ran, else NULL. Returns an exit status. */
static int run_engine(const struct sweep_spec *s, const struct plan *pl,
                      const struct engine_opts *eo, const struct profile *p, json_t **doc)
{
	struct results res;
	enum failure f = engine_run(pl, eo, &res);
	int rc = exitcode_of(f);
	struct report_run run = {.exit_status = rc,
	                         .argc = s->argc,
	                         .argv = s->argv,
	                         .profile_path = s->profile_path,
	                         .profile = p};
	*doc = res.measured ? report_json_build(&res, &run) : NULL;
	results_free(&res);
	return rc;
}

/* Runs one repeat of one point. Returns an exit status; *run gets the JSON results. */
static int run_point(struct sweep_spec *s, struct point *pt, size_t rep, bool reuse_built)
{
	struct override *ovr;
	size_t n;
	struct profile p;
	struct plan pl;
	struct diag d;
	int rc;
	if (point_overrides(s, pt, &ovr, &n)) {
		fprintf(s->eopts.log, "fsmix: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	diag_init(&d);
	if (profile_load(s->profile_path, ovr, n, &s->po, &p, &pl, &d)) {
		diag_print(&d, s->eopts.log);
		fprintf(s->eopts.log, "fsmix: point %s: %zu error%s; the sweep stops\n", pt->label,
		        d.errors, d.errors == 1 ? "" : "s");
		profile_free(&p);
		diag_free(&d);
		free_point_overrides(s, ovr);
		return EXIT_BAD_INPUT;
	}
	/* After the first point built the trees, later points reuse them when nothing changed
	 * them (the manifest says so); a run that changed a tree removed its manifest, so the
	 * next point rebuilds it and starts from the same state. */
	if (reuse_built)
		for (size_t i = 0; i < pl.n_fs; i++)
			pl.fs[i].reuse = true;
	struct engine_opts eo = s->eopts;
	eo.keep_manifest = true;
	uint64_t t0 = now_ns();
	rc = run_engine(s, &pl, &eo, &p, &pt->runs[rep]);
	double wall = (double)(now_ns() - t0) / 1e9;
	json_t *result = pt->runs[rep];
	if (result) {
		double runtime = json_number_value(json_object_get(result, "runtime_s"));
		pt->setup_s[rep] = wall - runtime;
		const json_t *fs0 = json_array_get(json_object_get(result, "filesystems"), 0);
		pt->reused[rep] = json_is_true(json_object_get(fs0, "reused"));
	}
	plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	free_point_overrides(s, ovr);
	return rc;
}

/* ---- output ---- */

static void print_table(struct point *pts, size_t n_pts, FILE *out)
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
}

static json_t *summary_json(struct point *pt)
{
	json_t *o = json_object();
	for (int m = 0; m < METRIC_COUNT; m++) {
		struct metric_stat st;
		metric_stat_of(pt->runs, pt->n_runs, (enum metric_id)m, &st);
		json_object_set_new(o, metric_table[m].key,
		                    st.n ? json_pack("{sIsfsf}", "n", (json_int_t)st.n, "mean",
		                                     st.mean, "stddev", st.stddev)
		                         : json_null());
	}
	return o;
}

struct doc_ctx {
	const struct sweep_spec *s;
	struct point *pts;
	size_t n_pts;
	bool interrupted;
	int exit_status;
};

static json_t *sweep_json(const struct doc_ctx *c)
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
		json_array_append_new(points,
		                      json_pack("{sssososososo}", "label", pt->label, "params",
		                                params, "tree", tree, "setup_s", setup, "summary",
		                                summary_json(pt), "runs", runs));
	}
	json_object_set_new(root, "schema", json_string("fsmix-sweep"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "fsmix_version", json_string(FSMIX_VERSION));
	json_object_set_new(root, "profile_path", json_string(s->profile_path));
	json_object_set_new(root, "command_line", cmd);
	json_object_set_new(root, "repeat", json_integer(s->repeat));
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
	const struct doc_ctx *c = arg;
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

/* The location locks a sweep holds from validation to its end. */
struct sweep_locks {
	int *h;
	size_t n, cap;
};

/* Locks every location of a point's plan (counted: the same location again costs nothing).
 * Returns 0, or EXIT_BAD_INPUT when another process holds one (the message names it). A
 * location that cannot be opened is left to the run, which reports it. */
static int lock_locations(struct sweep_locks *l, const struct plan *pl, FILE *log)
{
	for (size_t i = 0; i < pl->n_fs; i++) {
		char why[512];
		int h = tree_lock_location(pl->fs[i].location, why, sizeof(why));
		if (h == -EBUSY) {
			fprintf(log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			return EXIT_BAD_INPUT;
		}
		if (h <= 0)
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 8;
			int *nh = realloc(l->h, cap * sizeof(*nh));
			if (!nh) {
				tree_unlock_location(h);
				fprintf(log, "fsmix: out of memory\n");
				return EXIT_RUN_FAILED;
			}
			l->h = nh;
			l->cap = cap;
		}
		l->h[l->n++] = h;
	}
	return 0;
}

static void unlock_locations(struct sweep_locks *l)
{
	for (size_t i = 0; i < l->n; i++)
		tree_unlock_location(l->h[i]);
	free(l->h);
	*l = (struct sweep_locks){0};
}

int sweep_run(struct sweep_spec *s)
{
	size_t n_pts = 1;
	for (size_t d = 0; d < s->n_dims; d++)
		n_pts *= s->dims[d].n;
	struct point *pts = calloc(n_pts, sizeof(*pts));
	if (!pts) {
		fprintf(s->eopts.log, "fsmix: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	int rc = 0;
	for (size_t i = 0; i < n_pts; i++) {
		struct point *pt = &pts[i];
		size_t rest = i, o = 0;
		/* The first dimension varies slowest (like nested loops in command-line order). */
		for (size_t d = s->n_dims; d-- > 0;) {
			pt->idx[d] = rest % s->dims[d].n;
			rest /= s->dims[d].n;
		}
		for (size_t d = 0; d < s->n_dims; d++)
			o += (size_t)snprintf(pt->label + o,
			                      o < sizeof(pt->label) ? sizeof(pt->label) - o : 0,
			                      "%s%s=%s", d ? "," : "", s->dims[d].label,
			                      s->dims[d].values[pt->idx[d]]);
		if (!s->n_dims)
			snprintf(pt->label, sizeof(pt->label), "run");
		pt->n_runs = s->repeat;
		pt->runs = calloc(s->repeat, sizeof(*pt->runs));
		pt->setup_s = calloc(s->repeat, sizeof(*pt->setup_s));
		pt->reused = calloc(s->repeat, sizeof(*pt->reused));
		if (!pt->runs || !pt->setup_s || !pt->reused) {
			fprintf(s->eopts.log, "fsmix: out of memory\n");
			rc = EXIT_RUN_FAILED;
			n_pts = i + 1;
			break;
		}
	}
	/* Every point is validated before the first one runs: a bad value in the last point
	 * must not cost the earlier ones' time. Its locations are locked for the whole sweep
	 * (tree_lock_location), so no other fsmix process gets in between two runs. */
	struct sweep_locks locks = {0};
	for (size_t i = 0; i < n_pts && !rc; i++) {
		struct override *ovr;
		size_t n;
		struct profile p;
		struct plan pl;
		struct diag d;
		if (point_overrides(s, &pts[i], &ovr, &n)) {
			rc = EXIT_RUN_FAILED;
			break;
		}
		diag_init(&d);
		if (profile_load(s->profile_path, ovr, n, &s->po, &p, &pl, &d)) {
			diag_print(&d, s->eopts.log);
			fprintf(s->eopts.log, "fsmix: point %s: %zu error%s; nothing was run\n",
			        pts[i].label, d.errors, d.errors == 1 ? "" : "s");
			rc = EXIT_BAD_INPUT;
		} else {
			if (i == 0 && d.warnings)
				diag_print(&d, s->eopts.log);
			rc = preflight_locations(&pl, s->eopts.log);
			if (!rc)
				rc = lock_locations(&locks, &pl, s->eopts.log);
			plan_free(&pl);
		}
		profile_free(&p);
		diag_free(&d);
		free_point_overrides(s, ovr);
	}
	if (rc) {
		for (size_t i = 0; i < n_pts; i++) {
			free(pts[i].runs);
			free(pts[i].setup_s);
			free(pts[i].reused);
		}
		free(pts);
		unlock_locations(&locks);
		return rc;
	}
	bool interrupted = false;
	size_t total = n_pts * s->repeat, k = 0;
	for (size_t i = 0; i < n_pts && !rc; i++) {
		for (size_t r = 0; r < s->repeat && !rc; r++, k++) {
			fprintf(s->eopts.log, "fsmix: sweep %zu/%zu: %s, run %zu of %u\n", k + 1,
			        total, pts[i].label, r + 1, s->repeat);
			int prc = run_point(s, &pts[i], r, k > 0);
			json_t *res = pts[i].runs[r];
			if (res) {
				double tps = 0;
				metric_get(res, M_TRANS_PER_S, &tps);
				fprintf(s->eopts.log,
				        "fsmix: sweep %zu/%zu: %.2f trans/s; tree %s, %.2f s "
				        "between runs\n",
				        k + 1, total, tps, pts[i].reused[r] ? "reused" : "built",
				        pts[i].setup_s[r]);
			}
			if (prc == EXIT_INTERRUPTED) {
				interrupted = true;
				rc = prc;
			} else if (prc) {
				rc = prc;
			}
		}
	}
	if (interrupted) /* k counts the interrupted run too */
		fprintf(s->eopts.log, "fsmix: sweep interrupted; writing the %zu finished run%s\n",
		        k - 1, k - 1 == 1 ? "" : "s");
	print_table(pts, n_pts, s->out);
	struct doc_ctx ctx = {
	    .s = s, .pts = pts, .n_pts = n_pts, .interrupted = interrupted, .exit_status = rc};
	char err[MSG_MAX];
	if (s->json_path && outfile_write(s->json_path, fill_json, &ctx, err, sizeof(err))) {
		fprintf(s->eopts.log, "fsmix: %s\n", err);
		rc = rc ? rc : EXIT_RUN_FAILED;
	}
	if (s->csv_path && outfile_write(s->csv_path, fill_csv, &ctx, err, sizeof(err))) {
		fprintf(s->eopts.log, "fsmix: %s\n", err);
		rc = rc ? rc : EXIT_RUN_FAILED;
	}
	if (s->plot_path) {
		json_t *doc = sweep_json(&ctx);
		int prc = doc ? plot_write(doc, NULL, s->plot_path, s->eopts.log) : EXIT_RUN_FAILED;
		json_decref(doc);
		if (prc)
			rc = rc ? rc : prc;
	}
	for (size_t i = 0; i < n_pts; i++) {
		for (size_t r = 0; pts[i].runs && r < pts[i].n_runs; r++)
			json_decref(pts[i].runs[r]);
		free(pts[i].runs);
		free(pts[i].setup_s);
		free(pts[i].reused);
	}
	free(pts);
	unlock_locations(&locks);
	return rc;
}
