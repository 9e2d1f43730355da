/* value.h - pure parsers for the value types of profile keys and command-line options.
 *
 * Each returns NULL on success or an error message (a static string, or `err` filled in) that
 * names the offending text; nothing is printed. Whole strings only: trailing junk is an error
 * (FFSB silently took "time=10abc" as 10 and "512B" as 0).
 */
#ifndef FSMIX_VALUE_H
#define FSMIX_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VALUE_ERR_LEN 1280

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

#endif
