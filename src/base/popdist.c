/* popdist.c - popularity samplers and the rank permutation (see popdist.h). */
#include "popdist.h"

#include <math.h>

/* (exp(x) - 1) / x and log1p(x) / x, continuous at 0 (zipf with THETA near 1). */
static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0));
}

static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* The rejection-inversion hat: h(x) = x^-theta, H its integral (shifted so H(1) = 0). */
static double z_h(double theta, double x)
{
	return exp(-theta * log(x));
}

static double z_H(double theta, double x)
{
	double lx = log(x);
	return helper2((1.0 - theta) * lx) * lx;
}

static double z_Hinv(double theta, double y)
{
	double t = y * (1.0 - theta);
	if (t < -1.0)
		t = -1.0; /* rounding at the far end */
	return exp(helper1(t) * y);
}

#define COIN_ONE ((uint64_t)1 << (64 - POPDIST_HEAD_BITS)) /* the coin's range, 2^56 */

/* zipf's head: Vose's alias table of ranks [0, POPDIST_HEAD), rank k weighted (k + 1)^-THETA.
 * Each entry's kept share is q = POPDIST_HEAD * P(k) (<= 1 once paired), as a 56-bit
 * threshold. */
static void zipf_head_init(struct popdist *d)
{
	double q[POPDIST_HEAD], sum = 0;
	uint16_t small[POPDIST_HEAD], large[POPDIST_HEAD];
	int ns = 0, nl = 0;
	for (int k = POPDIST_HEAD - 1; k >= 0; k--) /* small to large: less rounding */
		sum += z_h(d->theta, (double)(k + 1));
	d->z_head = sum;
	for (int k = 0; k < POPDIST_HEAD; k++) {
		q[k] = z_h(d->theta, (double)(k + 1)) * POPDIST_HEAD / sum;
		if (q[k] < 1.0)
			small[ns++] = (uint16_t)k;
		else
			large[nl++] = (uint16_t)k;
	}
	while (ns > 0 && nl > 0) {
		uint16_t s = small[--ns], l = large[nl - 1];
		d->z_thr[s] = (uint64_t)(q[s] * (double)COIN_ONE);
		d->z_alias[s] = l;
		q[l] -= 1.0 - q[s];
		if (q[l] < 1.0) {
			nl--;
			small[ns++] = l;
		}
	}
	while (nl > 0) { /* what rounding left: kept whole */
		uint16_t l = large[--nl];
		d->z_thr[l] = COIN_ONE;
		d->z_alias[l] = l;
	}
	while (ns > 0) {
		uint16_t s = small[--ns];
		d->z_thr[s] = COIN_ONE;
		d->z_alias[s] = s;
	}
	d->z_hk = z_H(d->theta, POPDIST_HEAD + 0.5);
}

void popdist_init(struct popdist *d)
{
	if (d->kind == POP_ZIPF) {
		double t = d->theta;
		d->z_hx1 = z_H(t, 1.5) - 1.0;
		d->z_s = 2.0 - z_Hinv(t, z_H(t, 2.5) - z_h(t, 2.0));
		zipf_head_init(d);
	} else if (d->kind == POP_PARETO) {
		d->p_exp = log(1.0 - d->h) / log(d->h);
	}
}

static uint64_t hot_count(const struct popdist *d, uint64_t n)
{
	uint64_t hot = (uint64_t)ceil(d->hot_files * (double)n - 1e-9);
	return hot < 1 ? 1 : hot > n ? n : hot;
}

/* A zipf rank in [POPDIST_HEAD, n) with n > POPDIST_HEAD, or in [0, POPDIST_HEAD) from the
 * head's table: v uniform in [0, z_tot) chooses (the head's mass z_head, then the tail's hat),
 * and inside the tail it is the hat's uniform position. A rejected tail draw returns UINT64_MAX:
 * the caller draws v again (so the head keeps exactly its share). */
static uint64_t zipf_split(const struct popdist *d, const struct popcache *c, uint64_t n,
                           struct rng *r)
{
	double v = rng_unit(r) * c->z_tot;
	if (v < d->z_head) {
		uint64_t w = rng_next(r), k = w >> (64 - POPDIST_HEAD_BITS);
		return (w & (COIN_ONE - 1)) < d->z_thr[k] ? k : d->z_alias[k];
	}
	double t = d->theta, u = d->z_hk + (v - d->z_head);
	double x = z_Hinv(t, u), kf = floor(x + 0.5);
	if (kf < POPDIST_HEAD + 1)
		kf = POPDIST_HEAD + 1;
	else if (kf > (double)n)
		kf = (double)n;
	if (kf - x <= d->z_s || u >= z_H(t, kf + 0.5) - z_h(t, kf))
		return (uint64_t)kf - 1;
	return UINT64_MAX;
}

uint64_t popdist_rank(const struct popdist *d, struct popcache *c, uint64_t n, struct rng *r)
{
	switch (d->kind) {
	case POP_ZIPF: {
		double t = d->theta;
		if (c->n != n) {
			c->n = n;
			c->z_hn = z_H(t, (double)n + 0.5);
			c->z_tot = d->z_head + (c->z_hn - d->z_hk);
		}
		if (n > POPDIST_HEAD)
			for (;;) {
				uint64_t k = zipf_split(d, c, n, r);
				if (k != UINT64_MAX)
					return k;
			}
		for (;;) {
			double u = c->z_hn + rng_unit(r) * (d->z_hx1 - c->z_hn);
			double x = z_Hinv(t, u);
			double kf = floor(x + 0.5);
			if (kf < 1)
				kf = 1;
			else if (kf > (double)n)
				kf = (double)n;
			if (kf - x <= d->z_s || u >= z_H(t, kf + 0.5) - z_h(t, kf))
				return (uint64_t)kf - 1;
		}
	}
	case POP_PARETO: {
		uint64_t k = (uint64_t)((double)n * pow(rng_unit(r), d->p_exp));
		return k < n ? k : n - 1;
	}
	case POP_HOTSET: {
		uint64_t hot = hot_count(d, n);
		if (hot >= n || rng_unit(r) < d->hot_ops)
			return rng_below(r, hot);
		return hot + rng_below(r, n - hot);
	}
	case POP_UNIFORM:
		break;
	}
	return rng_below(r, n);
}

double popdist_prob(const struct popdist *d, uint64_t n, uint64_t k)
{
	switch (d->kind) {
	case POP_ZIPF: {
		double sum = 0;
		for (uint64_t i = n; i >= 1; i--) /* small to large: less rounding */
			sum += pow((double)i, -d->theta);
		return pow((double)(k + 1), -d->theta) / sum;
	}
	case POP_PARETO: {
		double e = 1.0 / d->p_exp;
		return pow((double)(k + 1) / (double)n, e) - pow((double)k / (double)n, e);
	}
	case POP_HOTSET: {
		uint64_t hot = hot_count(d, n);
		if (hot >= n)
			return 1.0 / (double)n;
		return k < hot ? d->hot_ops / (double)hot : (1.0 - d->hot_ops) / (double)(n - hot);
	}
	case POP_UNIFORM:
		break;
	}
	return 1.0 / (double)n;
}

static uint64_t feistel(const struct rankperm *p, uint64_t x);

/* The id of rank k < n through the network. */
static uint64_t rankperm_walk(const struct rankperm *p, uint64_t k)
{
	do /* cycle walking: stays in [0, n) and stays a bijection */
		k = feistel(p, k);
	while (k >= p->n);
	return k;
}

void rankperm_init(struct rankperm *p, uint64_t n, uint64_t seed)
{
	unsigned bits = 2;
	while (bits < 64 && ((uint64_t)1 << bits) < n)
		bits++;
	bits += bits & 1; /* two equal halves */
	p->n = n;
	p->half = bits / 2;
	p->mask = ((uint64_t)1 << p->half) - 1;
	uint64_t st = seed ^ 0x706f70756c617269ull; /* "populari" */
	for (int i = 0; i < 4; i++)
		p->key[i] = splitmix64(&st);
	for (uint64_t k = 0; k < n && k < POPDIST_HEAD; k++)
		p->head[k] = (uint32_t)rankperm_walk(p, k);
}

static uint64_t feistel(const struct rankperm *p, uint64_t x)
{
	uint64_t l = x >> p->half, r = x & p->mask;
	for (int i = 0; i < 4; i++) {
		/* round function: one multiply, the product's top `half` bits (any function keeps
		 * the network a bijection; this one mixes every bit of r into them) */
		uint64_t f = ((r ^ p->key[i]) * 0xd1342543de82ef95ull) >> (64 - p->half);
		uint64_t nl = r;
		r = l ^ f;
		l = nl;
	}
	return (l << p->half) | r;
}

uint64_t rankperm_map(const struct rankperm *p, uint64_t k)
{
	if (k >= p->n)
		return k;
	if (k < POPDIST_HEAD)
		return p->head[k];
	return rankperm_walk(p, k);
}
