/* stop.c - stopping a run and the sleeps that a stop cuts short (engine_stop, engine_wait_until,
 * engine_sleep_ms): every thread of a run waits on the engine's one condition variable. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "engine.h"
#include "engine_int.h"

void engine_wake(struct engine *e)
{
	pthread_mutex_lock(&e->sleep_lock);
	pthread_cond_broadcast(&e->sleep_cond);
	pthread_mutex_unlock(&e->sleep_lock);
}

void engine_stop(struct engine *e, enum stop_reason why)
{
	int expected = STOP_NONE;
	if (atomic_compare_exchange_strong(&e->stop, &expected, (int)why))
		engine_wake(e);
}

static struct timespec deadline_ts(uint64_t deadline_ns)
{
	return (struct timespec){.tv_sec = (time_t)(deadline_ns / 1000000000u),
	                         .tv_nsec = (long)(deadline_ns % 1000000000u)};
}

/* Waits until deadline_ns (CLOCK_MONOTONIC) or until the run stops. */
void engine_wait_until(struct engine *e, uint64_t deadline_ns)
{
	struct timespec ts = deadline_ts(deadline_ns);
	pthread_mutex_lock(&e->sleep_lock);
	while (!engine_stopping(e) && now_ns() < deadline_ns)
		if (pthread_cond_timedwait(&e->sleep_cond, &e->sleep_lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&e->sleep_lock);
}

void engine_sleep_ms(struct engine *e, uint32_t ms)
{
	engine_wait_until(e, now_ns() + (uint64_t)ms * 1000000u);
}
