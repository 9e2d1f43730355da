/* value.c - typed value parsers and the per-type entries of key values (see value.h). */
#include "value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compiler.h"
#include "keys.h"
#include "lexer.h"

static const char *fail(char err[VALUE_ERR_LEN], const char *fmt, const char *s)
{
	/* every caller passes its VALUE_ERR_LEN buffer: a parse that failed never returns NULL,
	 * which callers read as success */
	FSMIX_ASSERT(err != NULL);
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

static const struct {
	const char *unit;
	unsigned shift;
} size_units[] = {{"", 0},    {"b", 0},  {"k", 10},  {"kb", 10}, {"m", 20},
                  {"mb", 20}, {"g", 30}, {"gb", 30}, {"t", 40},  {"tb", 40}};

/* True if s is a whole number (a size, with `size`) that only fails for being over 64 bits:
 * for a key with bounds that is simply out of range. */
static bool too_large(const char *s, bool size)
{
	uint64_t v;
	if (!isdigit((unsigned char)*s))
		return false;
	const char *end = scan_digits(s, &v);
	if (!end)
		return true;
	for (size_t i = 0; size && i < sizeof(size_units) / sizeof(size_units[0]); i++)
		if (strcasecmp(end, size_units[i].unit) == 0)
			return size_units[i].shift && v > (UINT64_MAX >> size_units[i].shift);
	return false;
}

const char *value_parse_size(const char *s, uint64_t *out, char err[VALUE_ERR_LEN])
{
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
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcasecmp(end, size_units[i].unit) != 0)
			continue;
		if (size_units[i].shift && v > (UINT64_MAX >> size_units[i].shift))
			return fail(err, "'%s' is too large", s);
		*out = v << size_units[i].shift;
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

/* ---- the value of a key ---- */

/* "1..65536", "0B..1GB": the bounds of a number or size key as messages show them. */
static void bounds_text(char *buf, size_t len, const struct key_desc *kd)
{
	char lo[32], hi[32];
	if (kd->type == KT_SIZE) {
		value_format_size(kd->lo, lo, sizeof(lo));
		value_format_size(kd->hi, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRIu64, kd->lo);
		snprintf(hi, sizeof(hi), "%" PRIu64, kd->hi);
	}
	snprintf(buf, len, "%s..%s", lo, hi);
}

static const char *out_of_range(const struct key_desc *kd, const char *text, char *err)
{
	char range[80];
	bounds_text(range, sizeof(range), kd);
	snprintf(err, VALUE_ERR_LEN, "%s is out of range (%s)", text, range);
	return err;
}

/* KT_U32, KT_U64, KT_SIZE. */
static const char *parse_integer(const struct key_desc *kd, const char *text, union key_value *v,
                                 union item_value *item, char *err)
{
	uint64_t x = 0;
	(void)item;
	const char *e =
	    kd->type == KT_SIZE ? value_parse_size(text, &x, err) : value_parse_uint(text, &x, err);
	if (e && text[0] == '-') {
		char range[80];
		bounds_text(range, sizeof(range), kd);
		snprintf(err, VALUE_ERR_LEN, "%s is negative (the range is %s)", text, range);
		return err;
	}
	/* A number too large for 64 bits is simply out of this key's range: say which. */
	bool big = e && too_large(text, kd->type == KT_SIZE);
	if (e && !big)
		return e;
	if (big || x < kd->lo || x > kd->hi)
		return out_of_range(kd, text, err);
	v->u = x;
	return NULL;
}

static const char *parse_bool(const struct key_desc *kd, const char *text, union key_value *v,
                              union item_value *item, char *err)
{
	bool b = false; /* set when e is NULL; gcc -O3 cannot see it (-Wmaybe-uninitialized) */
	const char *e = value_parse_bool(text, &b, err);
	(void)kd;
	(void)item;
	if (!e)
		v->u = b;
	return e;
}

static const char *parse_double(const struct key_desc *kd, const char *text, union key_value *v,
                                union item_value *item, char *err)
{
	double x;
	const char *e = value_parse_double(text, &x, err);
	(void)item;
	if (e)
		return e;
	if (x < (double)kd->lo || x > (double)kd->hi)
		return out_of_range(kd, text, err);
	v->d = x;
	return NULL;
}

/* KT_STRING and KT_WORD: the caller keeps the text; a word is checked by the plan (value_word),
 * so a mistyped word is reported once per section that uses it, clones included. */
static const char *parse_text(const struct key_desc *kd, const char *text, union key_value *v,
                              union item_value *item, char *err)
{
	(void)kd;
	(void)v;
	(void)item;
	(void)err;
	return *text ? NULL : "missing value";
}

/* Copies s with runs of blanks folded to one space: list lines written with '='
 * ("msec_range = 0.0   1.0") are read like the list form the lexer normalises. */
static void fold_blanks(char *dst, size_t len, const char *s)
{
	size_t o = 0;
	bool blank = false;
	for (; *s && o + 2 < len; s++) {
		if (*s == ' ' || *s == '\t') {
			blank = true;
			continue;
		}
		if (blank && o)
			dst[o++] = ' ';
		blank = false;
		dst[o++] = *s;
	}
	dst[o] = '\0';
}

static const char *parse_size_weight(const struct key_desc *kd, const char *text,
                                     union key_value *v, union item_value *item, char *err)
{
	char a[LEXER_MAX_LINE + 1], b[LEXER_MAX_LINE + 1], line[LEXER_MAX_LINE + 1];
	const char *e;
	(void)v;
	fold_blanks(line, sizeof(line), text);
	if (value_split2(line, a, b, sizeof(a), err)) {
		snprintf(err, VALUE_ERR_LEN,
		         "'%s': expected a size and a weight, e.g. 'size_weight 4KB 33'", line);
		return err;
	}
	if ((e = value_parse_size(a, &item->sw.size, err)))
		return e;
	if (b[0] == '-') {
		snprintf(err, VALUE_ERR_LEN,
		         "weight %s is negative (the range is %" PRIu64 "..%" PRIu64 ")", b, kd->lo,
		         kd->hi);
		return err;
	}
	bool big = false;
	if (value_parse_uint(b, &item->sw.weight, err)) {
		if (!too_large(b, false)) {
			snprintf(err, VALUE_ERR_LEN, "weight '%s' is not a whole number", b);
			return err;
		}
		big = true;
	}
	if (big || item->sw.weight < kd->lo || item->sw.weight > kd->hi) {
		snprintf(err, VALUE_ERR_LEN,
		         "weight %s is out of range (%" PRIu64 "..%" PRIu64 ")%s", b, kd->lo,
		         kd->hi,
		         strcmp(b, "0") ? "" : ": leave out sizes that should never be picked");
		return err;
	}
	return NULL;
}

static const char *parse_range(const struct key_desc *kd, const char *text, union key_value *v,
                               union item_value *item, char *err)
{
	char a[LEXER_MAX_LINE + 1], b[LEXER_MAX_LINE + 1], line[LEXER_MAX_LINE + 1];
	const char *e;
	(void)v;
	fold_blanks(line, sizeof(line), text);
	if (value_split2(line, a, b, sizeof(a), err)) {
		snprintf(err, VALUE_ERR_LEN,
		         "'%s': expected 'lo hi' in milliseconds, e.g. 'msec_range 0.00 0.01'",
		         line);
		return err;
	}
	if ((e = value_parse_double(a, &item->range.lo_ms, err)) ||
	    (e = value_parse_double(b, &item->range.hi_ms, err)))
		return e;
	if (item->range.lo_ms < 0 || item->range.hi_ms < 0) {
		snprintf(err, VALUE_ERR_LEN, "'%s': latencies cannot be negative", line);
		return err;
	}
	if (item->range.hi_ms > (double)kd->hi) {
		snprintf(err, VALUE_ERR_LEN, "'%s': %s ms is beyond %" PRIu64 " ms (one day)", line,
		         b, kd->hi);
		return err;
	}
	if (item->range.lo_ms >= item->range.hi_ms) {
		snprintf(err, VALUE_ERR_LEN, "'%s': the low end %s must be below the high end %s",
		         line, a, b);
		return err;
	}
	return NULL;
}

/* Matches an `ignore=` name: exact (case-insensitive) against every timed syscall, else FFSB's
 * rule, a unique case-insensitive prefix of one of its eight names. -1: unknown. */
static int match_syscall(const char *name)
{
	int found = -1;
	size_t n = strlen(name);
	for (int i = 0; i < SYS_COUNT; i++)
		if (strcasecmp(sys_table[i].name, name) == 0)
			return i;
	if (n == 0)
		return -1;
	for (int i = 0; i < SYS_COUNT; i++) {
		if (!(sys_table[i].flags & SYSF_FFSB) || strncasecmp(sys_table[i].name, name, n))
			continue;
		if (found >= 0)
			return -1; /* ambiguous */
		found = i;
	}
	return found;
}

static const char *parse_syscall(const struct key_desc *kd, const char *text, union key_value *v,
                                 union item_value *item, char *err)
{
	char line[LEXER_MAX_LINE + 1];
	(void)kd;
	(void)v;
	fold_blanks(line, sizeof(line), text);
	int sc = match_syscall(line);
	if (sc < 0) {
		char names[256];
		size_t o = 0;
		names[0] = '\0';
		for (int i = 0; i < SYS_COUNT && o < sizeof(names); i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i ? " " : "",
			                      sys_table[i].name);
		snprintf(err, VALUE_ERR_LEN, "unknown system call '%s' (known: %s)", line, names);
		return err;
	}
	item->sys = sc;
	return NULL;
}

static void format_integer(const struct key_desc *kd, const union key_value *v, bool unset,
                           char *buf, size_t len)
{
	char sz[32];
	if (kd->type == KT_SIZE) {
		value_format_size(v->u, sz, sizeof(sz));
		snprintf(buf, len, "%" PRIu64 " (%s)", v->u, sz);
	} else if (unset) {
		snprintf(buf, len, "(unset)");
	} else {
		snprintf(buf, len, "%" PRIu64, v->u);
	}
}

static void format_double(const struct key_desc *kd, const union key_value *v, bool unset,
                          char *buf, size_t len)
{
	(void)kd;
	(void)unset;
	snprintf(buf, len, "%g", v->d);
}

static void format_text(const struct key_desc *kd, const union key_value *v, bool unset, char *buf,
                        size_t len)
{
	(void)kd;
	(void)unset;
	snprintf(buf, len, "%s", v->s ? v->s : "(unset)");
}

static json_t *json_of_integer(const struct key_desc *kd, const union key_value *v, bool unset)
{
	(void)kd;
	return unset ? json_null() : json_integer((json_int_t)v->u);
}

static json_t *json_of_bool(const struct key_desc *kd, const union key_value *v, bool unset)
{
	(void)kd;
	(void)unset;
	return json_boolean(v->u);
}

static json_t *json_of_double(const struct key_desc *kd, const union key_value *v, bool unset)
{
	(void)kd;
	(void)unset;
	return json_real(v->d);
}

static json_t *json_of_text(const struct key_desc *kd, const union key_value *v, bool unset)
{
	(void)kd;
	(void)unset;
	return v->s ? json_string(v->s) : json_null();
}

static void format_size_weight(const union item_value *it, char *buf, size_t len)
{
	char sz[32];
	value_format_size(it->sw.size, sz, sizeof(sz));
	snprintf(buf, len, "%s %" PRIu64, sz, it->sw.weight);
}

static void format_range(const union item_value *it, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f %.3f", it->range.lo_ms, it->range.hi_ms);
}

static void format_syscall(const union item_value *it, char *buf, size_t len)
{
	snprintf(buf, len, "%s", sys_table[it->sys].name);
}

static json_t *json_size_weight(const union item_value *it, uint32_t line)
{
	return json_pack("{sIsIsi}", "size", (json_int_t)it->sw.size, "weight",
	                 (json_int_t)it->sw.weight, "line", (int)line);
}

static json_t *json_range(const union item_value *it, uint32_t line)
{
	return json_pack("{sfsfsi}", "lo_ms", it->range.lo_ms, "hi_ms", it->range.hi_ms, "line",
	                 (int)line);
}

static json_t *json_syscall(const union item_value *it, uint32_t line)
{
	return json_pack("{sssi}", "syscall", sys_table[it->sys].name, "line", (int)line);
}

/* One entry per key type: its name in the docs, its parser, and how a scalar value or a list
 * line is shown as text and as JSON. */
struct value_type {
	const char *label;
	const char *(*parse)(const struct key_desc *kd, const char *text, union key_value *v,
	                     union item_value *item, char *err);
	void (*format)(const struct key_desc *kd, const union key_value *v, bool unset, char *buf,
	               size_t len);
	json_t *(*json)(const struct key_desc *kd, const union key_value *v, bool unset);
	void (*format_item)(const union item_value *it, char *buf, size_t len);
	json_t *(*json_item)(const union item_value *it, uint32_t line);
};

static const struct value_type value_types[] = {
    [KT_U32] = {"integer", parse_integer, format_integer, json_of_integer, NULL, NULL},
    [KT_U64] = {"integer", parse_integer, format_integer, json_of_integer, NULL, NULL},
    [KT_SIZE] = {"size", parse_integer, format_integer, json_of_integer, NULL, NULL},
    [KT_BOOL] = {"0 or 1", parse_bool, format_integer, json_of_bool, NULL, NULL},
    [KT_DOUBLE] = {"number", parse_double, format_double, json_of_double, NULL, NULL},
    [KT_STRING] = {"text", parse_text, format_text, json_of_text, NULL, NULL},
    [KT_WORD] = {"word", parse_text, format_text, json_of_text, NULL, NULL},
    [KT_SIZE_WEIGHT] = {"size weight", parse_size_weight, NULL, NULL, format_size_weight,
                        json_size_weight},
    [KT_RANGE] = {"lo hi (ms)", parse_range, NULL, NULL, format_range, json_range},
    [KT_SYSCALL] = {"syscall", parse_syscall, NULL, NULL, format_syscall, json_syscall},
};

const char *value_parse(const struct key_desc *kd, const char *text, union key_value *v,
                        union item_value *item, char err[VALUE_ERR_LEN])
{
	return value_types[kd->type].parse(kd, text, v, item, err);
}

void value_format(const struct key_desc *kd, const union key_value *v, bool unset, char *buf,
                  size_t len)
{
	value_types[kd->type].format(kd, v, unset, buf, len);
}

void value_format_item(const struct key_desc *kd, const union item_value *it, char *buf, size_t len)
{
	value_types[kd->type].format_item(it, buf, len);
}

struct json_t *value_json(const struct key_desc *kd, const union key_value *v, bool unset)
{
	return value_types[kd->type].json(kd, v, unset);
}

struct json_t *value_item_json(const struct key_desc *kd, const union item_value *it, uint32_t line)
{
	return value_types[kd->type].json_item(it, line);
}

int value_word(const struct key_desc *kd, const char *text, char err[VALUE_ERR_LEN])
{
	char list[128] = "";
	size_t o = 0;
	for (int i = 0; kd->words && kd->words[i].word; i++) {
		if (!strcmp(text, kd->words[i].word))
			return i;
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "",
		                      kd->words[i].word);
	}
	snprintf(err, VALUE_ERR_LEN, "'%s' is not one of %s", text, list);
	return -1;
}

const char *value_type_label(enum key_type t)
{
	return (size_t)t < ARRAY_SIZE(value_types) ? value_types[t].label : "?";
}
