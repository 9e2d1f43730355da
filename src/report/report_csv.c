/* report_csv.c - the CSV report (see report_data.h; the columns are in docs/output.md).
 *
 * RFC 4180 quoting: a field holding a comma, a double quote, CR or LF is enclosed in double
 * quotes with every double quote doubled. Records end with LF. An empty field means "not
 * applicable" (the JSON report's null).
 */
#include "report_data.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "outfile.h"

#define MIB 1048576.0

enum col {
	C_KIND,
	C_GROUP,
	C_NAME,
	C_COUNT,
	C_TRANS,
	C_TRANS_S,
	C_OPS_S,
	C_RD,
	C_WR,
	C_MB_S,
	C_ERR,
	C_SKIP,
	C_LAT_N,
	C_LAT_MIN,
	C_LAT_AVG,
	C_LAT_SD,
	C_LAT_P50,
	C_LAT_P90,
	C_LAT_P99,
	C_LAT_P999,
	C_LAT_P9999,
	C_LAT_MAX,
	C_T,
	C_LEN,
	C_BUSY, /* last: added after the others, whose positions scripts may use */
	C_COUNT_COLS
};

static const char *const col_name[C_COUNT_COLS] = {
    "kind",          "group",      "name",       "count",         "transactions",
    "trans_per_s",   "ops_per_s",  "bytes_read", "bytes_written", "mb_per_s",
    "errors",        "skipped",    "lat_count",  "lat_min_ms",    "lat_avg_ms",
    "lat_stddev_ms", "lat_p50_ms", "lat_p90_ms", "lat_p99_ms",    "lat_p999_ms",
    "lat_p9999_ms",  "lat_max_ms", "t_s",        "length_s",      "busy"};

/* One record being assembled: every cell as text, "" when not applicable. */
struct row {
	char cell[C_COUNT_COLS][128];
};

void report_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void row_put(FILE *f, const struct row *r)
{
	for (int c = 0; c < C_COUNT_COLS; c++) {
		if (c)
			fputc(',', f);
		report_csv_field(f, r->cell[c]);
	}
	fputc('\n', f);
}

static void set_s(struct row *r, enum col c, const char *s)
{
	snprintf(r->cell[c], sizeof(r->cell[c]), "%s", s);
}

static void set_u(struct row *r, enum col c, uint64_t v)
{
	snprintf(r->cell[c], sizeof(r->cell[c]), "%" PRIu64, v);
}

static void set_f(struct row *r, enum col c, const char *fmt, double v)
{
	snprintf(r->cell[c], sizeof(r->cell[c]), fmt, v);
}

/* x per second over `secs` (results_rate), empty for a run of no time. */
static void set_rate(struct row *r, enum col c, const char *fmt, double x, double secs)
{
	double v = results_rate(x, secs);
	if (!isnan(v))
		set_f(r, c, fmt, v);
}

static void set_lat(struct row *r, const struct lat_stats *l)
{
	if (!l->n)
		return;
	set_u(r, C_LAT_N, l->n);
	set_f(r, C_LAT_MIN, "%.6f", (double)lat_min_ns(l) / 1e6);
	set_f(r, C_LAT_AVG, "%.6f", lat_mean_ns(l) / 1e6);
	set_f(r, C_LAT_SD, "%.6f", lat_stddev_ns(l) / 1e6);
	set_f(r, C_LAT_P50, "%.6f", (double)lat_percentile_ns(l, 50) / 1e6);
	set_f(r, C_LAT_P90, "%.6f", (double)lat_percentile_ns(l, 90) / 1e6);
	set_f(r, C_LAT_P99, "%.6f", (double)lat_percentile_ns(l, 99) / 1e6);
	set_f(r, C_LAT_P999, "%.6f", (double)lat_percentile_ns(l, 99.9) / 1e6);
	set_f(r, C_LAT_P9999, "%.6f", (double)lat_percentile_ns(l, 99.99) / 1e6);
	set_f(r, C_LAT_MAX, "%.6f", (double)l->max_ns / 1e6);
}

/* The op rows, then the syscall rows, of one group (g NULL: the total). */
static void group_rows(FILE *f, const struct results *res, const struct results_group *g)
{
	/* a group of a phase: its rates over its phase's time (phase=N) */
	double rt = g ? results_group_runtime(res, (size_t)(g - res->groups)) : res->runtime_s;
	const char *name = g ? g->name : "total";
	const struct thread_stats *st = g ? &g->st : &res->total;
	const uint64_t *skipped = g ? g->skipped : res->total_skipped;
	struct row r;
	for (int op = 0; op < OP_COUNT; op++) {
		if (!results_op_shown(res, g, op))
			continue;
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "op");
		set_s(&r, C_GROUP, name);
		set_s(&r, C_NAME, op_table[op].name);
		set_u(&r, C_COUNT, st->ops[op]);
		set_u(&r, C_TRANS, st->trans[op]);
		set_rate(&r, C_TRANS_S, "%.3f", (double)st->trans[op], rt);
		set_rate(&r, C_OPS_S, "%.3f", (double)st->ops[op], rt);
		set_u(&r, C_RD, st->bytes_read[op]);
		set_u(&r, C_WR, st->bytes_written[op]);
		set_rate(&r, C_MB_S, "%.6f",
		         (double)(st->bytes_read[op] + st->bytes_written[op]) / MIB, rt);
		set_u(&r, C_ERR, st->errors[op]);
		set_u(&r, C_SKIP, skipped[op]);
		set_u(&r, C_BUSY, st->busy[op]);
		set_lat(&r, &st->op_lat[op]);
		row_put(f, &r);
	}
	for (int s = 0; s < SYS_COUNT; s++) {
		if (!st->sys_lat[s].n)
			continue;
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "syscall");
		set_s(&r, C_GROUP, name);
		set_s(&r, C_NAME, sys_table[s].name);
		set_u(&r, C_COUNT, st->sys_lat[s].n);
		set_lat(&r, &st->sys_lat[s]);
		row_put(f, &r);
	}
}

/* A distributed run's rank: kind "rank", group "rank<R>", name its host; its totals, its own
 * rates and its run time in length_s. */
static void rank_row(FILE *f, const struct jobsum *j, const struct jobsum_rank *k)
{
	struct row r;
	char name[32];
	snprintf(name, sizeof(name), "rank%d", k->rank);
	memset(&r, 0, sizeof(r));
	set_s(&r, C_KIND, "rank");
	set_s(&r, C_GROUP, name);
	set_s(&r, C_NAME, k->host >= 0 && k->host < j->n_hosts ? j->host_names[k->host] : "?");
	set_u(&r, C_COUNT, k->ops);
	set_u(&r, C_TRANS, k->trans);
	set_rate(&r, C_TRANS_S, "%.3f", (double)k->trans, k->runtime_s);
	set_rate(&r, C_OPS_S, "%.3f", (double)k->ops, k->runtime_s);
	set_u(&r, C_RD, k->bytes_read);
	set_u(&r, C_WR, k->bytes_written);
	set_rate(&r, C_MB_S, "%.6f", (double)(k->bytes_read + k->bytes_written) / MIB,
	         k->runtime_s);
	set_u(&r, C_ERR, k->errors);
	set_f(&r, C_LEN, "%.3f", k->runtime_s);
	row_put(f, &r);
}

/* A distributed run's stonewall (jobsum.h): kind "stonewall", group "job"; the operations and
 * transactions the ranks had done by their snapshots, the summed rates of those snapshots, and
 * the first rank's end in length_s. */
static void stonewall_row(FILE *f, const struct jobsum *j)
{
	struct row r;
	memset(&r, 0, sizeof(r));
	set_s(&r, C_KIND, "stonewall");
	set_s(&r, C_GROUP, "job");
	set_u(&r, C_COUNT, j->stonewall_ops);
	set_u(&r, C_TRANS, j->stonewall_trans);
	set_f(&r, C_TRANS_S, "%.3f", j->stonewall_trans_per_s);
	set_f(&r, C_OPS_S, "%.3f", j->stonewall_ops_per_s);
	set_f(&r, C_LEN, "%.3f", j->stonewall_s);
	row_put(f, &r);
}

/* A scheduled group's starts (results_arrivals): kind "arrivals", its group, name one of
 * intended, served, dropped, queued_late, bound_hits, and the figure in count. */
static void arrival_rows(FILE *f, const struct results *res, size_t gi)
{
	struct results_arrivals a;
	if (!results_arrivals(res, gi, &a))
		return;
	const struct {
		const char *name;
		uint64_t v;
	} fig[] = {{"intended", a.intended},
	           {"served", a.served},
	           {"dropped", a.dropped},
	           {"queued_late", a.queued_late},
	           {"bound_hits", a.bound_hits}};
	for (size_t i = 0; i < sizeof(fig) / sizeof(fig[0]); i++) {
		struct row r;
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "arrivals");
		set_s(&r, C_GROUP, res->groups[gi].name);
		set_s(&r, C_NAME, fig[i].name);
		set_u(&r, C_COUNT, fig[i].v);
		row_put(f, &r);
	}
}

/* phase=N: per phase a row of kind "phase" (group "phase<N>", name its stop reason, its sums,
 * rates over its runtime, t_s its start and length_s its runtime), then one of kind "phase_op"
 * per operation it did (group "phase<N>", name the op, its latency over the phase's groups). */
static void phase_rows(FILE *f, const struct results *res)
{
	for (size_t ph = 0; ph < res->n_phases; ph++) {
		const struct results_phase *p = &res->phases[ph];
		struct results_sums s;
		uint64_t by_op[OP_COUNT];
		char group[32];
		struct row r;
		results_phase_sums(res, ph, &s, by_op);
		snprintf(group, sizeof(group), "phase%zu", ph);
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "phase");
		set_s(&r, C_GROUP, group);
		const char *why = results_stop_name(p->stop);
		set_s(&r, C_NAME, why ? why : "");
		set_u(&r, C_COUNT, s.ops);
		set_u(&r, C_TRANS, s.trans);
		set_rate(&r, C_TRANS_S, "%.3f", (double)s.trans, p->runtime_s);
		set_rate(&r, C_OPS_S, "%.3f", (double)s.ops, p->runtime_s);
		set_u(&r, C_RD, s.bytes_read);
		set_u(&r, C_WR, s.bytes_written);
		set_rate(&r, C_MB_S, "%.6f", (double)(s.bytes_read + s.bytes_written) / MIB,
		         p->runtime_s);
		set_u(&r, C_ERR, s.errors);
		set_u(&r, C_SKIP, s.skipped);
		set_u(&r, C_BUSY, s.busy);
		set_f(&r, C_T, "%.6f", p->start_s);
		set_f(&r, C_LEN, "%.6f", p->runtime_s);
		row_put(f, &r);
		for (int op = 0; op < OP_COUNT; op++) {
			if (!by_op[op])
				continue;
			struct lat_stats l;
			results_phase_op_lat(res, ph, op, &l);
			memset(&r, 0, sizeof(r));
			set_s(&r, C_KIND, "phase_op");
			set_s(&r, C_GROUP, group);
			set_s(&r, C_NAME, op_table[op].name);
			set_u(&r, C_COUNT, by_op[op]);
			set_rate(&r, C_OPS_S, "%.3f", (double)by_op[op], p->runtime_s);
			set_lat(&r, &l);
			row_put(f, &r);
		}
	}
}

static int fill_csv(FILE *f, void *arg)
{
	const struct results *res = arg;
	struct row r;
	for (int c = 0; c < C_COUNT_COLS; c++)
		fprintf(f, "%s%s", c ? "," : "", col_name[c]);
	fputc('\n', f);
	if (!res->measured)
		return 0; /* nothing was measured: the header alone (no row of zeros) */
	for (size_t gi = 0; gi < res->n_groups; gi++)
		group_rows(f, res, &res->groups[gi]);
	group_rows(f, res, NULL);
	phase_rows(f, res);
	for (size_t gi = 0; gi < res->n_groups; gi++)
		arrival_rows(f, res, gi);
	for (size_t gi = 0; gi < res->n_groups; gi++) { /* a group not of engine=sync: its own */
		const struct results_group *g = &res->groups[gi];
		if (g->io_engine == IOENG_SYNC)
			continue;
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "engine");
		set_s(&r, C_GROUP, g->name);
		set_s(&r, C_NAME, io_engine_word(g->io_engine));
		set_u(&r, C_COUNT, g->iodepth);
		row_put(f, &r);
	}
	if (res->verify) { /* verify=1: the reads whose content did not check */
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, "verify");
		set_s(&r, C_GROUP, "total");
		set_s(&r, C_NAME, "mismatches");
		set_u(&r, C_COUNT, res->verify_mismatches);
		row_put(f, &r);
	}
	for (int k = 0; k < res->job.n_ranks; k++) /* a distributed run: each rank */
		rank_row(f, &res->job, &res->job.ranks[k]);
	if (res->job.n_ranks)
		stonewall_row(f, &res->job);
	for (size_t i = 0; i < res->n_intervals; i++) {
		const struct interval_row *iv = &res->intervals[i];
		memset(&r, 0, sizeof(r));
		set_s(&r, C_KIND, iv->ramp ? "ramp" : "interval"); /* ramp_time: not counted */
		set_s(&r, C_GROUP, "total");
		set_u(&r, C_COUNT, iv->ops);
		set_u(&r, C_TRANS, iv->trans);
		set_rate(&r, C_TRANS_S, "%.3f", (double)iv->trans, iv->length_s);
		set_rate(&r, C_OPS_S, "%.3f", (double)iv->ops, iv->length_s);
		set_rate(&r, C_MB_S, "%.6f", (double)iv->bytes / MIB, iv->length_s);
		if (iv->p99_op_ns)
			set_f(&r, C_LAT_P99, "%.6f", (double)iv->p99_op_ns / 1e6);
		set_f(&r, C_T, "%.3f", iv->t_s);
		set_f(&r, C_LEN, "%.3f", iv->length_s);
		row_put(f, &r);
	}
	return 0;
}

int report_csv_write(const struct results *r, const char *path, char *err, size_t errlen)
{
	return outfile_write(path, fill_csv, (void *)r, err, errlen);
}
