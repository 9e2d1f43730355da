/* lexer.c - FFSB line normalisation in front of inih (see lexer.h). */
#include "lexer.h"

#include <ctype.h>
#include <string.h>

#include "keys.h"

void lexer_init(struct lexer *lx, const char *file, const char *buf, size_t len, struct diag *d)
{
	memset(lx, 0, sizeof(*lx));
	lx->buf = buf;
	lx->len = len;
	lx->file = file;
	lx->diag = d;
	/* A UTF-8 byte-order mark is not part of the first key. */
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		lx->pos = 3;
}

int lexer_check_text(const char *file, const char *buf, size_t len, struct diag *d)
{
	uint32_t line = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n') {
			line++;
			continue;
		}
		if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
			diag_error(
			    d, DIAG_SYNTAX, ((struct src_loc){file, line}), NULL, NULL,
			    "not a text profile (control byte 0x%02x); is this the right file?", c);
			return -1;
		}
		if (c == 0x7f) {
			diag_error(d, DIAG_SYNTAX, ((struct src_loc){file, line}), NULL, NULL,
			           "not a text profile (byte 0x7f); is this the right file?");
			return -1;
		}
	}
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Copies s[0..n) with runs of blanks folded to one space (list values: "4k\t 33" -> "4k 33"). */
static void fold_blanks(char *dst, const char *s, size_t n)
{
	size_t o = 0;
	bool in_blank = false;
	for (size_t i = 0; i < n; i++) {
		if (is_blank(s[i])) {
			in_blank = true;
			continue;
		}
		if (in_blank && o)
			dst[o++] = ' ';
		in_blank = false;
		dst[o++] = s[i];
	}
	dst[o] = '\0';
}

/* Tokenises one physical line (already cut at '#', trimmed, NUL-terminated) into lx->key and
 * lx->value. Returns 1 for a key or section, 0 for an empty line, -1 after reporting an error. */
static int tokenise(struct lexer *lx, const char *s)
{
	struct src_loc loc = {lx->file, lx->lineno};
	size_t n = strlen(s);

	lx->is_section = false;
	lx->had_equals = false;
	lx->key[0] = lx->value[0] = '\0';
	if (n == 0)
		return 0;
	if (s[0] == '[') {
		if (s[n - 1] != ']') {
			diag_error(lx->diag, DIAG_SECTION, loc, NULL, NULL,
			           "malformed section header '%s': missing ']'", s);
			return -1;
		}
		size_t b = 1, e = n - 1;
		while (b < e && is_blank(s[b]))
			b++;
		while (e > b && is_blank(s[e - 1]))
			e--;
		if (b == e) {
			diag_error(lx->diag, DIAG_SECTION, loc, NULL, NULL,
			           "empty section header '[]'");
			return -1;
		}
		memcpy(lx->value, s + b, e - b);
		lx->value[e - b] = '\0';
		strcpy(lx->key, "@section");
		lx->is_section = true;
		return 1;
	}

	size_t k = 0;
	while (k < n && !is_blank(s[k]) && s[k] != '=')
		k++;
	if (k == 0) {
		diag_error(lx->diag, DIAG_SYNTAX, loc, NULL, NULL,
		           "malformed line '%s': expected 'key=value', a list line such as "
		           "'size_weight 4k 33', or a [section] header",
		           s);
		return -1;
	}
	memcpy(lx->key, s, k);
	lx->key[k] = '\0';
	for (size_t i = 0; i < k; i++) {
		if (!is_key_char(s[i])) {
			const char *hint = key_suggest(lx->key);
			diag_error(lx->diag, DIAG_SYNTAX, loc, NULL, NULL,
			           "'%s' is not a key name%s%s%s", lx->key,
			           hint ? "; did you mean '" : "", hint ? hint : "",
			           hint ? "'?" : "");
			return -1;
		}
	}
	size_t p = k;
	while (p < n && is_blank(s[p]))
		p++;
	if (p < n && s[p] == '=') {
		p++;
		while (p < n && is_blank(s[p]))
			p++;
		lx->had_equals = true;
		memcpy(lx->value, s + p, n - p);
		lx->value[n - p] = '\0';
	} else {
		fold_blanks(lx->value, s + p, n - p);
	}
	return 1;
}

char *lexer_read(char *str, int num, void *stream)
{
	struct lexer *lx = stream;
	/* Zeroed, not only terminated after the copy: clang 14's analyzer does not tie strlen()
	 * to the bytes before the terminator and took tokenise's reads for uninitialised ones. 1 KB
	 * a profile line, on no hot path. */
	char line[LEXER_MAX_LINE + 2] = {0};

	if (lx->pos >= lx->len || num < 5) /* room for at least "k=.\n" */
		return NULL;
	const char *start = lx->buf + lx->pos;
	const char *nl = memchr(start, '\n', lx->len - lx->pos);
	size_t n = nl ? (size_t)(nl - start) : lx->len - lx->pos;
	lx->pos += n + (nl != NULL);
	lx->lineno++;

	str[0] = '\n';
	str[1] = '\0';
	if (n > 0 && start[n - 1] == '\r')
		n--;
	if (n > LEXER_MAX_LINE) {
		diag_error(lx->diag, DIAG_SYNTAX, ((struct src_loc){lx->file, lx->lineno}), NULL,
		           NULL, "line is too long (%zu characters; the limit is %d)", n,
		           LEXER_MAX_LINE);
		lx->key[0] = '\0';
		return str;
	}
	memcpy(line, start, n);
	line[n] = '\0';
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *b = line;
	while (is_blank(*b))
		b++;
	size_t len = strlen(b);
	while (len && is_blank(b[len - 1]))
		b[--len] = '\0';

	if (tokenise(lx, b) <= 0) {
		lx->key[0] = '\0';
		return str;
	}
	/* Hand inih "key=value", shortened if its line buffer is too small: the handler reads the
	 * full key and value from lx, so inih only has to see a line with a '=' that calls the
	 * handler. A key too long even for "key=." is cut: the handler accepts a prefix of
	 * lx->key (a key that long is unknown anyway, and reported as such with its line). */
	size_t room = (size_t)num - 2;
	int w = snprintf(str, room + 1, "%s=%s", lx->key, lx->value);
	if (w < 0 || (size_t)w > room) {
		size_t klen = strlen(lx->key);
		if (klen > room - 2)
			klen = room - 2;
		memcpy(str, lx->key, klen);
		memcpy(str + klen, "=.", 3);
	}
	strcat(str, "\n");
	return str;
}

uint32_t lexer_find_ffsb4(const char *buf, size_t len, const char **what)
{
	uint32_t line = 0;
	for (size_t pos = 0; pos < len;) {
		const char *start = buf + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		pos += n + (nl != NULL);
		line++;
		size_t b = 0;
		while (b < n && is_blank(start[b]))
			b++;
		const char *s = start + b;
		size_t rest = n - b;
		if (rest >= 10 && !memcmp(s, "numconfigs", 10) &&
		    (rest == 10 || s[10] == '=' || is_blank(s[10]))) {
			*what = "numconfigs";
			return line;
		}
		if (rest >= 8 && !memcmp(s, "[config", 7) && isdigit((unsigned char)s[7])) {
			*what = "[configN]";
			return line;
		}
	}
	return 0;
}
