/* metrics.h - the headline figures of a run, read from its JSON results (docs/output.md), as
 * one table shared by sweeps, comparisons and plots. A metric can be missing (null in the JSON:
 * not timed, no block device): it is then left out of means, never counted as 0.
 */
#ifndef FSMIX_METRICS_H
#define FSMIX_METRICS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum metric_id {
	M_OPS_PER_S,
	M_TRANS_PER_S,
	M_MB_PER_S,
	M_OP_P50_MS,
	M_OP_P99_MS,
	M_SYNC_P99_MS,
	M_FLUSHES_PER_S,
	M_CPU_PERCENT,
	METRIC_COUNT
};

struct metric_desc {
	const char *key;   /* JSON/CSV name, e.g. "trans_per_s" */
	const char *title; /* table heading, e.g. "trans/s" */
	bool higher_is_better;
};

extern const struct metric_desc metric_table[METRIC_COUNT];

/* metric_get - metric m of one run's JSON results; false when it is not available. */
bool metric_get(const json_t *run, enum metric_id m, double *out);

/* Mean and sample standard deviation (n - 1) of the available values of a metric, and the
 * half-width of the 95 % confidence interval of the mean (Student's t, tstat.h: NaN for n < 2):
 * the interval is mean +- ci95_half. */
struct metric_stat {
	size_t n;
	double mean, stddev, ci95_half;
};

/* metric_ci95_pct - ci95_half in % of the mean; NaN for n < 2 or a mean of 0. */
double metric_ci95_pct(const struct metric_stat *st);

void metric_stat_of(json_t *const *runs, size_t n_runs, enum metric_id m, struct metric_stat *st);

/* metric_mark - the convention of the sync(2) patch series (seeds/002): '+' when the metric
 * rose with 2*STDDEV reliability, '-' when it fell, '0' otherwise. "2*STDDEV reliability" means
 * the two intervals mean +- 2*stddev do not overlap: |new - base| > 2 * (sd_base + sd_new). */
char metric_mark(const struct metric_stat *base, const struct metric_stat *now);

#endif
