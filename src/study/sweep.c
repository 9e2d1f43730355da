/* sweep.c - thread-count and key sweeps with repeats (see sweep.h). */
#include "sweep.h"
#include "sweep_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "profile_json.h"
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

/* "LO-HI", "LO-HI:xF" (multiply) or "LO-HI:+S" (add) into d's values. 0, or -1 with the reason
 * in err. */
static int expand_range(struct sweep_dim *d, const char *item, size_t len, char *err, size_t errlen)
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
		return -1;
	}
	for (uint64_t v = lo; v <= hi;) {
		char buf[24];
		int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);
		int rc = push_value(d, buf, (size_t)n);
		if (rc == -E2BIG) {
			snprintf(err, errlen, "'%.*s' gives more than %d values", (int)len, item,
			         SWEEP_MAX_VALUES);
			return -1;
		}
		if (rc) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (mul ? v > hi / step : v > hi - step)
			break;
		v = mul ? v * step : v + step;
	}
	return 0;
bad:
	snprintf(err, errlen,
	         "'%.*s' is not a value or a range (examples: 1,2,4  1-64:x2  1-8:+1  1-8)",
	         (int)len, item);
	return -1;
}

int sweep_parse_list(const char *spec, struct sweep_dim *d, char *err, size_t errlen)
{
	const char *p = spec;
	if (!*spec) {
		snprintf(err, errlen, "empty list of values");
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		if (!len) {
			snprintf(err, errlen, "'%s': empty value in the list", spec);
			return -1;
		}
		/* A range starts with a digit and has a dash after it; anything else is a value. */
		const char *dash = memchr(p, '-', len);
		if (dash && dash > p && isdigit((unsigned char)p[0])) {
			if (expand_range(d, p, len, err, errlen))
				return -1;
		} else {
			int rc = push_value(d, p, len);
			if (rc) {
				snprintf(err, errlen,
				         rc == -E2BIG ? "more than %d values" : "out of memory",
				         SWEEP_MAX_VALUES);
				return -1;
			}
		}
		p += len;
		if (*p == ',' && !*++p) { /* "1,2,": a comma ends an empty last value */
			snprintf(err, errlen, "'%s': empty value in the list", spec);
			return -1;
		}
	}
	return 0;
}

void sweep_dim_free(struct sweep_dim *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->values[i]);
	free(d->values);
	d->values = NULL;
	d->n = 0;
}

/* ---- points ---- */

/* Point i of the cartesian product: its value indexes and its label ("threads=4,..."). The first
 * dimension varies slowest (like nested loops in command-line order). */
static void point_name(const struct sweep_spec *s, size_t i, struct point *pt)
{
	size_t rest = i, o = 0;
	for (size_t d = s->n_dims; d-- > 0;) {
		pt->idx[d] = rest % s->dims[d].n;
		rest /= s->dims[d].n;
	}
	for (size_t d = 0; d < s->n_dims; d++)
		o += (size_t)snprintf(
		    pt->label + o, o < sizeof(pt->label) ? sizeof(pt->label) - o : 0, "%s%s=%s",
		    d ? "," : "", s->dims[d].label, s->dims[d].values[pt->idx[d]]);
	if (!s->n_dims)
		snprintf(pt->label, sizeof(pt->label), "run");
}

static void points_free(struct point *pts, size_t n_pts)
{
	for (size_t i = 0; i < n_pts; i++) {
		for (size_t r = 0; pts[i].runs && r < pts[i].n_runs; r++)
			json_decref(pts[i].runs[r]);
		free(pts[i].runs);
		free(pts[i].setup_s);
		free(pts[i].reused);
	}
	free(pts);
}

/* Every point of the sweep, named, with room for s->repeat runs each; *n_pts gets their
 * number. NULL when out of memory (said on the log). */
static struct point *points_make(const struct sweep_spec *s, size_t *n_pts)
{
	size_t n = 1;
	for (size_t d = 0; d < s->n_dims; d++)
		n *= s->dims[d].n;
	struct point *pts = calloc(n, sizeof(*pts));
	if (!pts) {
		fprintf(s->eopts.log, "fsmix: out of memory\n");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct point *pt = &pts[i];
		point_name(s, i, pt);
		pt->n_runs = s->repeat;
		pt->runs = calloc(s->repeat, sizeof(*pt->runs));
		pt->setup_s = calloc(s->repeat, sizeof(*pt->setup_s));
		pt->reused = calloc(s->repeat, sizeof(*pt->reused));
		if (!pt->runs || !pt->setup_s || !pt->reused) {
			fprintf(s->eopts.log, "fsmix: out of memory\n");
			points_free(pts, i + 1);
			return NULL;
		}
	}
	*n_pts = n;
	return pts;
}

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
		if ((dim->threads || dim->iodepth) && !dim->target[0])
			strcpy(text, val);
		else
			sprintf(text, "%s=%s", dim->target, val);
		override_init(&v[s->n_ovr + d],
		              dim->threads   ? OVR_THREADS
		              : dim->iodepth ? OVR_IODEPTH
		                             : OVR_SET,
		              text);
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

/* A point's profile and plan: the user's profile with the user's overrides, then the point's
 * values. */
struct point_plan {
	struct override *ovr;
	size_t n_ovr;
	struct profile p;
	struct plan pl;
	struct diag d;
};

static void point_plan_free(const struct sweep_spec *s, struct point_plan *pp)
{
	plan_free(&pp->pl);
	profile_free(&pp->p);
	diag_free(&pp->d);
	free_point_overrides(s, pp->ovr);
}

/* Loads the point's profile and plan (point_plan_free() after FAIL_NONE; nothing to free after
 * a failure). FAIL_IO when out of memory (nothing said); FAIL_INPUT when the profile has errors
 * with the point's values: they are printed, then "point LABEL: N errors; " and consequence. */
static enum failure point_plan_load(const struct sweep_spec *s, const struct point *pt,
                                    const char *consequence, struct point_plan *pp)
{
	if (point_overrides(s, pt, &pp->ovr, &pp->n_ovr))
		return FAIL_IO;
	diag_init(&pp->d);
	int rc = profile_load(s->profile_path, pp->ovr, pp->n_ovr, &s->po, &pp->p, &pp->pl, &pp->d);
	if (rc == 0 && preflight_nesting(&pp->p, &pp->pl, &pp->d)) { /* nested locations */
		plan_free(&pp->pl);
		rc = -1;
	}
	if (rc) {
		diag_print(&pp->d, s->eopts.log);
		fprintf(s->eopts.log, "fsmix: point %s: %zu error%s; %s\n", pt->label, pp->d.errors,
		        pp->d.errors == 1 ? "" : "s", consequence);
		profile_free(&pp->p);
		diag_free(&pp->d);
		free_point_overrides(s, pp->ovr);
		return FAIL_INPUT;
	}
	return FAIL_NONE;
}

/* ---- checking ---- */

/* The location locks a sweep holds from validation to its end. */
struct sweep_locks {
	int *h;
	size_t n, cap;
};

/* Locks every location of a point's plan (counted: the same location again costs nothing).
 * FAIL_INPUT when another process holds one (the message names it), FAIL_IO when out of
 * memory. A location that cannot be opened is left to the run, which reports it. */
static enum failure lock_locations(struct sweep_locks *l, const struct plan *pl, FILE *log)
{
	for (size_t i = 0; i < pl->n_fs; i++) {
		char why[512];
		int h = tree_lock_location(pl->fs[i].location, why, sizeof(why));
		if (h == -EBUSY) {
			fprintf(log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			return FAIL_INPUT;
		}
		if (h <= 0)
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 8;
			int *nh = realloc(l->h, cap * sizeof(*nh));
			if (!nh) {
				tree_unlock_location(h);
				fprintf(log, "fsmix: out of memory\n");
				return FAIL_IO;
			}
			l->h = nh;
			l->cap = cap;
		}
		l->h[l->n++] = h;
	}
	return FAIL_NONE;
}

static void unlock_locations(struct sweep_locks *l)
{
	for (size_t i = 0; i < l->n; i++)
		tree_unlock_location(l->h[i]);
	free(l->h);
	*l = (struct sweep_locks){0};
}

/* Every point is validated before the first one runs: a bad value in the last point must not
 * cost the earlier ones' time. Its locations are locked for the whole sweep
 * (tree_lock_location), so no other fsmix process gets in between two runs. FAIL_INPUT for a
 * bad point or location (printed), FAIL_IO when out of memory. */
static enum failure points_check(const struct sweep_spec *s, const struct point *pts, size_t n_pts,
                                 struct sweep_locks *locks)
{
	enum failure rc = FAIL_NONE;
	for (size_t i = 0; i < n_pts && !rc; i++) {
		struct point_plan pp;
		rc = point_plan_load(s, &pts[i], "nothing was run", &pp);
		if (rc)
			break;
		if (i == 0 && pp.d.warnings)
			diag_print(&pp.d, s->eopts.log);
		/* preflight_locations prints every bad location; any failure of it is bad input */
		if (preflight_locations(&pp.pl, s->eopts.log))
			rc = FAIL_INPUT;
		else if (engine_takes_locks(&s->eopts)) /* in a job, rank 0 holds them */
			rc = lock_locations(locks, &pp.pl, s->eopts.log);
		point_plan_free(s, &pp);
	}
	return rc;
}

/* ---- running ---- */

/* Runs one repeat of one point on its loaded plan, the only call of the engine: pt->runs[rep]
 * gets the JSON results (the run command's --json document, built from the engine's results;
 * NULL when nothing was measured), pt->setup_s[rep] the wall time outside the run phase (s),
 * pt->reused[rep] whether the first filesystem's tree was reused. Returns the run's kind of
 * failure. */
static enum failure sweep_run_point(const struct sweep_spec *s, struct point *pt, size_t rep,
                                    const struct profile *p, const struct plan *pl)
{
	struct engine_opts eo = s->eopts;
	struct results res;
	eo.keep_manifest = true;
	uint64_t t0 = now_ns();
	enum failure rc = engine_run(pl, &eo, &res);
	double wall = (double)(now_ns() - t0) / 1e9;
	struct report_run run = {.exit_status = exit_status_of(rc),
	                         .argc = s->argc,
	                         .argv = s->argv,
	                         .profile_path = s->profile_path,
	                         .profile = p};
	json_t *result = res.measured ? report_json_build(&res, &run) : NULL;
	results_free(&res);
	pt->runs[rep] = result;
	if (result) {
		double runtime = json_number_value(json_object_get(result, "runtime_s"));
		pt->setup_s[rep] = wall - runtime;
		const json_t *fs0 = json_array_get(json_object_get(result, "filesystems"), 0);
		pt->reused[rep] = json_is_true(json_object_get(fs0, "reused"));
	}
	return rc;
}

/* Runs one repeat of one point: loads its plan and runs it (sweep_run_point). reuse_built: an
 * earlier run built the trees. FAIL_INPUT when the point's profile has errors, FAIL_IO when out
 * of memory, else the run's failure. */
static enum failure run_repeat(const struct sweep_spec *s, struct point *pt, size_t rep,
                               bool reuse_built)
{
	struct point_plan pp;
	enum failure rc = point_plan_load(s, pt, "the sweep stops", &pp);
	if (rc == FAIL_IO)
		fprintf(s->eopts.log, "fsmix: out of memory\n");
	if (rc)
		return rc;
	/* After the first point built the trees, later points reuse them when nothing changed
	 * them (the manifest says so); a run that changed a tree removed its manifest, so the
	 * next point rebuilds it and starts from the same state. */
	if (reuse_built)
		for (size_t i = 0; i < pp.pl.n_fs; i++)
			pp.pl.fs[i].reuse = true;
	rc = sweep_run_point(s, pt, rep, &pp.p, &pp.pl);
	point_plan_free(s, &pp);
	return rc;
}

/* --repeat until: whether point pt stops after its run number `runs`: its target is reached
 * (pt->reached, said on the log). A job decides by rank 0's merged results. */
static bool until_done(const struct sweep_spec *s, struct point *pt, size_t runs, const char *at)
{
	if (runs < SWEEP_UNTIL_MIN)
		return false;
	struct metric_stat st;
	sweep_until_stat(pt, &st);
	/* the CI half-width within +-PCT % of the mean (a point with no spread: at once) */
	bool reached =
	    st.n >= SWEEP_UNTIL_MIN && st.ci95_half <= s->until_pct / 100 * fabs(st.mean);
	if (s->rank0_says)
		reached = s->rank0_says(reached);
	pt->reached = reached;
	double pct = metric_ci95_pct(&st);
	if (reached || runs == s->repeat)
		fprintf(s->eopts.log,
		        "fsmix: %s: %s: mean %.2f trans/s, 95%% CI ±%.3g%% after %zu runs: target "
		        "±%g%% %s\n",
		        at, pt->label, st.mean, pct, runs, s->until_pct,
		        reached ? "reached" : "not reached");
	else
		fprintf(s->eopts.log,
		        "fsmix: %s: 95%% CI ±%.3g%% after %zu runs, target ±%g%%: one more run\n",
		        at, pct, runs, s->until_pct);
	return reached;
}

/* Runs every repeat of every point in order, with progress on the log, until the first
 * failure. *started gets the number of runs started (the failed or interrupted one
 * included). */
static enum failure points_run(const struct sweep_spec *s, struct point *pts, size_t n_pts,
                               size_t *started)
{
	enum failure rc = FAIL_NONE;
	size_t total = n_pts * s->repeat, k = 0;
	bool until = s->until_pct > 0;
	for (size_t i = 0; i < n_pts && !rc; i++) {
		for (size_t r = 0; r < s->repeat && !rc; r++, k++) {
			/* "sweep 3/6" counts runs; with until, the number of runs is not known */
			char at[64];
			if (until)
				snprintf(at, sizeof(at), "sweep point %zu/%zu", i + 1, n_pts);
			else
				snprintf(at, sizeof(at), "sweep %zu/%zu", k + 1, total);
			if (until)
				fprintf(s->eopts.log,
				        "fsmix: %s: %s, run %zu (until the 95%% CI of trans/s is "
				        "within ±%g%%, at most %u runs)\n",
				        at, pts[i].label, r + 1, s->until_pct, s->repeat);
			else
				fprintf(s->eopts.log, "fsmix: %s: %s, run %zu of %u\n", at,
				        pts[i].label, r + 1, s->repeat);
			rc = run_repeat(s, &pts[i], r, k > 0);
			json_t *res = pts[i].runs[r];
			if (res) {
				double tps = 0;
				metric_get(res, M_TRANS_PER_S, &tps);
				fprintf(s->eopts.log,
				        "fsmix: %s: %.2f trans/s; tree %s, %.2f s between runs\n",
				        at, tps, pts[i].reused[r] ? "reused" : "built",
				        pts[i].setup_s[r]);
			}
			if (until && !rc && until_done(s, &pts[i], r + 1, at)) {
				k++;
				break;
			}
		}
	}
	*started = k;
	return rc;
}

/* One process of a job (MPI: engine_hooks): every process has checked its points; the job's
 * failure from each one's (rc), printed here when another process failed. */
static enum failure job_points(const struct sweep_spec *s, enum failure rc)
{
	const struct engine_hooks *h = s->eopts.hooks;
	if (!h)
		return rc;
	char err[MSG_MAX];
	snprintf(err, sizeof(err), "a point of the sweep is invalid here");
	enum failure f = h->agree(h->ctx, rc, err, sizeof(err));
	if (f && !rc)
		fprintf(s->eopts.log, "fsmix: %s; nothing was run\n", err);
	return f;
}

enum failure sweep_run(const struct sweep_spec *s)
{
	size_t n_pts;
	struct point *pts = points_make(s, &n_pts);
	if (!pts)
		return FAIL_IO;
	struct sweep_locks locks = {0};
	enum failure rc = job_points(s, points_check(s, pts, n_pts, &locks));
	if (rc) {
		points_free(pts, n_pts);
		unlock_locations(&locks);
		return rc;
	}
	size_t started;
	rc = points_run(s, pts, n_pts, &started);
	bool interrupted = rc == FAIL_INTERRUPTED;
	if (interrupted) /* started counts the interrupted run too */
		fprintf(s->eopts.log, "fsmix: sweep interrupted; writing the %zu finished run%s\n",
		        started - 1, started - 1 == 1 ? "" : "s");
	sweep_print_table(s, pts, n_pts, s->out);
	rc = sweep_write_outputs(s, pts, n_pts, interrupted, rc);
	points_free(pts, n_pts);
	unlock_locations(&locks);
	return rc;
}
