/* test_fiber.c - the fibers of fiber.h: a switch there and back, values passed both ways, many
 * fibers interleaved, a fiber started again on its stack, and registers and floating point
 * state kept across switches. */
#include <math.h>
#include <stdint.h>

#include "../../src/engine/internal/fiber.h"
#include "test.h"

struct counter {
	struct fiber *f;
	int64_t sum; /* of the values resumed with */
	int rounds;
};

/* Yields its round number, adds what each resume passes. */
static void count_fn(void *arg)
{
	struct counter *c = arg;
	for (int i = 0; i < c->rounds; i++)
		c->sum += fiber_yield(c->f, i + 1);
}

static void test_switch_and_values(void)
{
	struct fiber f;
	CHECK_EQ_I(fiber_make(&f, FIBER_STACK), 0);
	CHECK(fiber_done(&f));
	struct counter c = {.f = &f, .rounds = 3};
	fiber_start(&f, count_fn, &c);
	CHECK(!fiber_done(&f));
	CHECK_EQ_I(fiber_resume(&f, 0), 1);
	CHECK_EQ_I(fiber_resume(&f, 10), 2);
	CHECK_EQ_I(fiber_resume(&f, 20), 3);
	CHECK(!fiber_done(&f));
	CHECK_EQ_I(fiber_resume(&f, 30), 0); /* the function returned */
	CHECK(fiber_done(&f));
	CHECK_EQ_I(c.sum, 60);
	/* started again on the same stack */
	c.sum = 0;
	c.rounds = 1;
	fiber_start(&f, count_fn, &c);
	CHECK_EQ_I(fiber_resume(&f, 0), 1);
	CHECK_EQ_I(fiber_resume(&f, 5), 0);
	CHECK(fiber_done(&f));
	CHECK_EQ_I(c.sum, 5);
	fiber_free(&f);
}

/* Locals live across switches, on each fiber's own stack; floating point too. */
struct deep {
	struct fiber *f;
	int id;
	double acc;
	int64_t check;
};

static int64_t recurse(struct deep *d, int n, char *prev)
{
	char frame[512]; /* some stack per level */
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (char)(d->id + n + (int)i);
	if (prev && prev[0] != (char)(d->id + n + 1))
		return -1;
	if (n == 0) {
		double x = 1.5 * d->id;
		(void)fiber_yield(d->f, d->id);
		d->acc += sqrt(x * x); /* x survived the switch */
		return frame[7];
	}
	int64_t r = recurse(d, n - 1, frame);
	return r < 0 ? r : r + frame[3];
}

static void deep_fn(void *arg)
{
	struct deep *d = arg;
	for (int round = 0; round < 50; round++)
		d->check += recurse(d, 20, NULL);
}

static void test_many_fibers(void)
{
	enum { N = 64 };
	static struct fiber fs[N];
	static struct deep ds[N];
	for (int i = 0; i < N; i++) {
		CHECK_EQ_I(fiber_make(&fs[i], FIBER_STACK), 0);
		ds[i] = (struct deep){.f = &fs[i], .id = i};
		fiber_start(&fs[i], deep_fn, &ds[i]);
	}
	int alive = N, rounds = 0;
	while (alive) {
		/* interleave in a changing order: odd rounds backwards */
		for (int k = 0; k < N; k++) {
			int i = rounds % 2 ? N - 1 - k : k;
			if (fiber_done(&fs[i]))
				continue;
			int64_t v = fiber_resume(&fs[i], 0);
			if (fiber_done(&fs[i]))
				alive--;
			else if (v != i)
				TEST_FAIL("fiber %d yielded %lld", i, (long long)v);
		}
		rounds++;
	}
	CHECK_EQ_I(rounds, 51);
	for (int i = 0; i < N; i++) {
		/* what one fiber computes alone: recurse's sum, 50 times */
		int64_t one = 0;
		for (int n = 0; n <= 20; n++)
			one += n == 0 ? (char)(i + 0 + 7) : (char)(i + n + 3);
		CHECK_EQ_I(ds[i].check, 50 * one);
		CHECK_NEAR(ds[i].acc, 50 * 1.5 * i, 1e-9);
		fiber_free(&fs[i]);
	}
}

int main(void)
{
	RUN(test_switch_and_values);
	RUN(test_many_fibers);
	return test_summary();
}
