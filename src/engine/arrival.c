/* arrival.c - fixed and poisson schedules (see arrival.h). */
#include "arrival.h"

#include <math.h>

/* A poisson schedule more than this many gaps behind jumps to now (memoryless: the next
 * arrival after now is now + a gap), counting the expected number of arrivals it skipped. */
#define ARRIVAL_CATCHUP_MAX 100000

void arrival_init(struct arrival *a, uint64_t period_ns, bool poisson, uint64_t seed,
                  unsigned index)
{
	a->period_ns = period_ns ? period_ns : 1;
	a->poisson = poisson;
	rng_seed(&a->rng, seed ^ 0x6172726976616c73ull, index); /* "arrivals" */
}

uint64_t arrival_gap(struct arrival *a)
{
	if (!a->poisson)
		return a->period_ns;
	double g = -(double)a->period_ns * log(1.0 - rng_unit(&a->rng));
	return g < 1.0 ? 1 : g > 1e18 ? (uint64_t)1e18 : (uint64_t)g;
}

uint64_t arrival_trim(struct arrival *a, uint64_t slot, uint64_t limit, uint64_t *dropped)
{
	uint64_t p = a->period_ns;
	if (!a->poisson) {
		uint64_t k = (limit - slot + p - 1) / p;
		*dropped = k;
		return slot + k * p;
	}
	*dropped = 0;
	while (slot < limit) {
		if (++*dropped > ARRIVAL_CATCHUP_MAX) { /* memoryless: restart the gaps at limit */
			*dropped += (limit - slot) / p;
			return limit + arrival_gap(a);
		}
		slot += arrival_gap(a);
	}
	return slot;
}

uint64_t arrival_next(struct arrival *a, uint64_t slot, uint64_t now, uint64_t *missed,
                      uint64_t *first_missed)
{
	uint64_t next = slot + arrival_gap(a), p = a->period_ns;
	*missed = 0;
	*first_missed = 0;
	if (next >= now)
		return next;
	*first_missed = next;
	if (!a->poisson) {
		uint64_t k = (now - next + p - 1) / p;
		*missed = k;
		return next + k * p;
	}
	while (next < now) {
		if (++*missed > ARRIVAL_CATCHUP_MAX) {
			*missed += (now - next) / p;
			return now + arrival_gap(a);
		}
		next += arrival_gap(a);
	}
	return next;
}
