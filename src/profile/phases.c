/* phases.c - phase, phase_time and stonewall (fsmix extensions; phases.h): mdtest's phases
 * (create all, then stat all, ...) as thread groups numbered by the phase they run in, and
 * its stonewall. The engine runs the phases in order (src/engine/phase.c). */
#include "phases.h"

#include <inttypes.h>

#include "seqkeys.h"

static struct src_loc key_loc(const struct section *s, enum key_id k)
{
	return s->set[k].set ? s->set[k].loc : s->loc;
}

bool phases_declared(const struct profile *p)
{
	for (size_t i = 0; i < p->n_tg; i++)
		if (p->tg[i]->set[KEY_phase].attempted)
			return true;
	return false;
}

/* Rules that hold with or without phases: stonewall ends a count, phase_time a phase. */
static void check_group_keys(struct diag *d, const struct profile *p, const struct plan *pl,
                             bool phased)
{
	for (size_t i = 0; i < pl->n_groups; i++) {
		const struct section *tg = p->tg[i];
		const struct plan_group *g = &pl->groups[i];
		if (g->stonewall && !g->num_ops)
			diag_error(
			    d, DIAG_MISSING, key_loc(tg, KEY_stonewall), tg->name, "stonewall",
			    "needs num_ops: the stonewall ends the phase when the first "
			    "thread has done its count (mdtest -W), so the group must count");
		if (tg->set[KEY_phase_time].set && !phased)
			diag_error(d, DIAG_MISSING, key_loc(tg, KEY_phase_time), tg->name,
			           "phase_time",
			           "needs phases: give the thread groups phase=0, phase=1, ... (or "
			           "use the global time)");
	}
}

/* Phase ph's time: the phase_time its groups agree on (a second value is an error at its
 * line), else the global time. */
static uint32_t phase_time_of(struct diag *d, const struct profile *p, const struct plan *pl,
                              uint32_t ph)
{
	uint32_t t = 0;
	const char *first = NULL;
	for (size_t i = 0; i < pl->n_groups; i++) {
		const struct plan_group *g = &pl->groups[i];
		if (g->phase != ph || !g->phase_time_s)
			continue;
		if (!t) {
			t = g->phase_time_s;
			first = g->name;
		} else if (g->phase_time_s != t) {
			diag_error(d, DIAG_CONFLICT, key_loc(p->tg[i], KEY_phase_time),
			           p->tg[i]->name, "phase_time",
			           "%" PRIu32 " differs from the %" PRIu32 " s of [%s] in the same "
			           "phase %" PRIu32 ": the groups of a phase run for one time",
			           g->phase_time_s, t, first, ph);
		}
	}
	return t ? t : pl->time_s;
}

void phases_build(struct diag *d, const struct profile *p, struct plan *pl)
{
	bool phased = phases_declared(p);
	check_group_keys(d, p, pl, phased);
	seqkeys_plan(d, p, pl); /* sequence_hold: against the groups of its phase */
	if (!phased || !pl->n_groups)
		return;
	uint32_t n = 0;
	for (size_t i = 0; i < pl->n_groups; i++)
		if (pl->groups[i].phase + 1 > n)
			n = pl->groups[i].phase + 1;
	if (pl->ramp_s)
		diag_error(d, DIAG_CONFLICT, key_loc(&p->global, KEY_ramp_time), p->global.name,
		           "ramp_time",
		           "cannot be combined with phases: each phase is measured whole; drop "
		           "ramp_time");
	for (uint32_t ph = 0; ph < n; ph++) {
		struct plan_phase *x = &pl->phases[ph];
		size_t first = SIZE_MAX;
		for (size_t i = 0; i < pl->n_groups; i++) {
			const struct plan_group *g = &pl->groups[i];
			if (g->phase != ph)
				continue;
			first = first == SIZE_MAX ? i : first;
			x->n_groups++;
			x->threads += g->num_threads;
			x->counted = x->counted || g->num_ops;
			x->stonewall = x->stonewall || g->stonewall;
		}
		if (first == SIZE_MAX) { /* said at the first group of a later phase */
			for (size_t i = 0; i < pl->n_groups; i++)
				if (pl->groups[i].phase > ph) {
					diag_error(d, DIAG_MISSING, key_loc(p->tg[i], KEY_phase),
					           p->tg[i]->name, "phase",
					           "phase %" PRIu32
					           " has no thread group: phases are "
					           "numbered 0, 1, 2, ... without gaps",
					           ph);
					break;
				}
			continue;
		}
		x->time_s = phase_time_of(d, p, pl, ph);
		if (!x->counted && !x->time_s)
			diag_error(d, DIAG_MISSING, key_loc(p->tg[first], KEY_phase),
			           p->tg[first]->name, "phase",
			           "phase %" PRIu32 " would never end: give one of its groups "
			           "num_ops or phase_time (or set the global time)",
			           ph);
	}
	pl->n_phases = n;
	pl->counted = true; /* every phase ends by its count or its time */
}

uint64_t phases_threads_at_once(const struct plan *pl)
{
	uint64_t most = 0;
	for (uint32_t ph = 0; ph < pl->n_phases; ph++)
		most = pl->phases[ph].threads > most ? pl->phases[ph].threads : most;
	return pl->n_phases ? most : pl->total_threads;
}

void phases_print(FILE *out, const struct plan *pl)
{
	for (uint32_t ph = 0; ph < pl->n_phases; ph++) {
		const struct plan_phase *x = &pl->phases[ph];
		fprintf(out, "  phase %" PRIu32 ":", ph);
		for (size_t i = 0; i < pl->n_groups; i++)
			if (pl->groups[i].phase == ph)
				fprintf(out, " %s", pl->groups[i].name);
		fprintf(out, "; %" PRIu64 " threads, ", x->threads);
		if (x->counted && x->time_s)
			fprintf(out, "until the counts are done, at most %" PRIu32 " s", x->time_s);
		else if (x->counted)
			fprintf(out, "until the counts are done");
		else
			fprintf(out, "%" PRIu32 " s", x->time_s);
		fprintf(out, "%s\n", x->stonewall ? ", stonewall" : "");
	}
}
