/* threads.h - starting threads: a start gate for workers, and what limits thread creation.
 *
 * A pthread barrier cannot be used when some threads fail to start (a cgroup pids.max, ulimit
 * -u): the started ones would wait for ever for the missing ones. The gate is a barrier the
 * main thread can also open early, after setting the stop flag, so that every thread that did
 * start runs to its end and can be joined.
 */
#ifndef FSMIX_THREADS_H
#define FSMIX_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct start_gate {
	pthread_mutex_t lock;
	pthread_cond_t arrived; /* the main thread waits here until `expected` threads wait */
	pthread_cond_t opened;  /* the started threads wait here until `open` */
	size_t expected;        /* threads the main thread waits for */
	size_t waiting;         /* threads at the gate */
	bool open;
};

/* gate_init/gate_destroy - once per gate; gate_reset - before each set of threads (closed, 0
 * waiting, `expected` to come). */
int gate_init(struct start_gate *g);
void gate_destroy(struct start_gate *g);
void gate_reset(struct start_gate *g, size_t expected);

/* gate_wait - a started thread: arrive and wait until the gate opens. */
void gate_wait(struct start_gate *g);

/* gate_wait_arrived - the main thread: wait until every expected thread has arrived (the gate
 * stays closed). */
void gate_wait_arrived(struct start_gate *g);

/* gate_open_all - the main thread: wait until every expected thread has arrived, then open
 * (the barrier's release: every thread starts at once). */
void gate_open_all(struct start_gate *g);

/* gate_open_now - the main thread, when not every thread could be started: open at once (the
 * caller has told the started threads to stop, so they do nothing after the gate). */
void gate_open_now(struct start_gate *g);

/* thread_limit_describe - what limits the number of threads of this process, for an error
 * message: the cgroup's pids.max (v1 or v2, the nearest limited ancestor), else RLIMIT_NPROC,
 * else a list of the usual suspects. */
void thread_limit_describe(char *buf, size_t len);

#endif
