/* test_aging.c - agefs=1's growth watch (engine_int.h age_growing): aging gives up after 30 s
 * without growth over the best usage seen, and growth is counted from the best, so a usage that
 * creeps up by less than 0.1 % at a time (deletes as many as writes) is no growth. */
#include "engine.h"
#include "../../src/engine/internal/engine_int.h" /* white-box: aging's watch */
#include "test.h"

#define S 1000000000ull

static void test_growth_watch(void)
{
	struct age_growth g = {.best = 0.10, .last_growth = 0};
	CHECK(age_growing(&g, 0.10, 10 * S)); /* no growth yet, 10 s */
	CHECK(age_growing(&g, 0.20, 20 * S)); /* grown: the best is now 20 % at 20 s */
	CHECK_NEAR(g.best, 0.20, 1e-12);
	CHECK_EQ_U(g.last_growth, 20 * S);
	CHECK(age_growing(&g, 0.2005, 45 * S)); /* less than 0.1 % over the best: 25 s */
	CHECK_EQ_U(g.last_growth, 20 * S);
	CHECK(age_growing(&g, 0.15, 50 * S)); /* deletes freed some: 30 s, not yet given up */
	CHECK(!age_growing(&g, 0.2005, 50 * S + 1)); /* over 30 s since 20 % */
	CHECK_NEAR(g.best, 0.20, 1e-12);
	CHECK(age_growing(&g, 0.2011, 51 * S)); /* growth again */
	CHECK_EQ_U(g.last_growth, 51 * S);
}

int main(void)
{
	RUN(test_growth_watch);
	return test_summary();
}
