/* sweep.h - thread-count and key sweeps with repeats: the profile is run once per point of the
 * cartesian product of the sweep dimensions, N times each, and the results are summarised
 * (mean and sample standard deviation over the repeats) in one table, one JSON document and
 * one CSV file.
 */
#ifndef FSMIX_SWEEP_H
#define FSMIX_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine.h"
#include "failure.h"
#include "overrides.h"
#include "plan.h"

#define SWEEP_MAX_VALUES 1024
#define SWEEP_MAX_DIMS   8
#define SWEEP_UNTIL_MIN  3 /* --repeat until: the fewest runs of a point */

/* One dimension: a list of values for num_threads (or iodepth) of every group (target ""), of
 * one group ("1", "threadgroup1"), or for any key ("filesystem0.num_files"). */
struct sweep_dim {
	bool threads;    /* --threads [G=]LIST; else --sweep SECTION.KEY=LIST */
	bool iodepth;    /* --iodepth [G=]LIST (threads false) */
	char target[96]; /* group ("" = all) or SECTION.KEY */
	char label[112]; /* column name: "threads", "threadgroup1.threads", "filesystem0.num_files"
	                  */
	char **values;   /* owned */
	size_t n;
};

/* sweep_parse_list - expand "1,2,4", "1-64:x2" (doubling), "1-8:+1" (step), "1-8" (step 1) and
 * any comma-separated mix of these into values. Integers only for ranges; a plain list may hold
 * any words (for --sweep of non-numeric keys). 0, or -1 with the reason in err. */
int sweep_parse_list(const char *spec, struct sweep_dim *dim, char *err, size_t errlen);

/* sweep_is_list - true if a --threads argument asks for several values ("1,2", "1-8", "1-8:x2"). */
bool sweep_is_list(const char *value);

void sweep_dim_free(struct sweep_dim *dim);

struct sweep_spec {
	const char *profile_path;
	const struct override *ovr; /* the non-sweep overrides, applied to every point */
	size_t n_ovr;
	struct plan_opts po;
	struct sweep_dim dims[SWEEP_MAX_DIMS];
	size_t n_dims;
	unsigned repeat; /* >= 1; with until_pct, the most runs per point */
	/* --repeat until:PCT[:MAX]: a point is repeated until the 95 % confidence interval of its
	 * mean trans/s is within +-until_pct % of the mean, after at least SWEEP_UNTIL_MIN runs,
	 * or repeat runs are done. 0: every point runs repeat times. */
	double until_pct;
	/* One process of a job (MPI): rank 0's value of a decision, on every process (only rank 0
	 * has the merged results the until rule reads). NULL: a single process. */
	bool (*rank0_says)(bool mine);
	struct engine_opts eopts; /* per-run options (keep_manifest is set by the sweep) */
	FILE *out;                /* the summary table */
	int argc;                 /* the command line, for the JSON documents */
	char **argv;
	const char *json_path, *csv_path, *plot_path;
};

/* sweep_run - run every point repeat times; print the progress to eopts.log and the summary
 * table to out; write the JSON/CSV/plot. SIGINT stops the sweep and everything finished
 * so far is still written. FAIL_NONE; FAIL_INPUT for a point whose profile or location is bad
 * (found before any run: nothing was run); the first run's failure that stopped the sweep
 * (FAIL_INTERRUPTED for a stop signal); else the first output's failure (FAIL_IO, or
 * plot_write's). */
enum failure sweep_run(const struct sweep_spec *s);

#endif
