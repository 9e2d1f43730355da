/* lexer.h - turns FFSB profile text into lines that stock inih parses correctly.
 *
 * Why: Debian's libinih (r55) mis-reads FFSB syntax (see docs/design.md): an indented line is a
 * continuation of the previous value, lines without '=' are dropped, section headers never reach
 * the handler (so [end] is invisible) and '#' is no inline comment. fsmix therefore feeds inih
 * through ini_parse_stream() with lexer_read() as the reader, which emits one normalised line per
 * physical line:
 *   - everything from '#' on is cut, both ends are trimmed (no leading blank ever reaches inih,
 *     so its continuation rule cannot fire), CRLF and a UTF-8 BOM are accepted;
 *   - "[name]" becomes "@section=name", so opening and closing sections arrive as ordinary
 *     events in file order;
 *   - "key v1 v2" (list lines such as size_weight and msec_range) becomes "key=v1 v2";
 *   - blank and comment lines become empty lines.
 * The lexer keeps the physical line number and the exact key and value it emitted; inih calls
 * the handler synchronously for the line just read, so the handler takes file:line, key and
 * value from the lexer (values are not limited by inih's 200-byte line buffer).
 * Malformed lines are reported here (with file:line) and emitted as empty lines.
 */
#ifndef FSMIX_LEXER_H
#define FSMIX_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Longest physical line accepted, in bytes without the line end (FFSB's limit too). */
#define LEXER_MAX_LINE 1023

struct lexer {
	const char *buf; /* the whole profile, not necessarily NUL-terminated */
	size_t len, pos;
	const char *file; /* display name used in messages */
	struct diag *diag;
	uint32_t lineno; /* physical line of the line last handed out (1-based) */
	/* The token of the last line handed out: */
	bool is_section; /* a [name] header; name in `value` */
	bool had_equals; /* key=value (true) or list form "key v1 v2" (false) */
	char key[LEXER_MAX_LINE + 1];
	char value[LEXER_MAX_LINE + 1];
};

void lexer_init(struct lexer *lx, const char *file, const char *buf, size_t len, struct diag *d);

/* lexer_read - an inih ini_reader: writes the next normalised line (with '\n') into str
 * (at most num-1 bytes) and returns str, or NULL at end of input. */
char *lexer_read(char *str, int num, void *stream);

/* lexer_check_text - 0 if buf looks like text; otherwise reports "not a text file" with the
 * line of the first offending byte and returns -1. */
int lexer_check_text(const char *file, const char *buf, size_t len, struct diag *d);

/* lexer_find_ffsb4 - the line of the first sign that buf is an FFSB 4 profile (a `numconfigs`
 * key or a `[configN]` header, neither of which FFSB 5 or 6 knows), or 0. *what is set to the
 * text found. */
uint32_t lexer_find_ffsb4(const char *buf, size_t len, const char **what);

#endif
