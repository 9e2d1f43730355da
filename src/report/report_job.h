/* report_job.h - the part of the reports a distributed run adds (jobsum.h): the ranks and hosts,
 * the whole-job and stonewall rates, the spread of the ranks' rates, each rank's totals and each
 * host's device counters. Printed by rank 0 after the merged figures; docs/distributed.md and
 * docs/output.md describe them. */
#ifndef FSMIX_REPORT_JOB_H
#define FSMIX_REPORT_JOB_H

#include <jansson.h>
#include <stdio.h>

#include "jobsum.h"
#include "results.h"

/* report_job_text - the "Distributed run" section of the text report. */
void report_job_text(FILE *out, const struct jobsum *j, const struct results *r);

/* report_job_json - the JSON report's "mpi" object (a new reference; NULL when out of memory). */
json_t *report_job_json(const struct jobsum *j, const struct results *r);

#endif
