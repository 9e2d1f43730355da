/* commands.c - the command table, the checks of a command line against it and the option
 * table, and the dispatch (with the check of every output path before anything runs). */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "durlog.h"
#include "exitcode.h"
#include "job.h"
#include "options.h"
#include "plot.h"
#include "preflight.h"

/* run, check, clean, verify: one profile. Without it, the command's own usage line. */
static int one_profile(struct cli *c, char **args, int n, char *err, size_t errlen)
{
	if (n == 0) {
		snprintf(err, errlen, "%s needs a profile: %s", c->command->name,
		         c->command->synopsis[0]);
		return -1;
	}
	if (n > 1) {
		snprintf(err, errlen, "unexpected argument '%s' (one profile at a time)", args[1]);
		return -1;
	}
	c->profile = args[0];
	return 0;
}

static int keys_args(struct cli *c, char **args, int n, char *err, size_t errlen)
{
	if (n > 1) {
		snprintf(err, errlen, "keys takes at most one key name, got '%s'", args[1]);
		return -1;
	}
	c->key = n ? args[0] : NULL;
	return 0;
}

static int compare_args(struct cli *c, char **args, int n, char *err, size_t errlen)
{
	if (n < 2) {
		snprintf(err, errlen, "compare needs BASE.json and at least one NEW.json");
		return -1;
	}
	c->files = args;
	c->n_files = (size_t)n;
	return 0;
}

/* plot RESULT.json, or plot --lat-log LOG and no result. */
static int plot_args(struct cli *c, char **args, int n, char *err, size_t errlen)
{
	if (c->lat_log_path && n) {
		snprintf(err, errlen, "plot --lat-log LOG takes no RESULT.json (got '%s')",
		         args[0]);
		return -1;
	}
	if (!c->lat_log_path && n != 1) {
		snprintf(err, errlen, "plot needs one RESULT.json and -o FILE");
		return -1;
	}
	c->files = args;
	c->n_files = (size_t)n;
	return 0;
}

/* --json FILE: the word after --json was an option, or there was none. */
static int json_needs_file(const struct cli *c, char *err, size_t errlen)
{
	if (!c->json || c->json_path)
		return 0;
	snprintf(err, errlen, "%s --json needs a file: --json FILE, or --json - for stdout",
	         c->command->name);
	return -1;
}

static int run_rules(const struct cli *c, char *err, size_t errlen)
{
	bool sweep = c->n_dims || c->repeat > 1 || c->until_pct > 0;
	if (json_needs_file(c, err, errlen))
		return -1;
	if (c->plot_path && !sweep && c->interval_s <= 0)
		snprintf(err, errlen,
		         "run --plot draws a sweep or a run over time: give --threads "
		         "LIST, --sweep, --repeat or --interval S");
	else if (sweep && c->interval_s > 0)
		snprintf(err, errlen, "--interval is not available in sweeps");
	else if (sweep && c->lat_log_path)
		snprintf(err, errlen, "--lat-log is not available in sweeps");
	else if (sweep && c->crash)
		snprintf(err, errlen, "--crash-after is not available in sweeps");
	else if (sweep && c->durability_log_path)
		snprintf(err, errlen, "--durability-log is not available in sweeps");
	else
		return 0;
	return -1;
}

static int verify_rules(const struct cli *c, char *err, size_t errlen)
{
	if (json_needs_file(c, err, errlen))
		return -1;
	if (c->durability_log_path)
		return 0;
	snprintf(err, errlen, "verify needs --durability-log FILE (the log of the run to check)");
	return -1;
}

static int check_rules(const struct cli *c, char *err, size_t errlen)
{
	if (!c->json_path)
		return 0;
	snprintf(err, errlen, "check --json prints to stdout and takes no file (got '%s')",
	         c->json_path);
	return -1;
}

static int plot_rules(const struct cli *c, char *err, size_t errlen)
{
	if (c->plot_path)
		return 0;
	snprintf(err, errlen, "plot needs -o FILE (.png or .svg)");
	return -1;
}

/* In the order of --help and the man page; indexed by enum command_id. */
const struct command commands[] = {
    [CMD_RUN] = {CMD_RUN,
                 "run",
                 {"fsmix run PROFILE [options]", "fsmix PROFILE [options]"},
                 {"build the file tree and run the workload", "the same (FFSB style)"},
                 one_profile,
                 run_rules,
                 cmd_run},
    [CMD_CHECK] = {CMD_CHECK,
                   "check",
                   {"fsmix check PROFILE [options]", NULL},
                   {"validate; print every key, its value and origin", NULL},
                   one_profile,
                   check_rules,
                   cmd_check},
    [CMD_CLEAN] = {CMD_CLEAN,
                   "clean",
                   {"fsmix clean PROFILE [options]", NULL},
                   {"remove the trees fsmix built for PROFILE", NULL},
                   one_profile,
                   NULL,
                   cmd_clean},
    [CMD_COMPARE] = {CMD_COMPARE,
                     "compare",
                     {"fsmix compare BASE.json NEW.json [...] [--force] [--csv F] [--json F] "
                      "[--plot F]",
                      NULL},
                     {"before/after table with +/-/0 (2*STDDEV) marks", NULL},
                     compare_args,
                     json_needs_file,
                     cmd_compare},
    [CMD_PLOT] = {CMD_PLOT,
                  "plot",
                  {"fsmix plot RESULT.json -o FILE", "fsmix plot --lat-log LOG -o FILE"},
                  {"draw a sweep, a run over time (--interval) or a\n"
                   "run's msec_range histogram (.png or .svg)",
                   "every operation's latency over time"},
                  plot_args,
                  plot_rules,
                  cmd_plot},
    [CMD_KEYS] = {CMD_KEYS,
                  "keys",
                  {"fsmix keys [KEY] [--markdown]", NULL},
                  {"reference of every profile key", NULL},
                  keys_args,
                  NULL,
                  cmd_keys},
    [CMD_VERIFY] = {CMD_VERIFY,
                    "verify",
                    {"fsmix verify PROFILE --location L --durability-log FILE "
                     "[--model linux|posix] [--cut-at NS] [--json F]",
                     NULL},
                    {"after a crash: check every promise of a run's\n"
                     "durability log against the tree (read-only)",
                     NULL},
                    one_profile,
                    verify_rules,
                    cmd_verify},
    [CMD_CRASHTEST] = {CMD_CRASHTEST,
                       "crashtest",
                       {"fsmix crashtest PROFILE --fs ext4|xfs|btrfs [--states all|N] "
                        "[--reorder K] [--json F]",
                        "fsmix crashtest PROFILE --fs FS --run-dir DIR --state N --image F "
                        "[--keep]"},
                       {"run PROFILE once on a recording disk, then mount,\n"
                        "verify and check every crash state (as root)",
                        "rebuild one crash state as an image"},
                       one_profile,
                       crashtest_rules,
                       cmd_crashtest},
    [CMD_HELP] =
        {CMD_HELP, "help", {"fsmix --help | --version", NULL}, {NULL, NULL}, NULL, NULL, NULL},
};

const size_t n_commands = sizeof(commands) / sizeof(commands[0]);

const struct command *command_by_name(const char *name)
{
	for (size_t i = 0; i < n_commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "--name is an option of 'A' only", "--name (-n) is an option of 'A' and 'B', not 'C'",
 * "... of 'A', 'B' and 'C', not 'D'" from the row's commands. */
static void misuse_message(const struct option_row *r, const char *cmd, char *err, size_t errlen)
{
	size_t len = 0, n = 0, k = 0;
	for (size_t i = 0; i < n_commands; i++)
		n += (r->commands & CMD_BIT(commands[i].id)) != 0;
	if (r->short_name)
		len += (size_t)snprintf(err, errlen, "--%s (-%c) is an option of", r->name,
		                        r->short_name);
	else
		len += (size_t)snprintf(err, errlen, "--%s is an option of", r->name);
	for (size_t i = 0; i < n_commands && len < errlen; i++) {
		if (!(r->commands & CMD_BIT(commands[i].id)))
			continue;
		k++;
		len += (size_t)snprintf(err + len, errlen - len, "%s'%s'",
		                        k == 1   ? " "
		                        : k == n ? " and "
		                                 : ", ",
		                        commands[i].name);
	}
	if (len < errlen)
		snprintf(err + len, errlen - len, n == 1 ? " only" : ", not '%s'", cmd);
}

/* The first option given (c->given) that c->command does not take: its message in err and -1;
 * 0 when there is none. */
static int option_misuse(const struct cli *c, char *err, size_t errlen)
{
	unsigned cmd = CMD_BIT(c->command->id);
	for (size_t i = 0; i < n_option_rows; i++) {
		const struct option_row *r = &option_rows[i];
		if (!c->given[i] || (r->commands & cmd))
			continue;
		if (r->misuse)
			snprintf(err, errlen, r->misuse, c->command->name);
		else
			misuse_message(r, c->command->name, err, errlen);
		return -1;
	}
	return 0;
}

enum failure command_check(struct cli *c, char **args, int n, char *err, size_t errlen)
{
	const struct command *cmd = c->command;
	if (stdout_outputs(c) > 1) { /* for every command, compare and plot included */
		snprintf(err, errlen,
		         "only one of --json, --csv and --lat-log can write to stdout ('-')");
		return FAIL_INPUT;
	}
	if (cmd->args(c, args, n, err, errlen) || option_misuse(c, err, errlen) ||
	    (cmd->rules && cmd->rules(c, err, errlen)))
		return FAIL_INPUT;
	return FAIL_NONE;
}

/* No two outputs are one file, and no output is an input (preflight_collisions): every file
 * the command writes or reads is one row here; a new output is one more row. */
static enum failure no_collisions(const struct cli *c)
{
	bool plot = c->command->id == CMD_PLOT;
	const struct preflight_file outputs[] = {
	    {"--json", c->json_path, false},
	    {"--csv", c->csv_path, false},
	    {plot ? "the latency log" : "--lat-log", c->lat_log_path, plot}, /* plot reads it */
	    {plot ? "-o" : "--plot", c->plot_path, false},
	    /* verify reads the log it is given; run writes it */
	    {c->command->id == CMD_VERIFY ? "the durability log" : "--durability-log",
	     c->durability_log_path, c->command->id == CMD_VERIFY},
	    {"the profile", c->profile, true},
	};
	size_t n = ARRAY_SIZE(outputs);
	struct preflight_file *all = malloc((n + c->n_files) * sizeof(*all));
	if (!all) {
		fprintf(stderr, "fsmix: out of memory\n");
		return FAIL_IO;
	}
	memcpy(all, outputs, sizeof(outputs));
	for (size_t i = 0; i < c->n_files; i++) /* compare's and plot's documents */
		all[n++] = (struct preflight_file){"the input", c->files[i], true};
	enum failure f = preflight_collisions(all, n, stderr);
	free(all);
	return f;
}

/* Every file the command will write can be written (nothing is created yet): a bad path is
 * found before the run, not after it with the results lost. */
static enum failure preflight_outputs(const struct cli *c)
{
	enum command_id id = c->command->id;
	if (id == CMD_CHECK || id == CMD_KEYS || id == CMD_CLEAN)
		return FAIL_NONE;
	enum failure f = FAIL_NONE;
	char why[MSG_MAX];
	if (c->plot_path && plot_check_output(c->plot_path, why, sizeof(why))) {
		fprintf(stderr, "fsmix: %s %s; nothing was run\n", id == CMD_PLOT ? "-o" : "--plot",
		        why);
		f = FAIL_INPUT;
	}
	if (preflight_output("--json", c->json_path, stderr))
		f = FAIL_INPUT;
	if (preflight_output("--csv", c->csv_path, stderr))
		f = FAIL_INPUT;
	/* plot --lat-log LOG reads LOG */
	if (id != CMD_PLOT && preflight_output("--lat-log", c->lat_log_path, stderr))
		f = FAIL_INPUT;
	/* verify --durability-log FILE reads FILE */
	if (id == CMD_RUN && preflight_output("--durability-log", c->durability_log_path, stderr))
		f = FAIL_INPUT;
	else if (id == CMD_RUN && c->durability_log_path &&
	         durlog_check_new(c->durability_log_path, why, sizeof(why))) {
		fprintf(stderr, "fsmix: %s; nothing was run\n", why); /* never overwritten */
		f = FAIL_INPUT;
	}
	return f ? f : no_collisions(c);
}

enum failure command_run(struct cli *c)
{
	enum failure f = preflight_outputs(c);
	if (job_on()) {
		f = job_agree(f, "an output path cannot be written", "; nothing was run");
		enum command_id id = c->command->id;
		if (f == FAIL_NONE && id != CMD_RUN && id != CMD_CLEAN) /* rank 0's alone */
			return job_agree(job_rank() ? FAIL_NONE : c->command->run(c), "failed",
			                 NULL);
	}
	return f ? f : c->command->run(c);
}
