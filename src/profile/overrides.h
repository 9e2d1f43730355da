/* overrides.h - command-line changes to a parsed profile (--time, --location, --threads,
 * --iodepth, --set, --seed). They go through profile_set(), so they get the same parsing, bounds
 * and messages as the file; each message names the option as its source. */
#ifndef FSMIX_OVERRIDES_H
#define FSMIX_OVERRIDES_H

#include <stddef.h>

#include "diag.h"
#include "plan.h"
#include "profile.h"

enum override_kind {
	OVR_TIME,
	OVR_LOCATION,
	OVR_THREADS,
	OVR_SET,
	OVR_SEED,
	OVR_FIDELITY,
	OVR_RAMP,
	OVR_IODEPTH
};

struct override {
	enum override_kind kind;
	const char *arg; /* the option's argument as typed */
	char label[64];  /* "--set threadgroup0.num_threads=4" (shortened), used as src_loc.file */
};

/* override_init - fill label from kind and arg. */
void override_init(struct override *o, enum override_kind kind, const char *arg);

/* override_option - the option that gives kind ("--time", "--seed", ...): what fsmix crashtest
 * passes on to the run it starts. */
const char *override_option(enum override_kind kind);

/* overrides_apply - apply in command-line order. Returns 0, or -1 after reporting to d. */
int overrides_apply(struct profile *p, struct override *v, size_t n, struct diag *d);

/* profile_load - read the profile at path, apply the overrides and build the plan, reporting
 * every problem to d (cross-key rules run even after per-key errors, so one pass reports
 * everything). Returns 0 with p and pl to free, or -1 with only p to free. */
int profile_load(const char *path, const struct override *ovr, size_t n_ovr,
                 const struct plan_opts *po, struct profile *p, struct plan *pl, struct diag *d);

#endif
