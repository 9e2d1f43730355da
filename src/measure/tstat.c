/* tstat.c - Student's t distribution, confidence intervals, Welch's t-test (see tstat.h). */
#include "tstat.h"

#include <float.h>
#include <math.h>

/* The continued fraction of I_x(a, b) (A&S 26.5.8):
 *   I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...)))
 *   d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
 *   d_{2m}   = m (b - m) x / ((a + 2m - 1)(a + 2m))
 * evaluated front to back with the modified Lentz method (Lentz 1976; Thompson and Barnett,
 * J. Comput. Phys. 64, 1986): f = C_k D_k products, tiny values standing in for zeros. It
 * converges fast for x < (a + 1) / (a + b + 2); the caller uses I_x(a, b) = 1 - I_{1-x}(b, a)
 * beyond. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double f = d;
	for (int m = 1; m <= 1000; m++) {
		double am = a + 2.0 * m;
		double num = m * (b - m) * x / ((am - 1) * am); /* d_{2m} */
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		f *= c * d;
		num = -(a + m) * (a + b + m) * x / (am * (am + 1)); /* d_{2m+1} */
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		double delta = c * d;
		f *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return f;
}

double tstat_betainc(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	/* x^a (1-x)^b / B(a, b), in logarithms */
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double tstat_cdf(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_x(df/2, 1/2), x = df / (df + t^2) (A&S 26.5.27, 26.7.1) */
	double tail = 0.5 * tstat_betainc(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double tstat_quantile(double p, double df)
{
	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -tstat_quantile(1 - p, df);
	double lo = 0, hi = 1;
	while (tstat_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	/* bisection: each step halves the bracket; stop at the resolution of a double */
	for (int i = 0; i < 2000 && hi - lo > 4 * DBL_EPSILON * hi; i++) {
		double mid = lo + (hi - lo) / 2;
		if (tstat_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

struct tstat_sample tstat_sample_of(const double *v, size_t n)
{
	struct tstat_sample s = {.n = n};
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	if (!n)
		return s;
	s.mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s.mean) * (v[i] - s.mean);
	s.sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	return s;
}

double tstat_ci95_half(const struct tstat_sample *s)
{
	if (s->n < 2)
		return NAN;
	return tstat_quantile(0.975, (double)(s->n - 1)) * s->sd / sqrt((double)s->n);
}

bool tstat_welch(const struct tstat_sample *a, const struct tstat_sample *b, struct tstat_welch *w)
{
	if (a->n < 2 || b->n < 2)
		return false;
	double va = a->sd * a->sd / (double)a->n, vb = b->sd * b->sd / (double)b->n;
	double se = sqrt(va + vb);
	/* no spread: also the rounding noise of a mean of equal values (sum / n is not exact) */
	if (!(se > 1e-12 * fmax(fabs(a->mean), fabs(b->mean))))
		return false;
	w->diff = b->mean - a->mean;
	w->se = se;
	/* Welch (1947), Satterthwaite (1946) */
	w->df =
	    (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	if (!isfinite(se) || !isfinite(w->df) || !isfinite(w->diff))
		return false; /* figures too large to square */
	w->t = w->diff / se;
	/* two-sided: P(|T| > |t|) = I_x(df/2, 1/2), x = df / (df + t^2), without the cancellation
	 * of 2 * (1 - F(|t|)) for small p */
	w->p = tstat_betainc(w->df / 2, 0.5, w->df / (w->df + w->t * w->t));
	double q = tstat_quantile(0.975, w->df);
	w->lo = w->diff - q * se;
	w->hi = w->diff + q * se;
	return true;
}
