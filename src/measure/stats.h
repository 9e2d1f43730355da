/* stats.h - per-thread latency statistics: exact moments, a log-linear histogram per operation and
 * per timed syscall, and exact msec_range counts.
 *
 * Contract (no atomics, no locks): a struct thread_stats is written only by its owning worker
 * thread while the run is live. Nobody else reads it until that thread has been pthread_join()ed;
 * the join is the happens-before edge. Then the main thread merges workers into group totals and
 * groups into the run total with thread_stats_merge(). Every merge is exact integer addition,
 * min or max, so it is associative and commutative, and merging per-thread recordings in any
 * order gives byte-for-byte the same result as one thread recording every sample.
 *
 * Every field's comment names how it merges: SUM, MIN or MAX.
 *
 * Memory (x86-64, OP_COUNT = 46, SYS_COUNT = 18):
 *   struct lat_stats    = 48 B of moments + 19 968 B histogram          = 20 016 B
 *   struct thread_stats = 8 counters * 46 ops * 8 B (2 944 B) + 64 lat_stats (1 281 024 B)
 *                         + 48 B of response-time, range and arena fields (pointers and
 *                         counts, with the padding to lat_stats' 16-byte alignment)
 *                       = 1 284 032 B (1 253.9 KiB), plus range_counts: SYS_COUNT * (n_ranges + 1)
 *                         * 8 B (7.8 KB for 64 ranges; 0 without ranges), plus one lat_stats
 *                         more (resp_lat) only for op_period groups.
 *   (FFSB's own 15 operations and 13 syscalls are 28 of the 50 series; fsmix's fdatasync
 *   variants, append_fsync2, sync, syncfs, rename, replace_fsync, truncate, fallocate,
 *   punch_hole, zero_range, link, unlink, mkdir and rmdir are the other 17 operation and 5
 *   syscall series; a sequence and its 13 kinds of step, sequence= (ops.def), 14 more.)
 *
 * A worker's copy costs only the pages it writes: it lives in zero pages (thread_stats_init_zeroed,
 * engine/worker.c), and its series are recorded into a struct stats_arena of its own
 * (thread_stats_use_arena; 1 776 B of moments, then chist.h's chunks), so its op_lat and
 * sys_lat stay all zero (empty, unwritten) and a series costs 48 B plus a 320 B table and 32 B
 * per 16-bucket chunk its samples land in (128 B more for a chunk whose counts pass 65 535):
 * ~15-25 KB of pages for the ~18 series of the 2010 profile (it was ~250 KB with a dense
 * histogram per series, ~3 pages each), a few pages for stat-only. The arena is 947 456 + 1 792 B
 * of address space, never written ahead: the worst case (every count of every series past
 * 2^16) fits, so it cannot run out.
 *
 * Budget (96 MiB for every copy of a 64-thread run; it was 64 MiB until the 14 series of
 * sequences, 280 KB a copy). A run keeps one copy per thread, one per thread group and one
 * total: T + G + 1 copies.
 *   - 64 threads in one group: 66 copies = 84.7 MB (80.8 MiB).
 *   - 96 MiB holds 66 copies: 64 threads in one group (each new operation adds 20 KB a copy).
 *     This is address space: a copy's resident cost is the pages its worker wrote (above).
 *   - 64 one-thread groups would need 129 copies = 124.2 MB, over budget. So the runner does not
 *     keep two copies of a one-thread group: after the join it moves that worker's thread_stats
 *     into the results' group (results_init_lazy left it untouched) and frees the worker at
 *     once (engine/finish.c; 64 one-thread groups: 52 MB peak RSS, 98 MB with copies). Then
 *     at most 64 / 2 = 32 groups need a copy: 64 + 32 + 1 = 97 copies = 93.4 MB, still over
 *     64 MiB by 28 copies;
 *     merging each worker into its group and freeing it at once would keep any layout within
 *     budget (not done).
 */
#ifndef FSMIX_STATS_H
#define FSMIX_STATS_H

#include <stdint.h>

#include "chist.h"
#include "compiler.h"
#include "hist.h"
#include "ops.h"

/* 128-bit unsigned; GCC and Clang on 64-bit targets (rng.h already relies on it). */
__extension__ typedef unsigned __int128 stats_u128;

/* lat_stats - every sample of one latency series (one op or one syscall of one thread).
 * min_ns starts at UINT64_MAX so that an empty lat_stats is the identity of lat_merge. A series
 * whose n is 0 is empty whatever its other fields hold: an all-zero lat_stats (memory fresh from
 * mmap, never written) is empty too, so a worker's series cost no memory until a sample lands
 * (thread_stats_init_zeroed); lat_record and lat_merge read min_ns only when n > 0.
 * The sum of squares is an exact 128-bit integer rather than a double: a double sum depends on
 * the order of additions, so per-thread sums merged at the end would not equal one serial sum
 * (merge would be neither exact nor associative), and the variance would suffer cancellation.
 * Exact as long as the sum of squares stays below 2^128, e.g. 2^40 samples of 2^44 ns each. */
struct lat_stats {
	uint64_t n;           /* samples; SUM */
	uint64_t sum_ns;      /* sum of samples, ns; SUM (wraps after 584 years of latency) */
	uint64_t min_ns;      /* smallest sample, ns; UINT64_MAX when empty; MIN */
	uint64_t max_ns;      /* largest sample, ns; 0 when empty; MAX */
	stats_u128 sum_sq_ns; /* sum of squared samples, ns^2, exact; SUM */
	struct hist h;        /* distribution for percentiles; SUM per bucket */
};

/* lat_init - an empty series (n = 0, min = UINT64_MAX). */
void lat_init(struct lat_stats *l);

/* lat_record - add one sample of `ns` nanoseconds. Hot path: no branch, no loop. */
static inline void lat_record(struct lat_stats *l, uint64_t ns)
{
	uint64_t min = l->n ? l->min_ns : UINT64_MAX; /* an all-zero series is empty */
	l->n++;
	l->sum_ns += ns;
	l->sum_sq_ns += (stats_u128)ns * ns;
	l->min_ns = ns < min ? ns : min;
	l->max_ns = ns > l->max_ns ? ns : l->max_ns;
	hist_record(&l->h, ns);
}

/* lat_moments - a lat_stats without its histogram: one series of a worker's stats_arena. The
 * same fields, the same rules (all zero is empty; min_ns is read only when n > 0). */
struct lat_moments {
	uint64_t n;           /* SUM */
	uint64_t sum_ns;      /* SUM */
	uint64_t min_ns;      /* MIN */
	uint64_t max_ns;      /* MAX */
	stats_u128 sum_sq_ns; /* SUM */
};

/* stats_arena - a worker's series, compact (thread_stats_use_arena): the moments of every
 * series side by side (37 * 48 B = 1 776 B, one page) and their buckets in a chist_arena, whose
 * series numbers (CHIST_OP, CHIST_SYS) index mom[] too. All zero is empty. */
struct stats_arena {
	struct lat_moments mom[CHIST_SERIES];
	struct chist_arena hist;
};

/* moments_record - lat_record without the histogram, into a lat_moments. */
static inline void moments_record(struct lat_moments *l, uint64_t ns)
{
	uint64_t min = l->n ? l->min_ns : UINT64_MAX; /* an all-zero series is empty */
	l->n++;
	l->sum_ns += ns;
	l->sum_sq_ns += (stats_u128)ns * ns;
	l->min_ns = ns < min ? ns : min;
	l->max_ns = ns > l->max_ns ? ns : l->max_ns;
}

/* arena_record - one sample of `ns` in series s of a worker's arena. Hot path. */
static inline void arena_record(struct stats_arena *a, unsigned s, uint64_t ns)
{
	moments_record(&a->mom[s], ns);
	chist_record(&a->hist, s, ns);
}

/* lat_merge - dst := dst (+) src: SUM of n, sums and buckets, MIN of min, MAX of max. An empty
 * src (n = 0) leaves dst as it is, without reading its buckets. */
void lat_merge(struct lat_stats *dst, const struct lat_stats *src);

/* lat_min_ns - the smallest sample, or 0 for an empty series (for reports). */
uint64_t lat_min_ns(const struct lat_stats *l);

/* lat_mean_ns - arithmetic mean in ns; 0 when empty. */
double lat_mean_ns(const struct lat_stats *l);

/* lat_stddev_ns - population standard deviation (divide by n, not n - 1) in ns; 0 when empty.
 * Computed from the exact integer sums without catastrophic cancellation. */
double lat_stddev_ns(const struct lat_stats *l);

/* lat_percentile_ns - the p-th percentile (p in [0, 100]) in ns; 0 when empty. The rank-th
 * smallest sample (rank = ceil(p/100 * n)) is the exact min for rank 1 and the exact max for
 * rank n (so p0 == min, p100 == max, and a single sample reports itself); otherwise it is the
 * midpoint of its histogram bucket (within 1/128 of the true order statistic) clamped into
 * [min, max]. */
uint64_t lat_percentile_ns(const struct lat_stats *l, double p);

/* ---- msec_range: exact counts per latency range ----------------------------------------------
 *
 * fsmix rule: a sample v (ns) belongs to the range with lo <= v < hi (half-open); the range with
 * the largest hi also takes v == hi. A sample in no range (below the first, in a gap between
 * ranges, above the last) is counted in the extra "outside" column. Counts are exact integers,
 * never derived from the histogram.
 *
 * FFSB 6.0 differs: it truncates latencies and bounds (uint32 of ms * 1000) to whole microseconds,
 * treats both ends of a range as inclusive and takes the first match scanning the ranges in reverse
 * declaration order. For ranges declared ascending and touching (the usual "0 1", "1 2", ...
 * profile) both rules put a sample exactly on an inner boundary into the upper range, so the counts
 * agree (for bounds that are whole microseconds) except:
 *   (a) at the very top end: FFSB truncates 10.0004 ms to 10000 us and counts it in a top range
 *       "... 10"; fsmix compares in ns and counts it "outside";
 *   (b) in gaps and above the top: FFSB drops the sample from the range counts silently; fsmix
 *       counts it as "outside" (so counts + outside always equals the number of samples);
 *   (c) overlapping ranges, which FFSB resolves by declaration order and fsmix rejects;
 *   (d) ranges declared descending: FFSB then puts a boundary sample into the lower range; fsmix
 *       sorts the ranges, so its answer does not depend on declaration order.
 */

/* One range in ns; decl is its position in the profile (the table itself is sorted by lo). */
struct range_ns {
	uint64_t lo_ns; /* inclusive */
	uint64_t hi_ns; /* exclusive, except for the last (largest) range, where inclusive */
	uint32_t decl;  /* index in the caller's declaration order */
};

/* range_table - read-only after range_table_new; shared by every thread of a group. */
struct range_table {
	uint32_t n;          /* number of ranges */
	struct range_ns r[]; /* [n], ascending by lo_ns, non-overlapping, so also ascending by hi */
};

/* range_table_new - build a table from n (lo_ms, hi_ms) pairs, lo_hi_ms[2i] and lo_hi_ms[2i+1],
 * in any order. Milliseconds become ns rounded to the nearest ns, so 0.01 ms is 10 000 ns and
 * 1.001 ms is 1 001 000 ns (truncating 1.001 * 1e6 = 1000999.9999999999 would give 1 000 999). The
 * caller validates, but the table is checked again: negative, NaN, > 1.8e13 ms, lo > hi or
 * overlapping ranges give -EINVAL. Ranges may touch (hi of one == lo of the next). n may be 0
 * (every sample is "outside"). Returns 0 and *out (free it with range_table_free), -EINVAL or
 * -ENOMEM. */
int range_table_new(struct range_table **out, const double *lo_hi_ms, uint32_t n);

/* range_table_free - release a table from range_table_new; NULL is fine. */
void range_table_free(struct range_table *t);

/* range_table_find - the sorted index in [0, n) of the range holding `ns`, or n ("outside").
 * Branch-free binary search: the loop count depends only on n and each step is a conditional
 * move, because latencies are random enough that a branchy search mispredicts at every level
 * (measured: ~12 ns per lookup with branches for 6 ranges). O(log n), no allocation. */
static inline uint32_t range_table_find(const struct range_table *t, uint64_t ns)
{
	uint32_t n = t->n;
	if (n == 0)
		return 0;
	/* base ends as the last range with lo <= ns, or 0 when there is none */
	uint32_t base = 0, len = n;
	while (len > 1) {
		uint32_t half = len / 2;
		base = t->r[base + half].lo_ns <= ns ? base + half : base;
		len -= half;
	}
	const struct range_ns *r = &t->r[base];
	uint32_t in =
	    (uint32_t)(r->lo_ns <= ns) &
	    ((uint32_t)(ns < r->hi_ns) | ((uint32_t)(base == n - 1) & (uint32_t)(ns == r->hi_ns)));
	/* in ? base : n, as arithmetic: compilers turn the ternary into a mispredicted branch */
	return base + ((n - base) & (in - 1u));
}

/* ---- per-thread statistics ------------------------------------------------------------------ */

struct thread_stats {
	/* First, on the page of the counters: the fields every record reads (a worker's series
	 * are in its arena, so a worker writes only this start of its thread_stats).
	 * op_period groups: response time, from each operation's scheduled start to its end
	 * (service time plus the wait behind late operations), every operation together; and one
	 * sample per scheduled start that passed while the previous operation still ran (a missed
	 * start: it waited until that operation ended), as HdrHistogram's corrected recording.
	 * Per field as in struct lat_stats; empty for groups without op_period. */
	struct lat_stats *resp_lat; /* owned; NULL until thread_stats_track_response */
	uint64_t missed_starts;     /* scheduled starts that passed while an operation ran; SUM */
	/* arrival_backlog=queue: starts that had passed when their thread was free, served late
	 * (missed_starts: the ones dropped at the backlog's bound); the times the bound was
	 * reached, each dropping one or more starts. SUM */
	uint64_t late_starts, backlog_full;
	/* msec_range table, not owned, NULL = none; must match on both sides of a merge */
	const struct range_table *ranges;
	uint32_t range_cols;    /* ranges->n + 1 (the last column is "outside"); 0 = none */
	uint64_t *range_counts; /* [SYS_COUNT][range_cols], owned; SUM, exact */
	/* A worker's compact series (struct stats_arena), not owned; NULL = the dense op_lat and
	 * sys_lat. With an arena, op_lat and sys_lat stay all zero (empty): the samples are the
	 * arena's (series CHIST_OP(op) and CHIST_SYS(s)), and merging st into another adds them
	 * from there. */
	struct stats_arena *arena;
	uint64_t ops[OP_COUNT];           /* whole operations completed; SUM */
	uint64_t trans[OP_COUNT];         /* FFSB transactions (one per read/write call); SUM */
	uint64_t bytes_read[OP_COUNT];    /* bytes returned by read(); SUM */
	uint64_t bytes_written[OP_COUNT]; /* bytes accepted by write(); SUM */
	uint64_t errors[OP_COUNT];        /* failed operations; SUM */
	/* picks that found files, but every one held by other threads (busy, not an empty set:
	 * the skipped picks of results.h are those that found none); SUM */
	uint64_t busy[OP_COUNT];
	/* bytes written as FFSB 6.0 counted them: write and write_fsync the whole file's size,
	 * every other op its bytes_written (FFSB's figures in --format ffsb); SUM */
	uint64_t ffsb_written[OP_COUNT];
	/* bytes read as FFSB 6.0 counted them: read read_size (with read_random also the tail of
	 * read_size % read_blocksize it never reads), every other op its bytes_read; SUM */
	uint64_t ffsb_read[OP_COUNT];
	/* latency of the whole operation; per field SUM, MIN or MAX as in struct lat_stats */
	struct lat_stats op_lat[OP_COUNT];
	/* latency of each timed syscall; per field SUM, MIN or MAX as in struct lat_stats */
	struct lat_stats sys_lat[SYS_COUNT];
};

/* thread_stats_init - empty stats counting msec_ranges of `ranges` (NULL = no range counts).
 * `ranges` must outlive st. Allocates only range_counts. Returns 0 or -ENOMEM (st is then
 * safe to thread_stats_free). */
int thread_stats_init(struct thread_stats *st, const struct range_table *ranges);

/* thread_stats_init_zeroed - like thread_stats_init for an st whose memory is all zero (fresh
 * from an anonymous mmap): every series is left as it is, empty, so none of its pages is written
 * here; a page of a histogram is first written (and costs memory) when a sample lands in it. */
int thread_stats_init_zeroed(struct thread_stats *st, const struct range_table *ranges);

/* thread_stats_use_arena - record st's histograms into `a` (chist.h) rather than into its
 * series' dense buckets: for a worker, whose a is all zero (fresh from an anonymous mmap) and
 * outlives st's use; st must be empty. Costs nothing until samples land. */
void thread_stats_use_arena(struct thread_stats *st, struct stats_arena *a);

/* thread_stats_make_dense - st's compact series (moments and buckets) put into its own dense
 * op_lat and sys_lat, and the arena dropped (st->arena = NULL): for a copy of a worker's st that is
 * kept (a one-thread group), while the arena is still mapped. Nothing to do without an arena. */
void thread_stats_make_dense(struct thread_stats *st);

/* thread_stats_normalize - every empty series (n = 0) in the form lat_init gives it (min_ns
 * UINT64_MAX, buckets zero), as a copy of a zero-initialised st ends up where others are read. */
void thread_stats_normalize(struct thread_stats *st);

/* thread_stats_track_response - give st a response-time series (op_period groups). 0 or
 * -ENOMEM. */
int thread_stats_track_response(struct thread_stats *st);

/* thread_stats_free - release what thread_stats_init allocated; st may be freed afterwards. */
void thread_stats_free(struct thread_stats *st);

/* thread_stats_reset - back to empty, keeping the range table and the allocation. Writes only
 * the series that hold samples, and of their buckets only those that are not zero (so a
 * zero-initialised st stays untouched where nothing landed). */
void thread_stats_reset(struct thread_stats *st);

/* thread_stats_merge - dst := dst (+) src, field by field as commented above; src's buckets
 * from its arena when it has one, exactly as from dense ones. Both must count the same
 * msec_ranges (the same table, or tables with equal bounds), and dst must be dense (no arena);
 * otherwise -EINVAL and dst is unchanged. Call only after the thread that wrote src has been
 * joined. Returns 0. */
int thread_stats_merge(struct thread_stats *dst, const struct thread_stats *src);

/* stats_range_row - the SYS_COUNT row of range counts for syscall s: range_cols entries, the
 * i-th for sorted range i (see range_ns.decl), the last for "outside". NULL without ranges. */
static inline const uint64_t *stats_range_row(const struct thread_stats *st, enum sys_id s)
{
	return st->range_counts ? st->range_counts + (size_t)s * st->range_cols : NULL;
}

/* stats_sys_record - one timed syscall took `ns` nanoseconds. Hot path: inline, no allocation. */
static inline void stats_sys_record(struct thread_stats *st, enum sys_id s, uint64_t ns)
{
	if (LIKELY(st->arena))
		arena_record(st->arena, CHIST_SYS(s), ns);
	else
		lat_record(&st->sys_lat[s], ns);
	if (st->ranges)
		st->range_counts[(size_t)s * st->range_cols + range_table_find(st->ranges, ns)]++;
}

/* stats_resp_record - an operation of an op_period group ended `ns` after its scheduled start;
 * then one sample per start that passed while it ran: `missed` starts, the first
 * `first_missed_ns` before its end, each next one period later. Cold path (scheduled groups). */
void stats_resp_record(struct thread_stats *st, uint64_t ns, uint64_t missed,
                       uint64_t first_missed_ns, uint64_t period_ns);

/* stats_resp_missed - `missed` starts counted, and (with a response series) one sample each:
 * the first waited first_missed_ns, each next one period less. Cold path. */
void stats_resp_missed(struct thread_stats *st, uint64_t missed, uint64_t first_missed_ns,
                       uint64_t period_ns);

/* stats_op_record - one whole operation took `ns` nanoseconds. Records the latency only; the
 * engine updates ops, trans, bytes_read, bytes_written and errors itself. */
static inline void stats_op_record(struct thread_stats *st, enum op_id op, uint64_t ns)
{
	if (LIKELY(st->arena))
		arena_record(st->arena, CHIST_OP(op), ns);
	else
		lat_record(&st->op_lat[op], ns);
}

#endif
