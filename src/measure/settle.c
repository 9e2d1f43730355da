/* settle.c - a run's noise from its interval rows (see settle.h). */
#include "settle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rows used: counted (not of the ramp) and at least half as long as the typical row (the
 * median length of the counted rows). Not the longest: one row stretched by a late wake-up on a
 * loaded machine would leave out every other row. */
static bool used(const struct interval_row *r, double typical)
{
	return !r->ramp && r->length_s > 0 && r->length_s >= typical / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median length of the counted rows with a length (0 when there are none). */
static double typical_length(const struct interval_row *rows, size_t n)
{
	double *len = malloc(n ? n * sizeof(*len) : 1), longest = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].ramp || !(rows[i].length_s > 0))
			continue;
		longest = fmax(longest, rows[i].length_s);
		if (len)
			len[m++] = rows[i].length_s;
	}
	if (!len) /* out of memory: the longest, as a bound */
		return longest;
	double t = 0;
	if (m) {
		qsort(len, m, sizeof(*len), cmp_double);
		t = m % 2 ? len[m / 2] : (len[m / 2 - 1] + len[m / 2]) / 2;
	}
	free(len);
	return t;
}

/* Mean and sample standard deviation of the used rows' trans/s with index from..to-1 among
 * the used rows. */
static void stat_of(const struct interval_row *rows, size_t n, double typical, size_t from,
                    size_t to, double *mean, double *sd)
{
	double sum = 0, sq = 0;
	size_t j = 0, cnt = 0;
	for (int pass = 0; pass < 2; pass++) {
		j = 0;
		for (size_t i = 0; i < n; i++) {
			if (!used(&rows[i], typical))
				continue;
			if (j >= from && j < to) {
				double x = (double)rows[i].trans / rows[i].length_s;
				if (pass == 0) {
					sum += x;
					cnt++;
				} else {
					sq += (x - *mean) * (x - *mean);
				}
			}
			j++;
		}
		if (pass == 0)
			*mean = cnt ? sum / (double)cnt : 0;
	}
	*sd = cnt > 1 ? sqrt(sq / (double)(cnt - 1)) : 0;
}

void settle_of(const struct interval_row *rows, size_t n, struct settle *s)
{
	memset(s, 0, sizeof(*s));
	s->cv_pct = s->change_pct = NAN;
	double typical = typical_length(rows, n); /* see used() */
	for (size_t i = 0; i < n; i++)
		s->n += used(&rows[i], typical);
	if (!s->n)
		return;
	stat_of(rows, n, typical, 0, s->n, &s->mean, &s->sd);
	if (s->n >= 2 && s->mean > 0)
		s->cv_pct = 100 * s->sd / s->mean;
	if (s->n < SETTLE_MIN_ROWS || !(s->mean > 0))
		return;
	double sd_mid, sd_last;
	s->checked = true;
	s->k = s->n / 3;
	stat_of(rows, n, typical, s->n - 2 * s->k, s->n - s->k, &s->mid_mean, &sd_mid);
	stat_of(rows, n, typical, s->n - s->k, s->n, &s->last_mean, &sd_last);
	s->noise_sd = sqrt((sd_mid * sd_mid + sd_last * sd_last) / 2);
	if (s->mid_mean > 0)
		s->change_pct = 100 * (s->last_mean - s->mid_mean) / s->mid_mean;
	/* with a margin for the rounding of equal rates' means (1e-9 of the middle's) */
	s->settled = fabs(s->last_mean - s->mid_mean) <= s->noise_sd + 1e-9 * s->mid_mean;
}
