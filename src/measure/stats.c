/* stats.c - the cold half of the statistics: init, merge, moments, percentiles, range tables. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lat_init(struct lat_stats *l)
{
	memset(l, 0, sizeof(*l));
	l->min_ns = UINT64_MAX;
}

/* dst's n, sums, min and max (+) those of a series of n samples; nothing when n is 0 (the
 * identity, maybe an all-zero series whose min_ns is not set). */
static void add_moments(struct lat_stats *dst, uint64_t n, uint64_t sum, stats_u128 sum_sq,
                        uint64_t min_ns, uint64_t max_ns)
{
	if (!n)
		return;
	uint64_t min = dst->n ? dst->min_ns : UINT64_MAX;
	dst->n += n;
	dst->sum_ns += sum;
	dst->sum_sq_ns += sum_sq;
	dst->min_ns = min_ns < min ? min_ns : min;
	dst->max_ns = max_ns > dst->max_ns ? max_ns : dst->max_ns;
}

void lat_merge(struct lat_stats *dst, const struct lat_stats *src)
{
	if (!src->n)
		return; /* the buckets of an empty src are not read */
	add_moments(dst, src->n, src->sum_ns, src->sum_sq_ns, src->min_ns, src->max_ns);
	hist_merge(&dst->h, &src->h);
}

/* lat_merge of series `series` of a worker's arena into dst. */
static void arena_merge(struct lat_stats *dst, const struct stats_arena *a, unsigned series)
{
	const struct lat_moments *m = &a->mom[series];
	if (!m->n)
		return;
	add_moments(dst, m->n, m->sum_ns, m->sum_sq_ns, m->min_ns, m->max_ns);
	chist_merge_series(&dst->h, &a->hist, series);
}

/* lat_merge of series `series` of st (src, or in st's arena when it has one). */
static void series_merge(struct lat_stats *dst, const struct lat_stats *src,
                         const struct thread_stats *st, unsigned series)
{
	if (st->arena)
		arena_merge(dst, st->arena, series);
	else
		lat_merge(dst, src);
}

uint64_t lat_min_ns(const struct lat_stats *l)
{
	return l->n ? l->min_ns : 0;
}

double lat_mean_ns(const struct lat_stats *l)
{
	return l->n ? (double)l->sum_ns / (double)l->n : 0.0;
}

double lat_stddev_ns(const struct lat_stats *l)
{
	if (l->n < 2)
		return 0.0;
	/* var = Q/n - (S/n)^2 cancels badly when the spread is small next to the mean. Split both
	 * quotients into integer and remainder parts, S = a n + b and Q = c n + d, so that
	 *   var = (c - a^2) + (d - 2ab)/n - (b/n)^2
	 * where c - a^2 is an exact integer (>= 0, since Q/n >= (S/n)^2 and the other terms lie in
	 * (-1, 1)) and the rest is at most about twice the mean: no large terms cancel. a*b < S
	 * fits 64 bits, so it is exact in long double. */
	uint64_t n = l->n;
	uint64_t a = l->sum_ns / n, b = l->sum_ns % n;
	stats_u128 c = l->sum_sq_ns / n, d = l->sum_sq_ns % n;
	stats_u128 a2 = (stats_u128)a * a;
	long double base = c >= a2 ? (long double)(c - a2) : -(long double)(a2 - c);
	long double frac = ((long double)d - 2.0L * (long double)(a * b)) / (long double)n;
	long double bn = (long double)b / (long double)n;
	long double var = base + frac - bn * bn;
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

uint64_t lat_percentile_ns(const struct lat_stats *l, double p)
{
	if (l->n == 0)
		return 0;
	uint64_t rank = hist_rank(l->n, p);
	if (rank <= 1)
		return l->min_ns; /* the smallest sample is known exactly */
	if (rank >= l->n)
		return l->max_ns; /* so is the largest */
	uint64_t v = hist_bucket_mid(hist_bucket_of_rank(&l->h, rank));
	if (v < l->min_ns)
		v = l->min_ns;
	if (v > l->max_ns)
		v = l->max_ns;
	return v;
}

/* ms_to_ns - milliseconds to ns, rounded to nearest: 1.001 * 1e6 is 1000999.9999999999 in binary
 * floating point and must become 1001000, not 1000999. Returns -EINVAL for negative, NaN or >= 2^64
 * ns. */
static int ms_to_ns(double ms, uint64_t *ns)
{
	double x = ms * 1e6;
	if (!(ms >= 0.0) || !(x < 18446744073709551616.0))
		return -EINVAL;
	*ns = (uint64_t)floor(x + 0.5);
	return 0;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct range_ns *a = pa, *b = pb;
	if (a->lo_ns != b->lo_ns)
		return a->lo_ns < b->lo_ns ? -1 : 1;
	if (a->hi_ns != b->hi_ns)
		return a->hi_ns < b->hi_ns ? -1 : 1;
	return 0;
}

int range_table_new(struct range_table **out, const double *lo_hi_ms, uint32_t n)
{
	*out = NULL;
	struct range_table *t = malloc(sizeof(*t) + (size_t)n * sizeof(t->r[0]));
	if (!t)
		return -ENOMEM;
	t->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct range_ns *r = &t->r[i];
		if (ms_to_ns(lo_hi_ms[2 * i], &r->lo_ns) ||
		    ms_to_ns(lo_hi_ms[2 * i + 1], &r->hi_ns) || r->lo_ns > r->hi_ns) {
			free(t);
			return -EINVAL;
		}
		r->decl = i;
	}
	qsort(t->r, n, sizeof(t->r[0]), range_cmp);
	for (uint32_t i = 1; i < n; i++) {
		if (t->r[i - 1].hi_ns > t->r[i].lo_ns) { /* overlap; touching is fine */
			free(t);
			return -EINVAL;
		}
	}
	*out = t;
	return 0;
}

void range_table_free(struct range_table *t)
{
	free(t);
}

/* same_ranges - true when a and b count the same msec_ranges (same table or equal bounds). */
static int same_ranges(const struct range_table *a, const struct range_table *b)
{
	if (a == b)
		return 1;
	if (!a || !b || a->n != b->n)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->r[i].lo_ns != b->r[i].lo_ns || a->r[i].hi_ns != b->r[i].hi_ns ||
		    a->r[i].decl != b->r[i].decl)
			return 0;
	return 1;
}

/* lat_clear - an empty series again, writing only what holds samples: the moments and the
 * buckets that are not zero (reading a page never written costs no memory). */
static void lat_clear(struct lat_stats *l)
{
	if (!l->n) /* already empty, maybe all zero: left unwritten */
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		if (l->h.bucket[i])
			l->h.bucket[i] = 0;
	l->n = 0;
	l->sum_ns = 0;
	l->sum_sq_ns = 0;
	l->min_ns = UINT64_MAX;
	l->max_ns = 0;
}

/* reset_counters - every counter but the series' to zero. */
static void reset_counters(struct thread_stats *st)
{
	memset(st->ops, 0, sizeof(st->ops));
	memset(st->trans, 0, sizeof(st->trans));
	memset(st->bytes_read, 0, sizeof(st->bytes_read));
	memset(st->bytes_written, 0, sizeof(st->bytes_written));
	memset(st->errors, 0, sizeof(st->errors));
	memset(st->busy, 0, sizeof(st->busy));
	memset(st->ffsb_written, 0, sizeof(st->ffsb_written));
	memset(st->ffsb_read, 0, sizeof(st->ffsb_read));
	st->missed_starts = 0;
	st->late_starts = 0;
	st->backlog_full = 0;
	if (st->range_counts)
		memset(st->range_counts, 0,
		       (size_t)SYS_COUNT * st->range_cols * sizeof(st->range_counts[0]));
}

/* reset_fields - empty every counter and series; range_counts must be allocated or NULL. */
static void reset_fields(struct thread_stats *st)
{
	reset_counters(st);
	for (int i = 0; i < OP_COUNT; i++)
		lat_init(&st->op_lat[i]);
	for (int i = 0; i < SYS_COUNT; i++)
		lat_init(&st->sys_lat[i]);
	if (st->resp_lat)
		lat_init(st->resp_lat);
}

/* The msec_range counts (none without ranges), for either init: 0 or -ENOMEM. */
static int alloc_ranges(struct thread_stats *st, const struct range_table *ranges)
{
	st->resp_lat = NULL;
	st->arena = NULL;
	st->ranges = NULL;
	st->range_cols = 0;
	st->range_counts = NULL;
	if (!ranges)
		return 0;
	st->range_counts = calloc((size_t)SYS_COUNT * (ranges->n + 1u), sizeof(uint64_t));
	if (!st->range_counts)
		return -ENOMEM;
	st->ranges = ranges;
	st->range_cols = ranges->n + 1u;
	return 0;
}

int thread_stats_init(struct thread_stats *st, const struct range_table *ranges)
{
	int rc = alloc_ranges(st, ranges);
	reset_fields(st);
	return rc;
}

int thread_stats_init_zeroed(struct thread_stats *st, const struct range_table *ranges)
{
	return alloc_ranges(st, ranges);
}

void thread_stats_normalize(struct thread_stats *st)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (!st->op_lat[i].n)
			lat_init(&st->op_lat[i]);
	for (int i = 0; i < SYS_COUNT; i++)
		if (!st->sys_lat[i].n)
			lat_init(&st->sys_lat[i]);
	if (st->resp_lat && !st->resp_lat->n)
		lat_init(st->resp_lat);
}

void thread_stats_use_arena(struct thread_stats *st, struct stats_arena *a)
{
	st->arena = a;
}

void thread_stats_make_dense(struct thread_stats *st)
{
	struct stats_arena *a = st->arena;
	if (!a)
		return;
	for (int i = 0; i < OP_COUNT; i++)
		arena_merge(&st->op_lat[i], a, CHIST_OP(i)); /* into an all-zero (empty) series */
	for (int i = 0; i < SYS_COUNT; i++)
		arena_merge(&st->sys_lat[i], a, CHIST_SYS(i));
	st->arena = NULL;
}

int thread_stats_track_response(struct thread_stats *st)
{
	if (st->resp_lat)
		return 0;
	st->resp_lat = malloc(sizeof(*st->resp_lat));
	if (!st->resp_lat)
		return -ENOMEM;
	lat_init(st->resp_lat);
	return 0;
}

void thread_stats_free(struct thread_stats *st)
{
	free(st->resp_lat);
	st->resp_lat = NULL;
	free(st->range_counts);
	st->range_counts = NULL;
	st->ranges = NULL;
	st->range_cols = 0;
}

void thread_stats_reset(struct thread_stats *st)
{
	reset_counters(st);
	for (int i = 0; i < OP_COUNT; i++)
		lat_clear(&st->op_lat[i]);
	for (int i = 0; i < SYS_COUNT; i++)
		lat_clear(&st->sys_lat[i]);
	if (st->resp_lat)
		lat_clear(st->resp_lat);
	if (st->arena) {
		for (unsigned i = 0; i < CHIST_SERIES; i++)
			if (st->arena->mom[i].n) /* an unused series stays unwritten */
				memset(&st->arena->mom[i], 0, sizeof(st->arena->mom[i]));
		chist_clear(&st->arena->hist);
	}
}

int thread_stats_merge(struct thread_stats *dst, const struct thread_stats *src)
{
	if (!same_ranges(dst->ranges, src->ranges) || dst->range_cols != src->range_cols ||
	    dst->arena)
		return -EINVAL;
	for (int i = 0; i < OP_COUNT; i++) {
		dst->ops[i] += src->ops[i];
		dst->trans[i] += src->trans[i];
		dst->bytes_read[i] += src->bytes_read[i];
		dst->bytes_written[i] += src->bytes_written[i];
		dst->errors[i] += src->errors[i];
		dst->busy[i] += src->busy[i];
		dst->ffsb_written[i] += src->ffsb_written[i];
		dst->ffsb_read[i] += src->ffsb_read[i];
		series_merge(&dst->op_lat[i], &src->op_lat[i], src, CHIST_OP(i));
	}
	for (int i = 0; i < SYS_COUNT; i++)
		series_merge(&dst->sys_lat[i], &src->sys_lat[i], src, CHIST_SYS(i));
	if (src->resp_lat) {
		if (!dst->resp_lat && thread_stats_track_response(dst))
			return -ENOMEM;
		lat_merge(dst->resp_lat, src->resp_lat);
	}
	dst->missed_starts += src->missed_starts;
	dst->late_starts += src->late_starts;
	dst->backlog_full += src->backlog_full;
	if (dst->range_counts) {
		size_t cells = (size_t)SYS_COUNT * dst->range_cols;
		for (size_t i = 0; i < cells; i++)
			dst->range_counts[i] += src->range_counts[i];
	}
	return 0;
}

void stats_resp_record(struct thread_stats *st, uint64_t ns, uint64_t missed,
                       uint64_t first_missed_ns, uint64_t period_ns)
{
	if (!st->resp_lat)
		return;
	lat_record(st->resp_lat, ns);
	stats_resp_missed(st, missed, first_missed_ns, period_ns);
}

/* lat_record_descending - the n samples first, first - step, ..., first - (n-1) step (all > 0:
 * the caller's contract) as n lat_record calls would add them, in O(buckets) rather than O(n):
 * the moments in closed form, the histogram a bucket at a time (the samples of one bucket are a
 * run of the series). Why: a schedule far beyond what a worker can serve (op_rate=1e9) misses
 * millions of starts per operation; one lat_record each made the worker fall further behind
 * the more it missed, until it served a handful of operations in a whole run. */
static void lat_record_descending(struct lat_stats *l, uint64_t first, uint64_t step, uint64_t n)
{
	FSMIX_ASSERT(n == 0 || first > (n - 1) * step); /* every sample > 0, no wrap */
	if (n == 0)
		return;
	const uint64_t last = first - (n - 1) * step;
	const stats_u128 sk = (stats_u128)n * (n - 1) / 2;                /* sum of k, k < n */
	const stats_u128 sk2 = (stats_u128)n * (n - 1) * (2 * n - 1) / 6; /* sum of k^2 */
	uint64_t min = l->n ? l->min_ns : UINT64_MAX;
	l->n += n;
	l->sum_ns += (uint64_t)((stats_u128)first * n - (stats_u128)step * sk);
	l->sum_sq_ns += (stats_u128)first * first * n - 2 * (stats_u128)first * step * sk +
	                (stats_u128)step * step * sk2;
	l->min_ns = last < min ? last : min;
	l->max_ns = first > l->max_ns ? first : l->max_ns;
	for (uint64_t k = 0; k < n;) {
		uint64_t v = first - k * step;
		unsigned i = hist_index(v);
		uint64_t low = hist_bucket_low(i);
		/* the samples v, v - step, ... down to low (or the series' end) share bucket i */
		uint64_t run = step ? (v - low) / step + 1 : n - k;
		if (run > n - k)
			run = n - k;
		l->h.bucket[i] += run;
		k += run;
	}
}

void stats_resp_missed(struct thread_stats *st, uint64_t missed, uint64_t first_missed_ns,
                       uint64_t period_ns)
{
	st->missed_starts += missed;
	if (!st->resp_lat || first_missed_ns == 0)
		return;
	/* one sample per missed start still waiting (first_missed_ns - k * period_ns > 0) */
	uint64_t waiting = period_ns ? (first_missed_ns - 1) / period_ns + 1 : missed;
	lat_record_descending(st->resp_lat, first_missed_ns, period_ns,
	                      missed < waiting ? missed : waiting);
}
