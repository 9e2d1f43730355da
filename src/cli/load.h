/* load.h - the one way a command loads its profile: the file with the command line's overrides
 * (-o), under the plan options the command line implies, into a profile, a plan and the
 * messages of both (run, verify, check, and a distributed job's comparison of its ranks). */
#ifndef FSMIX_CLI_LOAD_H
#define FSMIX_CLI_LOAD_H

#include <stdbool.h>

#include "cli.h"
#include "diag.h"
#include "plan.h"
#include "profile.h"

/* plan_opts_of - the plan options of a command line: --strict-ffsb, and whether the written
 * content is checked afterwards by something other than the profile's verify key (a
 * --durability-log: verify reads the blocks back, so the profile may not use content=fixed). */
struct plan_opts plan_opts_of(const struct cli *c);

/* load_profile - c->profile with c's overrides into p and pl, every message in d (initialised
 * here; printed by the caller). nesting: also refuse nested locations (preflight_nesting), as
 * fsmix check and run do. 0: p, pl and d to free; -1: p and d to free (the errors in d). */
int load_profile(const struct cli *c, bool nesting, struct profile *p, struct plan *pl,
                 struct diag *d);

#endif
