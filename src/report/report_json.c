/* report_json.c - the JSON report (see report_data.h; the schema is docs/output.md). */
#include "report_data.h"
#include "report_job.h"
#include "settle.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "profile_json.h"
#include "outfile.h"

#define MIB 1048576.0

/* A build that remembers whether anything failed (jansson returns NULL when out of memory). */
struct jb {
	bool fail;
};

static void put(struct jb *b, json_t *o, const char *key, json_t *v)
{
	/* json_object_set_new releases v when it fails, and fails for a NULL o or v */
	if (json_object_set_new(o, key, v))
		b->fail = true;
}

static void add(struct jb *b, json_t *a, json_t *v)
{
	if (json_array_append_new(a, v))
		b->fail = true;
}

/* Counters are uint64; JSON integers here are int64 (never reached in practice: clamped). */
static json_t *ju(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

/* A real, or null when it is not finite (JSON has no NaN or infinity). */
static json_t *jr(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *js(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* x per second of secs, or null for a run (or row) of no time: results_rate. */
static json_t *per_s(double x, double secs)
{
	return jr(results_rate(x, secs));
}

/* A latency series: count, min/avg/max/stddev and five percentiles, in integer ns and real ms.
 * null when nothing was timed. */
static json_t *lat_json(struct jb *b, const struct lat_stats *l)
{
	static const struct {
		const char *ns, *ms;
		double p;
	} pct[] = {{"p50_ns", "p50_ms", 50},
	           {"p90_ns", "p90_ms", 90},
	           {"p99_ns", "p99_ms", 99},
	           {"p99_9_ns", "p99_9_ms", 99.9},
	           {"p99_99_ns", "p99_99_ms", 99.99}};
	if (!l->n)
		return json_null();
	json_t *o = json_object();
	uint64_t mn = lat_min_ns(l), mx = l->max_ns;
	double avg = lat_mean_ns(l), sd = lat_stddev_ns(l);
	uint64_t p[sizeof(pct) / sizeof(pct[0])];
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		p[i] = lat_percentile_ns(l, pct[i].p);
	put(b, o, "count", ju(l->n));
	put(b, o, "min_ns", ju(mn));
	put(b, o, "avg_ns", ju((uint64_t)llround(avg)));
	put(b, o, "max_ns", ju(mx));
	put(b, o, "stddev_ns", ju((uint64_t)llround(sd)));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		put(b, o, pct[i].ns, ju(p[i]));
	put(b, o, "min_ms", jr((double)mn / 1e6));
	put(b, o, "avg_ms", jr(avg / 1e6));
	put(b, o, "max_ms", jr((double)mx / 1e6));
	put(b, o, "stddev_ms", jr(sd / 1e6));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		put(b, o, pct[i].ms, jr((double)p[i] / 1e6));
	return o;
}

static json_t *op_json(struct jb *b, const struct thread_stats *st, const uint64_t *skipped,
                       const uint32_t *weight, int op, uint64_t all_trans, uint64_t all_ops,
                       double rt)
{
	json_t *o = json_object();
	uint64_t bytes = st->bytes_read[op] + st->bytes_written[op];
	put(b, o, "name", json_string(op_table[op].name));
	put(b, o, "weight", weight ? ju(weight[op]) : json_null());
	put(b, o, "count", ju(st->ops[op]));
	put(b, o, "ops_per_s", per_s((double)st->ops[op], rt));
	put(b, o, "transactions", ju(st->trans[op]));
	put(b, o, "trans_per_s", per_s((double)st->trans[op], rt));
	put(b, o, "percent_transactions",
	    jr(results_share((double)st->trans[op], (double)all_trans)));
	put(b, o, "percent_ops", jr(results_share((double)st->ops[op], (double)all_ops)));
	put(b, o, "bytes_read", ju(st->bytes_read[op]));
	put(b, o, "bytes_written", ju(st->bytes_written[op]));
	put(b, o, "mb_per_s", per_s((double)bytes / MIB, rt));
	put(b, o, "errors", ju(st->errors[op]));
	put(b, o, "skipped", ju(skipped ? skipped[op] : 0));
	put(b, o, "busy", ju(st->busy[op]));
	put(b, o, "latency", lat_json(b, &st->op_lat[op]));
	return o;
}

static json_t *sys_json(struct jb *b, const struct thread_stats *st, const struct range_table *rt,
                        int s)
{
	json_t *o = json_object();
	put(b, o, "name", json_string(sys_table[s].name));
	put(b, o, "sync", json_boolean(sys_table[s].flags & SYSF_SYNC));
	put(b, o, "latency", lat_json(b, &st->sys_lat[s]));
	const uint64_t *row = stats_range_row(st, (enum sys_id)s);
	if (!rt || !row || st->range_cols != rt->n + 1) {
		put(b, o, "msec_ranges", json_null());
		put(b, o, "outside", json_null());
		return o;
	}
	json_t *ranges = json_array();
	for (uint32_t k = 0; k < rt->n; k++) { /* declaration order */
		uint32_t col = k;
		for (uint32_t c = 0; c < rt->n; c++)
			if (rt->r[c].decl == k)
				col = c;
		json_t *r = json_object();
		put(b, r, "lo_ms", jr((double)rt->r[col].lo_ns / 1e6));
		put(b, r, "hi_ms", jr((double)rt->r[col].hi_ns / 1e6));
		put(b, r, "count", ju(row[col]));
		add(b, ranges, r);
	}
	put(b, o, "msec_ranges", ranges);
	put(b, o, "outside", ju(row[rt->n]));
	return o;
}

/* --interval rows as JSON: the total's, or a group's (results_group.intervals). */
static json_t *intervals_json(struct jb *b, const struct interval_row *rows, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct interval_row *r = &rows[i];
		json_t *o = json_object();
		put(b, o, "t_s", jr(r->t_s));
		put(b, o, "length_s", jr(r->length_s));
		put(b, o, "ops", ju(r->ops));
		put(b, o, "ops_per_s", per_s((double)r->ops, r->length_s));
		put(b, o, "transactions", ju(r->trans));
		put(b, o, "trans_per_s", per_s((double)r->trans, r->length_s));
		put(b, o, "bytes", ju(r->bytes));
		put(b, o, "mb_per_s", per_s((double)r->bytes / MIB, r->length_s));
		put(b, o, "p99_op_ns", r->p99_op_ns ? ju(r->p99_op_ns) : json_null());
		put(b, o, "p99_op_ms", r->p99_op_ns ? jr((double)r->p99_op_ns / 1e6) : json_null());
		put(b, o, "ramp", json_boolean(r->ramp));
		add(b, a, o);
	}
	return a;
}

/* --interval: the run's own noise (settle.h); null without rows to tell it. */
static json_t *noise_json(struct jb *b, const struct results *r)
{
	struct settle s;
	settle_of(r->intervals, r->n_intervals, &s);
	if (isnan(s.cv_pct))
		return json_null();
	json_t *o = json_object();
	put(b, o, "metric", js("trans_per_s"));
	put(b, o, "intervals", ju(s.n));
	put(b, o, "mean", jr(s.mean));
	put(b, o, "stddev", jr(s.sd));
	put(b, o, "cv_pct", jr(s.cv_pct));
	put(b, o, "third_intervals", s.checked ? ju(s.k) : json_null());
	put(b, o, "middle_third_mean", s.checked ? jr(s.mid_mean) : json_null());
	put(b, o, "last_third_mean", s.checked ? jr(s.last_mean) : json_null());
	put(b, o, "noise_stddev", s.checked ? jr(s.noise_sd) : json_null());
	put(b, o, "change_pct", s.checked ? jr(s.change_pct) : json_null());
	put(b, o, "settled", s.checked ? json_boolean(s.settled) : json_null());
	return o;
}

/* One result set: a thread group (g != NULL) or the total (g == NULL). */
static json_t *group_json(struct jb *b, const struct results *r, const struct results_group *g)
{
	/* a group of a phase: its rates over its phase's time (phase=N) */
	double runtime = g ? results_group_runtime(r, (size_t)(g - r->groups)) : r->runtime_s;
	const struct thread_stats *st = g ? &g->st : &r->total;
	const uint64_t *skipped = g ? g->skipped : r->total_skipped;
	struct results_sums sum;
	results_sums(st, skipped, &sum);
	uint64_t rd = sum.bytes_read, wr = sum.bytes_written;
	json_t *o = json_object();
	put(b, o, "name", json_string(g ? g->name : "total"));
	put(b, o, "index", g ? ju(g->index) : json_null());
	put(b, o, "threads", ju(g ? g->num_threads : r->total_threads));
	if (r->n_phases) /* only in a run with phases: the shape of others stays as it was */
		put(b, o, "phase", g ? ju(g->phase) : json_null());
	put(b, o, "engine", g ? json_string(io_engine_word(g->io_engine)) : json_null());
	put(b, o, "iodepth", g ? ju(g->iodepth) : json_null());
	put(b, o, "max_in_flight", g ? ju(g->max_in_flight) : json_null());
	put(b, o, "bindfs",
	    g && g->bindfs >= 0 && (size_t)g->bindfs < r->n_fs ? json_string(r->fs[g->bindfs].name)
	                                                       : json_null());
	put(b, o, "operations", ju(sum.ops));
	put(b, o, "ops_per_s", per_s((double)sum.ops, runtime));
	put(b, o, "transactions", ju(sum.trans));
	put(b, o, "trans_per_s", per_s((double)sum.trans, runtime));
	put(b, o, "bytes_read", ju(rd));
	put(b, o, "bytes_written", ju(wr));
	put(b, o, "read_mb_per_s", per_s((double)rd / MIB, runtime));
	put(b, o, "write_mb_per_s", per_s((double)wr / MIB, runtime));
	put(b, o, "mb_per_s", per_s((double)(rd + wr) / MIB, runtime));
	put(b, o, "errors", ju(sum.errors));
	put(b, o, "skipped", ju(sum.skipped));
	put(b, o, "busy", ju(sum.busy));
	/* of every pick: ran, failed, found no file or found every file busy */
	put(b, o, "skipped_percent", json_real(results_skipped_pct(&sum)));
	put(b, o, "busy_percent", json_real(results_busy_pct(&sum)));
	json_t *opa = json_array(), *sysa = json_array();
	for (int op = 0; op < OP_COUNT; op++)
		if (results_op_shown(r, g, op))
			add(b, opa,
			    op_json(b, st, skipped, g ? g->weight : NULL, op, sum.trans, sum.ops,
			            runtime));
	for (int s = 0; s < SYS_COUNT; s++)
		if (st->sys_lat[s].n)
			add(b, sysa, sys_json(b, st, g ? g->ranges : NULL, s));
	put(b, o, "ops", opa);
	put(b, o, "syscalls", sysa);
	/* Every operation's latency together (the headline of sweeps and comparisons): the
	 * per-op series merged, null when nothing was timed. */
	struct lat_stats all;
	lat_init(&all);
	for (int op = 0; op < OP_COUNT; op++)
		if (!(op_table[op].flags & OPF_STEP)) /* part of a sequence's */
			lat_merge(&all, &st->op_lat[op]);
	put(b, o, "op_latency", all.n ? lat_json(b, &all) : json_null());
	/* op_period groups: from each operation's scheduled start, missed starts included */
	put(b, o, "response_latency",
	    st->resp_lat && st->resp_lat->n ? lat_json(b, st->resp_lat) : json_null());
	put(b, o, "missed_starts", ju(st->missed_starts));
	/* op_rate / op_period groups: what became of their starts (arrival_backlog) */
	struct results_arrivals a;
	if (g && results_arrivals(r, (size_t)(g - r->groups), &a)) {
		json_t *arr = json_object();
		put(b, arr, "backlog", json_string(g->backlog_queue ? "queue" : "drop"));
		put(b, arr, "backlog_max", g->backlog_queue ? ju(g->backlog_max) : json_null());
		put(b, arr, "intended", ju(a.intended));
		put(b, arr, "served", ju(a.served));
		put(b, arr, "dropped", ju(a.dropped));
		put(b, arr, "queued_late", ju(a.queued_late));
		put(b, arr, "bound_hits", ju(a.bound_hits));
		put(b, o, "arrivals", arr);
	} else if (g) {
		put(b, o, "arrivals", json_null());
	}
	/* op_rate / op_period groups: the target and what the group reached */
	double target, achieved, short_pct;
	if (g && results_rate_check(r, (size_t)(g - r->groups), &target, &achieved, &short_pct)) {
		json_t *rate = json_object();
		put(b, rate, "target", json_real(target));
		put(b, rate, "achieved", json_real(achieved));
		put(b, rate, "short_pct", json_real(short_pct));
		put(b, rate, "reached", json_boolean(short_pct <= RESULTS_RATE_WARN_PCT));
		put(b, o, "rate", rate);
	} else if (g) {
		put(b, o, "rate", json_null());
	}
	/* A group's own --interval rows (the total's are the top-level "intervals"). */
	if (g && g->intervals)
		put(b, o, "intervals", intervals_json(b, g->intervals, g->n_intervals));
	return o;
}

static json_t *counters_json(struct jb *b, const struct results *r, size_t fi)
{
	const struct devstat_sample *d = &r->fs[fi].dev_delta;
	struct results_flushes fl;
	results_fs_flushes(r, fi, &fl);
	json_t *o = json_object();
	put(b, o, "available", json_boolean(!fl.why));
	put(b, o, "reason", js(fl.why));
	static const char *const names[] = {"read_requests",    "read_merges",  "read_sectors",
	                                    "write_requests",   "write_merges", "write_sectors",
	                                    "discard_requests", "io_ticks_ms"};
	const uint64_t vals[] = {d->read_ios,    d->read_merges,  d->read_sectors,
	                         d->write_ios,   d->write_merges, d->write_sectors,
	                         d->discard_ios, d->io_ticks_ms};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		put(b, o, names[i], fl.why ? json_null() : ju(vals[i]));
	put(b, o, "flush_requests", fl.flush_why ? json_null() : ju(fl.flushes));
	put(b, o, "flushes_per_s", fl.flush_why ? json_null() : jr(fl.flushes_per_s));
	put(b, o, "flush_reason", js(fl.flush_why));
	put(b, o, "fsync_calls", fl.syncs_known ? ju(fl.syncs) : json_null());
	put(b, o, "flushes_per_fsync", fl.per_sync_why ? json_null() : jr(fl.per_sync));
	put(b, o, "flushes_per_fsync_reason", js(fl.per_sync_why));
	return o;
}

static json_t *environment_json(struct jb *b, const struct results *r)
{
	const struct results_env *env = &r->env;
	json_t *o = json_object(), *fsa = json_array();
	put(b, o, "fsmix_version", json_string(env->fsmix_version));
	if (env->have_uname) {
		json_t *k = json_object();
		put(b, k, "sysname", json_string(env->sysname));
		put(b, k, "release", json_string(env->release));
		put(b, k, "version", json_string(env->version));
		put(b, k, "machine", json_string(env->machine));
		put(b, o, "hostname", json_string(env->hostname));
		put(b, o, "kernel", k);
	} else {
		put(b, o, "hostname", json_null());
		put(b, o, "kernel", json_null());
	}
	put(b, o, "cpus_online",
	    env->cpus_online > 0 ? json_integer(env->cpus_online) : json_null());
	for (size_t i = 0; i < r->n_fs; i++) {
		const struct results_fs *fs = &r->fs[i];
		const struct devstat_dev *d = &fs->dev;
		json_t *f = json_object();
		put(b, f, "name", json_string(fs->name));
		put(b, f, "location", js(fs->location));
		put(b, f, "fstype", d->fstype[0] ? json_string(d->fstype) : json_null());
		put(b, f, "mount_point",
		    d->mount_point[0] ? json_string(d->mount_point) : json_null());
		put(b, f, "mount_source",
		    d->mount_source[0] ? json_string(d->mount_source) : json_null());
		put(b, f, "mount_options",
		    d->mount_options[0] ? json_string(d->mount_options) : json_null());
		put(b, f, "device",
		    d->has_device && d->devname[0] ? json_string(d->devname) : json_null());
		put(b, f, "device_number", json_sprintf("%u:%u", d->major, d->minor));
		put(b, f, "device_reason",
		    d->has_device ? json_null()
		                  : json_string(d->why[0] ? d->why : "no block device"));
		add(b, fsa, f);
	}
	put(b, o, "filesystems", fsa);
	return o;
}

static json_t *filesystems_json(struct jb *b, const struct results *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->n_fs; i++) {
		const struct results_fs *fs = &r->fs[i];
		json_t *f = json_object();
		put(b, f, "name", json_string(fs->name));
		put(b, f, "location", js(fs->location));
		put(b, f, "reused", json_boolean(fs->reused));
		put(b, f, "setup_s", jr(fs->setup_s));
		put(b, f, "built_files", ju(fs->built_files));
		put(b, f, "built_bytes", ju(fs->built_bytes));
		put(b, f, "device_counters", counters_json(b, r, i));
		add(b, a, f);
	}
	return a;
}

static json_t *cpu_json(struct jb *b, const struct results *r)
{
	json_t *o = json_object();
	long ncpu = r->env.cpus_online;
	struct results_cpu c;
	results_cpu(r, &c);
	put(b, o, "user_s", jr(r->user_s));
	put(b, o, "sys_s", jr(r->sys_s));
	put(b, o, "sqpoll_s", r->has_sqpoll ? jr(r->sqpoll_s) : json_null());
	put(b, o, "user_percent", jr(c.user_pct));
	put(b, o, "sys_percent", jr(c.sys_pct));
	put(b, o, "percent_of_one_cpu", jr(c.one_cpu_pct));
	put(b, o, "percent_of_all_cpus", jr(c.all_cpus_pct));
	put(b, o, "cpus_online", ncpu > 0 ? json_integer(ncpu) : json_null());
	return o;
}

static json_t *hex_json(const uint8_t *p, size_t n)
{
	char h[2 * CONTENT_SHOW + 1] = "";
	for (size_t i = 0; i < n && i < CONTENT_SHOW; i++)
		snprintf(h + 2 * i, 3, "%02x", p[i]);
	return json_string(h);
}

/* A verify error's finding (docs/output.md, "Verifiable content"). */
static json_t *verify_error_json(struct jb *b, const struct results_error *er)
{
	const struct content_finding *f = &er->found;
	json_t *o = json_object();
	char what[MSG_MAX];
	results_verify_text(er, what, sizeof(what));
	put(b, o, "verdict", json_string(content_verdict_name(f->verdict)));
	put(b, o, "offset", ju(f->off));
	put(b, o, "generation_found", f->gen_found ? ju(f->gen_found) : json_null());
	put(b, o, "generation_current", er->gen_current ? ju(er->gen_current) : json_null());
	put(b, o, "generation_shown", f->gen_expected ? ju(f->gen_expected) : json_null());
	put(b, o, "generation_written",
	    er->gen_written_s ? json_integer((json_int_t)er->gen_written_s) : json_null());
	put(b, o, "expected", hex_json(f->expected, f->shown));
	put(b, o, "found", hex_json(f->found, f->shown));
	put(b, o, "message", json_string(what));
	return o;
}

static json_t *errors_json(struct jb *b, const struct results *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->n_errors; i++) {
		const struct results_error *er = &r->errors[i];
		const char *ename = strerrorname_np(er->err);
		json_t *o = json_object();
		put(b, o, "worker", ju(er->worker));
		put(b, o, "group", js(er->group < r->n_groups ? r->groups[er->group].name : NULL));
		put(b, o, "group_index", ju(er->group));
		put(b, o, "op",
		    json_string((unsigned)er->op < OP_COUNT ? op_table[er->op].name : "?"));
		put(b, o, "syscall",
		    json_string((unsigned)er->sys < SYS_COUNT ? sys_table[er->sys].name : "?"));
		put(b, o, "path", json_string(er->path));
		put(b, o, "errno", json_integer(er->err));
		put(b, o, "errno_name", js(ename));
		put(b, o, "message", json_string(strerror(er->err)));
		put(b, o, "at_s", jr((double)er->at_ns / 1e9));
		put(b, o, "kind", json_string(results_error_kind(er)));
		if (er->verify)
			put(b, o, "verify", verify_error_json(b, er));
		add(b, a, o);
	}
	return a;
}

/* phase=N: one object per phase, in order (docs/output.md, "Phases"). */
static json_t *phases_json(struct jb *b, const struct results *r)
{
	json_t *a = json_array();
	for (size_t ph = 0; ph < r->n_phases; ph++) {
		const struct results_phase *p = &r->phases[ph];
		struct results_sums s;
		uint64_t by_op[OP_COUNT];
		results_phase_sums(r, ph, &s, by_op);
		double rt = p->runtime_s;
		json_t *o = json_object(), *groups = json_array(), *ops = json_array();
		put(b, o, "phase", ju(ph));
		for (size_t gi = 0; gi < r->n_groups; gi++)
			if (r->groups[gi].phase == ph)
				add(b, groups, json_string(r->groups[gi].name));
		put(b, o, "groups", groups);
		put(b, o, "threads", ju(p->threads));
		put(b, o, "time_s", ju(p->time_s));
		put(b, o, "counted_ops", p->counted ? ju(p->counted_ops) : json_null());
		put(b, o, "stop_reason", js(results_stop_name(p->stop)));
		put(b, o, "stonewall", json_boolean(p->stop == STOP_STONEWALL));
		put(b, o, "start_s", jr(p->start_s));
		put(b, o, "runtime_s", jr(rt));
		put(b, o, "operations", ju(s.ops));
		put(b, o, "ops_per_s", per_s((double)s.ops, rt));
		put(b, o, "transactions", ju(s.trans));
		put(b, o, "trans_per_s", per_s((double)s.trans, rt));
		put(b, o, "bytes_read", ju(s.bytes_read));
		put(b, o, "bytes_written", ju(s.bytes_written));
		put(b, o, "mb_per_s", per_s((double)(s.bytes_read + s.bytes_written) / MIB, rt));
		put(b, o, "errors", ju(s.errors));
		put(b, o, "skipped", ju(s.skipped));
		put(b, o, "busy", ju(s.busy));
		struct lat_stats all; /* every op of the phase together, as a group's op_latency */
		lat_init(&all);
		for (int op = 0; op < OP_COUNT; op++) {
			if (!by_op[op])
				continue;
			struct lat_stats l;
			results_phase_op_lat(r, ph, op, &l);
			lat_merge(&all, &l);
			json_t *x = json_object();
			put(b, x, "name", json_string(op_table[op].name));
			put(b, x, "count", ju(by_op[op]));
			put(b, x, "ops_per_s", per_s((double)by_op[op], rt));
			put(b, x, "latency", lat_json(b, &l));
			add(b, ops, x);
		}
		put(b, o, "ops", ops);
		put(b, o, "op_latency", all.n ? lat_json(b, &all) : json_null());
		add(b, a, o);
	}
	return a;
}

json_t *report_json_build(const struct results *r, const struct report_run *run)
{
	struct jb b = {false};
	json_t *root = json_object();
	char seed[24];
	snprintf(seed, sizeof(seed), "%" PRIu64, r->seed);
	put(&b, root, "schema", json_string("fsmix-report"));
	put(&b, root, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION));
	put(&b, root, "fsmix_version", json_string(FSMIX_VERSION));
	put(&b, root, "exit_status", json_integer(run->exit_status));
	put(&b, root, "interrupted", json_boolean(r->interrupted));
	put(&b, root, "measured", json_boolean(r->measured));
	put(&b, root, "stop_reason", js(results_stop_name(r->stop)));
	const char *sig = r->signal ? sigabbrev_np(r->signal) : NULL;
	put(&b, root, "signal", sig ? json_sprintf("SIG%s", sig) : json_null());
	put(&b, root, "error", r->failure[0] ? json_string(r->failure) : json_null());
	json_t *crash = json_null();
	if (r->crashed) { /* --crash-after */
		crash = json_object();
		put(&b, crash, "at_s", jr(r->crash_at_s));
		put(&b, crash, "failed_after", ju(r->failed_after_crash));
	}
	put(&b, root, "crash", crash);
	put(&b, root, "seed", json_string(seed));
	put(&b, root, "time_s", ju(r->time_s));
	put(&b, root, "ramp_s", ju(r->ramp_s));
	put(&b, root, "fidelity", json_string(r->fidelity == FIDELITY_FFSB6 ? "ffsb6" : "exact"));
	put(&b, root, "runtime_s", jr(r->runtime_s));
	json_t *argv = json_array();
	for (int i = 0; run->argv && i < run->argc; i++)
		add(&b, argv, js(run->argv[i]));
	put(&b, root, "command_line", argv);
	put(&b, root, "profile_path", js(run->profile_path));
	put(&b, root, "environment", environment_json(&b, r));
	json_t *prof = run->profile ? profile_json_object(run->profile) : json_null();
	if (!prof)
		b.fail = true;
	put(&b, root, "profile", prof);
	put(&b, root, "cpu", cpu_json(&b, r));
	put(&b, root, "filesystems", filesystems_json(&b, r));
	json_t *groups = json_array();
	for (size_t gi = 0; gi < r->n_groups; gi++)
		add(&b, groups, group_json(&b, r, &r->groups[gi]));
	put(&b, root, "groups", groups);
	put(&b, root, "total", group_json(&b, r, NULL));
	if (r->n_phases) /* phase=N only: a run without phases keeps its shape */
		put(&b, root, "phases", phases_json(&b, r));
	put(&b, root, "errors", errors_json(&b, r));
	put(&b, root, "verify", r->verify ? ju(r->verify_mismatches) : json_null());
	put(&b, root, "intervals", intervals_json(&b, r->intervals, r->n_intervals));
	put(&b, root, "interval_noise", noise_json(&b, r));
	if (r->job.n_ranks) /* a distributed run (MPI): rank 0's report of the job */
		put(&b, root, "mpi", report_job_json(&r->job, r));
	if (b.fail) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* ---- writing ---- */

struct json_fill {
	const struct results *r;
	const struct report_run *run;
};

static int fill_json(FILE *f, void *arg)
{
	const struct json_fill *j = arg;
	json_t *root = report_json_build(j->r, j->run);
	if (!root)
		return -1;
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	fputc('\n', f);
	return rc ? -1 : 0;
}

int report_json_write(const struct results *r, const struct report_run *run, const char *path,
                      char *err, size_t errlen)
{
	struct json_fill j = {r, run};
	return outfile_write(path, fill_json, &j, err, errlen);
}
