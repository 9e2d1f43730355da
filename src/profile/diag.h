/* diag.h - collects the errors and warnings of a profile or command line, then prints them
 * sorted by file and line, each as
 *     FILE:LINE: error: [section] key: message
 * so that every problem is reported in one pass. Nothing here exits.
 *
 * How the profile layer (src/profile) reports, its error convention:
 *   - Every problem of the input (the profile, --set and the other overrides) becomes one
 *     diagnostic here: file:line (src_loc), section, key, a code (enum diag_code) and the text.
 *     Nothing is printed or decided on the spot; the command line prints the diagnostics and
 *     chooses the exit status (a profile with errors is bad input: FAIL_INPUT, exit 2).
 *   - Functions that check input return 0 when they reported no error and -1 when they did
 *     (profile_parse_*, profile_set, overrides_apply, plan_build, profile_load), or a count;
 *     pure parsers (value.h) return NULL or their message and report nothing themselves.
 *   - Out of memory is a diagnostic too (DIAG_NO_MEMORY); nothing here returns an exit status
 *     (EXIT_*) or -errno, and nothing exits.
 *   - A rule that must stay quiet when an earlier problem already explains it (one mistake,
 *     one message) asks by code, section and key (diag_find), never by the message text:
 *     texts are for people and tests, and may change.
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

/* What a diagnostic is about, for rules that look at earlier ones (and for tests). */
enum diag_code {
	DIAG_ANY = -1,      /* diag_find: any code */
	DIAG_OTHER = 0,     /* nothing more specific */
	DIAG_NO_MEMORY,     /* out of memory */
	DIAG_FILE,          /* the file itself: unreadable, too large, a directory, empty, FFSB 4 */
	DIAG_SYNTAX,        /* a line that is neither a key nor a section header, not text */
	DIAG_SECTION,       /* an unknown, misplaced or misnumbered section header */
	DIAG_NOT_CLOSED,    /* a section whose [end] is missing */
	DIAG_UNKNOWN_KEY,   /* key: the name as written (the message quotes it, the prefix not) */
	DIAG_MISPLACED_KEY, /* a known key in a section where it does not belong */
	DIAG_BAD_VALUE,     /* a value that does not parse, is out of range or no allowed word */
	DIAG_DUPLICATE,     /* a key set again in the same section */
	DIAG_COMPAT,        /* a line FFSB 6.0 would stop at; --strict-ffsb rejections */
	DIAG_MISSING,       /* a required key, or one that a weighted operation needs */
	DIAG_CONFLICT,      /* a rule across keys or sections: values that cannot go together */
	DIAG_REFERENCE,     /* bindfs / clone naming no filesystem, clone loops */
	DIAG_IGNORED,       /* accepted, but without effect (warnings) */
	DIAG_OPTION,        /* a command-line override that is malformed or names no section */
	DIAG_INTERNAL,      /* a bug: the parser's own consistency checks */
};

struct diag_entry {
	enum diag_level level;
	enum diag_code code;
	struct src_loc loc;
	size_t seq;    /* insertion order, keeps the sort stable */
	char *text;    /* "[section] key: message", owned */
	char *section; /* the section the message names, or NULL (owned) */
	char *key;     /* the key it is about, as written for DIAG_UNKNOWN_KEY, or NULL (owned) */
};

struct diag {
	struct diag_entry *v;
	size_t n, cap;
	size_t errors, warnings;
	int oom; /* set when a message could not be stored; errors is still counted */
};

void diag_init(struct diag *d);
void diag_free(struct diag *d);

/* diag_add - record one message. `section` (e.g. "threadgroup0") and `key` may be NULL; both
 * start the text as "[section] key: ", except that the key of DIAG_UNKNOWN_KEY (the name as
 * written, which the message quotes) is recorded but not printed. */
void diag_add(struct diag *d, enum diag_level level, enum diag_code code, struct src_loc loc,
              const char *section, const char *key, const char *fmt, ...) ATTR_PRINTF(7, 8);

#define diag_error(d, code, loc, sec, key, ...)                                                    \
	diag_add((d), DIAG_ERROR, (code), (loc), (sec), (key), __VA_ARGS__)
#define diag_warn(d, code, loc, sec, key, ...)                                                     \
	diag_add((d), DIAG_WARNING, (code), (loc), (sec), (key), __VA_ARGS__)

/* diag_find - the first message of `level` with `code` (DIAG_ANY: any), in `section` (NULL:
 * any) about `key` (NULL: any; compared ignoring case, as unknown keys are written), or NULL. */
const struct diag_entry *diag_find(const struct diag *d, enum diag_level level, enum diag_code code,
                                   const char *section, const char *key);

/* diag_print - every message, sorted by (file, line, order of discovery). */
void diag_print(const struct diag *d, FILE *out);

/* diag_format - one message as printed (for tests): returns bytes written like snprintf. */
int diag_format(const struct diag_entry *e, char *buf, size_t len);

#endif
