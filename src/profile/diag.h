/* diag.h - collects the errors and warnings of a profile or command line, then prints them
 * sorted by file and line, each as
 *     FILE:LINE: error: [section] key: message
 * so that every problem is reported in one pass. Nothing here exits.
 */
#ifndef FSMIX_DIAG_H
#define FSMIX_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

/* Where a setting came from. line 0 with a file means "the file as a whole"; file NULL means
 * a built-in default. Command-line overrides use the option text as `file` and line 0. */
struct src_loc {
	const char *file; /* borrowed: lives as long as the profile or argv */
	uint32_t line;    /* 1-based physical line, 0 if none */
};

enum diag_level { DIAG_ERROR, DIAG_WARNING };

struct diag_entry {
	enum diag_level level;
	struct src_loc loc;
	size_t seq; /* insertion order, keeps the sort stable */
	char *text; /* "[section] key: message", owned */
};

struct diag {
	struct diag_entry *v;
	size_t n, cap;
	size_t errors, warnings;
	int oom; /* set when a message could not be stored; errors is still counted */
};

void diag_init(struct diag *d);
void diag_free(struct diag *d);

/* diag_add - record one message. `section` (e.g. "threadgroup0") and `key` may be NULL. */
void diag_add(struct diag *d, enum diag_level level, struct src_loc loc, const char *section,
              const char *key, const char *fmt, ...) ATTR_PRINTF(6, 7);

#define diag_error(d, loc, sec, key, ...)                                                          \
	diag_add((d), DIAG_ERROR, (loc), (sec), (key), __VA_ARGS__)
#define diag_warn(d, loc, sec, key, ...)                                                           \
	diag_add((d), DIAG_WARNING, (loc), (sec), (key), __VA_ARGS__)

/* diag_print - every message, sorted by (file, line, order of discovery). */
void diag_print(const struct diag *d, FILE *out);

/* diag_format - one message as printed (for tests): returns bytes written like snprintf. */
int diag_format(const struct diag_entry *e, char *buf, size_t len);

#endif
