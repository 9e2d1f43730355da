/* options.h - the option table: every option of every command, once. Parsing (parse.c), the
 * "X is an option of Y only" checks, --help and the man page's OPTIONS (usage.c) all read it.
 *
 * A row is one documented form of an option. An option with two meanings has two rows of the
 * same name: `--threads [G=]N` (an override) and `--threads [G=]LIST` (a sweep, run only) are
 * told apart by the value (is_form); `--json FILE` (run, compare) and `--json` (check) by the
 * command. */
#ifndef FSMIX_OPTIONS_H
#define FSMIX_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* How the option takes its value. */
enum option_arg {
	ARG_NONE,     /* a flag */
	ARG_REQUIRED, /* --name VALUE or --name=VALUE */
	ARG_OPTIONAL, /* --name, or --name=VALUE */
	ARG_NEXT      /* ARG_OPTIONAL, and also the next word unless it is an option ('-' is not) */
};

/* The groups of --help and of the man page's OPTIONS, in their order. */
enum option_section {
	SEC_HIDDEN, /* parsed only when written in full, documented nowhere (--help-man) */
	SEC_OVERRIDES,
	SEC_RUN,
	SEC_SWEEP,
	SEC_CHECK,
	SEC_COMPARE,
	SEC_PLOT,
	SEC_KEYS,
	SEC_CRASHTEST,
	SEC_GENERAL,
	N_SECTIONS
};

/* What a setter returns: go on, stop parsing (--help, --version: the action is set), or a bad
 * value (the message is in err). */
enum set_result { SET_OK, SET_STOP, SET_BAD };

typedef enum set_result option_setter(struct cli *c, const char *value, char *err, size_t errlen);

struct option_row {
	const char *name; /* long name, without "--" */
	char short_name;  /* 't' for -t, or 0 */
	enum option_arg arg;
	const char *value; /* the value's name in --help and the man page; NULL: none */
	unsigned commands; /* CMD_BIT()s of the commands that take this form */
	/* The message when another command gets it; "%s" is that command. NULL: "--NAME is an
	 * option of 'A' only" or "... of 'A' and 'B', not 'C'" (parse.c, misuse_message). */
	const char *misuse;
	bool (*is_form)(const char *value); /* NULL: any value; else this form's values */
	option_setter *set;
	enum option_section section;
	const char *help; /* --help: lines of at most 52 columns, separated by '\n' */
	const char *man;  /* the man page's paragraph (roff) after "(commands) " */
};

extern const struct option_row option_rows[];
extern const size_t n_option_rows;

/* Section headings: --help's line and the man page's .SS title. */
extern const char *const section_help_heading[N_SECTIONS];
extern const char *const section_man_heading[N_SECTIONS];

#endif
