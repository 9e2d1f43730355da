/* settle.h - a single run's own noise, from its --interval rows: the coefficient of variation
 * of the interval throughput (trans/s), and whether the run had settled, i.e. whether its last
 * third of intervals agrees with its middle third within the noise of the intervals
 * (docs/output.md, "Interval noise").
 *
 * Rows used: every counted row (not of the ramp, ramp_time) at least half as long as the median
 * counted row (not the longest: one row stretched by a late wake-up would drop the rest; the run's
 * last row is usually cut short by its end; a few transactions over a few milliseconds would be
 * noise of its own). With n such rows of rates x_i (transactions / length): mean m, sample standard
 * deviation s (n - 1), CV = 100 * s / m (n >= 2, m > 0); and with n >= SETTLE_MIN_ROWS, k = floor(n
 * / 3) rows per third (the first third takes the rest, as warm-up): the middle third [n - 2k, n -
 * k), the last third [n - k, n), their means m_mid and m_last and standard deviations s_mid and
 * s_last, the noise within them s_w = sqrt((s_mid^2 + s_last^2) / 2) (the pooled standard deviation
 * of two groups of k), and the run is settled when |m_last - m_mid| <= s_w   (plus 1e-9 of m_mid,
 * for the rounding of equal rates' means). The noise is taken within the thirds, not over the whole
 * run, because a drift makes the whole run's deviation grow with it and would hide itself.
 */
#ifndef FSMIX_SETTLE_H
#define FSMIX_SETTLE_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

#define SETTLE_MIN_ROWS 9 /* 3 rows per third at least */

struct settle {
	size_t n;                   /* rows used */
	double mean, sd, cv_pct;    /* of their trans/s; cv_pct NaN when n < 2 or mean 0 */
	bool checked;               /* n >= SETTLE_MIN_ROWS and mean > 0: the rest is set */
	size_t k;                   /* rows per third */
	double mid_mean, last_mean; /* trans/s */
	double noise_sd;            /* s_w above */
	double change_pct;          /* 100 * (last - mid) / mid (NaN for mid 0) */
	bool settled;               /* |last - mid| <= noise_sd */
};

/* settle_of - the noise of n interval rows (in time order). */
void settle_of(const struct interval_row *rows, size_t n, struct settle *s);

#endif
