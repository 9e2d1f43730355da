/* sweep_int.h - what sweep.c (running the points) and sweep_out.c (their table, JSON and CSV)
 * share: a point and its runs. */
#ifndef FSMIX_SWEEP_INT_H
#define FSMIX_SWEEP_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "failure.h"
#include "metrics.h"
#include "sweep.h"

/* One point of the sweep (one value per dimension) and its repeats' results. */
struct point {
	char label[256];
	size_t idx[SWEEP_MAX_DIMS]; /* value index per dimension */
	json_t **runs;              /* repeat entries, NULL where not run */
	size_t n_runs;
	double *setup_s; /* per repeat, seconds: the run's wall time minus its run phase (setup,
	                  * reuse or rebuild of the trees) */
	bool *reused;
	bool reached; /* --repeat until: the point stopped on its target */
};

/* sweep_until_stat - the statistics of a point's trans/s, which --repeat until reads. */
void sweep_until_stat(const struct point *pt, struct metric_stat *st);

/* sweep_print_table - the summary table of the finished runs. */
void sweep_print_table(const struct sweep_spec *s, struct point *pts, size_t n_pts, FILE *out);

/* sweep_write_outputs - writes the CSV, plot and JSON the user asked for, with what finished, the
 * JSON last so that its exit_status is the process's. rc: the sweep's failure so far; returns it,
 * or else the first output's failure. */
enum failure sweep_write_outputs(const struct sweep_spec *s, struct point *pts, size_t n_pts,
                                 bool interrupted, enum failure rc);

#endif
