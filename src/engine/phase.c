/* phase.c - a run in phases (phase=N; docs/profile.md, "Phases"): the phases one after
 * another, each phase's workers started together at the gate once every worker of the phase
 * before has been joined (the barrier), each phase ended by its counts (num_ops), its stonewall
 * or its time, and when and how it ended recorded in the results. The workers are made once,
 * for every phase (crew_make); the trees, pools and statistics persist from phase to phase. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "engine.h"
#include "engine_int.h"
#include "threads.h"

enum failure phase_refusal(const struct engine *e, char *err, size_t errlen)
{
	if (!e->plan->n_phases)
		return FAIL_NONE;
	if (e->opts->crash) {
		snprintf(err, errlen, "--crash-after: not with phases (phase=N): run one phase");
		return FAIL_INPUT;
	}
	if (e->opts->hooks) {
		snprintf(err, errlen,
		         "phases (phase=N) do not run in a distributed job: its ranks would not "
		         "wait for each other between phases");
		return FAIL_INPUT;
	}
	return FAIL_NONE;
}

/* The workers of phase ph into ws (in group order); their count. The counted ones are the
 * engine's count of workers still counting (the last one done ends the phase). */
static size_t phase_crew(struct engine *e, size_t n, uint32_t ph, struct worker **ws)
{
	size_t np = 0;
	uint64_t counting = 0;
	for (size_t i = 0; i < n; i++) {
		struct worker *w = e->workers[i];
		if (w->g->phase != ph)
			continue;
		ws[np++] = w;
		counting += w->g->num_ops != 0;
	}
	atomic_store(&e->counting, counting);
	return np;
}

/* After phase ph's workers are joined: its start and runtime (to its deadline at most, when
 * its time ended it: an operation under way then finishes, uncounted as time) and why it
 * ended. */
static void phase_record(struct engine *e, uint32_t ph, struct worker **ws, size_t np,
                         uint64_t deadline)
{
	struct results_phase *rp = &e->res->phases[ph];
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < np; i++) {
		first = ws[i]->t_start < first ? ws[i]->t_start : first;
		last = ws[i]->t_end > last ? ws[i]->t_end : last;
	}
	rp->stop = (enum stop_reason)atomic_load(&e->stop);
	if (rp->stop == STOP_TIME && deadline && last > deadline)
		last = deadline;
	rp->start_s = np && first > e->t_base ? (double)(first - e->t_base) / 1e9 : 0;
	rp->runtime_s = np && last > first ? (double)(last - first) / 1e9 : 0;
	fprintf(e->opts->log, "fsmix: phase %" PRIu32 " ended after %.3f s (%s)\n", ph,
	        rp->runtime_s, results_stop_name(rp->stop));
}

/* Between two phases: the stop flag the phase's end set (time, count, stonewall) cleared for
 * the next one; every worker of the phase is joined, and the next ones wait at the gate, so
 * nobody reads it now. False when the run stops here: an error, a signal (also one that came
 * while the flag said "count": the watcher keeps it in signal_seen). */
static bool phase_next(struct engine *e)
{
	int why = atomic_load(&e->stop);
	if (why != STOP_TIME && why != STOP_COUNT && why != STOP_STONEWALL)
		return false;
	atomic_compare_exchange_strong(&e->stop, &why, STOP_NONE);
	if (atomic_load(&e->signal_seen)) {
		engine_stop(e, STOP_SIGNAL);
		return false;
	}
	return true;
}

int phase_run_all(struct engine *e, size_t n, phase_wait_fn wait, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	struct worker **ws = calloc(n ? n : 1, sizeof(*ws));
	if (!ws) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(e->opts->log,
	        "fsmix: running %" PRIu32 " phases, %zu threads in all (seed %" PRIu64 ")\n",
	        pl->n_phases, n, e->seed);
	int rc = 0;
	for (uint32_t ph = 0; ph < pl->n_phases; ph++) {
		const struct plan_phase *x = &pl->phases[ph];
		size_t np = phase_crew(e, n, ph, ws);
		/* the plan's rules: no phase without a group, and its groups' threads are its crew
		 */
		FSMIX_ASSERT_MSG(np > 0 && np == x->threads,
		                 "phase %" PRIu32 ": %zu workers, %" PRIu64 " threads planned", ph,
		                 np, x->threads);
		if ((rc = crew_start(e, ws, np, "worker", err, errlen)))
			break;
		crew_arrived(e);
		uint64_t now = now_ns();
		if (ph == 0) /* the run's start: --lat-log times and interval rows count from it */
			e->t_base = now;
		uint64_t deadline = x->time_s ? now + (uint64_t)x->time_s * 1000000000u : 0;
		e->deadline_ns = deadline; /* before the gate opens: the workers read it */
		crew_release(e);
		if (ph == 0)
			e->t0 = now_ns();
		wait(e, deadline ? deadline : UINT64_MAX / 2);
		engine_stop(e, STOP_TIME);
		crew_join(ws, np);
		phase_record(e, ph, ws, np, deadline);
		if (ph + 1 < pl->n_phases && !phase_next(e))
			break;
	}
	free(ws);
	return rc;
}
