/* sizedist.c - the size distributions' draws and figures (see sizedist.h).
 *
 * Draws: lognormal as exp(ln(median) + sigma * N(0,1)); gamma by Marsaglia and Tsang's
 * squeeze method (shape < 1 through the boost gamma(k + 1) * U^(1/k)); exponential by
 * inversion; uniform as an exact integer draw. Figures: closed forms where they exist; the
 * gamma quantile inverts P(k, x) by bisection (check-time only).
 */
#include "sizedist.h"

#include <math.h>

double sizedist_normal(struct rng *r)
{
	double u1 = 1.0 - rng_unit(r); /* (0, 1]: log is finite */
	double u2 = rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double gamma_draw(double k, struct rng *r)
{
	if (k < 1.0) {
		double u = 1.0 - rng_unit(r);
		return gamma_draw(k + 1.0, r) * pow(u, 1.0 / k);
	}
	double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		double x = sizedist_normal(r), v = 1.0 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = 1.0 - rng_unit(r);
		if (u < 1.0 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

static uint64_t clamp_size(const struct sizedist *d, double v)
{
	uint64_t top = d->cap ? d->cap : SIZEDIST_MAX;
	if (!(v > 0)) /* also NaN */
		return 0;
	if (v >= (double)top)
		return top;
	return (uint64_t)llround(v) > top ? top : (uint64_t)llround(v);
}

uint64_t sizedist_draw(const struct sizedist *d, struct rng *r)
{
	switch (d->kind) {
	case SIZEDIST_LOGNORMAL:
		return clamp_size(d, d->a * exp(d->b * sizedist_normal(r)));
	case SIZEDIST_GAMMA:
		return clamp_size(d, gamma_draw(d->b, r) * (d->a / d->b));
	case SIZEDIST_EXPONENTIAL:
		return clamp_size(d, -d->a * log(1.0 - rng_unit(r)));
	case SIZEDIST_UNIFORM: {
		uint64_t lo = (uint64_t)d->a, hi = (uint64_t)d->b;
		return clamp_size(d, (double)(lo + rng_below(r, hi - lo + 1)));
	}
	case SIZEDIST_NONE:
		break;
	}
	return 0;
}

/* Lower incomplete gamma by its series (x < k + 1) or the continued fraction of the upper
 * one (modified Lentz), as in every numerical library. */
double sizedist_gamma_p(double k, double x)
{
	if (x <= 0)
		return 0;
	double lead = k * log(x) - x - lgamma(k);
	if (x < k + 1.0) {
		double term = 1.0 / k, sum = term;
		for (int n = 1; n < 10000; n++) {
			term *= x / (k + n);
			sum += term;
			if (fabs(term) < fabs(sum) * 1e-15)
				break;
		}
		return sum * exp(lead);
	}
	double b = x + 1.0 - k, c = 1e300, dd = 1.0 / b, h = dd;
	for (int i = 1; i < 10000; i++) {
		double an = -i * (i - k);
		b += 2.0;
		dd = an * dd + b;
		if (fabs(dd) < 1e-300)
			dd = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		dd = 1.0 / dd;
		double del = dd * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return 1.0 - exp(lead) * h;
}

/* Acklam's rational approximation, then one Newton step on erfc (about 1e-15 relative). */
double sizedist_norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
	                           -2.759285104469687e+02, 1.383577518672690e+02,
	                           -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
	                           -1.556989798598866e+02, 6.680131188771972e+01,
	                           -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
	                           -2.400758277161838e+00, -2.549732539343734e+00,
	                           4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	                           2.445134137142996e+00, 3.754408661907416e+00};
	double q, x;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p > 1 - 0.02425) {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		double r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	double e = 0.5 * erfc(-x / M_SQRT2) - p;
	double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

static double capped(const struct sizedist *d, double v)
{
	double top = d->cap ? (double)d->cap : (double)SIZEDIST_MAX;
	return v > top ? top : v;
}

double sizedist_quantile(const struct sizedist *d, double u)
{
	switch (d->kind) {
	case SIZEDIST_LOGNORMAL:
		return capped(d, d->a * exp(d->b * sizedist_norm_quantile(u)));
	case SIZEDIST_EXPONENTIAL:
		return capped(d, -d->a * log1p(-u));
	case SIZEDIST_UNIFORM:
		return capped(d, d->a + u * (d->b - d->a));
	case SIZEDIST_GAMMA: {
		double k = d->b, scale = d->a / d->b, lo = 0, hi = k + 1;
		while (sizedist_gamma_p(k, hi) < u && hi < 1e300)
			hi *= 2;
		for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
			double mid = 0.5 * (lo + hi);
			if (sizedist_gamma_p(k, mid) < u)
				lo = mid;
			else
				hi = mid;
		}
		return capped(d, 0.5 * (lo + hi) * scale);
	}
	case SIZEDIST_NONE:
		break;
	}
	return 0;
}

double sizedist_mean(const struct sizedist *d)
{
	double c = d->cap ? (double)d->cap : (double)SIZEDIST_MAX;
	switch (d->kind) {
	case SIZEDIST_LOGNORMAL: {
		/* E[min(X, c)] = e^(mu + s^2/2) Phi((ln c - mu - s^2) / s) + c (1 - Phi((ln c - mu)
		 * / s)) */
		double mu = log(d->a), s = d->b, lc = log(c);
		double phi1 = 0.5 * erfc(-((lc - mu - s * s) / s) / M_SQRT2);
		double tail = 0.5 * erfc(((lc - mu) / s) / M_SQRT2);
		return exp(mu + s * s / 2) * phi1 + c * tail;
	}
	case SIZEDIST_GAMMA: {
		double k = d->b, scale = d->a / d->b, x = c / scale;
		return d->a * sizedist_gamma_p(k + 1, x) + c * (1.0 - sizedist_gamma_p(k, x));
	}
	case SIZEDIST_EXPONENTIAL:
		return d->a * -expm1(-c / d->a);
	case SIZEDIST_UNIFORM: {
		double lo = d->a, hi = d->b;
		if (c >= hi)
			return (lo + hi) / 2;
		if (c <= lo)
			return c;
		/* integer sizes lo..hi, those above c counted as c */
		double n = hi - lo + 1, below = c - lo + 1;
		return (below * (lo + c) / 2 + (n - below) * c) / n;
	}
	case SIZEDIST_NONE:
		break;
	}
	return 0;
}
