/* tstat.h - Student's t distribution and the few statistics built on it: the confidence
 * interval of a mean (--repeat until:PCT) and Welch's t-test of two means (compare).
 *
 * The distribution function comes from the regularized incomplete beta function,
 * F(t; v) = 1 - I_x(v/2, 1/2) / 2 for t >= 0, x = v / (v + t^2) (Abramowitz & Stegun 26.5.27
 * with 26.7.1), I_x evaluated by its continued fraction (A&S 26.5.8, DLMF 8.17.22) with the
 * modified Lentz method; quantiles by bisection on F. Accurate to about 1e-12 for the degrees
 * of freedom fsmix meets (1 to a few thousand, fractional ones from Welch's formula).
 */
#ifndef FSMIX_TSTAT_H
#define FSMIX_TSTAT_H

#include <stdbool.h>
#include <stddef.h>

/* tstat_betainc - the regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1
 * (NaN outside). */
double tstat_betainc(double a, double b, double x);

/* tstat_cdf - P(T <= t) for Student's t with df > 0 degrees of freedom (NaN for df <= 0). */
double tstat_cdf(double t, double df);

/* tstat_quantile - the t with P(T <= t) = p, 0 < p < 1 (NaN outside, or df <= 0). */
double tstat_quantile(double p, double df);

/* A sample's summary: n values, their mean and sample standard deviation (n - 1). */
struct tstat_sample {
	size_t n;
	double mean, sd;
};

/* tstat_sample_of - the summary of n values. */
struct tstat_sample tstat_sample_of(const double *v, size_t n);

/* tstat_ci95_half - the half-width of the 95 % confidence interval of the mean,
 * t_{0.975, n-1} * sd / sqrt(n); NaN for n < 2. */
double tstat_ci95_half(const struct tstat_sample *s);

/* Welch's unequal-variances t-test of b against a (b - a). */
struct tstat_welch {
	double diff;   /* mean(b) - mean(a) */
	double se;     /* sqrt(sd_a^2/n_a + sd_b^2/n_b) */
	double df;     /* Welch-Satterthwaite degrees of freedom */
	double t;      /* diff / se */
	double p;      /* two-sided p-value, 2 * (1 - F(|t|; df)) */
	double lo, hi; /* the 95 % confidence interval of diff */
};

/* tstat_welch - false (w unset) unless both samples have n >= 2 and se > 0 (with no spread on
 * either side the test is undefined; se below 1e-12 of the larger mean counts as none: the
 * rounding of a mean of equal values). */
bool tstat_welch(const struct tstat_sample *a, const struct tstat_sample *b, struct tstat_welch *w);

#endif
