/* pick.c - building the alias table (see pick.h).
 *
 * Column i has capacity `total` (in units of weight*n/n): it holds thresh[i] units of choice
 * value[i] and total - thresh[i] units of alias[i]. With every weight scaled by n (the number
 * of columns), the classic construction is exact in integers: scaled weights sum to n*total and
 * each column holds exactly `total` units.
 */
#include "pick.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pick_free(struct pick_table *t)
{
	free(t->value);
	free(t->alias);
	free(t->thresh);
	memset(t, 0, sizeof(*t));
}

int pick_build(struct pick_table *t, const uint64_t *weights, uint32_t count)
{
	uint64_t total = 0;
	uint32_t n = 0;
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < count; i++) {
		if (!weights[i])
			continue;
		if (weights[i] > (UINT64_MAX >> 1) - total)
			return -EINVAL;
		total += weights[i];
		n++;
	}
	if (!n)
		return -EINVAL;
	/* scaled[i] = weight * n must not overflow: keep total * n below 2^64. */
	if (total > UINT64_MAX / n)
		return -EINVAL;

	uint64_t *scaled = calloc(n, sizeof(*scaled));
	uint32_t *idx = calloc(n, sizeof(*idx));
	uint32_t *small = calloc(n, sizeof(*small)), *large = calloc(n, sizeof(*large));
	t->value = calloc(n, sizeof(*t->value));
	t->alias = calloc(n, sizeof(*t->alias));
	t->thresh = calloc(n, sizeof(*t->thresh));
	if (!scaled || !idx || !small || !large || !t->value || !t->alias || !t->thresh) {
		free(scaled);
		free(idx);
		free(small);
		free(large);
		pick_free(t);
		return -ENOMEM;
	}
	for (uint32_t i = 0, k = 0; i < count; i++)
		if (weights[i]) {
			scaled[k] = weights[i] * n;
			idx[k++] = i;
		}
	uint32_t ns = 0, nl = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (scaled[k] < total)
			small[ns++] = k;
		else
			large[nl++] = k;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[--nl];
		t->value[s] = idx[s];
		t->thresh[s] = scaled[s];
		t->alias[s] = idx[l];
		scaled[l] -= total - scaled[s];
		if (scaled[l] < total)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	/* What remains holds exactly `total` units (integer arithmetic is exact). */
	while (nl) {
		uint32_t l = large[--nl];
		t->value[l] = t->alias[l] = idx[l];
		t->thresh[l] = total;
	}
	while (ns) {
		uint32_t s = small[--ns];
		t->value[s] = t->alias[s] = idx[s];
		t->thresh[s] = total;
	}
	t->n = n;
	t->total = total;
	free(scaled);
	free(idx);
	free(small);
	free(large);
	return 0;
}

int pick_ffsb_weights(const uint64_t *weights, uint32_t count, bool reversed, uint64_t *out)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < count; i++) {
		sum += weights[i];
		if (sum > UINT32_MAX)
			return -EINVAL;
	}
	if (!sum)
		return -EINVAL;
	uint64_t span = pick_ffsb_span((uint32_t)sum);
	uint64_t q = span / sum, extra = span % sum; /* residues [0, extra) come q + 1 times */
	uint64_t at = 0;                             /* the first residue of the current choice */
	for (uint32_t k = 0; k < count; k++) {
		uint32_t i = reversed ? count - 1 - k : k;
		uint64_t w = weights[i];
		uint64_t lo = at < extra ? at : extra, hi = at + w < extra ? at + w : extra;
		out[i] = q * w + (hi - lo);
		at += w;
	}
	return 0;
}
