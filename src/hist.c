/* hist.c - the cold half of the log-linear histogram: reset, merge, count, percentiles. */
#include "hist.h"

#include <math.h>
#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t hist_count(const struct hist *h)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h->bucket[i];
	return n;
}

uint64_t hist_rank(uint64_t total, double p)
{
	if (total == 0)
		return 0;
	if (!(p > 0.0)) /* also catches NaN */
		return 1;
	if (p >= 100.0)
		return total;
	/* p is usually a decimal such as 99.9 that binary cannot hold exactly; its product with
	 * total can then land a hair above an integer and ceil() would add a whole sample. */
	double x = p / 100.0 * (double)total * (1.0 - 1e-12);
	double r = ceil(x);
	if (r < 1.0)
		return 1;
	if (r >= (double)total)
		return total;
	return (uint64_t)r;
}

unsigned hist_bucket_of_rank(const struct hist *h, uint64_t rank)
{
	uint64_t cum = 0;
	unsigned last = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (h->bucket[i] == 0)
			continue;
		cum += h->bucket[i];
		last = i;
		if (cum >= rank)
			return i;
	}
	return last;
}

uint64_t hist_percentile(const struct hist *h, uint64_t total, double p)
{
	if (total == 0)
		return 0;
	return hist_bucket_mid(hist_bucket_of_rank(h, hist_rank(total, p)));
}
