/* run_report.h - the run command's reports around the one phase sequence (engine_run): an
 * engine_observer prints the text report between the phases (the configuration before setup,
 * "fs setup took" after it, the results at the end) and writes --csv, --plot and --json after
 * --cleanup. The engine calls no formatter: this is the one place that puts a run and its
 * reports together. */
#ifndef FSMIX_RUN_REPORT_H
#define FSMIX_RUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "failure.h"
#include "report_data.h"
#include "results.h"

struct run_reports {
	FILE *out;             /* the text report (stdout, or stderr when a document goes there) */
	FILE *log;             /* messages */
	bool ffsb_only;        /* --format ffsb */
	const char *json_path; /* --json FILE, NULL: none */
	const char *csv_path;  /* --csv FILE, NULL: none */
	const char *plot_path; /* run --plot FILE --interval S: the run over time; NULL: none */
	struct report_run run; /* what the JSON echoes; exit_status is set here */
};

/* run_and_report - run plan pl with the reports of rr. r receives the results (results_free
 * it, also after a failure). The outputs come in an order that lets the JSON tell the truth:
 * --csv, --plot and the text report on standard output first, the JSON last, its exit_status
 * (rr->run.exit_status) the status of every failure before it -- the process's own, unless the
 * JSON itself cannot be written (then there is no JSON). Returns the failure: the run's first,
 * then --cleanup's, then the outputs'. */
enum failure run_and_report(const struct plan *pl, const struct engine_opts *eo,
                            struct run_reports *rr, struct results *r);

#endif
