/* test_tstat.c - Student's t distribution (tstat.h) against published values computed
 * independently of fsmix:
 *   - t quantiles: the table of upper critical values of Student's t, NIST/SEMATECH
 *     e-Handbook of Statistical Methods, section 1.3.6.7.2
 *     (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm), 3 decimals;
 *   - closed forms: df = 1 is the Cauchy distribution, F(t) = 1/2 + atan(t)/pi; df = 2 has
 *     F(t) = 1/2 + t / (2 sqrt(2 + t^2)) (Johnson, Kotz and Balakrishnan, Continuous
 *     Univariate Distributions, vol. 2, ch. 28); I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b;
 *   - Welch's test: R's documented example of t.test, `t.test(extra ~ group, data = sleep)`
 *     (R's datasets::sleep, Cushny and Peebles 1905; the output printed in countless R
 *     tutorials and in R's own example run): t = -1.8608, df = 17.776, p-value = 0.07939,
 *     95 percent confidence interval -3.3654832 0.2054832 (of mean(group 1) - mean(group 2)).
 */
#include <math.h>

#include "test.h"
#include "tstat.h"

static void test_quantiles_nist(void)
{
	static const double t975[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
	                                2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
	                                2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
	                                2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
	for (int df = 1; df <= 30; df++)
		CHECK_NEAR(tstat_quantile(0.975, df), t975[df - 1], 0.0005);
	/* other columns of the same table */
	CHECK_NEAR(tstat_quantile(0.95, 1), 6.314, 0.0005);
	CHECK_NEAR(tstat_quantile(0.95, 10), 1.812, 0.0005);
	CHECK_NEAR(tstat_quantile(0.95, 30), 1.697, 0.0005);
	CHECK_NEAR(tstat_quantile(0.995, 1), 63.657, 0.0005);
	CHECK_NEAR(tstat_quantile(0.995, 10), 3.169, 0.0005);
	CHECK_NEAR(tstat_quantile(0.995, 30), 2.750, 0.0005);
	CHECK_NEAR(tstat_quantile(0.9995, 5), 6.869, 0.0005);
	CHECK_NEAR(tstat_quantile(0.975, 100), 1.984, 0.0005);
	/* symmetric, and the median */
	CHECK_NEAR(tstat_quantile(0.025, 7), -2.365, 0.0005);
	CHECK_NEAR(tstat_quantile(0.5, 3), 0, 1e-12);
	/* the normal limit: z_{0.975} = 1.959964 */
	CHECK_NEAR(tstat_quantile(0.975, 1e7), 1.959964, 1e-5);
	CHECK(isnan(tstat_quantile(0, 3)) && isnan(tstat_quantile(1, 3)) &&
	      isnan(tstat_quantile(0.9, 0)));
}

static void test_cdf_closed_forms(void)
{
	const double ts[] = {-50, -3.5, -1, -0.2, 0, 0.3, 1, 2.5, 12.706, 100};
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		double t = ts[i];
		CHECK_NEAR(tstat_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		CHECK_NEAR(tstat_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
		/* the quantile inverts the distribution function */
		CHECK_NEAR(tstat_quantile(tstat_cdf(t, 2), 2), t, 1e-6 * (1 + fabs(t)));
	}
	/* two-sided 5 % at the NIST table's t_{0.975, 10} = 2.228 */
	CHECK_NEAR(2 * (1 - tstat_cdf(2.228, 10)), 0.05, 0.0002);
	CHECK(tstat_cdf(INFINITY, 4) == 1 && tstat_cdf(-INFINITY, 4) == 0);
	CHECK(isnan(tstat_cdf(1, -1)));
}

static void test_betainc(void)
{
	const double xs[] = {0.01, 0.2, 0.5, 0.77, 0.999};
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		double x = xs[i];
		CHECK_NEAR(tstat_betainc(1, 1, x), x, 1e-13);
		CHECK_NEAR(tstat_betainc(3.5, 1, x), pow(x, 3.5), 1e-13);
		CHECK_NEAR(tstat_betainc(1, 7, x), 1 - pow(1 - x, 7), 1e-13);
		/* symmetry I_x(a, b) = 1 - I_{1-x}(b, a) */
		CHECK_NEAR(tstat_betainc(2.5, 40, x), 1 - tstat_betainc(40, 2.5, 1 - x), 1e-12);
	}
	CHECK(tstat_betainc(2, 3, 0) == 0 && tstat_betainc(2, 3, 1) == 1);
	CHECK(isnan(tstat_betainc(0, 1, 0.5)) && isnan(tstat_betainc(1, 1, 1.5)));
}

/* R's sleep data: extra hours of sleep with two drugs, 10 patients each. */
static const double sleep1[10] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
static const double sleep2[10] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

static void test_welch_r_sleep(void)
{
	struct tstat_sample g1 = tstat_sample_of(sleep1, 10), g2 = tstat_sample_of(sleep2, 10);
	CHECK_NEAR(g1.mean, 0.75, 1e-12);
	CHECK_NEAR(g2.mean, 2.33, 1e-12);
	struct tstat_welch w;
	/* R tests group 1 - group 2: b = group 1, a = group 2 */
	CHECK(tstat_welch(&g2, &g1, &w));
	CHECK_NEAR(w.t, -1.8608, 0.00005);
	CHECK_NEAR(w.df, 17.776, 0.0005);
	CHECK_NEAR(w.p, 0.07939, 0.000005);
	CHECK_NEAR(w.lo, -3.3654832, 5e-8);
	CHECK_NEAR(w.hi, 0.2054832, 5e-8);
	/* the other way round: the same p, the interval mirrored */
	CHECK(tstat_welch(&g1, &g2, &w));
	CHECK_NEAR(w.p, 0.07939, 0.000005);
	CHECK_NEAR(w.lo, -0.2054832, 5e-8);
	CHECK_NEAR(w.hi, 3.3654832, 5e-8);
}

static void test_welch_undefined(void)
{
	struct tstat_sample one = {.n = 1, .mean = 5}, flat = {.n = 3, .mean = 5, .sd = 0},
	                    flat2 = {.n = 4, .mean = 6, .sd = 0},
	                    some = {.n = 3, .mean = 5, .sd = 1};
	struct tstat_welch w;
	CHECK(!tstat_welch(&one, &some, &w));
	CHECK(!tstat_welch(&some, &one, &w));
	CHECK(!tstat_welch(&flat, &flat2, &w)); /* no spread on either side */
	CHECK(tstat_welch(&flat, &some, &w));   /* spread on one side is enough */
	CHECK_NEAR(w.df, 2, 1e-12);             /* all of it from the side with spread */
	CHECK_NEAR(w.p, 1, 1e-12);              /* equal means */
}

static void test_ci95(void)
{
	/* n = 3: t_{0.975, 2} = 4.303 (NIST) */
	const double v[3] = {9, 10, 11};
	struct tstat_sample s = tstat_sample_of(v, 3);
	CHECK_NEAR(s.mean, 10, 1e-12);
	CHECK_NEAR(s.sd, 1, 1e-12);
	CHECK_NEAR(tstat_ci95_half(&s), 4.303 / sqrt(3), 0.0005);
	struct tstat_sample one = tstat_sample_of(v, 1);
	CHECK(one.n == 1 && one.sd == 0 && isnan(tstat_ci95_half(&one)));
}

int main(void)
{
	RUN(test_quantiles_nist);
	RUN(test_cdf_closed_forms);
	RUN(test_betainc);
	RUN(test_welch_r_sleep);
	RUN(test_welch_undefined);
	RUN(test_ci95);
	return test_summary();
}
