/* compare.h - `fsmix compare BASE.json NEW.json [...]`: before/after comparison of runs or
 * sweeps, per point and headline metric, with the +/-/0 marks of the sync(2) patch series
 * (metrics.h: metric_mark). */
#ifndef FSMIX_COMPARE_H
#define FSMIX_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "failure.h"

struct compare_opts {
	bool force;            /* compare documents of different profiles anyway */
	const char *csv_path;  /* also write the table as CSV ("-": stdout) */
	const char *json_path; /* also write it as JSON ("-": stdout) */
	const char *plot_path; /* base vs new chart (first NEW only) */
	FILE *out, *log;
};

/* compare_files - files[0] is the base, every other file is compared with it; tables go to
 * o->out, messages to o->log. FAIL_NONE; FAIL_INPUT for fewer than two files, unreadable or
 * non-result files, documents of different profiles (without o->force) or without a point in
 * common; FAIL_IO when an output (--csv, --json) cannot be written or out of memory; the
 * plot's failure (plot.h: plot_write) for o->plot_path. */
enum failure compare_files(const char *const *files, size_t n, const struct compare_opts *o);

/* compare_json - the same for two parsed documents (base and now, named base_name and now_name
 * in messages; the caller keeps its references). Any JSON value is accepted without crashing
 * (tests/fuzz/fuzz_results.c). */
enum failure compare_json(json_t *base, const char *base_name, json_t *now, const char *now_name,
                          const struct compare_opts *o);

#endif
