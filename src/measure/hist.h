/* hist.h - one fixed-size log-linear histogram of latencies in nanoseconds, parameterised by its
 * resolution S (sub-bucket bits), its range M (max bits) and its count type, and the statistics'
 * instance of it.
 *
 * Instances (each one line of LOGHIST_DECLARE in a header and LOGHIST_DEFINE in one .c file):
 *   struct hist      S = 6, M = 44, uint64_t counts: per-thread statistics (here; stats.h)
 *   struct ival_hist S = 4, M = 40, uint32_t counts: --interval rows and the progress line
 *                    (interval.h, which gives its memory budget and why its counts are 32-bit)
 * Both share every line of code below: the same bucket layout, index, merge and rank rule; the
 * parameters are compile-time constants, so each instance compiles to the same straight-line code
 * a hand-written one would.
 *
 * Layout. A value v (uint64 ns) is placed by its most significant bit m = floor(log2 v):
 *   - v < 2^(S+1): one bucket per value (exact). Values below 2^S are exact by construction; the
 *     first power-of-two group [2^S, 2^(S+1)) is 1 ns wide too.
 *   - v >= 2^(S+1): the group [2^m, 2^(m+1)) is split into 2^S equal sub-buckets of width
 *     w = 2^(m - S). The sub-bucket is the S bits just below the MSB.
 *   With s = max(m - S, 0) the index is s * 2^S + (v >> s); this is continuous with the exact
 *   region (s = 0 gives index v), so no table and no branch are needed.
 *   Buckets = (M - S + 1) * 2^S.
 *
 * Error bound. A bucket of width w >= 2 holds values v >= 2^S * w. hist_bucket_mid reports it by
 * mid = low + w/2 - 1 (the lower of its two middle values), so |v - mid| <= w/2 and
 *   |v - mid| / v <= (w/2) / (2^S w) = 2^-(S+1):  1/128 ~= 0.78 % for S = 6 (required: <= 1 %),
 *                                                  1/32  ~= 3.1 %  for S = 4.
 * Buckets of width 1 (v < 2^(S+1)) are exact.
 *
 * Range. Values below 2^M ns are resolved (S = 6, M = 44: HIST_LIMIT_NS ~4.9 hours; M = 40:
 * ~18 minutes). Larger values are CLAMPED into the last bucket: they are counted (the count stays
 * exact) but their percentile is that bucket's midpoint (~2^M ns); lat_percentile_ns() in stats.h
 * then clamps to the exact max. The last bucket's high is UINT64_MAX.
 *
 * Memory of struct hist. (44 - 6 + 1) * 64 = 2496 buckets * 8 B = 19 968 B (19.5 KiB).
 *   A struct thread_stats (stats.h) holds OP_COUNT + SYS_COUNT = 22 + 15 = 37 of them = 738 816 B
 *   (722 KiB): the copies of thread groups and of the run's total are dense. A worker records
 *   into compact ones instead (chist.h: the same buckets in 16-bucket chunks of 16-bit low words,
 *   32 B, with 64-bit high words added when a count passes 65 535, handed out on first touch
 *   with their tables; ~15-25 KB for the ~18 series of the 2010 profile). Counts are 64-bit, in
 *   both, so a per-thread bucket can never wrap, even at 10^8 samples/s for hours (a 32-bit count
 *   alone would wrap after 4.3e9 samples).
 *
 * Contract: a histogram has a single writer; nothing here is atomic or locked. Merge histograms
 * only after the writers are joined.
 */
#ifndef FSMIX_HIST_H
#define FSMIX_HIST_H

#include <stdint.h>

#include "check.h"

/* ---- The one implementation: geometry as functions of the parameters ---- */

/* Number of buckets of an instance with sub_bits S and max_bits M: (M - S + 1) * 2^S. */
#define LOGHIST_BUCKETS(sub_bits, max_bits) (((max_bits) - (sub_bits) + 1) << (sub_bits))

/* loghist_index - the bucket of `ns`, in [0, LOGHIST_BUCKETS). No branches: the clamp to
 * 2^max_bits - 1 is a conditional move; OR-ing in 2^(sub_bits+1)-1 makes the MSB at least
 * sub_bits, so the shift is never negative and clzll never sees 0. Callers pass constants. */
static inline unsigned loghist_index(uint64_t ns, unsigned sub_bits, unsigned max_bits)
{
	const uint64_t limit = UINT64_C(1) << max_bits;
	uint64_t v = ns < limit ? ns : limit - 1;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v | ((UINT64_C(2) << sub_bits) - 1));
	unsigned shift = msb - sub_bits;
	return (shift << sub_bits) + (unsigned)(v >> shift);
}

/* loghist_bucket_low - the smallest value (ns) that maps to bucket i. */
static inline uint64_t loghist_bucket_low(unsigned i, unsigned sub_bits)
{
	const unsigned sub = 1u << sub_bits;
	if (i < 2 * sub)
		return i;
	unsigned shift = (i >> sub_bits) - 1;
	return (uint64_t)(sub + (i & (sub - 1))) << shift;
}

/* loghist_bucket_width - how many values (ns) bucket i covers, ignoring the clamp of the last. */
static inline uint64_t loghist_bucket_width(unsigned i, unsigned sub_bits)
{
	return i < (2u << sub_bits) ? 1 : UINT64_C(1) << ((i >> sub_bits) - 1);
}

/* loghist_bucket_high - the largest value (ns) that maps to bucket i, inclusive; UINT64_MAX for
 * the last bucket, which also receives every clamped value >= 2^max_bits. */
static inline uint64_t loghist_bucket_high(unsigned i, unsigned sub_bits, unsigned max_bits)
{
	if (i == LOGHIST_BUCKETS(sub_bits, max_bits) - 1u)
		return UINT64_MAX;
	return loghist_bucket_low(i, sub_bits) + loghist_bucket_width(i, sub_bits) - 1;
}

/* loghist_bucket_mid - the value (ns) that represents bucket i: low + width/2 - 1 for width >= 2,
 * low for width 1. Within 2^-(sub_bits+1) of every unclamped value in the bucket. */
static inline uint64_t loghist_bucket_mid(unsigned i, unsigned sub_bits)
{
	uint64_t w = loghist_bucket_width(i, sub_bits);
	return loghist_bucket_low(i, sub_bits) + (w > 1 ? w / 2 - 1 : 0);
}

/* hist_rank - the 1-based rank of the p-th percentile among `total` samples:
 * ceil(p/100 * total), at least 1 and at most total (0 when total is 0). p outside [0, 100] or
 * NaN is clamped (NaN counts as 0). A relative slack of 1e-12 absorbs the binary rounding of
 * decimal p, so p = 99.9 of 1000 samples is rank 999, not 1000. Shared by every instance. */
uint64_t hist_rank(uint64_t total, double p);

/* ---- Instances ----
 * LOGHIST_DECLARE(name, S, M, count_t) declares struct name { count_t bucket[...]; } and:
 *   name_index(ns)        the bucket of ns                              (inline)
 *   name_record(h, ns)    count one sample; hot path: no loop, no branch (inline)
 *   name_bucket_low/width/high/mid(i)   the loghist_* geometry above     (inline)
 *   name_reset(h)         forget every sample
 *   name_merge(dst, src)  dst += src bucket by bucket: associative and commutative
 *   name_count(h)         samples recorded (sum of all buckets), O(buckets)
 *   name_bucket_of_rank(h, rank)  the bucket holding the rank-th smallest sample (rank >= 1),
 *                         or the highest non-empty bucket when fewer than rank samples exist;
 *                         0 for an empty histogram
 *   name_percentile(h, total, p)  the p-th percentile (p in [0, 100]) in ns: the midpoint of the
 *                         bucket holding the hist_rank(total, p)-th smallest sample. `total`
 *                         must be name_count(h) (callers keep it, so it is not recomputed); if h
 *                         holds fewer samples, the midpoint of the highest non-empty bucket. 0
 *                         when total is 0. O(buckets).
 * LOGHIST_DEFINE(name) in exactly one .c file (which includes <string.h>) defines the
 * out-of-line functions. */
#define LOGHIST_DECLARE(name, sub_bits, max_bits, count_t)                                         \
	struct name {                                                                              \
		count_t bucket[LOGHIST_BUCKETS(sub_bits, max_bits)]; /* merge: SUM */              \
	};                                                                                         \
	static inline unsigned name##_index(uint64_t ns)                                           \
	{                                                                                          \
		return loghist_index(ns, sub_bits, max_bits);                                      \
	}                                                                                          \
	static inline void name##_record(struct name *h, uint64_t ns)                              \
	{                                                                                          \
		h->bucket[name##_index(ns)]++;                                                     \
	}                                                                                          \
	static inline uint64_t name##_bucket_low(unsigned i)                                       \
	{                                                                                          \
		FSMIX_ASSERT(i <                                                                   \
		             LOGHIST_BUCKETS(sub_bits, max_bits)); /* an index of this instance */ \
		return loghist_bucket_low(i, sub_bits);                                            \
	}                                                                                          \
	static inline uint64_t name##_bucket_width(unsigned i)                                     \
	{                                                                                          \
		FSMIX_ASSERT(i <                                                                   \
		             LOGHIST_BUCKETS(sub_bits, max_bits)); /* an index of this instance */ \
		return loghist_bucket_width(i, sub_bits);                                          \
	}                                                                                          \
	static inline uint64_t name##_bucket_high(unsigned i)                                      \
	{                                                                                          \
		FSMIX_ASSERT(i <                                                                   \
		             LOGHIST_BUCKETS(sub_bits, max_bits)); /* an index of this instance */ \
		return loghist_bucket_high(i, sub_bits, max_bits);                                 \
	}                                                                                          \
	static inline uint64_t name##_bucket_mid(unsigned i)                                       \
	{                                                                                          \
		FSMIX_ASSERT(i <                                                                   \
		             LOGHIST_BUCKETS(sub_bits, max_bits)); /* an index of this instance */ \
		return loghist_bucket_mid(i, sub_bits);                                            \
	}                                                                                          \
	void name##_reset(struct name *h);                                                         \
	void name##_merge(struct name *dst, const struct name *src);                               \
	uint64_t name##_count(const struct name *h);                                               \
	unsigned name##_bucket_of_rank(const struct name *h, uint64_t rank);                       \
	uint64_t name##_percentile(const struct name *h, uint64_t total, double p)

/* Buckets of a histogram object (a struct from LOGHIST_DECLARE). */
#define LOGHIST_LEN(h) ((unsigned)(sizeof((h)->bucket) / sizeof((h)->bucket[0])))

#define LOGHIST_DEFINE(name)                                                                       \
	void name##_reset(struct name *h)                                                          \
	{                                                                                          \
		memset(h, 0, sizeof(*h));                                                          \
	}                                                                                          \
	void name##_merge(struct name *dst, const struct name *src)                                \
	{                                                                                          \
		for (unsigned i = 0; i < LOGHIST_LEN(dst); i++)                                    \
			dst->bucket[i] += src->bucket[i];                                          \
	}                                                                                          \
	uint64_t name##_count(const struct name *h)                                                \
	{                                                                                          \
		uint64_t n = 0;                                                                    \
		for (unsigned i = 0; i < LOGHIST_LEN(h); i++)                                      \
			n += h->bucket[i];                                                         \
		return n;                                                                          \
	}                                                                                          \
	unsigned name##_bucket_of_rank(const struct name *h, uint64_t rank)                        \
	{                                                                                          \
		FSMIX_ASSERT(rank >= 1); /* ranks are 1-based (hist_rank) */                       \
		uint64_t cum = 0;                                                                  \
		unsigned last = 0;                                                                 \
		for (unsigned i = 0; i < LOGHIST_LEN(h); i++) {                                    \
			if (h->bucket[i] == 0)                                                     \
				continue;                                                          \
			cum += h->bucket[i];                                                       \
			last = i;                                                                  \
			if (cum >= rank)                                                           \
				return i;                                                          \
		}                                                                                  \
		return last;                                                                       \
	}                                                                                          \
	uint64_t name##_percentile(const struct name *h, uint64_t total, double p)                 \
	{                                                                                          \
		if (total == 0)                                                                    \
			return 0;                                                                  \
		return name##_bucket_mid(name##_bucket_of_rank(h, hist_rank(total, p)));           \
	}                                                                                          \
	_Static_assert(1, "LOGHIST_DEFINE(" #name ") ends with a semicolon")

/* ---- The statistics' instance: struct hist ---- */

/* log2 of the sub-buckets per power-of-two group: 6 gives a 1/128 relative error bound. */
#define HIST_SUB_BITS 6
/* Values below 2^HIST_MAX_BITS ns are resolved; larger values are clamped into the last bucket. */
#define HIST_MAX_BITS 44
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_LIMIT_NS (UINT64_C(1) << HIST_MAX_BITS)
#define HIST_BUCKETS  LOGHIST_BUCKETS(HIST_SUB_BITS, HIST_MAX_BITS)

LOGHIST_DECLARE(hist, HIST_SUB_BITS, HIST_MAX_BITS, uint64_t);

_Static_assert(HIST_BUCKETS == 2496, "bucket count quoted in the header comment");
_Static_assert(sizeof(struct hist) == 19968, "histogram size quoted in the header comment");

#endif
