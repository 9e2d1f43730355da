/* report.h - the FFSB-compatible text report (layout of FFSB 6.0's output, so scripts that
 * parse FFSB keep working), followed by fsmix's own lines. */
#ifndef FSMIX_REPORT_H
#define FSMIX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "plan.h"
#include "results.h"

/* report_config - the configuration echo printed before setup (the plan's settings and each
 * filesystem's utilization before setup, results.fs[].start_util). */
void report_config(FILE *out, const struct plan *pl, const struct results *r);

/* report_setup - after setup, as FFSB: "fs setup took N secs" and, when nothing is to run
 * (time=0), "Setup complete, exiting". */
void report_setup(FILE *out, const struct results *r, bool exiting);

/* report_results - everything after the run: "Results:" (and "Interrupted: ..." when
 * r->interrupted), the per-group and total op tables, "N Transactions per Second", throughput,
 * syscall latency with msec_range counts, CPU; then, unless ffsb_only (--format ffsb: FFSB's
 * figures and nothing else; the skipped-picks warning goes to log), fsmix's own sections. */
void report_results(FILE *out, FILE *log, const struct results *r, bool ffsb_only);

/* Above this share of skipped picks (in %), the report warns that the rates cover only the
 * operations that ran. */
#define REPORT_SKIPPED_WARN_PCT 1.0
/* The warning (printf format of the share in %) for busy picks above that share: files
 * existed, but every one the operation could take was held by another thread. */
#define REPORT_BUSY_WARNING                                                                        \
	"fsmix: warning: %.1f%% of the operations picked found every file they could work on "     \
	"busy (held by another thread) and did not run"

/* report_size - FFSB's ffsb_printsize: "%.3g" with binary units B/KB/MB/GB. */
void report_size(char *buf, size_t len, double bytes);

#endif
