/* report.h - the FFSB-compatible text report (layout of FFSB 6.0's output, so scripts that
 * parse FFSB keep working), followed by fsmix's own lines. */
#ifndef FSMIX_REPORT_H
#define FSMIX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"

/* report_config - the configuration echo printed before setup. */
void report_config(FILE *out, const struct engine *e);

/* report_setup - after setup, as FFSB: "fs setup took N secs" and, when nothing is to run
 * (time=0), "Setup complete, exiting". */
void report_setup(FILE *out, const struct engine *e, bool exiting);

/* report_results - everything after the run: "Results:", the per-group and total op tables,
 * "N Transactions per Second", throughput, syscall latency with msec_range counts, CPU. */
void report_results(FILE *out, const struct engine *e, bool interrupted);

/* Above this share of skipped picks (in %), the report warns that the rates cover only the
 * operations that ran. */
#define REPORT_SKIPPED_WARN_PCT 1.0

/* report_skipped_pct - skipped picks as a share (%) of all picks (ran, failed or skipped). */
double report_skipped_pct(const struct engine *e);

/* report_size - FFSB's ffsb_printsize: "%.3g" with binary units B/KB/MB/GB. */
void report_size(char *buf, size_t len, double bytes);

#endif
