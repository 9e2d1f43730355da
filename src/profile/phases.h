/* phases.h - the phase keys of a thread group (fsmix extensions): phase, phase_time and
 * stonewall. The rules plan.c applies once every group is filled, and the phases of the plan
 * (plan.n_phases, plan.phases) made from them. */
#ifndef FSMIX_PHASES_H
#define FSMIX_PHASES_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "plan.h"
#include "profile.h"

/* phases_declared - some thread group of p sets the key phase (valid or not): the profile
 * runs in phases. */
bool phases_declared(const struct profile *p);

/* phases_build - after every group of pl is built: stonewall needs num_ops; with phases,
 * phases numbered 0 .. N-1 without gaps, each with a way to end (num_ops, phase_time or the
 * global time), one phase_time per phase, no ramp_time; phase_time needs phases. Fills
 * pl->n_phases and pl->phases (and pl->counted: a phased run ends by itself). Every problem
 * goes to d, at the line of the key. */
void phases_build(struct diag *d, const struct profile *p, struct plan *pl);

/* phases_threads_at_once - the most threads that run at once: the largest phase's, or every
 * group's without phases (what dir_per_thread must give a directory each). */
uint64_t phases_threads_at_once(const struct plan *pl);

/* phases_print - `fsmix check`'s lines for the phases (indented by 2); nothing without. */
void phases_print(FILE *out, const struct plan *pl);

#endif
