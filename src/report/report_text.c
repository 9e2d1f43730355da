/* report_text.c - the text report (see report.h). */
#include "report.h"
#include "report_job.h"
#include "settle.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

void report_size(char *buf, size_t len, double v)
{
	static const char *const units[] = {"B", "KB", "MB", "GB"};
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.3g%s", v, units[u]);
}

static const char *onoff(bool b)
{
	return b ? "on" : "off";
}

/* A thread group's settings and weights (FFSB's tg_print_config_helper), after its title. */
static void print_group_body(FILE *out, const struct plan_group *g)
{
	char a[32], b[32], c[32], d[32];
	uint64_t total = g->total_weight ? g->total_weight : 1;
	report_size(a, sizeof(a), (double)g->read_size);
	report_size(b, sizeof(b), (double)g->read_blocksize);
	report_size(c, sizeof(c), (double)g->read_skipsize);
	report_size(d, sizeof(d), (double)g->write_size);
	fprintf(out, "\t num_threads      = %u\n\t\n", g->num_threads);
	fprintf(out, "\t read_random      = %s\n", onoff(g->read_random));
	fprintf(out, "\t read_size        = %" PRIu64 "\t(%s)\n", g->read_size, a);
	fprintf(out, "\t read_blocksize   = %" PRIu64 "\t(%s)\n", g->read_blocksize, b);
	fprintf(out, "\t read_skip        = %s\n", onoff(g->read_skip));
	fprintf(out, "\t read_skipsize    = %" PRIu64 "\t(%s)\n\t\n", g->read_skipsize, c);
	fprintf(out, "\t write_random     = %s\n", onoff(g->write_random));
	fprintf(out, "\t write_size       = %" PRIu64 "\t(%s)\n", g->write_size, d);
	fprintf(out, "\t fsync_file       = 0\n"); /* FFSB 6.0 prints it; the key is deprecated */
	report_size(a, sizeof(a), (double)g->write_blocksize);
	fprintf(out, "\t write_blocksize  = %" PRIu64 "\t(%s)\n", g->write_blocksize, a);
	fprintf(out, "\t wait time        = %u\n", g->op_delay_ms);
	if (g->bindfs >= 0)
		fprintf(out, "\t\n\t bound to fs %d\n", g->bindfs);
	/* fsmix extensions: shown only when set, so FFSB profiles keep FFSB's layout */
	if (g->num_ops)
		fprintf(out, "\t num_ops          = %" PRIu64 " per thread\n", g->num_ops);
	if (g->start_delay_ms)
		fprintf(out, "\t start_delay      = %u ms\n", g->start_delay_ms);
	if (g->op_period_ms)
		fprintf(out, "\t op_period        = %u ms\n", g->op_period_ms);
	if (g->write_stride)
		fprintf(out, "\t write_stride     = %" PRIu64 "\n", g->write_stride);
	if (g->open_sync)
		fprintf(out, "\t open_sync        = %s\n",
		        g->open_sync == O_DSYNC ? "dsync" : "sync");
	if (g->sequence)
		fprintf(out, "\t sequence         = %s\n", g->sequence);
	if (g->io_engine != IOENG_SYNC)
		fprintf(out, "\t engine           = %s, iodepth %u\n", io_engine_word(g->io_engine),
		        g->iodepth ? g->iodepth : 1);
	fprintf(out, "\t\n\t op weights\n");
	/* FFSB's 15 operations always, fsmix's extensions only when weighted */
	for (int op = 0; op < OP_COUNT; op++) /* (a sequence's steps: its weight says it) */
		if ((!(op_table[op].flags & OPF_EXT) || g->weight[op]) &&
		    !(op_table[op].flags & OPF_STEP))
			fprintf(out, "\t %20s = %u (%.2f%%)\n", op_table[op].name, g->weight[op],
			        100.0 * g->weight[op] / (double)total);
	fprintf(out, "\t\n");
}

static void print_group_config(FILE *out, const struct plan_group *g)
{
	fprintf(out, "ThreadGroup %u\n================\n", g->index);
	print_group_body(out, g);
}

void report_setup(FILE *out, const struct results *r, bool exiting)
{
	double s = 0;
	for (size_t i = 0; i < r->n_fs; i++)
		s += r->fs[i].setup_s;
	fprintf(out, "fs setup took %ld secs\n", (long)s);
	if (exiting)
		fprintf(out, "Setup complete, exiting\n");
	fflush(out);
}

void report_config(FILE *out, const struct plan *pl, const struct results *r)
{
	fprintf(out, "fsmix version %s started\n\n", FSMIX_VERSION);
	if (pl->time_s)
		fprintf(out, "benchmark time = %u\n", pl->time_s);
	else if (pl->counted) /* num_ops without time: not FFSB's "only creating" */
		fprintf(out, "benchmark runs until the num_ops groups are done (no time limit)\n");
	else
		fprintf(out, "Only creating the fileset, not running benchmark.\n");
	for (size_t i = 0; i < pl->n_groups; i++)
		print_group_config(out, &pl->groups[i]);
	for (size_t i = 0; i < pl->n_fs; i++) {
		const struct plan_fs *f = &pl->fs[i];
		fprintf(out, "FileSystem %s\n==========\n", f->location);
		fprintf(out, "\t num_dirs         = %u\n", f->num_dirs);
		fprintf(out, "\t starting files   = %u\n\t\n", f->num_files);
		if (f->n_sizes) {
			fprintf(out, "\t Fileset weight:\n");
			for (size_t k = f->n_sizes; k-- > 0;) {
				char sz[32];
				report_size(sz, sizeof(sz), (double)f->sizes[k].size);
				fprintf(out, "\t\t %12" PRIu64 " (%6s) -> %" PRIu64 " (%.2f%%)\n",
				        f->sizes[k].size, sz, f->sizes[k].weight,
				        100.0 * (double)f->sizes[k].weight /
				            (double)f->size_weight_total);
			}
		} else {
			char a[32], b[32];
			report_size(a, sizeof(a), (double)f->min_filesize);
			report_size(b, sizeof(b), (double)f->max_filesize);
			fprintf(out, "\t min file size    = %" PRIu64 "\t(%s)\n", f->min_filesize,
			        a);
			fprintf(out, "\t max file size    = %" PRIu64 "\t(%s)\n", f->max_filesize,
			        b);
		}
		fprintf(out, "\t directio         = %s\n", onoff(pl->directio));
		fprintf(out, "\t alignedio        = %s\n", onoff(pl->alignio));
		fprintf(out, "\t bufferedio       = %s\n\t\n", onoff(pl->bufferio));
		fprintf(out, "\t aging is %s\n", onoff(f->agefs));
		fprintf(out, "\t current utilization = %.2f%%\n",
		        100 * (i < r->n_fs ? r->fs[i].start_util : 0));
		if (f->agefs) {
			fprintf(out, "\t desired utilization = %.2f%%\n\t \n",
			        100 * f->desired_util);
			if (f->age) {
				fprintf(out,
				        "\t Aging ThreadGroup for fs %s\n\t ================\n",
				        f->location);
				print_group_body(out, f->age);
			}
		}
		fprintf(out, "\t\n");
	}
	fflush(out);
}

/* One "Total Results" / "ThreadGroup N" table in FFSB's exact layout (ffsb_op.c print_results:
 * no blank line after the throughput lines; the caller ends a group with one). */
/* Bytes written by op as the table shows them: fsmix's count, or with ffsb_figures FFSB 6.0's
 * (which counted a whole file's size for every write; never less than fsmix's). */
static uint64_t written(const struct thread_stats *st, int op, bool ffsb_figures)
{
	return ffsb_figures && st->ffsb_written[op] > st->bytes_written[op] ? st->ffsb_written[op]
	                                                                    : st->bytes_written[op];
}

/* Bytes read likewise: FFSB 6.0 counted read_size for every read, also the tail read_random
 * never reads (never less than fsmix's). */
static uint64_t bytes_rd(const struct thread_stats *st, int op, bool ffsb_figures)
{
	return ffsb_figures && st->ffsb_read[op] > st->bytes_read[op] ? st->ffsb_read[op]
	                                                              : st->bytes_read[op];
}

/* A derived figure of results.h, or 0 where it has none (FFSB prints 0 for a run of no time). */
static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

static void print_op_table(FILE *out, const char *title, const struct thread_stats *st,
                           double runtime, bool ffsb_figures)
{
	uint64_t all_trans = 0, all_ops = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		if (op_table[op].flags & OPF_STEP) /* in its sequence's row */
			continue;
		all_trans += st->trans[op];
		all_ops += st->ops[op];
	}
	fprintf(out, "%s\n===============\n", title);
	fprintf(out, "             Op Name   Transactions\t Trans/sec\t%% Trans\t    %% Op Weight\t"
	             "   Throughput\n");
	fprintf(out, "             =======   ============\t =========\t=======\t    ===========\t"
	             "   ==========\n");
	for (int op = 0; op < OP_COUNT; op++) {
		char tput[48] = "NA";
		uint64_t bytes = bytes_rd(st, op, ffsb_figures) + written(st, op, ffsb_figures);
		if (!st->trans[op]) /* FFSB leaves out ops without transactions */
			continue;
		/* FFSB: "NA" by the op's kind, not its bytes (a create of empty files: "0B/sec") */
		if ((op_table[op].flags & (OPF_READ | OPF_WRITE)) || bytes) {
			char sz[32];
			report_size(sz, sizeof(sz), or0(results_rate((double)bytes, runtime)));
			snprintf(tput, sizeof(tput), "%s/sec", sz);
		}
		fprintf(out, "%20s : %12" PRIu64 "\t%10.2lf\t%6.3lf%%\t\t%6.3lf%%\t  %11s\n",
		        op_table[op].name, st->trans[op],
		        or0(results_rate((double)st->trans[op], runtime)),
		        or0(results_share((double)st->trans[op], (double)all_trans)),
		        or0(results_share((double)st->ops[op], (double)all_ops)), tput);
	}
	fprintf(out, "-\n%.2lf Transactions per Second\n\n",
	        or0(results_rate((double)all_trans, runtime)));
	uint64_t rd = 0, wr = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		if (op_table[op].flags & OPF_STEP)
			continue;
		rd += bytes_rd(st, op, ffsb_figures);
		wr += written(st, op, ffsb_figures);
	}
	if (rd || wr) {
		char sz[32];
		fprintf(out, "Throughput Results\n===================\n");
		if (rd) {
			report_size(sz, sizeof(sz), or0(results_rate((double)rd, runtime)));
			fprintf(out, "Read Throughput: %s/sec\n", sz);
		}
		if (wr) {
			report_size(sz, sizeof(sz), or0(results_rate((double)wr, runtime)));
			fprintf(out, "Write Throughput: %s/sec\n", sz);
		}
	}
}

/* FFSB's "System Call Latency statistics in millisecs" of one group, ranges in the profile's
 * order reversed (FFSB printed its internal, reversed list). */
static void print_syscalls(FILE *out, const struct results_group *g)
{
	const struct thread_stats *st = &g->st;
	const struct range_table *rt = g->ranges;
	bool any = false;
	for (int s = 0; s < SYS_COUNT; s++)
		any |= st->sys_lat[s].n > 0;
	if (!any)
		return;
	fprintf(out, "\nSystem Call Latency statistics in millisecs\n=====\n");
	fprintf(out, "\t\tMin\t\tAvg\t\tMax\t\tTotal Calls\n");
	fprintf(out, "\t\t========\t========\t========\t============\n");
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct lat_stats *l = &st->sys_lat[s];
		if (!l->n)
			continue;
		fprintf(out, "[%7s]\t%05f\t%05lf\t%05f\t%12" PRIu64 "\n", sys_table[s].name,
		        (double)lat_min_ns(l) / 1e6, lat_mean_ns(l) / 1e6, (double)l->max_ns / 1e6,
		        l->n);
		if (!rt) {
			fprintf(out, "   -\n");
			continue;
		}
		const uint64_t *row = stats_range_row(st, (enum sys_id)s);
		for (uint32_t k = rt->n; k-- > 0;) {
			/* print in reverse declaration order, as FFSB */
			uint32_t col = 0;
			for (uint32_t c = 0; c < rt->n; c++)
				if (rt->r[c].decl == k)
					col = c;
			fprintf(out, "\t\t msec_range[%u]\t%f - %f : %8" PRIu64 "\n", rt->n - 1 - k,
			        (double)rt->r[col].lo_ns / 1e6, (double)rt->r[col].hi_ns / 1e6,
			        row[col]);
		}
		fprintf(out, "\n");
	}
}

/* One latency line: count, min, avg, stddev, p50, p90, p99, p99.9, p99.99, max in ms. */
static void print_lat_line(FILE *out, const char *name, const struct lat_stats *l)
{
	fprintf(out, "%16s %10" PRIu64 " %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
	        name, l->n, (double)lat_min_ns(l) / 1e6, lat_mean_ns(l) / 1e6,
	        lat_stddev_ns(l) / 1e6, (double)lat_percentile_ns(l, 50) / 1e6,
	        (double)lat_percentile_ns(l, 90) / 1e6, (double)lat_percentile_ns(l, 99) / 1e6,
	        (double)lat_percentile_ns(l, 99.9) / 1e6, (double)lat_percentile_ns(l, 99.99) / 1e6,
	        (double)l->max_ns / 1e6);
}

static void print_lat_header(FILE *out, const char *title)
{
	fprintf(out, "%s\n", title);
	fprintf(out, "%16s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "", "count", "min", "avg",
	        "stddev", "p50", "p90", "p99", "p99.9", "p99.99", "max");
}

/* fsmix's latency sections: whole operations, the sync family, every timed syscall. */
static void print_latency(FILE *out, const struct thread_stats *st)
{
	bool ops = false, syncs = false, sys = false;
	for (int op = 0; op < OP_COUNT; op++)
		ops |= st->op_lat[op].n > 0;
	for (int s = 0; s < SYS_COUNT; s++) {
		sys |= st->sys_lat[s].n > 0;
		syncs |= (sys_table[s].flags & SYSF_SYNC) && st->sys_lat[s].n > 0;
	}
	if (ops) {
		print_lat_header(out, "Operation latency in millisecs (all groups)");
		for (int op = 0; op < OP_COUNT; op++)
			if (st->op_lat[op].n)
				print_lat_line(out, op_table[op].name, &st->op_lat[op]);
		fprintf(out, "\n");
	}
	if (syncs) {
		print_lat_header(out, "Sync latency in millisecs (all groups)");
		for (int s = 0; s < SYS_COUNT; s++)
			if ((sys_table[s].flags & SYSF_SYNC) && st->sys_lat[s].n)
				print_lat_line(out, sys_table[s].name, &st->sys_lat[s]);
		fprintf(out, "\n");
	}
	if (sys) {
		print_lat_header(out, "System call latency in millisecs (all groups)");
		for (int s = 0; s < SYS_COUNT; s++)
			if (st->sys_lat[s].n)
				print_lat_line(out, sys_table[s].name, &st->sys_lat[s]);
		fprintf(out, "\n");
	}
}

/* op_period groups: service time (the operations' latency) beside the response time from each
 * operation's scheduled start, which also counts the wait behind a stalled operation. */
static void print_response(FILE *out, const struct results *r)
{
	bool any = false;
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		const struct results_group *g = &r->groups[gi];
		const struct thread_stats *st = &g->st;
		if (!(g->rate_target > 0) || !st->resp_lat || !st->resp_lat->n)
			continue;
		if (!any)
			print_lat_header(out,
			                 "Response time in millisecs (op_period groups: service "
			                 "time, and response time from each scheduled start)");
		any = true;
		struct lat_stats service;
		lat_init(&service);
		for (int op = 0; op < OP_COUNT; op++)
			if (!(op_table[op].flags & OPF_STEP)) /* part of a sequence's */
				lat_merge(&service, &st->op_lat[op]);
		if (g->op_period_ms)
			fprintf(out, "%s (op_period %u ms)\n", g->name, g->op_period_ms);
		else
			fprintf(out, "%s (op_rate %.6g/s)\n", g->name, g->rate_target);
		print_lat_line(out, "service", &service);
		print_lat_line(out, "response", st->resp_lat);
		if (st->missed_starts)
			fprintf(out,
			        "%16s %10" PRIu64
			        " scheduled starts passed while an operation still "
			        "ran (each counted in response as waiting until it ended)\n",
			        "missed", st->missed_starts);
	}
	if (any)
		fprintf(out, "\n");
}

/* Scheduled groups (op_rate, op_period): the target rate against the one reached, with a
 * warning when the group fell more than RESULTS_RATE_WARN_PCT short. */
static void print_rates(FILE *out, const struct results *r)
{
	bool any = false;
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		double target, achieved, short_pct;
		if (!results_rate_check(r, gi, &target, &achieved, &short_pct))
			continue;
		if (!any)
			fprintf(out, "Scheduled rate (op_rate, op_period: starts per second)\n");
		any = true;
		const struct results_group *g = &r->groups[gi];
		fprintf(out,
		        "%s: target %.2f ops/sec, achieved %.2f ops/sec, %" PRIu64
		        " missed starts\n",
		        g->name, target, achieved, g->st.missed_starts);
		struct results_arrivals a;
		if (results_arrivals(r, gi, &a))
			fprintf(out,
			        "%s: arrival_backlog=%s: %" PRIu64 " intended starts, %" PRIu64
			        " served, %" PRIu64 " dropped, %" PRIu64 " queued late, %" PRIu64
			        " bound hits\n",
			        g->name, g->backlog_queue ? "queue" : "drop", a.intended, a.served,
			        a.dropped, a.queued_late, a.bound_hits);
		if (short_pct > RESULTS_RATE_WARN_PCT)
			fprintf(out,
			        "warning: %s fell %.1f %% short of its target rate (more than "
			        "%.0f %%): the group cannot reach it here\n",
			        g->name, short_pct, RESULTS_RATE_WARN_PCT);
	}
	if (any)
		fprintf(out, "\n");
}

/* phase=N: each phase's groups, time, how it ended and its operations, the rates over its own
 * runtime (the tables above: each group over its phase's, the total over the whole run). */
static void print_phases(FILE *out, const struct results *r)
{
	if (!r->n_phases)
		return;
	fprintf(out,
	        "Phases (rates over each phase's own runtime)\n%6s %8s %10s %12s %-10s %12s "
	        "%12s %12s %10s\n",
	        "phase", "threads", "start (s)", "runtime (s)", "ended by", "ops", "ops/sec",
	        "trans/sec", "MB/sec");
	for (size_t ph = 0; ph < r->n_phases; ph++) {
		const struct results_phase *p = &r->phases[ph];
		struct results_sums s;
		uint64_t by_op[OP_COUNT];
		results_phase_sums(r, ph, &s, by_op);
		const char *why = results_stop_name(p->stop);
		double rt = p->runtime_s;
		fprintf(
		    out,
		    "%6zu %8" PRIu64 " %10.3f %12.3f %-10s %12" PRIu64 " %12.2f %12.2f %10.2f\n",
		    ph, p->threads, p->start_s, rt, why ? why : "not run", s.ops,
		    or0(results_rate((double)s.ops, rt)), or0(results_rate((double)s.trans, rt)),
		    or0(results_rate((double)(s.bytes_read + s.bytes_written) / 1048576.0, rt)));
		for (int op = 0; op < OP_COUNT; op++) {
			if (!by_op[op])
				continue;
			struct lat_stats l;
			results_phase_op_lat(r, ph, op, &l);
			fprintf(out, "%6s %-14s %12" PRIu64 " ops %12.2f ops/sec", "",
			        op_table[op].name, by_op[op],
			        or0(results_rate((double)by_op[op], rt)));
			if (l.n)
				fprintf(out, ", latency avg %.3f ms, p99 %.3f ms",
				        lat_mean_ns(&l) / 1e6,
				        (double)lat_percentile_ns(&l, 99) / 1e6);
			fputc('\n', out);
		}
		if (p->stop == STOP_STONEWALL)
			fprintf(out,
			        "%6s stonewall: the first thread to finish its num_ops ended the "
			        "phase: "
			        "%" PRIu64 " operations of the %" PRIu64 " counted, %.1f%%\n",
			        "", s.ops + s.errors + s.skipped + s.busy, p->counted_ops,
			        or0(results_share((double)(s.ops + s.errors + s.skipped + s.busy),
			                          (double)p->counted_ops)));
	}
	fprintf(out, "\n");
}

/* Device counters of the run phase, per filesystem: the flushes ("barriers") of the 2010
 * experiment, or n/a with the reason. "per sync call" follows results_fs_flushes's rule. */
static void print_devices(FILE *out, const struct results *r)
{
	fprintf(out, "Device counters during the run\n");
	for (size_t i = 0; i < r->n_fs; i++) {
		const struct results_fs *fs = &r->fs[i];
		const struct devstat_sample *d = &fs->dev_delta;
		struct results_flushes fl;
		results_fs_flushes(r, i, &fl);
		fprintf(out, "%s: %s (%s", fs->name, fs->location,
		        fs->dev.fstype[0] ? fs->dev.fstype : "?");
		if (fs->dev.has_device)
			fprintf(out, " on %s", fs->dev.devname);
		fprintf(out, ")\n");
		if (!fs->dev.has_device || !d->valid) {
			fprintf(out, "  n/a: %s\n",
			        fs->dev.why[0] ? fs->dev.why : "the counters could not be read");
			continue;
		}
		fprintf(out,
		        "  read requests %" PRIu64 " (%" PRIu64 " sectors), write requests %" PRIu64
		        " (%" PRIu64 " sectors)\n",
		        d->read_ios, d->read_sectors, d->write_ios, d->write_sectors);
		if (fl.flush_why) {
			fprintf(out,
			        "  flush requests: n/a (the kernel does not report them; Linux "
			        ">= 5.5 does)\n");
			continue;
		}
		fprintf(out, "  flush requests %" PRIu64 " (%.1f/sec", fl.flushes,
		        r->runtime_s > 0 ? fl.flushes_per_s : 0);
		if (!fl.per_sync_why)
			fprintf(out, ", %.2f per sync call", fl.per_sync);
		fprintf(out, ")\n");
	}
	fprintf(out, "\n");
}

/* Every worker's first error, and the failed, skipped and busy operations (the busy column
 * only when some pick was busy). */
static void print_errors(FILE *out, const struct results *r)
{
	bool any = false, busy = false;
	for (int op = 0; op < OP_COUNT; op++) {
		any |= r->total.errors[op] || r->total_skipped[op] || r->total.busy[op];
		busy |= r->total.busy[op] != 0;
	}
	if (!any)
		return;
	fprintf(out, "Errors and skipped operations\n");
	for (int op = 0; op < OP_COUNT; op++) {
		const struct thread_stats *t = &r->total;
		if (!t->errors[op] && !r->total_skipped[op] && !t->busy[op])
			continue;
		fprintf(out, "%16s %10" PRIu64 " failed %10" PRIu64 " skipped (no file)",
		        op_table[op].name, t->errors[op], r->total_skipped[op]);
		if (busy)
			fprintf(out, " %10" PRIu64 " busy (every file in use)", t->busy[op]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->n_errors; i++) {
		const struct results_error *er = &r->errors[i];
		char what[MSG_MAX];
		if (er->verify)
			results_verify_text(er, what, sizeof(what));
		fprintf(out, "  worker %u (%s): %s: %s%s(%s): %s after %.3f s\n", er->worker,
		        er->group < r->n_groups ? r->groups[er->group].name : "?",
		        op_table[er->op].name, er->verify ? "verify: " : "",
		        sys_table[er->sys].name, er->path, er->verify ? what : strerror(er->err),
		        (double)er->at_ns / 1e9);
	}
	fprintf(out, "\n");
}

/* The FFSB part: "Results:", the op tables of every group and the total, CPU percentages. */
static void print_ffsb_results(FILE *out, const struct results *r, bool ffsb_figures)
{
	double rt = r->runtime_s;
	fprintf(out, "\nResults:\n");
	if (r->interrupted)
		fprintf(out, "Interrupted: partial results of the first %.2f s\n", rt);
	if (r->crashed)
		fprintf(
		    out,
		    "Crashed: the filesystems were shut down %.2f s into the run (--crash-after); "
		    "%" PRIu64 " operations failed after it (not errors)\n",
		    r->crash_at_s, r->failed_after_crash);
	fprintf(out, "Benchmark took %.2lf sec\n\n", rt);
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		char title[32];
		if (r->n_groups == 1)
			snprintf(title, sizeof(title), "Total Results");
		else
			snprintf(title, sizeof(title), "ThreadGroup %zu", gi);
		/* a group of a phase: its rates over its phase's time (phase=N) */
		print_op_table(out, title, &r->groups[gi].st, results_group_runtime(r, gi),
		               ffsb_figures);
		print_syscalls(out, &r->groups[gi]);
		fprintf(out, "\n"); /* FFSB ends each group with a blank line */
	}
	if (r->n_groups > 1)
		print_op_table(out, "Total Results", &r->total, rt, ffsb_figures);
	fprintf(out, "\n\n");
	struct results_cpu cpu;
	results_cpu(r, &cpu);
	if (rt > 0) {
		fprintf(out, "%.1lf%% User   Time\n", cpu.user_pct);
		fprintf(out, "%.1lf%% System Time\n", cpu.sys_pct);
		fprintf(out, "%.1f%% CPU Utilization\n", cpu.one_cpu_pct);
	}
	fprintf(out, "\n");
}

/* --interval: the run's own noise (settle.h), a line under the rows. */
static void print_noise(FILE *out, const struct results *r)
{
	struct settle s;
	settle_of(r->intervals, r->n_intervals, &s);
	if (isnan(s.cv_pct))
		return;
	fprintf(out,
	        "Interval noise: trans/sec CV %.1f%% over %zu intervals (mean %.1f, stddev %.1f)",
	        s.cv_pct, s.n, s.mean, s.sd);
	if (!s.checked)
		fprintf(out, "; settling not checked (needs %d intervals)\n", SETTLE_MIN_ROWS);
	else
		fprintf(out,
		        "; last third %+.1f%% from the middle third, %s their noise (stddev %.1f): "
		        "%s\n",
		        s.change_pct, s.settled ? "within" : "more than", s.noise_sd,
		        s.settled ? "settled" : "not settled");
}

/* The warning of a run whose last third of intervals departs from its middle third. */
/* arrival_backlog=queue groups whose backlog reached its bound: how often, and what it dropped
 * (in every format: with --format ffsb on the log). */
static void warn_backlog(FILE *out, const struct results *r)
{
	for (size_t gi = 0; gi < r->n_groups; gi++) {
		struct results_arrivals a;
		if (!results_arrivals(r, gi, &a) || !a.bound_hits)
			continue;
		fprintf(out,
		        "fsmix: warning: %s: the queued starts reached arrival_backlog_max (%u a "
		        "thread) %" PRIu64 " times; %" PRIu64 " starts were dropped\n",
		        r->groups[gi].name, r->groups[gi].backlog_max, a.bound_hits, a.dropped);
	}
}

static void warn_unsettled(FILE *out, const struct results *r)
{
	struct settle s;
	settle_of(r->intervals, r->n_intervals, &s);
	if (s.checked && !s.settled)
		fprintf(
		    out,
		    "fsmix: warning: the run has not settled: its last third of intervals averages "
		    "%.1f trans/sec, %+.1f%% from the middle third's %.1f, more than the noise "
		    "within them (stddev %.1f); a longer run would tell where it goes\n",
		    s.last_mean, s.change_pct, s.mid_mean, s.noise_sd);
}

static void print_intervals(FILE *out, const struct results *r)
{
	if (!r->n_intervals)
		return;
	fprintf(out, "Intervals\n%10s %12s %12s %10s %12s\n", "end (s)", "ops/sec", "trans/sec",
	        "MB/sec", "op p99 (ms)");
	for (size_t i = 0; i < r->n_intervals; i++) {
		const struct interval_row *row = &r->intervals[i];
		fprintf(out, "%10.2f %12.1f %12.1f %10.2f %12.3f%s\n", row->t_s,
		        (double)row->ops / row->length_s, (double)row->trans / row->length_s,
		        (double)row->bytes / row->length_s / 1048576.0,
		        (double)row->p99_op_ns / 1e6, row->ramp ? "  ramp (not counted)" : "");
	}
	print_noise(out, r);
	fprintf(out, "\n");
}

void report_results(FILE *out, FILE *log, const struct results *r, bool ffsb_only)
{
	double rt = r->runtime_s;
	struct results_sums sum;
	results_sums(&r->total, r->total_skipped, &sum);
	double skipped_pct = results_skipped_pct(&sum), busy_pct = results_busy_pct(&sum);
	/* FFSB's byte counts in its table with --format ffsb, and in every format with
	 * fidelity=ffsb6 (the JSON and CSV keep the bytes moved) */
	print_ffsb_results(out, r, ffsb_only || r->fidelity == FIDELITY_FFSB6);
	if (ffsb_only) {
		/* FFSB's text stays FFSB's: the warning goes to the log. */
		if (skipped_pct > REPORT_SKIPPED_WARN_PCT)
			fprintf(log,
			        "fsmix: warning: %.1f%% of the operations picked found no file to "
			        "work on and were skipped\n",
			        skipped_pct);
		if (busy_pct > REPORT_SKIPPED_WARN_PCT)
			fprintf(log, REPORT_BUSY_WARNING "\n", busy_pct);
		warn_backlog(log, r);
		warn_unsettled(log, r);
		fflush(out);
		return;
	}
	print_latency(out, &r->total);
	print_response(out, r);
	print_rates(out, r);
	print_phases(out, r);
	print_intervals(out, r);
	print_devices(out, r);
	print_errors(out, r);
	if (r->job.n_ranks) /* a distributed run (MPI): the ranks, their spread, the hosts */
		report_job_text(out, &r->job, r);
	struct results_cpu cpu;
	results_cpu(r, &cpu);
	if (rt > 0 && r->env.cpus_online > 0)
		fprintf(out,
		        "CPU: user %.2f s, system %.2f s: %.1f%% of one CPU, %.1f%% of all %ld "
		        "CPUs\n",
		        r->user_s, r->sys_s, cpu.one_cpu_pct, cpu.all_cpus_pct, r->env.cpus_online);
	if (r->has_sqpoll) /* sqpoll=1 (docs/engines.md) */
		fprintf(
		    out,
		    "CPU of io_uring's polling threads (sqpoll): %.2f s, in the figures above\n",
		    r->sqpoll_s);
	if (skipped_pct > REPORT_SKIPPED_WARN_PCT)
		fprintf(out,
		        "fsmix: warning: %.1f%% of the operations picked found no file to work on "
		        "and were skipped; the rates above count only those that ran\n",
		        skipped_pct);
	if (busy_pct > REPORT_SKIPPED_WARN_PCT)
		fprintf(out, REPORT_BUSY_WARNING "; the rates above count only those that ran\n",
		        busy_pct);
	warn_backlog(out, r);
	warn_unsettled(out, r);
	if (r->stop == STOP_STONEWALL && !r->n_phases) /* with phases: in their table */
		fprintf(out, "fsmix: stonewall: the first thread of a stonewall=1 group to finish "
		             "its num_ops ended the run for every thread\n");
	char busy[96] = ""; /* only when some pick was busy: the line stays as it was without */
	if (sum.busy)
		snprintf(busy, sizeof(busy),
		         ", %" PRIu64 " busy (every file in use; %.2f%% of picks)", sum.busy,
		         busy_pct);
	fprintf(out,
	        "fsmix: %" PRIu64 " operations (%.2f ops/sec), %" PRIu64
	        " skipped (no file; %.2f%% of picks)%s, %" PRIu64 " errors, seed %" PRIu64 "%s%s\n",
	        sum.ops, or0(results_rate((double)sum.ops, rt)), sum.skipped, skipped_pct, busy,
	        sum.errors, r->seed,
	        r->fidelity == FIDELITY_FFSB6
	            ? ", fidelity ffsb6 (FFSB 6.0's picks and byte counts)"
	            : "",
	        r->interrupted ? ", interrupted" : "");
	if (r->verify)
		fprintf(out, "fsmix: verify: %" PRIu64 " content mismatches in the reads\n",
		        r->verify_mismatches);
	fflush(out);
}
