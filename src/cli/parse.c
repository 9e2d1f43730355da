/* parse.c - argv to struct cli: getopt_long's tables are built from the option table, each
 * option's row is chosen by its value and the command, and the row's setter stores it. */
#include "parse.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"

/* One getopt entry per option name (the first row of that name); val is that row + LONG_BASE,
 * above every short option's character. */
#define LONG_BASE 256

/* getopt's view of the option table, as large as the table: at most one long option per row
 * and the end mark; ':' first, at most two characters per row ("x:") and '\0'. */
struct getopt_tables {
	struct option *longs; /* [n_option_rows + 1] */
	char *shorts;         /* [2 * n_option_rows + 2] */
};

static int first_row_named(const char *name)
{
	for (size_t i = 0; i < n_option_rows; i++)
		if (!strcmp(option_rows[i].name, name))
			return (int)i;
	return -1;
}

/* Hidden rows (--help-man) are not getopt's: getopt_long would take "--he" and "--hel" for an
 * ambiguous abbreviation of --help and --help-man, where fsmix has always read --help. They are
 * matched in full only (hidden_row). */
static void build_getopt_tables(struct getopt_tables *t)
{
	size_t nl = 0, ns = 0;
	t->shorts[ns++] = ':'; /* a missing value is ':', not '?' */
	for (size_t i = 0; i < n_option_rows; i++) {
		const struct option_row *r = &option_rows[i];
		if (first_row_named(r->name) != (int)i || r->section == SEC_HIDDEN)
			continue;
		int has_arg = r->arg == ARG_NONE       ? no_argument
		              : r->arg == ARG_REQUIRED ? required_argument
		                                       : optional_argument;
		t->longs[nl++] = (struct option){r->name, has_arg, NULL, LONG_BASE + (int)i};
		if (r->short_name) {
			t->shorts[ns++] = r->short_name;
			if (r->arg == ARG_REQUIRED)
				t->shorts[ns++] = ':';
		}
	}
	t->longs[nl] = (struct option){NULL, 0, NULL, 0};
	t->shorts[ns] = '\0';
}

/* The row of the option getopt returned (ch): among the rows of its name, those whose form
 * takes value; of these, the first that the command takes, else the first (then the misuse
 * check names the option). -1: not an option. */
static int row_of(int ch, const struct cli *c, const char *value)
{
	int first = -1;
	if (ch >= LONG_BASE)
		first = ch - LONG_BASE;
	for (size_t i = 0; first < 0 && i < n_option_rows; i++)
		if (option_rows[i].short_name && option_rows[i].short_name == ch)
			first = (int)i;
	if (first < 0)
		return -1;
	const char *name = option_rows[first].name;
	int fallback = -1;
	for (size_t i = (size_t)first; i < n_option_rows; i++) {
		const struct option_row *r = &option_rows[i];
		if (strcmp(r->name, name) || (r->is_form && value && !r->is_form(value)))
			continue;
		if (c->command && (r->commands & CMD_BIT(c->command->id)))
			return (int)i;
		if (fallback < 0)
			fallback = (int)i;
	}
	return fallback >= 0 ? fallback : first;
}

/* The hidden row written in full as arg ("--help-man"), or -1. */
static int hidden_row(const char *arg)
{
	for (size_t i = 0; i < n_option_rows; i++)
		if (option_rows[i].section == SEC_HIDDEN && !strncmp(arg, "--", 2) &&
		    !strcmp(arg + 2, option_rows[i].name))
			return (int)i;
	return -1;
}

/* The command word, or `fsmix PROFILE` (FFSB style): run. Returns how many words to skip
 * before the options: 1 after a command word, else 0. */
static int take_command(int argc, char **argv, struct cli *c)
{
	if (argc < 2)
		return 0;
	c->command = command_by_name(argv[1]);
	if (c->command)
		return 1;
	if (argv[1][0] != '-')
		c->command = &commands[CMD_RUN];
	return 0;
}

/* cli_parse with getopt's tables t (built). */
static enum failure parse(int argc, char **argv, struct cli *c, const struct getopt_tables *t,
                          char *err, size_t errlen)
{
	c->argc = argc;
	c->argv = argv;
	/* getopt reads from after the command word (which stands in for the program name), and
	 * optind 0 resets its state: every call parses afresh. */
	int skip = take_command(argc, argv, c);
	argc -= skip;
	argv += skip;
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, t->shorts, t->longs, NULL)) != -1) {
		int row = ch == ':'   ? -1
		          : ch == '?' ? hidden_row(argv[optind - 1])
		                      : row_of(ch, c, optarg);
		if (ch == ':') {
			snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
			return FAIL_INPUT;
		}
		if (row < 0) {
			snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
			return FAIL_INPUT;
		}
		const struct option_row *r = &option_rows[row];
		const char *value = optarg;
		/* getopt takes an optional value only as --json=FILE: take the next word too */
		if (r->arg == ARG_NEXT && !value && optind < argc &&
		    (argv[optind][0] != '-' || !strcmp(argv[optind], "-")))
			value = argv[optind++];
		c->given[row] = true;
		enum set_result sr = r->set(c, value, err, errlen);
		if (sr == SET_BAD)
			return FAIL_INPUT;
		if (sr == SET_STOP)
			return FAIL_NONE;
	}
	if (!c->command) {
		c->action = ACT_USAGE;
		return FAIL_NONE;
	}
	if (c->command->id == CMD_HELP) {
		c->action = ACT_HELP;
		return FAIL_NONE;
	}
	c->action = ACT_COMMAND;
	return command_check(c, argv + optind, argc - optind, err, errlen);
}

enum failure cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	struct getopt_tables t = {malloc((n_option_rows + 1) * sizeof(*t.longs)),
	                          malloc(2 * n_option_rows + 2)};
	c->given = calloc(n_option_rows, sizeof(*c->given));
	enum failure f = FAIL_UNSUPPORTED;
	if (t.longs && t.shorts && c->given) {
		build_getopt_tables(&t);
		f = parse(argc, argv, c, &t, err, errlen);
	} else {
		snprintf(err, errlen, "out of memory for the option table");
	}
	free(t.longs);
	free(t.shorts);
	return f;
}

void cli_free(struct cli *c)
{
	for (size_t d = 0; d < c->n_dims; d++)
		sweep_dim_free(&c->dims[d]);
	free(c->given);
	c->given = NULL;
}
