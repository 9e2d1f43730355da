/* dirlayout.c - directory tree arithmetic (dirlayout.h). */
#include "dirlayout.h"

#include <errno.h>
#include <string.h>

#include "check.h"
#include "fdio.h"

uint64_t dirlayout_level_count(const struct dirlayout *l, uint32_t level)
{
	uint64_t n = l->top;
	for (uint32_t i = 1; i < level && n; i++) {
		if (l->fanout && n > UINT64_MAX / l->fanout)
			return UINT64_MAX;
		n *= l->fanout;
	}
	return n;
}

uint64_t dirlayout_total(const struct dirlayout *l)
{
	uint64_t sum = 0;
	for (uint32_t level = 1; level <= l->depth; level++) {
		uint64_t n = dirlayout_level_count(l, level);
		if (n > UINT64_MAX - sum)
			return UINT64_MAX;
		sum += n;
	}
	return sum;
}

int dirlayout_path(const struct dirlayout *l, uint32_t level, uint64_t j, char *buf, size_t len)
{
	if (level < 1 || level > l->depth || level > DIRLAYOUT_MAX_DEPTH ||
	    j >= dirlayout_level_count(l, level))
		return -EINVAL;
	/* The digits of j from the last level up: base fanout below level 1, then the rest. */
	uint64_t digit[DIRLAYOUT_MAX_DEPTH];
	for (uint32_t k = level; k > 1; k--) {
		digit[k - 1] = j % l->fanout;
		j /= l->fanout;
	}
	digit[0] = j;
	FSMIX_ASSERT(digit[0] < l->top); /* j < level_count: the first digit is a level-1 index */
	size_t n = 0;
	for (uint32_t k = 0; k < level; k++) {
		char part[DECIMAL_MAX + 2];
		size_t m = 0;
		if (k)
			part[m++] = '/';
		part[m++] = 'd';
		m += put_decimal(part + m, digit[k], 3);
		if (n + m + 1 > len)
			return -ENAMETOOLONG;
		memcpy(buf + n, part, m);
		n += m;
	}
	if (len == 0)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}
