/* results.c - the results of a run: building, merging, derived figures (see results.h). */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* A copy of the msec_range table of group g (NULL: none), as the engine builds it. */
static int ranges_of(const struct plan_group *g, struct range_table **out)
{
	*out = NULL;
	if (!g->enable_stats || !g->enable_range || !g->n_ranges)
		return 0;
	double *lohi = malloc(2 * g->n_ranges * sizeof(*lohi));
	if (!lohi)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_ranges; i++) {
		lohi[2 * i] = g->ranges[i].lo_ms;
		lohi[2 * i + 1] = g->ranges[i].hi_ms;
	}
	int rc = range_table_new(out, lohi, (uint32_t)g->n_ranges);
	free(lohi);
	return rc;
}

static int group_init(struct results_group *rg, const struct plan_group *g, bool stats)
{
	rg->name = dup_or_empty(g->name);
	rg->index = g->index;
	rg->num_threads = g->num_threads;
	rg->bindfs = g->bindfs;
	rg->op_period_ms = g->op_period_ms;
	rg->io_engine = g->io_engine;
	rg->iodepth = g->iodepth ? g->iodepth : 1;
	rg->rate_target = g->rate_target;
	rg->backlog_queue = g->arrival_backlog == BACKLOG_QUEUE;
	rg->backlog_max = g->arrival_backlog_max;
	memcpy(rg->weight, g->weight, sizeof(rg->weight));
	rg->phase = g->phase;
	int rc = rg->name ? ranges_of(g, &rg->ranges) : -ENOMEM;
	if (!rc && stats)
		rc = thread_stats_init(&rg->st, rg->ranges);
	rg->st_ready = !rc && stats;
	return rc;
}

static int init(struct results *r, const struct plan *pl, bool stats)
{
	memset(r, 0, sizeof(*r));
	r->time_s = pl->time_s;
	r->ramp_s = pl->ramp_s;
	r->fidelity = pl->fidelity;
	r->total_threads = pl->total_threads;
	r->seed = pl->seed;
	r->verify = pl->verify;
	r->groups = calloc(pl->n_groups + 1, sizeof(*r->groups));
	r->fs = calloc(pl->n_fs + 1, sizeof(*r->fs));
	int rc = r->groups && r->fs ? thread_stats_init(&r->total, NULL) : -ENOMEM;
	if (!rc && pl->n_phases && !(r->phases = calloc(pl->n_phases, sizeof(*r->phases))))
		rc = -ENOMEM;
	if (rc)
		return rc;
	r->n_phases = pl->n_phases;
	for (size_t ph = 0; ph < r->n_phases; ph++) {
		r->phases[ph].threads = pl->phases[ph].threads;
		r->phases[ph].time_s = pl->phases[ph].time_s;
		r->phases[ph].counted = pl->phases[ph].counted;
	}
	for (size_t gi = 0; r->n_phases && gi < pl->n_groups; gi++)
		r->phases[pl->groups[gi].phase].counted_ops +=
		    (uint64_t)pl->groups[gi].num_threads * pl->groups[gi].num_ops;
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		r->n_groups = gi + 1;
		if ((rc = group_init(&r->groups[gi], &pl->groups[gi], stats)))
			return rc;
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		struct results_fs *f = &r->fs[i];
		r->n_fs = i + 1;
		f->name = dup_or_empty(pl->fs[i].name);
		f->location = dup_or_empty(pl->fs[i].location);
		if (!f->name || !f->location)
			return -ENOMEM;
	}
	return 0;
}

int results_init(struct results *r, const struct plan *pl)
{
	return init(r, pl, true);
}

int results_init_lazy(struct results *r, const struct plan *pl)
{
	return init(r, pl, false);
}

int results_group_ready(struct results *r, size_t gi)
{
	struct results_group *g = &r->groups[gi];
	if (g->st_ready)
		return 0;
	int rc = thread_stats_init(&g->st, g->ranges);
	g->st_ready = !rc;
	return rc;
}

void results_free(struct results *r)
{
	jobsum_free(&r->job);
	for (size_t gi = 0; r->groups && gi < r->n_groups; gi++) {
		struct results_group *g = &r->groups[gi];
		thread_stats_free(&g->st);
		range_table_free(g->ranges);
		free(g->name);
		free(g->intervals);
	}
	for (size_t i = 0; r->fs && i < r->n_fs; i++) {
		free(r->fs[i].name);
		free(r->fs[i].location);
	}
	thread_stats_free(&r->total);
	free(r->groups);
	free(r->fs);
	free(r->errors);
	free(r->intervals);
	free(r->phases);
	memset(r, 0, sizeof(*r));
}

void results_env_probe(struct results_env *env)
{
	struct utsname u;
	memset(env, 0, sizeof(*env));
	snprintf(env->fsmix_version, sizeof(env->fsmix_version), "%s", FSMIX_VERSION);
	env->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u))
		return;
	env->have_uname = true;
	snprintf(env->hostname, sizeof(env->hostname), "%s", u.nodename);
	snprintf(env->sysname, sizeof(env->sysname), "%s", u.sysname);
	snprintf(env->release, sizeof(env->release), "%s", u.release);
	snprintf(env->version, sizeof(env->version), "%s", u.version);
	snprintf(env->machine, sizeof(env->machine), "%s", u.machine);
}

int results_add_error(struct results *r, const struct results_error *e)
{
	struct results_error *v = realloc(r->errors, (r->n_errors + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->errors = v;
	r->errors[r->n_errors++] = *e;
	return 0;
}

static size_t hex(char *out, size_t len, const uint8_t *b, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 3 <= len; i++)
		k += (size_t)snprintf(out + k, len - k, "%02x", b[i]);
	if (k < len)
		out[k] = 0;
	return k;
}

void results_verify_text(const struct results_error *e, char *buf, size_t len)
{
	const struct content_finding *f = &e->found;
	char when[64] = "", exp[2 * CONTENT_SHOW + 1] = "", got[2 * CONTENT_SHOW + 1] = "";
	if (e->gen_written_s) {
		time_t t = (time_t)e->gen_written_s;
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), ", written %Y-%m-%d %H:%M:%S UTC", &tm);
	}
	if (f->verdict == CONTENT_SHORT) {
		snprintf(buf, len,
		         "content check: the file ends at offset %" PRIu64
		         " (short), before the size fsmix recorded (generation %" PRIu32 "%s)",
		         f->off, e->gen_current, when);
		return;
	}
	hex(exp, sizeof(exp), f->expected, f->shown);
	hex(got, sizeof(got), f->found, f->shown);
	char found[32] = "none recognised";
	if (f->gen_found)
		snprintf(found, sizeof(found), "%" PRIu32, f->gen_found);
	char cur[24] = "unknown";
	if (e->gen_current)
		snprintf(cur, sizeof(cur), "%" PRIu32, e->gen_current);
	snprintf(buf, len,
	         "content check: %s data at offset %" PRIu64 ": generation found %s, expected 1..%s"
	         " (shown: generation %" PRIu32 "%s): expected %s, found %s",
	         content_verdict_name(f->verdict), f->off, found, cur, f->gen_expected, when, exp,
	         got);
}

int results_set_intervals(struct results *r, size_t group, const struct interval_row *rows,
                          size_t n)
{
	struct interval_row *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (n)
		memcpy(v, rows, n * sizeof(*v));
	struct interval_row **dst = group == SIZE_MAX ? &r->intervals : &r->groups[group].intervals;
	size_t *dn = group == SIZE_MAX ? &r->n_intervals : &r->groups[group].n_intervals;
	free(*dst);
	*dst = v;
	*dn = n;
	return 0;
}

/* ---- merging ---- */

static bool same_ranges(const struct range_table *a, const struct range_table *b)
{
	if (!a || !b)
		return a == b;
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->r[i].lo_ns != b->r[i].lo_ns || a->r[i].hi_ns != b->r[i].hi_ns)
			return false;
	return true;
}

static bool same_plan(const struct results *a, const struct results *b)
{
	if (a->n_groups != b->n_groups || a->n_fs != b->n_fs || a->n_phases != b->n_phases)
		return false;
	for (size_t gi = 0; gi < a->n_groups; gi++) {
		const struct results_group *x = &a->groups[gi], *y = &b->groups[gi];
		if (strcmp(x->name, y->name) || x->bindfs != y->bindfs || x->phase != y->phase ||
		    memcmp(x->weight, y->weight, sizeof(x->weight)) ||
		    !same_ranges(x->ranges, y->ranges))
			return false;
	}
	for (size_t i = 0; i < a->n_fs; i++)
		if (strcmp(a->fs[i].name, b->fs[i].name))
			return false;
	return true;
}

/* Row k of both sets is one row (see results.h). */
static int merge_rows(struct interval_row **dst, size_t *dn, const struct interval_row *src,
                      size_t sn)
{
	if (sn > *dn) {
		struct interval_row *v = realloc(*dst, sn * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + *dn, 0, (sn - *dn) * sizeof(*v));
		*dst = v;
		*dn = sn;
	}
	for (size_t k = 0; k < sn; k++) {
		struct interval_row *d = &(*dst)[k];
		const struct interval_row *s = &src[k];
		d->t_s = s->t_s > d->t_s ? s->t_s : d->t_s;
		d->length_s = s->length_s > d->length_s ? s->length_s : d->length_s;
		d->ops += s->ops;
		d->trans += s->trans;
		d->bytes += s->bytes;
		d->p99_op_ns = s->p99_op_ns > d->p99_op_ns ? s->p99_op_ns : d->p99_op_ns;
	}
	return 0;
}

static void merge_dev(struct devstat_sample *d, const struct devstat_sample *s)
{
	if (!d->valid || !s->valid) {
		memset(d, 0, sizeof(*d));
		return;
	}
	d->has_discard &= s->has_discard;
	d->has_flush &= s->has_flush;
	d->read_ios += s->read_ios;
	d->read_merges += s->read_merges;
	d->read_sectors += s->read_sectors;
	d->read_ticks_ms += s->read_ticks_ms;
	d->write_ios += s->write_ios;
	d->write_merges += s->write_merges;
	d->write_sectors += s->write_sectors;
	d->write_ticks_ms += s->write_ticks_ms;
	d->in_flight += s->in_flight;
	d->io_ticks_ms += s->io_ticks_ms;
	d->time_in_queue_ms += s->time_in_queue_ms;
	d->discard_ios += s->discard_ios;
	d->discard_merges += s->discard_merges;
	d->discard_sectors += s->discard_sectors;
	d->discard_ticks_ms += s->discard_ticks_ms;
	d->flush_ios += s->flush_ios;
	d->flush_ticks_ms += s->flush_ticks_ms;
}

static int merge_groups(struct results *dst, const struct results *src)
{
	int rc = thread_stats_merge(&dst->total, &src->total);
	for (int op = 0; op < OP_COUNT; op++)
		dst->total_skipped[op] += src->total_skipped[op];
	for (size_t gi = 0; !rc && gi < dst->n_groups; gi++) {
		struct results_group *d = &dst->groups[gi];
		const struct results_group *s = &src->groups[gi];
		if ((rc = results_group_ready(dst, gi)))
			break;
		d->num_threads += s->num_threads;
		d->rate_target += s->rate_target;
		for (int op = 0; op < OP_COUNT; op++)
			d->skipped[op] += s->skipped[op];
		if ((rc = thread_stats_merge(&d->st, &s->st)))
			break;
		rc = merge_rows(&d->intervals, &d->n_intervals, s->intervals, s->n_intervals);
	}
	return rc;
}

int results_total_of_groups(struct results *r)
{
	int rc = 0;
	thread_stats_reset(&r->total);
	memset(r->total_skipped, 0, sizeof(r->total_skipped));
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		const struct results_group *g = &r->groups[gi];
		if (!g->st_ready)
			continue; /* its statistics could not be made: the filler reports that */
		struct thread_stats tmp = g->st;
		tmp.ranges = NULL;
		tmp.range_cols = 0;
		tmp.range_counts = NULL;
		int mrc = thread_stats_merge(&r->total, &tmp);
		rc = rc ? rc : mrc;
		for (int op = 0; op < OP_COUNT; op++)
			r->total_skipped[op] += g->skipped[op];
	}
	return rc;
}

int results_merge(struct results *dst, const struct results *src)
{
	if (!same_plan(dst, src))
		return -EINVAL;
	int rc = merge_groups(dst, src);
	if (!rc)
		rc = merge_rows(&dst->intervals, &dst->n_intervals, src->intervals,
		                src->n_intervals);
	for (size_t i = 0; !rc && i < src->n_errors; i++)
		rc = results_add_error(dst, &src->errors[i]);
	dst->verify_mismatches += src->verify_mismatches;
	if (rc)
		return rc;
	for (size_t i = 0; i < dst->n_fs; i++) {
		struct results_fs *d = &dst->fs[i];
		const struct results_fs *s = &src->fs[i];
		d->reused &= s->reused;
		d->setup_s = s->setup_s > d->setup_s ? s->setup_s : d->setup_s;
		d->built_files += s->built_files;
		d->built_bytes += s->built_bytes;
		merge_dev(&d->dev_delta, &s->dev_delta);
	}
	dst->total_threads += src->total_threads;
	for (size_t ph = 0; ph < dst->n_phases; ph++) { /* same_plan: as many */
		struct results_phase *d = &dst->phases[ph];
		const struct results_phase *s = &src->phases[ph];
		d->threads += s->threads;
		d->counted_ops += s->counted_ops;
		d->runtime_s = s->runtime_s > d->runtime_s ? s->runtime_s : d->runtime_s;
		if (d->stop == STOP_NONE)
			d->stop = s->stop;
	}
	dst->measured = dst->measured && src->measured;
	dst->interrupted |= src->interrupted;
	if (dst->stop == STOP_NONE)
		dst->stop = src->stop;
	if (!dst->signal)
		dst->signal = src->signal;
	if (!dst->failure[0])
		memcpy(dst->failure, src->failure, sizeof(dst->failure));
	dst->runtime_s = src->runtime_s > dst->runtime_s ? src->runtime_s : dst->runtime_s;
	dst->user_s += src->user_s;
	dst->sys_s += src->sys_s;
	dst->sqpoll_s += src->sqpoll_s;
	dst->has_sqpoll |= src->has_sqpoll;
	return 0;
}

/* ---- derived figures ---- */

void results_sums(const struct thread_stats *st, const uint64_t *skipped, struct results_sums *out)
{
	memset(out, 0, sizeof(*out));
	for (int op = 0; op < OP_COUNT; op++) {
		if (op_table[op].flags & OPF_STEP) /* counted in its sequence's row */
			continue;
		out->ops += st->ops[op];
		out->trans += st->trans[op];
		out->bytes_read += st->bytes_read[op];
		out->bytes_written += st->bytes_written[op];
		out->errors += st->errors[op];
		out->skipped += skipped ? skipped[op] : 0;
		out->busy += st->busy[op];
	}
}

double results_rate(double x, double secs)
{
	return secs > 0 ? x / secs : NAN;
}

double results_share(double part, double whole)
{
	return whole != 0 ? 100.0 * part / whole : NAN;
}

void results_cpu(const struct results *r, struct results_cpu *out)
{
	double rt = r->runtime_s, cpu = r->user_s + r->sys_s;
	out->user_pct = results_rate(100.0 * r->user_s, rt);
	out->sys_pct = results_rate(100.0 * r->sys_s, rt);
	out->one_cpu_pct = results_rate(100.0 * cpu, rt);
	out->all_cpus_pct =
	    r->env.cpus_online > 0 ? out->one_cpu_pct / (double)r->env.cpus_online : NAN;
}

/* x as a share (%) of every pick, 0 when there was none. */
static double pick_pct(const struct results_sums *s, uint64_t x)
{
	double share =
	    results_share((double)x, (double)(s->ops + s->errors + s->skipped + s->busy));
	return isnan(share) ? 0 : share;
}

double results_skipped_pct(const struct results_sums *s)
{
	return pick_pct(s, s->skipped);
}

double results_busy_pct(const struct results_sums *s)
{
	return pick_pct(s, s->busy);
}

bool results_op_shown(const struct results *r, const struct results_group *g, int op)
{
	const struct thread_stats *st = g ? &g->st : &r->total;
	const uint64_t *skipped = g ? g->skipped : r->total_skipped;
	if (g && g->weight[op])
		return true;
	if (!g)
		for (size_t gi = 0; gi < r->n_groups; gi++)
			if (r->groups[gi].weight[op])
				return true;
	return st->ops[op] || st->trans[op] || st->bytes_read[op] || st->bytes_written[op] ||
	       st->errors[op] || skipped[op] || st->busy[op] || st->op_lat[op].n;
}

static uint64_t larger(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* A group's sync() calls (every filesystem) and its calls that reach one filesystem (fsync,
 * fdatasync, syncfs): timed, or issued by its completed ops when that is more. */
static void group_syncs(const struct results_group *g, uint64_t *global, uint64_t *local)
{
	const struct thread_stats *st = &g->st;
	uint64_t timed = 0, by_ops = st->ops[OP_syncfs];
	for (int s = 0; s < SYS_COUNT; s++)
		if ((sys_table[s].flags & SYSF_SYNC) && s != SYS_sync)
			timed += st->sys_lat[s].n;
	for (int op = 0; op < OP_COUNT; op++)
		by_ops += op_sync_calls(op_table[op].flags) * st->ops[op];
	*global = larger(st->sys_lat[SYS_sync].n, st->ops[OP_sync]);
	*local = larger(timed, by_ops);
}

/* The sync calls that went to filesystem fi (results.h's rule); false when unknown. */
static bool fs_syncs(const struct results *r, size_t fi, uint64_t *out)
{
	uint64_t n = 0;
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		uint64_t global, local;
		int bind = r->groups[gi].bindfs;
		group_syncs(&r->groups[gi], &global, &local);
		n += global;
		if (!local)
			continue;
		if (bind < 0 && r->n_fs > 1)
			return false;
		if (bind < 0 || (size_t)bind == fi)
			n += local;
	}
	*out = n;
	return true;
}

void results_fs_flushes(const struct results *r, size_t fi, struct results_flushes *out)
{
	const struct results_fs *fs = &r->fs[fi];
	const struct devstat_sample *d = &fs->dev_delta;
	memset(out, 0, sizeof(*out));
	if (!fs->dev.has_device)
		out->why = fs->dev.why[0] ? fs->dev.why : "no block device under the location";
	else if (!d->valid)
		out->why = "the device's stat counters could not be read";
	out->flush_why = out->why;
	if (!out->flush_why && !d->has_flush)
		out->flush_why = "the kernel does not report flush requests (Linux >= 5.5 does)";
	out->flushes = out->flush_why ? 0 : d->flush_ios;
	out->flushes_per_s =
	    out->flush_why ? NAN : results_rate((double)d->flush_ios, r->runtime_s);
	out->syncs_known = fs_syncs(r, fi, &out->syncs);
	out->per_sync_why = out->flush_why;
	if (!out->per_sync_why && !out->syncs_known)
		out->per_sync_why = "fsync calls are not counted per filesystem: a group that "
		                    "issued them picks its filesystem at random (no bindfs)";
	else if (!out->per_sync_why && !out->syncs)
		out->per_sync_why = "no fsync was issued";
	out->per_sync = out->per_sync_why ? NAN : (double)out->flushes / (double)out->syncs;
}

const char *results_stop_name(enum stop_reason why)
{
	switch (why) {
	case STOP_TIME:
		return "time";
	case STOP_COUNT:
		return "count";
	case STOP_ERROR:
		return "error";
	case STOP_SIGNAL:
		return "signal";
	case STOP_CRASH:
		return "crashed";
	case STOP_STONEWALL:
		return "stonewall";
	default:
		return NULL;
	}
}

bool results_arrivals(const struct results *r, size_t gi, struct results_arrivals *out)
{
	const struct results_group *g = &r->groups[gi];
	if (!(g->rate_target > 0))
		return false;
	struct results_sums s;
	results_sums(&g->st, g->skipped, &s);
	out->served = s.ops + s.errors + s.skipped + s.busy;
	out->dropped = g->st.missed_starts;
	out->intended = out->served + out->dropped;
	out->queued_late = g->st.late_starts;
	out->bound_hits = g->st.backlog_full;
	return true;
}

bool results_rate_check(const struct results *r, size_t gi, double *target, double *achieved,
                        double *short_pct)
{
	const struct results_group *g = &r->groups[gi];
	if (!(g->rate_target > 0) || !(results_group_runtime(r, gi) > 0) || !r->measured)
		return false;
	struct results_sums s;
	results_sums(&g->st, g->skipped, &s);
	*target = g->rate_target;
	*achieved = (double)(s.ops + s.errors + s.skipped + s.busy) / results_group_runtime(r, gi);
	*short_pct = 100.0 * (*target - *achieved) / *target;
	return true;
}

void results_phase_sums(const struct results *r, size_t ph, struct results_sums *out,
                        uint64_t ops_by_op[OP_COUNT])
{
	memset(out, 0, sizeof(*out));
	if (ops_by_op)
		memset(ops_by_op, 0, OP_COUNT * sizeof(*ops_by_op));
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		const struct results_group *g = &r->groups[gi];
		if (g->phase != ph || !g->st_ready)
			continue;
		struct results_sums s;
		results_sums(&g->st, g->skipped, &s);
		out->ops += s.ops;
		out->trans += s.trans;
		out->bytes_read += s.bytes_read;
		out->bytes_written += s.bytes_written;
		out->errors += s.errors;
		out->skipped += s.skipped;
		out->busy += s.busy;
		for (int op = 0; ops_by_op && op < OP_COUNT; op++)
			ops_by_op[op] += g->st.ops[op];
	}
}

double results_group_runtime(const struct results *r, size_t gi)
{
	uint32_t ph = r->groups[gi].phase;
	return r->n_phases && ph < r->n_phases ? r->phases[ph].runtime_s : r->runtime_s;
}

void results_phase_op_lat(const struct results *r, size_t ph, int op, struct lat_stats *out)
{
	lat_init(out);
	for (size_t gi = 0; gi < r->n_groups; gi++)
		if (r->groups[gi].phase == ph && r->groups[gi].st_ready)
			lat_merge(out, &r->groups[gi].st.op_lat[op]);
}
