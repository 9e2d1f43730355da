/* hist.h - fixed-size log-linear histogram of latencies in nanoseconds.
 *
 * Layout. A value v (uint64 ns) is placed by its most significant bit m = floor(log2 v):
 *   - v < 2^(HIST_SUB_BITS+1) = 128: one bucket per value (exact). Values below 2^HIST_SUB_BITS
 *     are exact by construction; the first power-of-two group [64, 128) is 1 ns wide too.
 *   - v >= 128: the group [2^m, 2^(m+1)) is split into 2^HIST_SUB_BITS = 64 equal sub-buckets
 *     of width w = 2^(m - HIST_SUB_BITS). The sub-bucket is the 6 bits just below the MSB.
 *   With s = max(m - HIST_SUB_BITS, 0) the index is s * 64 + (v >> s); this is continuous with the
 *   exact region (s = 0 gives index v), so no table and no branch are needed.
 *
 * Error bound. A bucket of width w >= 2 holding values v >= 64 * w is reported by its midpoint
 * mid = low + w/2 - 1, so |v - mid| <= w/2 and
 *   |v - mid| / v <= (w/2) / (64 w) = 1/128 = 2^-(HIST_SUB_BITS+1) ~= 0.78 %   (required: <= 1 %).
 * Buckets of width 1 (v < 128) are exact.
 *
 * Range. Values below HIST_LIMIT_NS = 2^HIST_MAX_BITS = 2^44 ns (~4.9 hours) are resolved.
 * Larger values are CLAMPED into the last bucket: they are counted (hist_count() stays exact) but
 * their percentile is reported as that bucket's midpoint (~2^44 ns); lat_percentile_ns() in
 * stats.h then clamps to the exact max. hist_bucket_high() of the last bucket is UINT64_MAX.
 *
 * Memory. Buckets = (HIST_MAX_BITS - HIST_SUB_BITS + 1) * 2^HIST_SUB_BITS = (44 - 6 + 1) * 64
 *   = 2496 buckets * 8 B = 19 968 B (19.5 KiB) per histogram.
 *   Per thread (stats.h): OP_COUNT + SYS_COUNT = 22 + 15 = 37 histograms = 738 816 B (721.5 KiB);
 *   64 threads: 47.3 MB (45.1 MiB) of histograms. The whole struct thread_stats is given in
 *   stats.h. Buckets are 64-bit so a per-thread bucket can never wrap, even at 10^8 samples/s for
 *   hours (32-bit buckets would wrap after 4.3e9 samples).
 *
 * Contract: a struct hist has a single writer; nothing here is atomic or locked. Merge histograms
 * only after the writers are joined.
 */
#ifndef FSMIX_HIST_H
#define FSMIX_HIST_H

#include <stdint.h>

/* log2 of the sub-buckets per power-of-two group: 6 gives a 1/128 relative error bound. */
#define HIST_SUB_BITS 6
/* Values below 2^HIST_MAX_BITS ns are resolved; larger values are clamped into the last bucket. */
#define HIST_MAX_BITS 44
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_LIMIT_NS (UINT64_C(1) << HIST_MAX_BITS)
#define HIST_BUCKETS  ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t bucket[HIST_BUCKETS]; /* samples per bucket; merge: SUM */
};

_Static_assert(HIST_BUCKETS == 2496, "bucket count quoted in the header comment");
_Static_assert(sizeof(struct hist) == 19968, "histogram size quoted in the header comment");

/* hist_index - the bucket of `ns`, in [0, HIST_BUCKETS). No branches: the clamp is a conditional
 * move; OR-ing in 2^(HIST_SUB_BITS+1)-1 makes the MSB at least HIST_SUB_BITS, so the shift is
 * never negative and clzll never sees 0. */
static inline unsigned hist_index(uint64_t ns)
{
	uint64_t v = ns < HIST_LIMIT_NS ? ns : HIST_LIMIT_NS - 1;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v | ((UINT64_C(2) << HIST_SUB_BITS) - 1));
	unsigned shift = msb - HIST_SUB_BITS;
	return (shift << HIST_SUB_BITS) + (unsigned)(v >> shift);
}

/* hist_record - count one sample of `ns` nanoseconds. Hot path: no loop, no branch. */
static inline void hist_record(struct hist *h, uint64_t ns)
{
	h->bucket[hist_index(ns)]++;
}

/* hist_bucket_low - the smallest value (ns) that maps to bucket i (i < HIST_BUCKETS). */
static inline uint64_t hist_bucket_low(unsigned i)
{
	if (i < 2 * HIST_SUB)
		return i;
	unsigned shift = (i >> HIST_SUB_BITS) - 1;
	return (uint64_t)(HIST_SUB + (i & (HIST_SUB - 1))) << shift;
}

/* hist_bucket_width - how many values (ns) bucket i covers, ignoring the clamp of the last one. */
static inline uint64_t hist_bucket_width(unsigned i)
{
	return i < 2 * HIST_SUB ? 1 : UINT64_C(1) << ((i >> HIST_SUB_BITS) - 1);
}

/* hist_bucket_high - the largest value (ns) that maps to bucket i, inclusive. UINT64_MAX for the
 * last bucket, which also receives every clamped value >= HIST_LIMIT_NS. */
static inline uint64_t hist_bucket_high(unsigned i)
{
	if (i == HIST_BUCKETS - 1)
		return UINT64_MAX;
	return hist_bucket_low(i) + hist_bucket_width(i) - 1;
}

/* hist_bucket_mid - the value (ns) that represents bucket i: low + width/2 - 1 for width >= 2,
 * low for width 1. Within 1/128 of every unclamped value in the bucket (see the header comment).
 * For the last bucket this is the midpoint of its unclamped range [2^44 - 2^37, 2^44). */
static inline uint64_t hist_bucket_mid(unsigned i)
{
	uint64_t w = hist_bucket_width(i);
	return hist_bucket_low(i) + (w > 1 ? w / 2 - 1 : 0);
}

/* hist_reset - forget every sample. */
void hist_reset(struct hist *h);

/* hist_merge - dst += src, bucket by bucket. Pure addition: associative and commutative. */
void hist_merge(struct hist *dst, const struct hist *src);

/* hist_count - number of samples recorded (sum of all buckets). O(HIST_BUCKETS). */
uint64_t hist_count(const struct hist *h);

/* hist_rank - the 1-based rank of the p-th percentile among `total` samples:
 * ceil(p/100 * total), at least 1 and at most total (0 when total is 0). p outside [0, 100] or
 * NaN is clamped (NaN counts as 0). A relative slack of 1e-12 absorbs the binary rounding of
 * decimal p, so p = 99.9 of 1000 samples is rank 999, not 1000. */
uint64_t hist_rank(uint64_t total, double p);

/* hist_percentile - the p-th percentile (p in [0, 100]) in ns: the midpoint of the bucket that
 * holds the hist_rank(total, p)-th smallest sample. `total` must be hist_count(h) (callers keep
 * it, so it is not recomputed); if h holds fewer samples, the midpoint of the highest non-empty
 * bucket is returned. 0 when total is 0. O(HIST_BUCKETS). */
uint64_t hist_percentile(const struct hist *h, uint64_t total, double p);

/* hist_bucket_of_rank - the bucket holding the rank-th smallest sample (rank >= 1), or the
 * highest non-empty bucket when fewer than rank samples exist; 0 for an empty histogram. */
unsigned hist_bucket_of_rank(const struct hist *h, uint64_t rank);

#endif
