/* value.c - typed value parsers (see value.h for the contract). */
#include "value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fail(char err[VALUE_ERR_LEN], const char *fmt, const char *s)
{
	snprintf(err, VALUE_ERR_LEN, fmt, s);
	return err;
}

/* Parses leading decimal digits into *out; returns the first non-digit or NULL on overflow. */
static const char *scan_digits(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = v;
	return s;
}

const char *value_parse_uint(const char *s, uint64_t *out, char err[VALUE_ERR_LEN])
{
	if (*s == '\0')
		return "missing value";
	if (*s == '-')
		return fail(err, "'%s' is negative", s);
	if (!isdigit((unsigned char)*s))
		return fail(err, "'%s' is not a whole number", s);
	const char *end = scan_digits(s, out);
	if (!end)
		return fail(err, "'%s' is too large", s);
	if (*end)
		return fail(err, "'%s' is not a whole number", s);
	return NULL;
}

const char *value_parse_size(const char *s, uint64_t *out, char err[VALUE_ERR_LEN])
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {{"", 0},    {"b", 0},  {"k", 10},  {"kb", 10}, {"m", 20},
	             {"mb", 20}, {"g", 30}, {"gb", 30}, {"t", 40},  {"tb", 40}};
	uint64_t v;
	if (*s == '\0')
		return "missing value";
	if (*s == '-')
		return fail(err, "'%s' is negative", s);
	if (!isdigit((unsigned char)*s))
		return fail(err, "'%s' is not a size (use e.g. 4096, 4K, 64KB, 1M, 2GB)", s);
	const char *end = scan_digits(s, &v);
	if (!end)
		return fail(err, "'%s' is too large", s);
	if (*end == '.')
		return fail(err, "'%s': fractional sizes are not supported (write 1536K, not 1.5M)",
		            s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].unit) != 0)
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return fail(err, "'%s' is too large", s);
		*out = v << units[i].shift;
		return NULL;
	}
	return fail(err, "'%s' has an unknown unit (use B, K/KB, M/MB, G/GB or T/TB)", s);
}

const char *value_parse_bool(const char *s, bool *out, char err[VALUE_ERR_LEN])
{
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0) {
		*out = s[0] == '1';
		return NULL;
	}
	if (*s == '\0')
		return "missing value";
	return fail(err, "'%s' is not a boolean (use 0 or 1)", s);
}

const char *value_parse_double(const char *s, double *out, char err[VALUE_ERR_LEN])
{
	char *end;
	if (*s == '\0')
		return "missing value";
	/* strtod also takes "inf", "nan" and hex floats; profiles mean plain decimals. */
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
			return fail(err, "'%s' is not a number", s);
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end)
		return fail(err, "'%s' is not a number", s);
	if (errno == ERANGE || !isfinite(v))
		return fail(err, "'%s' is out of range", s);
	*out = v;
	return NULL;
}

const char *value_split2(const char *s, char *a, char *b, size_t len, char err[VALUE_ERR_LEN])
{
	const char *sp = strchr(s, ' ');
	if (!sp || strchr(sp + 1, ' ') || sp == s || sp[1] == '\0')
		return fail(err, "'%s' must be two values separated by blanks", s);
	size_t la = (size_t)(sp - s), lb = strlen(sp + 1);
	if (la >= len || lb >= len)
		return fail(err, "'%s' is too long", s);
	memcpy(a, s, la);
	a[la] = '\0';
	memcpy(b, sp + 1, lb + 1);
	return NULL;
}

void value_format_size(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
	int u = 0;
	while (v && v % 1024 == 0 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", v, units[u]);
}
