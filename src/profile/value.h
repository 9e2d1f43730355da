/* value.h - the value types of profile keys: pure parsers for their text (also used for
 * command-line options), and one parse / format / to-JSON entry per key type, which the parser
 * (profile.c), the command-line overrides, the plan and the resolved-profile listing
 * (profile_json.c) all use.
 *
 * Each parser returns NULL on success or an error message (a static string, or `err` filled
 * in) that names the offending text; nothing is printed. Whole strings only: trailing junk is
 * an error (FFSB silently took "time=10abc" as 10 and "512B" as 0).
 */
#ifndef FSMIX_VALUE_H
#define FSMIX_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VALUE_ERR_LEN 1280

/* How the value of a key is written, parsed and stored (keys.def's type column). */
enum key_type {
	KT_U32,         /* decimal integer, stored in key_value.u */
	KT_U64,         /* decimal integer, stored in key_value.u */
	KT_SIZE,        /* integer with optional B/K/KB/M/MB/G/GB/T/TB suffix (powers of 1024) */
	KT_BOOL,        /* 0 or 1 */
	KT_DOUBLE,      /* decimal fraction, stored in key_value.d */
	KT_STRING,      /* the rest of the line, trimmed, stored in key_value.s */
	KT_WORD,        /* one of the key's words (keys.def); stored as text like KT_STRING, the
	                 * plan gets the word's value */
	KT_SIZE_WEIGHT, /* list item 'size weight' */
	KT_RANGE,       /* list item 'lo hi' in milliseconds */
	KT_SYSCALL,     /* list item: a timed syscall name */
};

/* The value of a scalar key as the profile holds it. */
union key_value {
	uint64_t u; /* KT_U32, KT_U64, KT_SIZE, KT_BOOL */
	double d;   /* KT_DOUBLE */
	char *s;    /* KT_STRING, KT_WORD (owned by the setting; NULL when unset) */
};

/* One line of a list key. */
union item_value {
	struct {
		uint64_t size;   /* bytes */
		uint64_t weight; /* > 0 */
	} sw;                    /* KT_SIZE_WEIGHT */
	struct {
		double lo_ms, hi_ms;
	} range; /* KT_RANGE */
	int sys; /* KT_SYSCALL: enum sys_id */
};

/* value_parse_uint - decimal digits only (no sign, no spaces, no 0x); overflow is an error. */
const char *value_parse_uint(const char *s, uint64_t *out, char err[VALUE_ERR_LEN]);

/* value_parse_size - an integer with an optional unit, case-insensitive: B, K/KB, M/MB, G/GB,
 * T/TB, all powers of 1024 (so 4k = 4096). Fractions and other units are errors. */
const char *value_parse_size(const char *s, uint64_t *out, char err[VALUE_ERR_LEN]);

/* value_parse_bool - "0" or "1" (FFSB's only booleans). */
const char *value_parse_bool(const char *s, bool *out, char err[VALUE_ERR_LEN]);

/* value_parse_double - a finite decimal number such as 0.01 or 1e3 (no hex, inf or nan). */
const char *value_parse_double(const char *s, double *out, char err[VALUE_ERR_LEN]);

/* value_split2 - split "a b" (exactly two fields separated by single spaces, as the lexer
 * normalises list lines) into two NUL-terminated copies in a and b (each at most `len`). */
const char *value_split2(const char *s, char *a, char *b, size_t len, char err[VALUE_ERR_LEN]);

/* value_format_size - "64KB", "1MB", "1536B": the largest binary unit that divides exactly. */
void value_format_size(uint64_t v, char *buf, size_t len);

/* ---- the value of a key: one entry per key type ---- */

struct key_desc;
struct json_t;

/* value_parse - `text` as the value of key kd, as a profile line or --set gives it: a scalar
 * into *v (KT_STRING and KT_WORD: only checked to be non-empty; the caller copies the text), a
 * list line into *item, checked against the key's bounds. NULL, or the message naming the text
 * and, for numbers, the allowed range. */
const char *value_parse(const struct key_desc *kd, const char *text, union key_value *v,
                        union item_value *item, char err[VALUE_ERR_LEN]);

/* value_format - a scalar as `fsmix check` shows it ("4096 (4KB)" for sizes); `unset`: the key
 * was not given and has no default. */
void value_format(const struct key_desc *kd, const union key_value *v, bool unset, char *buf,
                  size_t len);

/* value_format_item - one list line as `fsmix check` shows it ("4KB 33", "0.000 0.010"). */
void value_format_item(const struct key_desc *kd, const union item_value *it, char *buf,
                       size_t len);

/* value_json - a scalar as JSON (jansson; a new reference, NULL when out of memory): integers,
 * booleans, numbers and strings; null when `unset`. */
struct json_t *value_json(const struct key_desc *kd, const union key_value *v, bool unset);

/* value_item_json - one list line as a JSON object, with its source line. */
struct json_t *value_item_json(const struct key_desc *kd, const union item_value *it,
                               uint32_t line);

/* value_word - the index of `text` among the words of the KT_WORD key kd, or -1 after writing
 * "'TEXT' is not one of W1, W2, ..." into err. */
int value_word(const struct key_desc *kd, const char *text, char err[VALUE_ERR_LEN]);

/* value_type_label - short type name for docs: "integer", "size", "0|1", ... */
const char *value_type_label(enum key_type t);

#endif
