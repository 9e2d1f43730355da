/* durrange.h - the promised content of one file: the writes a promise settled, each a range
 * [off, end) of generation gen, and what they promise together -- for each byte, the highest
 * generation of the settled writes that cover it (a later promise of an OLDER write never lowers
 * what a newer O_DSYNC write already promised), ties to the one settled last.
 *
 * Cost: durrange_put appends (O(1) amortised) and, when the set has doubled since it was last
 * reduced, reduces it to its envelope (sorted, disjoint ranges) in O(n log n): O(log n)
 * amortised per put, memory O(envelope + puts since). durrange_finish reduces it once more:
 * then r[0..n) is sorted by offset, disjoint, each off < end. */
#ifndef FSMIX_DURRANGE_H
#define FSMIX_DURRANGE_H

#include <stddef.h>
#include <stdint.h>

/* The promise a finding breaks: the journal record that made it. */
struct dm_ref {
	uint8_t kind; /* enum durlog_kind */
	uint32_t worker;
	uint64_t seq, t_ns; /* t_end, CLOCK_MONOTONIC */
};

struct dm_range {
	uint64_t off, end;
	uint64_t ord; /* order of the put: the later wins a tie of generations */
	uint32_t gen;
	struct dm_ref ref;
};

struct dm_rangeset {
	struct dm_range *r;
	size_t n, cap;
	size_t n_env; /* r[0..n_env) is an envelope (durrange_finish's form) */
	uint64_t ord;
};

/* Bytes [off, end) (off < end) promised at generation gen or later. 0, or -ENOMEM. */
int durrange_put(struct dm_rangeset *s, uint64_t off, uint64_t end, uint32_t gen,
                 struct dm_ref ref);
/* The envelope: r[0..n) sorted, disjoint, each byte's highest generation. 0, or -ENOMEM. */
int durrange_finish(struct dm_rangeset *s);
/* Nothing at or beyond byte len is promised any more (a truncate): ranges from len on dropped,
 * a range across it cut there. O(n), no allocation; the envelope stays one. */
void durrange_cut(struct dm_rangeset *s, uint64_t len);
/* Nothing in [off, end) is promised any more (a hole punched or zeroed): ranges inside dropped,
 * ranges across its edges cut there, one across both split in two. The set is reduced to its
 * envelope first (durrange_finish), then walked: O(n) beyond that; 0, or -ENOMEM. */
int durrange_punch(struct dm_rangeset *s, uint64_t off, uint64_t end);
void durrange_free(struct dm_rangeset *s);

#endif
