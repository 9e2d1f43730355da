/* sizedist.h - continuous file-size distributions (size_dist): lognormal, gamma, exponential
 * and uniform, each with an optional cap, drawn per file from a worker's or a file's own RNG,
 * and their figures (quantiles, mean) for `fsmix check`.
 *
 * A draw is the distribution's value rounded to whole bytes and clamped to the cap (a censored
 * distribution: every draw above the cap is the cap, so the cap is a point mass; nothing is
 * drawn again). Quantiles and the mean are those of the capped distribution. A draw costs a few
 * transcendental functions (no allocation, no lock); it runs per create, never per read.
 */
#ifndef FSMIX_SIZEDIST_H
#define FSMIX_SIZEDIST_H

#include <stdint.h>

#include "rng.h"

enum sizedist_kind {
	SIZEDIST_NONE = 0,    /* not used: size_weight or min/max_filesize decide */
	SIZEDIST_LOGNORMAL,   /* a = median (bytes), b = sigma of ln(size) */
	SIZEDIST_GAMMA,       /* a = mean (bytes), b = shape k (scale = mean / k) */
	SIZEDIST_EXPONENTIAL, /* a = mean (bytes) */
	SIZEDIST_UNIFORM,     /* a = min, b = max (bytes, inclusive, whole numbers) */
};

/* The largest size a draw gives, whatever the distribution (the bound of max_filesize). */
#define SIZEDIST_MAX ((uint64_t)1 << 50)

struct sizedist {
	enum sizedist_kind kind;
	double a, b;
	uint64_t cap; /* 0: no cap (still at most SIZEDIST_MAX) */
};

/* sizedist_draw - one size in bytes. */
uint64_t sizedist_draw(const struct sizedist *d, struct rng *r);

/* sizedist_quantile - the size below which a fraction u (0 < u < 1) of the draws fall. */
double sizedist_quantile(const struct sizedist *d, double u);

/* sizedist_mean - the mean size of a draw (with the cap), bytes. */
double sizedist_mean(const struct sizedist *d);

/* sizedist_normal - a standard normal deviate (Box-Muller); for the samplers and tests. */
double sizedist_normal(struct rng *r);

/* sizedist_gamma_p - the regularized lower incomplete gamma function P(k, x). */
double sizedist_gamma_p(double k, double x);

/* sizedist_norm_quantile - the inverse of the standard normal distribution, 0 < p < 1. */
double sizedist_norm_quantile(double p);

#endif
