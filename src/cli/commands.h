/* commands.h - the command table: every subcommand's name, usage lines, the rules of its
 * arguments and its handler. The options each command takes are the option table's
 * (options.h). */
#ifndef FSMIX_COMMANDS_H
#define FSMIX_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "failure.h"

struct command {
	enum command_id id;
	const char *name;
	/* --help's usage lines and the man page's SYNOPSIS: "fsmix ..." (NULL: none), and what each
	 * does ('\n' between the lines of --help). */
	const char *synopsis[2];
	const char *summary[2];
	/* The positional arguments (the words left after the options). 0, or -1 with the
	 * message in err. */
	int (*args)(struct cli *c, char **args, int n, char *err, size_t errlen);
	/* Rules between options this command takes (e.g. --lat-log is not for sweeps); NULL:
	 * none. 0, or -1 with the message in err. */
	int (*rules)(const struct cli *c, char *err, size_t errlen);
	enum failure (*run)(struct cli *c); /* NULL: help (main prints the usage) */
};

extern const struct command commands[];
extern const size_t n_commands;

/* command_by_name - the command called name, or NULL. */
const struct command *command_by_name(const char *name);

/* command_check - the parsed command line makes sense: at most one output on stdout, the
 * command's positional arguments (args, n), every option given is one this command takes
 * (the option table's message otherwise), and the command's own rules. FAIL_NONE, or
 * FAIL_INPUT with the message in err. */
enum failure command_check(struct cli *c, char **args, int n, char *err, size_t errlen);

/* command_run - check that every file the command will write can be written, then run it. */
enum failure command_run(struct cli *c);

/* The handlers (cmd_*.c). */
enum failure cmd_run(struct cli *c);
enum failure cmd_clean(struct cli *c);
enum failure cmd_check(struct cli *c);
enum failure cmd_keys(struct cli *c);
enum failure cmd_compare(struct cli *c);
enum failure cmd_plot(struct cli *c);
enum failure cmd_verify(struct cli *c);
enum failure cmd_crashtest(struct cli *c);
/* crashtest's rules between its options (cmd_crashtest.c) */
int crashtest_rules(const struct cli *c, char *err, size_t errlen);

#endif
