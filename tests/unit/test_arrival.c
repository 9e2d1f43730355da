/* test_arrival.c - schedules: fixed starts never drift and count the starts they skip; poisson
 * gaps have the period as mean and a coefficient of variation of 1 (200 000 gaps at a fixed
 * seed), and a late thread skips and counts the arrivals that passed; a queued backlog is
 * trimmed to its bound. */
#include <math.h>

#include "arrival.h"
#include "test.h"

static void test_fixed(void)
{
	struct arrival a;
	uint64_t missed, first;
	arrival_init(&a, 1000, false, 1, 0);
	CHECK_EQ_U(arrival_next(&a, 5000, 5500, &missed, &first), 6000);
	CHECK_EQ_U(missed, 0);
	/* An op that ran until 9500: starts 6000..9000 passed, the next is 10000. */
	CHECK_EQ_U(arrival_next(&a, 5000, 9500, &missed, &first), 10000);
	CHECK_EQ_U(missed, 4);
	CHECK_EQ_U(first, 6000);
	/* Exactly on a start: that start is taken, not skipped. */
	CHECK_EQ_U(arrival_next(&a, 5000, 8000, &missed, &first), 8000);
	CHECK_EQ_U(missed, 2);
}

static void test_poisson(void)
{
	struct arrival a;
	arrival_init(&a, 50000, true, 7, 3);
	double sum = 0, sq = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		double g = (double)arrival_gap(&a);
		sum += g;
		sq += g * g;
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);
	CHECK_NEAR(mean / 50000, 1.0, 0.01);
	CHECK_NEAR(sd / mean, 1.0, 0.01);
	/* Late by 100 mean gaps: about 100 arrivals skipped and counted, the next after now. */
	uint64_t missed, first, tot = 0;
	for (int i = 0; i < 200; i++) {
		uint64_t next = arrival_next(&a, 0, 5000000, &missed, &first);
		CHECK(next >= 5000000);
		CHECK(missed == 0 || first < 5000000);
		tot += missed;
	}
	CHECK_NEAR((double)tot / 200, 100.0, 3.0);
	/* Another worker, another stream. */
	struct arrival b;
	arrival_init(&b, 50000, true, 7, 4);
	arrival_init(&a, 50000, true, 7, 3);
	int same = 0;
	for (int i = 0; i < 100; i++)
		same += arrival_gap(&a) == arrival_gap(&b);
	CHECK(same < 5);
}

/* arrival_backlog=queue at its bound: the starts before the limit dropped and counted. */
static void test_trim(void)
{
	/* the bound in ns saturates: 10^8 periods of 184467440738 ns wrapped to 90 ms */
	CHECK_EQ_U(arrival_backlog_ns(1000, 1000000), 1000000000);
	CHECK_EQ_U(arrival_backlog_ns(100000000, 184467440738ull), UINT64_MAX);
	struct arrival a;
	uint64_t dropped;
	arrival_init(&a, 1000, false, 1, 0);
	/* starts 5000, 6000, ..., 9000 are before 9500: five dropped, 10000 is the next */
	CHECK_EQ_U(arrival_trim(&a, 5000, 9500, &dropped), 10000);
	CHECK_EQ_U(dropped, 5);
	/* a start exactly on the limit is kept */
	CHECK_EQ_U(arrival_trim(&a, 5000, 9000, &dropped), 9000);
	CHECK_EQ_U(dropped, 4);
	/* poisson: the first start at or after the limit; about (limit - slot) / period dropped */
	arrival_init(&a, 1000, true, 3, 0);
	uint64_t next = arrival_trim(&a, 0, 10000000, &dropped);
	CHECK(next >= 10000000);
	CHECK(dropped > 9000 && dropped < 11000);
	/* far behind (over ARRIVAL_CATCHUP_MAX gaps): the expected count, a start after limit */
	next = arrival_trim(&a, 0, 1000000000ull, &dropped);
	CHECK(next >= 1000000000ull);
	CHECK(dropped > 990000 && dropped < 1010000);
}

int main(void)
{
	RUN(test_fixed);
	RUN(test_poisson);
	RUN(test_trim);
	return test_summary();
}
