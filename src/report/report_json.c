/* report_json.c - the JSON report (see report_data.h; the schema is docs/output.md). */
#include "report_data.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/utsname.h>
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

/* x per second of the run, or null for a run of no time. */
static json_t *per_s(double x, double runtime_s)
{
	return runtime_s > 0 ? jr(x / runtime_s) : json_null();
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

bool report_op_shown(const struct engine *e, const struct plan_group *g,
                     const struct thread_stats *st, const uint64_t *skipped, int op)
{
	if (g && g->weight[op])
		return true;
	if (!g)
		for (size_t gi = 0; gi < e->plan->n_groups; gi++)
			if (e->plan->groups[gi].weight[op])
				return true;
	return st->ops[op] || st->trans[op] || st->bytes_read[op] || st->bytes_written[op] ||
	       st->errors[op] || (skipped && skipped[op]) || st->op_lat[op].n;
}

static json_t *op_json(struct jb *b, const struct thread_stats *st, const uint64_t *skipped,
                       const struct plan_group *g, int op, uint64_t all_trans, uint64_t all_ops,
                       double rt)
{
	json_t *o = json_object();
	uint64_t bytes = st->bytes_read[op] + st->bytes_written[op];
	put(b, o, "name", json_string(op_table[op].name));
	put(b, o, "weight", g ? ju(g->weight[op]) : json_null());
	put(b, o, "count", ju(st->ops[op]));
	put(b, o, "ops_per_s", per_s((double)st->ops[op], rt));
	put(b, o, "transactions", ju(st->trans[op]));
	put(b, o, "trans_per_s", per_s((double)st->trans[op], rt));
	put(b, o, "percent_transactions",
	    all_trans ? jr(100.0 * (double)st->trans[op] / (double)all_trans) : json_null());
	put(b, o, "percent_ops",
	    all_ops ? jr(100.0 * (double)st->ops[op] / (double)all_ops) : json_null());
	put(b, o, "bytes_read", ju(st->bytes_read[op]));
	put(b, o, "bytes_written", ju(st->bytes_written[op]));
	put(b, o, "mb_per_s", per_s((double)bytes / MIB, rt));
	put(b, o, "errors", ju(st->errors[op]));
	put(b, o, "skipped", ju(skipped ? skipped[op] : 0));
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

/* --interval rows as JSON: the total's, or a group's (engine.group_intervals). */
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
		add(b, a, o);
	}
	return a;
}

/* Index of g in the plan's groups. */
static size_t gi_of(const struct engine *e, const struct plan_group *g)
{
	return (size_t)(g - e->plan->groups);
}

/* One result set: a thread group (g != NULL) or the total (g == NULL). */
static json_t *group_json(struct jb *b, const struct engine *e, const struct plan_group *g,
                          const char *name, const struct thread_stats *st, const uint64_t *skipped,
                          const struct range_table *rt)
{
	double runtime = e->runtime_s;
	uint64_t ops = 0, trans = 0, rd = 0, wr = 0, errors = 0, skip = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		ops += st->ops[op];
		trans += st->trans[op];
		rd += st->bytes_read[op];
		wr += st->bytes_written[op];
		errors += st->errors[op];
		skip += skipped ? skipped[op] : 0;
	}
	json_t *o = json_object();
	put(b, o, "name", json_string(name));
	put(b, o, "index", g ? ju(g->index) : json_null());
	put(b, o, "threads", ju(g ? g->num_threads : e->plan->total_threads));
	put(b, o, "bindfs",
	    g && g->bindfs >= 0 && (size_t)g->bindfs < e->plan->n_fs
	        ? json_string(e->plan->fs[g->bindfs].name)
	        : json_null());
	put(b, o, "operations", ju(ops));
	put(b, o, "ops_per_s", per_s((double)ops, runtime));
	put(b, o, "transactions", ju(trans));
	put(b, o, "trans_per_s", per_s((double)trans, runtime));
	put(b, o, "bytes_read", ju(rd));
	put(b, o, "bytes_written", ju(wr));
	put(b, o, "read_mb_per_s", per_s((double)rd / MIB, runtime));
	put(b, o, "write_mb_per_s", per_s((double)wr / MIB, runtime));
	put(b, o, "mb_per_s", per_s((double)(rd + wr) / MIB, runtime));
	put(b, o, "errors", ju(errors));
	put(b, o, "skipped", ju(skip));
	/* every pick: ran, failed or found no file */
	put(b, o, "skipped_percent",
	    json_real(ops + errors + skip ? 100.0 * (double)skip / (double)(ops + errors + skip)
	                                  : 0.0));
	json_t *opa = json_array(), *sysa = json_array();
	for (int op = 0; op < OP_COUNT; op++)
		if (report_op_shown(e, g, st, skipped, op))
			add(b, opa, op_json(b, st, skipped, g, op, trans, ops, runtime));
	for (int s = 0; s < SYS_COUNT; s++)
		if (st->sys_lat[s].n)
			add(b, sysa, sys_json(b, st, rt, s));
	put(b, o, "ops", opa);
	put(b, o, "syscalls", sysa);
	/* Every operation's latency together (the headline of sweeps and comparisons): the
	 * per-op series merged, null when nothing was timed. */
	struct lat_stats all;
	lat_init(&all);
	for (int op = 0; op < OP_COUNT; op++)
		lat_merge(&all, &st->op_lat[op]);
	put(b, o, "op_latency", all.n ? lat_json(b, &all) : json_null());
	/* op_period groups: from each operation's scheduled start, missed starts included */
	put(b, o, "response_latency",
	    st->resp_lat && st->resp_lat->n ? lat_json(b, st->resp_lat) : json_null());
	put(b, o, "missed_starts", ju(st->missed_starts));
	/* A group's own --interval rows (the total's are the top-level "intervals"). */
	if (g && e->group_intervals)
		put(b, o, "intervals",
		    intervals_json(b, e->group_intervals[gi_of(e, g)].v,
		                   e->group_intervals[gi_of(e, g)].n));
	return o;
}

/* sync calls of group gi: the timed count, or what the completed ops issued when the group
 * does not time them (op_sync_calls: every fsync op one, append_fsync2 two). */
static uint64_t group_syncs(const struct engine *e, size_t gi)
{
	const struct thread_stats *st = e->group_stats[gi];
	uint64_t timed = 0, by_ops = 0;
	for (int s = 0; s < SYS_COUNT; s++)
		if (sys_table[s].flags & SYSF_SYNC)
			timed += st->sys_lat[s].n;
	for (int op = 0; op < OP_COUNT; op++)
		by_ops += op_sync_calls(op_table[op].flags) * st->ops[op];
	return timed > by_ops ? timed : by_ops;
}

/* The sync calls that went to filesystem fi; false when a group that issued some picks its
 * filesystem at random among several (then they cannot be attributed). */
static bool fs_syncs(const struct engine *e, size_t fi, uint64_t *out)
{
	uint64_t n = 0;
	for (size_t gi = 0; e->group_stats && gi < e->plan->n_groups; gi++) {
		uint64_t s = group_syncs(e, gi);
		int bind = e->plan->groups[gi].bindfs;
		if (!s)
			continue;
		if (bind < 0 && e->n_fs > 1)
			return false;
		if (bind < 0 || (size_t)bind == fi)
			n += s;
	}
	*out = n;
	return true;
}

static json_t *counters_json(struct jb *b, const struct engine *e, size_t fi)
{
	const struct engine_fs *fs = &e->fs[fi];
	const struct devstat_sample *d = &fs->dev_delta;
	json_t *o = json_object();
	const char *why = NULL;
	if (!fs->dev.has_device)
		why = fs->dev.why[0] ? fs->dev.why : "no block device under the location";
	else if (!d->valid)
		why = "the device's stat counters could not be read";
	put(b, o, "available", json_boolean(!why));
	put(b, o, "reason", js(why));
	static const char *const names[] = {"read_requests",    "read_merges",  "read_sectors",
	                                    "write_requests",   "write_merges", "write_sectors",
	                                    "discard_requests", "io_ticks_ms"};
	const uint64_t vals[] = {d->read_ios,    d->read_merges,  d->read_sectors,
	                         d->write_ios,   d->write_merges, d->write_sectors,
	                         d->discard_ios, d->io_ticks_ms};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		put(b, o, names[i], why ? json_null() : ju(vals[i]));
	const char *flush_why = why;
	if (!flush_why && !d->has_flush)
		flush_why = "the kernel does not report flush requests (Linux >= 5.5 does)";
	put(b, o, "flush_requests", flush_why ? json_null() : ju(d->flush_ios));
	put(b, o, "flushes_per_s",
	    flush_why ? json_null() : per_s((double)d->flush_ios, e->runtime_s));
	put(b, o, "flush_reason", js(flush_why));
	uint64_t syncs = 0;
	bool known = fs_syncs(e, fi, &syncs);
	put(b, o, "fsync_calls", known ? ju(syncs) : json_null());
	const char *per_why = flush_why;
	if (!per_why && !known)
		per_why = "fsync calls are not counted per filesystem: a group that issued them "
		          "picks its filesystem at random (no bindfs)";
	else if (!per_why && !syncs)
		per_why = "no fsync was issued";
	put(b, o, "flushes_per_fsync",
	    per_why ? json_null() : jr((double)d->flush_ios / (double)syncs));
	put(b, o, "flushes_per_fsync_reason", js(per_why));
	return o;
}

static json_t *environment_json(struct jb *b, const struct engine *e)
{
	json_t *o = json_object(), *k = json_object(), *fsa = json_array();
	struct utsname u;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	put(b, o, "fsmix_version", json_string(FSMIX_VERSION));
	if (uname(&u) == 0) {
		put(b, k, "sysname", json_string(u.sysname));
		put(b, k, "release", json_string(u.release));
		put(b, k, "version", json_string(u.version));
		put(b, k, "machine", json_string(u.machine));
		put(b, o, "hostname", json_string(u.nodename));
		put(b, o, "kernel", k);
	} else {
		json_decref(k);
		put(b, o, "hostname", json_null());
		put(b, o, "kernel", json_null());
	}
	put(b, o, "cpus_online", ncpu > 0 ? json_integer(ncpu) : json_null());
	for (size_t i = 0; i < e->n_fs; i++) {
		const struct engine_fs *fs = &e->fs[i];
		const struct devstat_dev *d = &fs->dev;
		json_t *f = json_object();
		put(b, f, "name", json_string(fs->pf->name));
		put(b, f, "location", js(fs->pf->location));
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

static json_t *filesystems_json(struct jb *b, const struct engine *e)
{
	json_t *a = json_array();
	for (size_t i = 0; i < e->n_fs; i++) {
		const struct engine_fs *fs = &e->fs[i];
		json_t *f = json_object();
		put(b, f, "name", json_string(fs->pf->name));
		put(b, f, "location", js(fs->pf->location));
		put(b, f, "reused", json_boolean(fs->reused));
		put(b, f, "setup_s", jr(fs->setup_s));
		put(b, f, "built_files", ju(fs->built_files));
		put(b, f, "built_bytes", ju(fs->built_bytes));
		put(b, f, "device_counters", counters_json(b, e, i));
		add(b, a, f);
	}
	return a;
}

static json_t *cpu_json(struct jb *b, const struct engine *e)
{
	json_t *o = json_object();
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double rt = e->runtime_s, cpu = e->user_s + e->sys_s;
	put(b, o, "user_s", jr(e->user_s));
	put(b, o, "sys_s", jr(e->sys_s));
	put(b, o, "user_percent", rt > 0 ? jr(100.0 * e->user_s / rt) : json_null());
	put(b, o, "sys_percent", rt > 0 ? jr(100.0 * e->sys_s / rt) : json_null());
	put(b, o, "percent_of_one_cpu", rt > 0 ? jr(100.0 * cpu / rt) : json_null());
	put(b, o, "percent_of_all_cpus",
	    rt > 0 && ncpu > 0 ? jr(100.0 * cpu / rt / (double)ncpu) : json_null());
	put(b, o, "cpus_online", ncpu > 0 ? json_integer(ncpu) : json_null());
	return o;
}

static json_t *errors_json(struct jb *b, const struct engine *e)
{
	json_t *a = json_array();
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct worker *w = e->workers[i];
		if (!w || !w->err.set)
			continue;
		const char *ename = strerrorname_np(w->err.err);
		json_t *o = json_object();
		put(b, o, "worker", ju(w->index));
		put(b, o, "group", js(w->g ? w->g->name : NULL));
		put(b, o, "group_index", ju(w->group));
		put(b, o, "op",
		    json_string((unsigned)w->err.op < OP_COUNT ? op_table[w->err.op].name : "?"));
		put(b, o, "syscall",
		    json_string((unsigned)w->err.sys < SYS_COUNT ? sys_table[w->err.sys].name
		                                                 : "?"));
		put(b, o, "path", json_string(w->err.path));
		put(b, o, "errno", json_integer(w->err.err));
		put(b, o, "errno_name", js(ename));
		put(b, o, "message", json_string(strerror(w->err.err)));
		put(b, o, "at_s", jr((double)w->err.at_ns / 1e9));
		add(b, a, o);
	}
	return a;
}

static const char *stop_name(int why)
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
	default:
		return NULL;
	}
}

json_t *report_json_build(const struct engine *e, int exit_status)
{
	struct jb b = {false};
	const struct plan *pl = e->plan;
	const struct engine_opts *o = e->opts;
	json_t *root = json_object();
	char seed[24];
	snprintf(seed, sizeof(seed), "%" PRIu64, e->seed);
	put(&b, root, "schema", json_string("fsmix-report"));
	put(&b, root, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION));
	put(&b, root, "fsmix_version", json_string(FSMIX_VERSION));
	put(&b, root, "exit_status", json_integer(exit_status));
	put(&b, root, "interrupted", json_boolean(e->interrupted));
	put(&b, root, "measured", json_boolean(e->measured));
	int why = atomic_load_explicit(&((struct engine *)e)->stop, memory_order_relaxed);
	if (!e->measured && e->failure && why != STOP_SIGNAL)
		why = STOP_ERROR; /* setup failed (aging may have stopped its workers by "time") */
	put(&b, root, "stop_reason", js(stop_name(why)));
	const char *sig = e->signal ? sigabbrev_np(e->signal) : NULL;
	put(&b, root, "signal", sig ? json_sprintf("SIG%s", sig) : json_null());
	put(&b, root, "error", js(e->failure));
	put(&b, root, "seed", json_string(seed));
	put(&b, root, "time_s", ju(pl->time_s));
	put(&b, root, "runtime_s", jr(e->runtime_s));
	json_t *argv = json_array();
	for (int i = 0; o && o->argv && i < o->argc; i++)
		add(&b, argv, js(o->argv[i]));
	put(&b, root, "command_line", argv);
	put(&b, root, "profile_path", js(o ? o->profile_path : NULL));
	put(&b, root, "environment", environment_json(&b, e));
	json_t *prof = o && o->profile ? profile_json_object(o->profile) : json_null();
	if (!prof)
		b.fail = true;
	put(&b, root, "profile", prof);
	put(&b, root, "cpu", cpu_json(&b, e));
	put(&b, root, "filesystems", filesystems_json(&b, e));
	json_t *groups = json_array();
	for (size_t gi = 0; e->group_stats && gi < pl->n_groups; gi++)
		add(&b, groups,
		    group_json(&b, e, &pl->groups[gi], pl->groups[gi].name, e->group_stats[gi],
		               e->group_skipped ? e->group_skipped[gi] : NULL,
		               e->group_ranges ? e->group_ranges[gi] : NULL));
	put(&b, root, "groups", groups);
	put(&b, root, "total", group_json(&b, e, NULL, "total", &e->total, e->total_skipped, NULL));
	put(&b, root, "errors", errors_json(&b, e));
	put(&b, root, "intervals", intervals_json(&b, e->intervals, e->n_intervals));
	if (b.fail) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* ---- writing ---- */

struct json_fill {
	const struct engine *e;
	int exit_status;
};

static int fill_json(FILE *f, void *arg)
{
	const struct json_fill *j = arg;
	json_t *root = report_json_build(j->e, j->exit_status);
	if (!root)
		return -1;
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	fputc('\n', f);
	return rc ? -1 : 0;
}

int report_json_write(const struct engine *e, const char *path, int exit_status, char *err,
                      size_t errlen)
{
	struct json_fill j = {e, exit_status};
	return outfile_write(path, fill_json, &j, err, errlen);
}
