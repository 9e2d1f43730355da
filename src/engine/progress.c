/* progress.c - per-interval rows merged over the workers: the live status line on a terminal
 * (engine_progress_line) and the --interval rows after the run (engine_merge_intervals). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"
#include "interval.h"

/* The newest interval every worker has finished, merged; false when there is none yet. */
static bool merged_row(struct engine *e, uint32_t index, struct ival_rec *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct ival_log *l = e->workers[i]->ival;
		if (atomic_load_explicit(&l->published, memory_order_acquire) <= index)
			return false;
		const struct ival_rec *r = ival_row(l, index);
		if (!r)
			continue; /* this worker ran out of memory for rows */
		out->ops += r->ops;
		out->trans += r->trans;
		out->bytes += r->bytes;
		out->timed += r->timed;
		ival_hist_merge(&out->hist, &r->hist);
	}
	return true;
}

/* The live status line on a terminal: elapsed/remaining, ops/s and p99 of the last interval. */
void engine_progress_line(struct engine *e, uint64_t deadline)
{
	static struct ival_rec row; /* main thread only; too big for the stack */
	uint64_t now = now_ns();
	double el = (double)(now - e->t0) / 1e9,
	       left = now < deadline ? (double)(deadline - now) / 1e9 : 0;
	/* The newest interval every worker has finished: a worker closes an interval with its
	 * first operation after the boundary, so the one just ended may not be complete yet. */
	uint32_t done = UINT32_MAX;
	for (size_t i = 0; i < e->n_workers; i++) {
		uint32_t p =
		    atomic_load_explicit(&e->workers[i]->ival->published, memory_order_acquire);
		if (p < done)
			done = p;
	}
	fprintf(e->opts->log, "\r\033[K[%6.0fs elapsed, %6.0fs left]", el, left);
	if (done && done != UINT32_MAX && merged_row(e, done - 1, &row)) {
		double len = (double)e->ival_len_ns / 1e9;
		fprintf(e->opts->log, " %10.0f ops/s %9.1f MB/s", (double)row.ops / len,
		        (double)row.bytes / len / 1048576.0);
		if (row.timed)
			fprintf(e->opts->log, "  op p99 %.3f ms",
			        (double)ival_percentile_ns(&row.hist, row.timed, 99) / 1e6);
	}
	fflush(e->opts->log);
}

/* --interval rows of the workers of group gi (SIZE_MAX: every worker) merged by interval, after
 * the join. Every group gets the same intervals (the longest-running worker's), so the groups'
 * rows line up with the total's; a group that stopped early has rows with 0 operations. */
struct interval_row *engine_merge_intervals(struct engine *e, size_t gi, size_t *n_out)
{
	static struct ival_rec row;
	uint32_t rows = 0;
	*n_out = 0;
	for (size_t i = 0; i < e->n_workers; i++) {
		uint32_t p = atomic_load(&e->workers[i]->ival->published);
		if (p > rows)
			rows = p;
	}
	struct interval_row *v = calloc(rows + 1, sizeof(*v));
	if (!v)
		return NULL;
	double len = (double)e->ival_len_ns / 1e9;
	double end = (double)(e->run_end_ns - e->t_base) / 1e9;
	/* ramp_time: rows that start before counting did are the ramp's (all of them when the run
	 * stopped during the ramp) */
	double ramp_end = e->t_count        ? (double)(e->t_count - e->t_base) / 1e9
	                  : e->plan->ramp_s ? end + len
	                                    : 0;
	for (uint32_t k = 0; k < rows; k++) {
		memset(&row, 0, sizeof(row));
		for (size_t i = 0; i < e->n_workers; i++) {
			const struct ival_log *l = e->workers[i]->ival;
			const struct ival_rec *r =
			    k < atomic_load(&l->published) ? ival_row(l, k) : NULL;
			if (!r || (gi != SIZE_MAX && e->workers[i]->group != gi))
				continue;
			row.ops += r->ops;
			row.trans += r->trans;
			row.bytes += r->bytes;
			row.timed += r->timed;
			ival_hist_merge(&row.hist, &r->hist);
		}
		double t = (k + 1) * len;
		if (t > end)
			t = end;
		struct interval_row *out = &v[*n_out];
		out->t_s = t;
		out->length_s = t - k * len;
		if (out->length_s <= 0)
			continue;
		out->ops = row.ops;
		out->trans = row.trans;
		out->bytes = row.bytes;
		out->p99_op_ns = ival_percentile_ns(&row.hist, row.timed, 99);
		out->ramp = k * len < ramp_end;
		(*n_out)++;
	}
	return v;
}

struct engine_count engine_progress(const struct engine *e, uint64_t now)
{
	struct engine_count c = {0, 0, 0};
	for (size_t i = 0; e->workers && i < e->n_workers; i++) {
		c.ops += atomic_load_explicit(&e->workers[i]->done_ops, memory_order_relaxed);
		c.trans += atomic_load_explicit(&e->workers[i]->done_trans, memory_order_relaxed);
	}
	c.at_s = e->t_base && now > e->t_base ? (double)(now - e->t_base) / 1e9 : 0;
	return c;
}

bool engine_is_stopping(const struct engine *e)
{
	return engine_stopping(e);
}
