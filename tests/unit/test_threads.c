/* test_threads.c - the start gate: nobody passes before it opens, everybody after; opened early
 * it releases the threads that did arrive even though fewer than expected came. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "test.h"
#include "threads.h"

struct arrival {
	struct start_gate *gate;
	_Atomic unsigned *passed;
};

static void *arrive(void *arg)
{
	struct arrival *a = arg;
	gate_wait(a->gate);
	atomic_fetch_add(a->passed, 1);
	return NULL;
}

static size_t waiting(struct start_gate *g)
{
	pthread_mutex_lock(&g->lock);
	size_t n = g->waiting;
	pthread_mutex_unlock(&g->lock);
	return n;
}

/* Like a barrier: all 8 wait, none passes, then all pass at once. Twice on one gate (the run
 * phase reuses the gate aging used). */
static void test_gate_all(void)
{
	struct start_gate g;
	_Atomic unsigned passed = 0;
	struct arrival a = {&g, &passed};
	pthread_t t[8];
	CHECK_EQ_I(gate_init(&g), 0);
	for (int round = 0; round < 2; round++) {
		atomic_store(&passed, 0);
		gate_reset(&g, 8);
		for (int i = 0; i < 8; i++)
			CHECK_EQ_I(pthread_create(&t[i], NULL, arrive, &a), 0);
		while (waiting(&g) < 8)
			sched_yield();
		CHECK_EQ_U(atomic_load(&passed), 0); /* all 8 wait at the closed gate */
		gate_open_all(&g);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		CHECK_EQ_U(atomic_load(&passed), 8);
	}
	gate_destroy(&g);
}

/* 8 expected, 3 started (the others could not be created): opened at once, the 3 pass and can
 * be joined. A pthread barrier of 9 would keep them for ever. */
static void test_gate_now(void)
{
	struct start_gate g;
	_Atomic unsigned passed = 0;
	struct arrival a = {&g, &passed};
	pthread_t t[3];
	CHECK_EQ_I(gate_init(&g), 0);
	gate_reset(&g, 8);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_I(pthread_create(&t[i], NULL, arrive, &a), 0);
	gate_open_now(&g);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U(atomic_load(&passed), 3);
	/* A thread that arrives after the gate opened passes too. */
	pthread_t late;
	CHECK_EQ_I(pthread_create(&late, NULL, arrive, &a), 0);
	pthread_join(late, NULL);
	CHECK_EQ_U(atomic_load(&passed), 4);
	gate_destroy(&g);
}

/* The description names a limit: the cgroup's pids.max, RLIMIT_NPROC or the list of them. */
static void test_limit_describe(void)
{
	char buf[512] = "";
	thread_limit_describe(buf, sizeof(buf));
	CHECK(strstr(buf, "pids.max") != NULL || strstr(buf, "RLIMIT_NPROC") != NULL);
}

int main(void)
{
	RUN(test_gate_all);
	RUN(test_gate_now);
	RUN(test_limit_describe);
	return test_summary();
}
