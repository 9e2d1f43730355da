/* hist.c - the cold half of the log-linear histogram: the shared rank rule and the out-of-line
 * functions of the statistics' instance (struct hist). */
#include "hist.h"

#include <math.h>
#include <string.h>

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

LOGHIST_DEFINE(hist);
