/* sqpollcpu.h - the CPU time of io_uring's submission polling threads (sqpoll=1;
 * docs/engines.md). */
#ifndef FSMIX_SQPOLLCPU_H
#define FSMIX_SQPOLLCPU_H

#include "plan.h"

/* sqpoll_cpu_s - the user + system CPU seconds the polling threads of this process (named
 * "iou-sqp-PID", one per ring made with sqpoll=1) have used so far, in clock ticks' resolution
 * (10 ms with USER_HZ 100); -1 when no group of pl has sqpoll=1 (nothing is read then). A
 * thread that ended is no longer counted: the rings live from the workers' setup to their
 * teardown, after the run's end. */
double sqpoll_cpu_s(const struct plan *pl);

#endif
