/* test_settle.c - a run's own noise from its interval rows (settle.h): the CV of the interval
 * trans/s, and the settled check (last third against middle third, within the noise of the two
 * thirds). The expected figures were computed with Python's statistics module (mean, stdev:
 * sample standard deviation), outside fsmix; the numbers are in the comments. */
#include <math.h>

#include "settle.h"
#include "test.h"

/* n rows of 1 s with the given transactions (so trans/s = trans). */
static size_t rows_of(struct interval_row *rows, const double *trans, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rows[i] = (struct interval_row){
		    .t_s = (double)(i + 1), .length_s = 1, .trans = (uint64_t)trans[i]};
	return n;
}

static void test_settled_after_warmup(void)
{
	/* a warm-up in the first third, then steady: mean 88.333, stdev 18.544, CV 20.993 %;
	 * the middle and last thirds both mean 100, stdev 1.633 */
	const double t[12] = {50, 60, 70, 80, 100, 102, 98, 100, 100, 98, 102, 100};
	struct interval_row rows[12];
	struct settle s;
	settle_of(rows, rows_of(rows, t, 12), &s);
	CHECK_EQ_U(s.n, 12);
	CHECK_NEAR(s.mean, 88.333333333, 1e-6);
	CHECK_NEAR(s.sd, 18.543969043, 1e-6);
	CHECK_NEAR(s.cv_pct, 20.993172502, 1e-6);
	CHECK(s.checked);
	CHECK_EQ_U(s.k, 4);
	CHECK_NEAR(s.mid_mean, 100, 1e-9);
	CHECK_NEAR(s.last_mean, 100, 1e-9);
	CHECK_NEAR(s.noise_sd, 1.632993162, 1e-6);
	CHECK_NEAR(s.change_pct, 0, 1e-9);
	CHECK(s.settled);
}

static void test_drift_not_settled(void)
{
	/* a steady climb of 10 per interval: mean 140, stdev 27.386, CV 19.562 %; thirds of 3:
	 * middle 130 140 150 (mean 140, stdev 10), last 160 170 180 (mean 170, stdev 10): the
	 * difference 30 (+21.429 %) is more than the noise 10 */
	const double t[9] = {100, 110, 120, 130, 140, 150, 160, 170, 180};
	struct interval_row rows[9];
	struct settle s;
	settle_of(rows, rows_of(rows, t, 9), &s);
	CHECK_NEAR(s.cv_pct, 19.561519911, 1e-6);
	CHECK(s.checked);
	CHECK_EQ_U(s.k, 3);
	CHECK_NEAR(s.mid_mean, 140, 1e-9);
	CHECK_NEAR(s.last_mean, 170, 1e-9);
	CHECK_NEAR(s.noise_sd, 10, 1e-9);
	CHECK_NEAR(s.change_pct, 21.428571429, 1e-6);
	CHECK(!s.settled);
}

static void test_rows_used(void)
{
	/* the climb again, then a last row cut short (0.3 s, under half an interval): left out.
	 * A row of exactly half the length counts, at its rate. */
	const double t[10] = {100, 110, 120, 130, 140, 150, 160, 170, 180, 1};
	struct interval_row rows[10];
	struct settle s;
	rows_of(rows, t, 10);
	rows[9].length_s = 0.3;
	settle_of(rows, 10, &s);
	CHECK_EQ_U(s.n, 9);
	CHECK_NEAR(s.last_mean, 170, 1e-9);
	rows[9].length_s = 0.5;
	rows[9].trans = 95; /* 190/s */
	settle_of(rows, 10, &s);
	CHECK_EQ_U(s.n, 10);
	CHECK_EQ_U(s.k, 3);                 /* thirds of 3, the first takes 4 */
	CHECK_NEAR(s.last_mean, 180, 1e-9); /* 170 180 190 */
}

static void test_ramp_rows_left_out(void)
{
	/* two ramp rows at a tenth of the rate, then nine steady rows: the ramp is not counted, so
	 * the run has settled and its mean is the steady rate */
	const double t[11] = {10, 10, 100, 100, 100, 100, 100, 100, 100, 100, 100};
	struct interval_row rows[11];
	struct settle s;
	rows_of(rows, t, 11);
	rows[0].ramp = rows[1].ramp = true;
	settle_of(rows, 11, &s);
	CHECK_EQ_U(s.n, 9);
	CHECK_NEAR(s.mean, 100, 1e-9);
	CHECK(s.checked && s.settled);
}

static void test_stretched_row(void)
{
	/* twelve steady rows and one stretched to 5 s by a late wake-up: the rows are measured
	 * against the median length, so the other twelve still count (against the longest, none
	 * would: 1 s < 5 s / 2) */
	const double t[13] = {100, 100, 100, 100, 100, 100, 500, 100, 100, 100, 100, 100, 100};
	struct interval_row rows[13];
	struct settle s;
	rows_of(rows, t, 13);
	rows[6].length_s = 5; /* 500 transactions over 5 s: 100/s */
	settle_of(rows, 13, &s);
	CHECK_EQ_U(s.n, 13);
	CHECK_NEAR(s.mean, 100, 1e-9);
	CHECK(s.checked && s.settled);
}

static void test_too_few(void)
{
	const double t[8] = {100, 110, 120, 130, 140, 150, 160, 170};
	struct interval_row rows[8];
	struct settle s;
	settle_of(rows, rows_of(rows, t, 8), &s);
	CHECK(!s.checked && !isnan(s.cv_pct)); /* the CV still */
	settle_of(rows, 1, &s);
	CHECK(s.n == 1 && isnan(s.cv_pct) && !s.checked);
	settle_of(rows, 0, &s);
	CHECK(s.n == 0 && isnan(s.cv_pct));
	const double zero[9] = {0};
	struct interval_row z[9];
	settle_of(z, rows_of(z, zero, 9), &s);
	CHECK(isnan(s.cv_pct) && !s.checked); /* no transactions: no ratio */
}

static void test_steady(void)
{
	/* every row alike: no noise, no change: settled */
	const double t[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
	struct interval_row rows[9];
	struct settle s;
	settle_of(rows, rows_of(rows, t, 9), &s);
	CHECK(s.checked && s.settled && s.cv_pct == 0 && s.noise_sd == 0);
}

/* a middle third of no transactions (a stall) and a last third of some: the change from a
 * middle of 0 is no number (NaN), not an infinity */
static void test_stalled_middle(void)
{
	const double t[9] = {5, 5, 5, 0, 0, 0, 3, 3, 3};
	struct interval_row rows[9];
	struct settle s;
	settle_of(rows, rows_of(rows, t, 9), &s);
	CHECK(s.checked && s.mid_mean == 0 && s.last_mean == 3);
	CHECK(isnan(s.change_pct));
	CHECK(!s.settled);
}

int main(void)
{
	RUN(test_settled_after_warmup);
	RUN(test_drift_not_settled);
	RUN(test_rows_used);
	RUN(test_ramp_rows_left_out);
	RUN(test_stretched_row);
	RUN(test_too_few);
	RUN(test_steady);
	RUN(test_stalled_middle);
	return test_summary();
}
