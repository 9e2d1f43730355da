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
 * The compact histogram is struct ival_hist, an instance of the one log-linear histogram of
 * hist.h with 16 linear sub-buckets per power of two (relative error of the midpoint <= 1/32 =
 * 3.1%) up to 2^40 ns (18 minutes; larger values are clamped): 592 counters of 4 bytes, about
 * 2.4 KiB per row (2400 B with the four counters), allocated 16 rows at a time (once per 16
 * intervals, never per operation). A 300-second run with 1-second rows costs about 730 KiB per
 * worker (19 chunks of 38 408 B).
 * Why 32-bit counts: 64-bit ones would double that (4768 B per row, 1.4 MiB per worker and
 * 93 MB for 64 workers in that run) for rows that hold one interval of one worker. The limit: a
 * count wraps after 2^32 (4.3e9) samples in one bucket of one row, e.g. a worker's row of a
 * 430-second interval with 10^7 operations per second in that bucket; the rows progress.c merges
 * over workers have 32-bit counts too (64 workers with 10^6 each per second: 67 s). Nothing guards
 * it.
 */
#ifndef FSMIX_INTERVAL_H
#define FSMIX_INTERVAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

#define IVAL_SUB_BITS 4  /* 16 sub-buckets per power of two: midpoints within 1/32 */
#define IVAL_MAX_BITS 40 /* values from 2^40 ns (~18 minutes) on are clamped */
#define IVAL_BUCKETS  LOGHIST_BUCKETS(IVAL_SUB_BITS, IVAL_MAX_BITS)
#define IVAL_CHUNK    16 /* rows per allocation */

LOGHIST_DECLARE(ival_hist, IVAL_SUB_BITS, IVAL_MAX_BITS, uint32_t);

_Static_assert(IVAL_BUCKETS == 592, "bucket count quoted in the header comment");
_Static_assert(sizeof(struct ival_hist) == 2368, "histogram size quoted in the header comment");

struct ival_rec {
	uint64_t ops, trans, bytes;
	uint64_t timed;        /* latency samples in hist */
	struct ival_hist hist; /* the latencies of the timed operations */
};

struct ival_chunk {
	struct ival_chunk *next;
	struct ival_rec rec[IVAL_CHUNK];
};

_Static_assert(sizeof(struct ival_rec) == 2400, "row size quoted in the header comment");
_Static_assert(sizeof(struct ival_chunk) == 38408, "chunk size quoted in the header comment");

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
		ival_hist_record(&l->cur.hist, lat_ns);
	}
}

/* ival_row - row i, valid only for i < published (acquire-load it first). */
const struct ival_rec *ival_row(const struct ival_log *l, uint32_t i);

/* ival_percentile_ns - p-th percentile in ns of a compact histogram with `n` samples (n must be
 * ival_hist_count(h)); 0 when n is 0. The bucket is ival_hist's (hist_rank's rule), but it is
 * reported by the UPPER of its two middle values, low + width/2, where ival_hist_percentile takes
 * the lower: the interval p99s (JSON p99_op_ns, CSV, the progress line) stay what they have
 * always been. Same 1/32 bound. */
uint64_t ival_percentile_ns(const struct ival_hist *h, uint64_t n, double p);

#endif
