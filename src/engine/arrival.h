/* arrival.h - a scheduled thread's starts (op_period, op_rate; arrival = fixed | poisson).
 *
 * Fixed: one start every period from the first, never drifting; a start that passed while an
 * operation ran is skipped (never made up in a burst) and counted as missed. Poisson:
 * independent exponential gaps with the period as mean, from the arrival's own random stream
 * (the op and file picks stay those of a fixed schedule with the same seed); arrivals that
 * passed while an operation ran are counted as missed and skipped the same way. Per thread,
 * no lock; a draw costs one log. With arrival_backlog=queue (worker.c) no start is skipped:
 * each follows the one before by a gap, and one that passed is served as soon as the thread is
 * free; only a backlog past its bound is trimmed (arrival_trim).
 */
#ifndef FSMIX_ARRIVAL_H
#define FSMIX_ARRIVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

struct arrival {
	uint64_t period_ns; /* mean gap, > 0 */
	bool poisson;
	struct rng rng; /* poisson gaps */
};

/* arrival_init - the schedule of worker `index` of a run with `seed`. */
void arrival_init(struct arrival *a, uint64_t period_ns, bool poisson, uint64_t seed,
                  unsigned index);

/* arrival_gap - the gap after a start, ns (> 0). */
uint64_t arrival_gap(struct arrival *a);

/* arrival_next - the first start after `slot` that is at or after `now`. *missed: the starts
 * between them (they passed before now), *first_missed: the earliest of those (0 if none). */
uint64_t arrival_next(struct arrival *a, uint64_t slot, uint64_t now, uint64_t *missed,
                      uint64_t *first_missed);

/* arrival_backlog_ns - arrival_backlog_max's bound as lateness: `max` periods of `period_ns`,
 * saturating at UINT64_MAX (a long period times a large bound must not wrap to a short one). */
static inline uint64_t arrival_backlog_ns(uint64_t max, uint64_t period_ns)
{
	uint64_t ns;
	return __builtin_mul_overflow(max, period_ns, &ns) ? UINT64_MAX : ns;
}

/* arrival_trim - arrival_backlog=queue at its bound: the first start at or after `limit`, from
 * the start `slot` (< limit) on. The starts before limit are dropped: *dropped counts them
 * (slot among them; for a poisson schedule far behind, the expected count). */
uint64_t arrival_trim(struct arrival *a, uint64_t slot, uint64_t limit, uint64_t *dropped);

#endif
