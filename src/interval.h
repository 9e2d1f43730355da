/* interval.h - per-interval rows of a run (--interval S, and the live progress line).
 *
 * Each worker records its own rows: operations, transactions, bytes and a compact latency
 * histogram per interval [base + i*len, base + (i+1)*len). Rows live in fixed chunks that never
 * move, and a worker publishes a finished row with a release store of `published`; the main
 * thread may read rows below `published` (acquire) while the run goes on (progress line), and all
 * rows after the join. So there is no lock and no shared counter per operation.
 * A worker closes an interval with its first operation after the boundary, so the progress
 * line shows the newest interval every worker has closed: it lags while a worker is inside a
 * long operation (a slow fsync, an op_delay or op_period wait).
 *
 * The compact histogram has 16 linear sub-buckets per power of two (relative error of the
 * midpoint <= 1/32 = 3.1%) up to 2^40 ns (18 minutes; larger values are clamped): 592 counters of
 * 4 bytes, about 2.4 KiB per row, allocated 16 rows at a time (once per 16 intervals, never per
 * operation). A 300-second run with 1-second rows costs about 730 KiB per worker.
 */
#ifndef FSMIX_INTERVAL_H
#define FSMIX_INTERVAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define IVAL_SUB_BITS 4
#define IVAL_MAX_BITS 40
#define IVAL_BUCKETS  ((IVAL_MAX_BITS - IVAL_SUB_BITS + 1) << IVAL_SUB_BITS)
#define IVAL_CHUNK    16

struct ival_rec {
	uint64_t ops, trans, bytes;
	uint64_t timed; /* latency samples in hist */
	uint32_t hist[IVAL_BUCKETS];
};

struct ival_chunk {
	struct ival_chunk *next;
	struct ival_rec rec[IVAL_CHUNK];
};

struct ival_log {
	uint64_t base_ns, len_ns; /* interval i is [base + i*len, base + (i+1)*len) */
	uint64_t next_ns;         /* end of the current interval */
	uint32_t index;           /* the current interval */
	struct ival_rec cur;
	struct ival_chunk *head, *tail;
	_Atomic uint32_t published; /* rows 0..published-1 are final */
	bool oom;                   /* a chunk could not be allocated: later rows are dropped */
};

/* ival_init - start recording at base_ns (CLOCK_MONOTONIC) with len_ns-long intervals. */
void ival_init(struct ival_log *l, uint64_t base_ns, uint64_t len_ns);
void ival_free(struct ival_log *l);

/* ival_close_until - finish every interval that ends at or before now_ns (owner thread only). */
void ival_close_until(struct ival_log *l, uint64_t now_ns);

/* ival_finish - at the worker's end: close everything up to now_ns and publish the current,
 * partial interval too. */
void ival_finish(struct ival_log *l, uint64_t now_ns);

static inline unsigned ival_index(uint64_t ns)
{
	if (ns < (1u << IVAL_SUB_BITS))
		return (unsigned)ns;
	unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
	if (msb >= IVAL_MAX_BITS)
		return IVAL_BUCKETS - 1;
	unsigned sub = (unsigned)(ns >> (msb - IVAL_SUB_BITS)) & ((1u << IVAL_SUB_BITS) - 1);
	return ((msb - IVAL_SUB_BITS + 1) << IVAL_SUB_BITS) | sub;
}

/* ival_add - one operation finished at now_ns (owner thread only). lat_ns 0: not timed. */
static inline void ival_add(struct ival_log *l, uint64_t now_ns, uint64_t trans, uint64_t bytes,
                            uint64_t lat_ns)
{
	if (now_ns >= l->next_ns)
		ival_close_until(l, now_ns);
	l->cur.ops++;
	l->cur.trans += trans;
	l->cur.bytes += bytes;
	if (lat_ns) {
		l->cur.timed++;
		l->cur.hist[ival_index(lat_ns)]++;
	}
}

/* ival_row - row i, valid only for i < published (acquire-load it first). */
const struct ival_rec *ival_row(const struct ival_log *l, uint32_t i);

/* ival_percentile_ns - p-th percentile of a compact histogram with `n` samples (bucket midpoint).
 */
uint64_t ival_percentile_ns(const uint32_t *hist, uint64_t n, double p);

#endif
