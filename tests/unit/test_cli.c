/* test_cli.c - the command line's tables (src/cli): failures to exit statuses, the option
 * table's "X is an option of Y only" checks and forms, and --help and the man page generated
 * from the tables. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "../../src/base/exitcode.h"
#include "cli.h"
#include "commands.h"
#include "job.h"
#include "options.h"
#include "parse.h"
#include "test.h"
#include "usage.h"

static void test_exit_status_of(void)
{
	CHECK_EQ_I(exit_status_of(FAIL_NONE), 0);
	CHECK_EQ_I(exit_status_of(FAIL_IO), 1);
	CHECK_EQ_I(exit_status_of(FAIL_INPUT), 2);
	CHECK_EQ_I(exit_status_of(FAIL_UNSUPPORTED), 3);
	CHECK_EQ_I(exit_status_of(FAIL_INTERRUPTED), 130);
	CHECK_EQ_I(exit_status_of((enum failure)99), 1);
}

static struct cli cl;
static char err[MSG_MAX];

/* parse("check", "p.ffsb", ..., NULL): cli_parse of "fsmix check p.ffsb ...". */
static enum failure parse(const char *first, ...)
{
	static char *argv[32];
	int argc = 0;
	va_list ap;
	argv[argc++] = (char *)"fsmix";
	va_start(ap, first);
	for (const char *w = first; w && argc < 31; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc] = NULL;
	cli_free(&cl);
	memset(&cl, 0, sizeof(cl));
	err[0] = '\0';
	return cli_parse(argc, argv, &cl, err, sizeof(err));
}

static void check_misuse(enum failure f, const char *want)
{
	CHECK_EQ_I(f, FAIL_INPUT);
	if (strcmp(err, want))
		TEST_FAIL("message '%s', expected '%s'", err, want);
}

/* An option given to a command that does not take it: the row's message, or one made from
 * the commands that take it. */
static void test_misuse(void)
{
	check_misuse(
	    parse("check", "p", "--build-threads", "2", NULL),
	    "--continue-on-error, --cleanup and --build-threads are options of 'run' only");
	check_misuse(parse("clean", "p", "--plot", "x.png", NULL),
	             "--plot is an option of 'run' and 'compare', not 'clean'");
	check_misuse(parse("keys", "--force", NULL), "--force is an option of 'compare' only");
	check_misuse(parse("compare", "a", "b", "--time", "5", NULL),
	             "--time (-t) is an option of 'run', 'check', 'clean', 'verify' and "
	             "'crashtest', not 'compare'");
	check_misuse(parse("check", "p", "-o", "x.png", NULL),
	             "--output (-o) is an option of 'plot' only");
	check_misuse(parse("plot", "r.json", "-o", "x.png", "--markdown", NULL),
	             "--markdown is an option of 'keys' only");
	check_misuse(
	    parse("clean", "p", "--json", "x", NULL),
	    "--json is an option of 'run', 'check', 'verify' and 'crashtest', not 'clean'");
	check_misuse(parse("check", "p", "--lat-log", "x", NULL),
	             "--lat-log is an option of 'run' only");
	CHECK_EQ_I(parse("plot", "--lat-log", "x", "-o", "x.png", NULL), FAIL_NONE);
	CHECK_EQ_I(parse("run", "p", "--lat-log", "x", NULL), FAIL_NONE);
	CHECK(cl.lat_log_path && !strcmp(cl.lat_log_path, "x"));
}

/* A command's own argument rules (commands.c): compare keeps its files, verify needs the log. */
static void test_command_args(void)
{
	CHECK_EQ_I(parse("compare", "a.json", "b.json", "c.json", NULL), FAIL_NONE);
	CHECK_EQ_U(cl.n_files, 3);
	CHECK(cl.files && !strcmp(cl.files[0], "a.json") && !strcmp(cl.files[2], "c.json"));
	check_misuse(parse("compare", "a.json", NULL),
	             "compare needs BASE.json and at least one NEW.json");
	check_misuse(parse("plot", "--lat-log", "l.log", "r.json", NULL),
	             "plot --lat-log LOG takes no RESULT.json (got 'r.json')");
	check_misuse(parse("verify", "p", "--location", "x", NULL),
	             "verify needs --durability-log FILE (the log of the run to check)");
}

/* --threads N (an override) and --threads LIST (a sweep, run only); --json FILE (run) and
 * --json (check). */
static void test_forms(void)
{
	CHECK_EQ_I(parse("check", "p", "-n", "4", NULL), FAIL_NONE);
	CHECK_EQ_U(cl.n_ovr, 1);
	CHECK_EQ_U(cl.n_dims, 0);
	check_misuse(parse("check", "p", "--threads", "1,2", NULL),
	             "thread lists, --sweep and --repeat are options of 'run' only");
	CHECK_EQ_I(parse("run", "p", "--threads", "1-4:x2", NULL), FAIL_NONE);
	CHECK_EQ_U(cl.n_dims, 1);
	CHECK_EQ_U(cl.n_ovr, 0);
	CHECK_EQ_I(parse("run", "p", "--json", "out.json", NULL), FAIL_NONE);
	CHECK(cl.json_path && !strcmp(cl.json_path, "out.json") && !strcmp(cl.profile, "p"));
	CHECK_EQ_I(parse("check", "--json", "p", NULL), FAIL_NONE);
	CHECK(cl.json && !cl.json_path && !strcmp(cl.profile, "p"));
	check_misuse(parse("check", "p", "--json=x", NULL),
	             "check --json prints to stdout and takes no file (got 'x')");
	check_misuse(parse("run", "p", "--json", NULL),
	             "run --json needs a file: --json FILE, or --json - for stdout");
	CHECK_EQ_I(parse("p.ffsb", "-t", "3", NULL), FAIL_NONE); /* fsmix PROFILE */
	CHECK(cl.command == &commands[CMD_RUN] && !strcmp(cl.profile, "p.ffsb"));
	CHECK_EQ_I(parse("run", "p", "--help", "--bogus", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_HELP);
	check_misuse(parse("run", "p", "--bogus", "--help", NULL), "unknown option '--bogus'");
	check_misuse(parse("check", "p", "--time", NULL), "option '--time' needs a value");
	CHECK_EQ_I(parse(NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_USAGE);
}

/* --repeat N and --repeat until:PCT[:MAX] (docs/sweeps.md). */
static void test_repeat_until(void)
{
	CHECK_EQ_I(parse("run", "p", "--repeat", "5", NULL), FAIL_NONE);
	CHECK(cl.repeat == 5 && cl.until_pct == 0);
	CHECK_EQ_I(parse("run", "p", "--repeat", "until:2%:20", NULL), FAIL_NONE);
	CHECK(cl.repeat == 20 && cl.until_pct == 2);
	CHECK_EQ_I(parse("run", "p", "--repeat", "until:0.5", NULL), FAIL_NONE);
	CHECK(cl.repeat == 20 && cl.until_pct == 0.5); /* MAX 20 by default, '%' optional */
	CHECK_EQ_I(parse("run", "p", "--repeat", "until:1000%:3", NULL), FAIL_NONE);
	CHECK(cl.repeat == 3 && cl.until_pct == 1000);
	/* the last --repeat wins */
	CHECK_EQ_I(parse("run", "p", "--repeat", "until:5%", "--repeat", "4", NULL), FAIL_NONE);
	CHECK(cl.repeat == 4 && cl.until_pct == 0);
	const char *bad[] = {"until:0",   "until:-2%", "until:2%:2", "until:2%:1001", "until:x",
	                     "until:2%x", "until:2%:", "until:",     "until:.%",      "until:nan"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_I(parse("run", "p", "--repeat", bad[i], NULL), FAIL_INPUT);
		CHECK_CONTAINS(err, "--repeat until:PCT[:MAX] takes a target above 0 %");
	}
	CHECK_EQ_I(parse("run", "p", "--repeat", "0", NULL), FAIL_INPUT);
	CHECK_CONTAINS(err, "--repeat takes a count from 1 to 1000 or until:PCT[:MAX], not '0'");
	check_misuse(parse("run", "p", "--repeat", "until:5%", "--interval", "1", NULL),
	             "--interval is not available in sweeps");
}

/* --crash-after S or random:S (run only, not in sweeps). */
static void test_crash_after(void)
{
	CHECK_EQ_I(parse("run", "p", "--crash-after", "2.5", NULL), FAIL_NONE);
	CHECK(cl.crash && !cl.crash_random && cl.crash_after_s == 2.5);
	CHECK_EQ_I(parse("run", "p", "--crash-after", "0", NULL), FAIL_NONE);
	CHECK(cl.crash && cl.crash_after_s == 0);
	CHECK_EQ_I(parse("run", "p", "--crash-after=random:10", NULL), FAIL_NONE);
	CHECK(cl.crash && cl.crash_random && cl.crash_after_s == 10);
	const char *bad_values[] = {"random:0", "-1", "x", "random:", "1e6", "2s"};
	for (size_t i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
		char want[200];
		snprintf(
		    want, sizeof(want),
		    "--crash-after takes seconds from 0 to 86400, or random:S (S > 0), not '%s'",
		    bad_values[i]);
		check_misuse(parse("run", "p", "--crash-after", bad_values[i], NULL), want);
	}
	check_misuse(parse("check", "p", "--crash-after", "1", NULL),
	             "--crash-after is an option of 'run' only");
	check_misuse(parse("run", "p", "--crash-after", "1", "--threads", "1,2", NULL),
	             "--crash-after is not available in sweeps");
}

/* crashtest's own values (option_ct.c): each bound taken, one past it refused with exit 2 and
 * a message naming the option and the value. */
static void test_crashtest_values(void)
{
	CHECK_EQ_I(parse("crashtest", "p", "--fs", "xfs", "--size", "16M", NULL), FAIL_NONE);
	CHECK_EQ_U(cl.ct.size, 16ull << 20);
	CHECK_EQ_I(parse("crashtest", "p", "--fs", "ext4", "--size", "64g", NULL), FAIL_NONE);
	CHECK_EQ_U(cl.ct.size, 64ull << 30);
	CHECK_EQ_I(
	    parse("crashtest", "p", "--fs", "ext4", "--states", "1", "--reorder", "1000", NULL),
	    FAIL_NONE);
	CHECK_EQ_U(cl.ct.states, 1);
	CHECK_EQ_U(cl.ct.reorder, 1000);
	CHECK_EQ_I(
	    parse("crashtest", "p", "--fs", "ext4", "--states", "all", "--reorder", "0", NULL),
	    FAIL_NONE);
	CHECK_EQ_U(cl.ct.states, 0);
	CHECK_EQ_U(cl.ct.reorder, 0);
	static const struct {
		const char *opt, *value, *want;
	} bad[] = {
	    {"--size", "0", "--size takes a size from 16M to 64G (K, M or G), not '0'"},
	    {"--size", "16383K", "--size takes a size from 16M to 64G (K, M or G), not '16383K'"},
	    {"--size", "65537M", "--size takes a size from 16M to 64G (K, M or G), not '65537M'"},
	    {"--size", "abc", "--size takes a size from 16M to 64G (K, M or G), not 'abc'"},
	    {"--size", "-64M", "--size takes a size from 16M to 64G (K, M or G), not '-64M'"},
	    {"--size", "99999999999999999999G",
	     "--size takes a size from 16M to 64G (K, M or G), not '99999999999999999999G'"},
	    {"--states", "0", "--states takes all or a number from 1, not '0'"},
	    {"--states", " 5", "--states takes all or a number from 1, not ' 5'"},
	    {"--reorder", "-1", "--reorder takes a number from 0 to 1000, not '-1'"},
	    {"--reorder", "1001", "--reorder takes a number from 0 to 1000, not '1001'"},
	    {"--fs", "none", "--fs takes ext4, xfs or btrfs, not 'none'"},
	    {"--state", "x", "--state takes a state's number (0, 1, ...), not 'x'"},
	    {"--disk-fault", "flush",
	     "--disk-fault takes ignore-flush or reorder-across-flush, not 'flush'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_misuse(
		    parse("crashtest", "p", "--fs", "ext4", bad[i].opt, bad[i].value, NULL),
		    bad[i].want);
}

/* Long options may be abbreviated, as getopt_long allows and fsmix always took ("--he" is
 * --help); the hidden --help-man is matched only in full, so it makes no abbreviation of
 * --help ambiguous. */
static void test_abbreviations(void)
{
	CHECK_EQ_I(parse("--he", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_HELP);
	CHECK_EQ_I(parse("--hel", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_HELP);
	CHECK_EQ_I(parse("run", "p", "--help", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_HELP);
	CHECK_EQ_I(parse("--help-man", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_HELP_MAN);
	check_misuse(parse("--help-m", NULL), "unknown option '--help-m'");
	/* --vers: --ver is --verify's too */
	CHECK_EQ_I(parse("run", "p", "--thr", "4", "--vers", NULL), FAIL_NONE);
	CHECK_EQ_I(cl.action, ACT_VERSION);
}

/* The rows agree with each other and every row is documented. */
static void test_table(void)
{
	for (size_t i = 0; i < n_option_rows; i++) {
		const struct option_row *r = &option_rows[i];
		CHECK(r->set && r->help && r->man && r->commands);
		for (size_t j = 0; j < i; j++) {
			const struct option_row *q = &option_rows[j];
			if (strcmp(q->name, r->name))
				continue;
			/* one getopt entry per name: the same value syntax and short name */
			CHECK_EQ_I(q->arg == ARG_REQUIRED, r->arg == ARG_REQUIRED);
			CHECK_EQ_I(q->short_name, r->short_name);
		}
	}
	for (size_t i = 0; i < n_commands; i++)
		CHECK_EQ_I(commands[i].id, (int)i);
}

static char *capture(void (*print)(FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	print(f);
	fclose(f);
	return text;
}

/* --help and --help-man name every documented option and every command. */
static void test_generated(void)
{
	char *help = capture(usage_print), *man = capture(usage_print_man);
	for (size_t i = 0; i < n_option_rows; i++) {
		const struct option_row *r = &option_rows[i];
		char opt[64], roff[128];
		snprintf(opt, sizeof(opt), "--%s", r->name);
		size_t k = (size_t)snprintf(roff, sizeof(roff), "\\fB\\-\\-");
		for (const char *s = r->name; *s && k < sizeof(roff) - 4; s++)
			k += (size_t)(*s == '-' ? snprintf(roff + k, 3, "\\-") : (roff[k] = *s, 1));
		roff[k] = '\0';
		bool hidden = r->section == SEC_HIDDEN;
		if (!strstr(help, opt) != hidden || !strstr(man, roff) != hidden)
			TEST_FAIL("%s is %sin --help or the man page", opt, hidden ? "" : "not ");
	}
	for (size_t i = 0; i < n_commands; i++)
		CHECK(strstr(help, commands[i].synopsis[0]) != NULL);
	CHECK(!strncmp(help, "usage: fsmix run PROFILE [options]", 34));
	CHECK(strstr(man, ".SH SYNOPSIS\n") && strstr(man, ".SH OPTIONS\n"));
	/* in the synopsis, a command's name is bold and a value italic */
	CHECK(strstr(man, "\\fBfsmix\\fR \\fBrun\\fR \\fIPROFILE\\fR [\\fIoptions\\fR]\n") != NULL);
	/* an option's heading is a line of its own, with or without a value */
	CHECK(strstr(man, ".TP\n\\fB\\-\\-force\\fR\n(compare) ") != NULL);
	CHECK(strstr(man, ".TP\n\\fB\\-\\-durability\\-log\\fR \\fIFILE\\fR\n(run, verify) ") !=
	      NULL);
	free(help);
	free(man);
}

/* job_describe: what the ranks of an MPI job compare. Each option is there with its value, so
 * ranks given different files or counts differ (a value shown as "on" would pass them as alike);
 * the overrides are left to the resolved profile. */
static void check_described(const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	job_describe(&cl, f);
	fclose(f);
	if (strcmp(text, want))
		fprintf(stderr, "job_describe gave:\n%s--- wanted:\n%s", text, want);
	CHECK(!strcmp(text, want));
	free(text);
}

static void test_job_describe(void)
{
	CHECK_EQ_I(parse("run", "p", "--json", "a.json", "--csv", "b.csv", "--build-threads", "2",
	                 "--lat-log", "l.log", "-t", "4", NULL),
	           FAIL_NONE);
	check_described("action=a command\ncommand=run\n--build-threads=2\n--json=a.json\n"
	                "--csv=b.csv\n--lat-log=l.log\n");
	CHECK_EQ_I(parse("run", "p", "--repeat", "3", "--json", "r.json", NULL), FAIL_NONE);
	check_described("action=a command\ncommand=run\n--json=r.json\n--repeat=3\n");
	CHECK_EQ_I(parse("check", "--json", "p", NULL), FAIL_NONE);
	check_described("action=a command\ncommand=check\n--json=on\n");
	CHECK_EQ_I(parse("run", "p", "--interval", "0.5", NULL), FAIL_NONE);
	check_described("action=a command\ncommand=run\n--interval=0.5\n");
	CHECK_EQ_I(parse("plot", "r.json", "--output", "o.png", NULL), FAIL_NONE);
	check_described("action=a command\ncommand=plot\n--output=o.png\nfile 1=r.json\n");
}

/* job_plan_text: the resolved profile (with the command line's overrides), so ranks given
 * another profile or override differ; job_same_plan alone agrees with itself. */
static void test_job_plan(void)
{
	const char *src = getenv("FSMIX_SOURCE_DIR");
	char profile[PATH_MAX];
	snprintf(profile, sizeof(profile), "%s/profiles/default.ffsb", src ? src : ".");
	CHECK_EQ_I(parse("run", profile, "-t", "3", NULL), FAIL_NONE);
	size_t len = 0;
	char *text = job_plan_text(&cl, &len);
	CHECK(text != NULL && len == strlen(text));
	CHECK(text && strstr(text, "num_threads") && strstr(text, "3"));
	char *again = job_plan_text(&cl, &len);
	CHECK(text && again && !strcmp(text, again));
	free(again);
	CHECK_EQ_I(parse("run", profile, "-t", "4", NULL), FAIL_NONE);
	again = job_plan_text(&cl, &len);
	CHECK(text && again && strcmp(text, again)); /* another thread count: another text */
	free(again);
	free(text);
	CHECK_EQ_I(job_same_plan(&cl), FAIL_NONE);
}

int main(void)
{
	RUN(test_exit_status_of);
	RUN(test_misuse);
	RUN(test_command_args);
	RUN(test_forms);
	RUN(test_repeat_until);
	RUN(test_abbreviations);
	RUN(test_crash_after);
	RUN(test_crashtest_values);
	RUN(test_table);
	RUN(test_generated);
	RUN(test_job_describe);
	RUN(test_job_plan);
	return test_summary();
}
