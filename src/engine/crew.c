/* crew.c - a crew of workers: their threads started together, held at the engine's start gate,
 * released at once and joined together (the run phase's workers and aging's). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"
#include "threads.h"

/* ---- a crew of workers: started together at the gate, joined together ---- */

#define WORKER_STACK (256 * 1024) /* bytes; workers keep paths and buffers off the stack */

/* Starts a thread for each of the n workers of ws; they wait at the engine's gate until
 * crew_release. When a thread cannot be created (a limit on threads or processes), the ones
 * that started are stopped and joined, and err names the limit: returns -1, and the caller must not
 * release or join them. `what` names the workers ("worker", "aging"). */
int crew_start(struct engine *e, struct worker **ws, size_t n, const char *what, char *err,
               size_t errlen)
{
	pthread_attr_t attr;
	size_t started = 0;
	int rc = 0;
	gate_reset(&e->gate, n);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	for (; started < n; started++)
		if ((rc = pthread_create(&ws[started]->thread, &attr, worker_main, ws[started])))
			break;
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
	char limit[512];
	thread_limit_describe(limit, sizeof(limit));
	snprintf(err, errlen, "cannot start %s thread %zu of %zu (%zu started): %s; %s", what,
	         started + 1, n, started, strerror(rc), limit);
	/* The started ones see the stop flag as soon as the gate opens and do nothing. */
	engine_stop(e, STOP_ERROR);
	gate_open_now(&e->gate);
	for (size_t i = 0; i < started; i++)
		pthread_join(ws[i]->thread, NULL);
	return -1;
}

/* Until every worker waits at the gate (still closed). */
void crew_arrived(struct engine *e)
{
	gate_wait_arrived(&e->gate);
}

/* Once every worker waits at the gate: they all start at once. */
void crew_release(struct engine *e)
{
	gate_open_all(&e->gate);
}

void crew_join(struct worker **ws, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pthread_join(ws[i]->thread, NULL);
}
