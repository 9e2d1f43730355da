/* iodist.c - I/O size mixes and offset distributions inside a file (iodist.h). */
#include "iodist.h"

#include <math.h>

#include "check.h"
#include "sizedist.h"

/* Cumulative shares (percent, summing to 100) as thresholds of IODIST_ONE; the last is ONE, so
 * rounding can never leave a draw past the end. */
static void cumulate(const double *pct, uint32_t n, uint64_t *cum)
{
	double acc = 0;
	for (uint32_t i = 0; i < n; i++) {
		FSMIX_ASSERT(pct[i] >= 0);
		acc += pct[i];
		double t = acc / 100.0 * (double)IODIST_ONE;
		cum[i] = t >= (double)IODIST_ONE ? IODIST_ONE : (uint64_t)t;
	}
	/* the parsers (iokeys.c) let only shares adding up to 100 through */
	FSMIX_ASSERT_MSG(!n || fabs(acc - 100) < 1e-5, "shares add up to %g", acc);
	if (n)
		cum[n - 1] = IODIST_ONE;
}

/* The index of the first threshold above a 53-bit draw. */
static uint32_t scan(const uint64_t *cum, uint32_t n, struct rng *r)
{
	uint64_t u = rng_next(r) >> 11;
	uint32_t i = 0;
	while (i + 1 < n && u >= cum[i])
		i++;
	return i;
}

void iosize_init(struct iosize *s)
{
	FSMIX_ASSERT(s->n <= IOSIZE_MAX);
	cumulate(s->pct, s->n, s->cum);
}

uint64_t iosize_draw(const struct iosize *s, struct rng *r)
{
	if (s->range)
		return s->lo * (1 + rng_below(r, s->hi / s->lo));
	return s->size[scan(s->cum, s->n, r)];
}

uint64_t iosize_max(const struct iosize *s)
{
	if (s->range)
		return s->hi / s->lo * s->lo;
	uint64_t m = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->pct[i] > 0 && s->size[i] > m)
			m = s->size[i];
	return m;
}

void offdist_init(struct offdist *d)
{
	if (d->kind == OFF_ZIPF || d->kind == OFF_PARETO)
		popdist_init(&d->pop);
	if (d->kind != OFF_ZONED)
		return;
	FSMIX_ASSERT(d->n_zones >= 1 && d->n_zones <= OFFZONE_MAX);
	cumulate(d->zone_access, d->n_zones, d->zone_cum);
	double at = 0;
	for (uint32_t i = 0; i < d->n_zones; i++) {
		d->zone_lo[i] = at / 100.0;
		at += d->zone_size[i];
		d->zone_hi[i] = i + 1 == d->n_zones ? 1.0 : at / 100.0;
	}
}

/* Zone i's slots of n: [*lo, *hi), never empty. */
static void zone_slots(const struct offdist *d, uint32_t i, uint64_t n, uint64_t *lo, uint64_t *hi)
{
	*lo = (uint64_t)(d->zone_lo[i] * (double)n);
	*hi = (uint64_t)(d->zone_hi[i] * (double)n);
	if (*hi > n)
		*hi = n;
	if (*lo >= n)
		*lo = n - 1;
	if (*hi <= *lo)
		*hi = *lo + 1;
}

uint64_t offdist_slot(const struct offdist *d, struct popcache *c, uint64_t n, struct rng *r)
{
	switch (d->kind) {
	case OFF_ZIPF:
	case OFF_PARETO:
		return popdist_rank(&d->pop, c, n, r);
	case OFF_NORMAL: {
		double mid = (double)n / 2, sd = d->sigma * (double)n;
		for (;;) { /* truncated: at least a share erf(1/(2 sqrt 2)) = 38 % of draws land */
			double x = floor(mid + sd * sizedist_normal(r));
			if (x >= 0 && x < (double)n)
				return (uint64_t)x;
		}
	}
	case OFF_ZONED: {
		uint64_t lo, hi;
		zone_slots(d, scan(d->zone_cum, d->n_zones, r), n, &lo, &hi);
		return lo + rng_below(r, hi - lo);
	}
	case OFF_RANDOM:
		break;
	}
	return rng_below(r, n);
}

uint64_t offdist_pick(const struct offdist *d, struct offstate *s, struct rng *r, uint64_t limit,
                      uint64_t unit)
{
	uint64_t off;
	if (d->pct_random < 100 && rng_below(r, 100) >= d->pct_random)
		off = s->seq <= limit ? s->seq : 0;
	else if (d->kind == OFF_RANDOM || !unit)
		off = limit ? rng_below(r, limit + 1) : 0;
	else
		off = offdist_slot(d, &s->c, limit / unit + 1, r) * unit;
	if (d->align)
		off &= ~(uint64_t)4095;
	FSMIX_ASSERT(off <= limit); /* the extent stays inside the file: one compare */
	s->seq = off + unit;
	return off;
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

double offdist_prob(const struct offdist *d, uint64_t n, uint64_t k)
{
	switch (d->kind) {
	case OFF_ZIPF:
	case OFF_PARETO:
		return popdist_prob(&d->pop, n, k);
	case OFF_NORMAL: {
		double mid = (double)n / 2, sd = d->sigma * (double)n;
		double in = phi(((double)n - mid) / sd) - phi(-mid / sd);
		return (phi(((double)k + 1 - mid) / sd) - phi(((double)k - mid) / sd)) / in;
	}
	case OFF_ZONED: {
		double p = 0;
		for (uint32_t i = 0; i < d->n_zones; i++) {
			uint64_t lo, hi;
			zone_slots(d, i, n, &lo, &hi);
			if (k >= lo && k < hi)
				p += d->zone_access[i] / 100.0 / (double)(hi - lo);
		}
		return p;
	}
	case OFF_RANDOM:
		break;
	}
	return 1.0 / (double)n;
}
