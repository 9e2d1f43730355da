/* main.c - command line: parses argv, dispatches the subcommands and maps results to the
 * documented exit codes. The only place that exits. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "diag.h"
#include "engine.h"
#include "exitcode.h"
#include "keys.h"
#include "overrides.h"
#include "plan.h"
#include "profile.h"

#define MAX_OVERRIDES 256

static const char usage_text[] =
    "usage: fsmix run PROFILE [options]     build the file tree and run the workload\n"
    "       fsmix PROFILE [options]         the same (FFSB style)\n"
    "       fsmix check PROFILE [options]   validate; print every key, its value and origin\n"
    "       fsmix clean PROFILE [options]   remove the trees fsmix built for PROFILE\n"
    "       fsmix keys [KEY] [--markdown]   reference of every profile key\n"
    "       fsmix --help | --version\n"
    "\n"
    "Profile overrides (run and check; each is validated like the profile):\n"
    "  -t, --time S              run length in seconds (the global key time)\n"
    "  -l, --location [N=]DIR    location of every filesystem, or of filesystem N only\n"
    "  -n, --threads [G=]N       num_threads of every thread group, or of group G only\n"
    "  -s, --set SECTION.KEY=V   any key, e.g. --set filesystem0.num_files=2000,\n"
    "                            --set threadgroup0.enable_stats=1, --set time=10\n"
    "      --seed N              random seed (the global key seed)\n"
    "      --strict-ffsb         reject fsmix extensions: the profile must run on FFSB 6.0\n"
    "Run options:\n"
    "      --continue-on-error   count failed operations and go on (default: stop the run)\n"
    "      --cleanup             remove fsmix's trees (<location>/fsmix.fsN) after the run\n"
    "      --json FILE           write the results as JSON (docs/output.md; '-': stdout)\n"
    "      --csv FILE            write one CSV row per group and operation or syscall\n"
    "      --format ffsb         print only the FFSB-compatible part of the text report\n"
    "      --interval S          record ops/s, MB/s and op p99 every S seconds (JSON, CSV)\n"
    "      --lat-log FILE        one line per operation: time, group, thread, op, latency ns,\n"
    "                            bytes, ns in sync calls (docs/ops.md)\n"
    "Check options:\n"
    "      --json                print the resolved profile as JSON\n"
    "\n"
    "Exit status: 0 success, 1 the run failed (I/O error), 2 bad profile, command line or\n"
    "location, 3 unsupported (e.g. O_DIRECT refused), 130 interrupted.\n"
    "fsmix works in <location>/fsmix.fsN and never touches anything it did not create.\n"
    "Docs: docs/profile.md (the profile language), docs/ops.md (operations), man fsmix.\n";

enum long_only {
	OPT_SEED = 1000,
	OPT_STRICT,
	OPT_JSON,
	OPT_MARKDOWN,
	OPT_CONTINUE,
	OPT_CLEANUP,
	OPT_CSV,
	OPT_FORMAT,
	OPT_INTERVAL,
	OPT_LATLOG
};

static const struct option long_opts[] = {
    {"time", required_argument, NULL, 't'},
    {"location", required_argument, NULL, 'l'},
    {"threads", required_argument, NULL, 'n'},
    {"set", required_argument, NULL, 's'},
    {"seed", required_argument, NULL, OPT_SEED},
    {"strict-ffsb", no_argument, NULL, OPT_STRICT},
    {"json", optional_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"lat-log", required_argument, NULL, OPT_LATLOG},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"continue-on-error", no_argument, NULL, OPT_CONTINUE},
    {"cleanup", no_argument, NULL, OPT_CLEANUP},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

struct cli {
	const char *command;
	const char *profile;
	const char *key; /* keys KEY */
	struct override ovr[MAX_OVERRIDES];
	size_t n_ovr;
	bool strict_ffsb, json, markdown, continue_on_error, cleanup, ffsb_only;
	const char *json_path, *csv_path; /* run --json FILE / --csv FILE */
	const char *lat_log_path;         /* run --lat-log FILE */
	double interval_s;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "fsmix: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'fsmix --help'.\n");
	return EXIT_BAD_INPUT;
}

static bool is_command(const char *s)
{
	return !strcmp(s, "run") || !strcmp(s, "check") || !strcmp(s, "keys") ||
	       !strcmp(s, "clean") || !strcmp(s, "help");
}

/* Parses argv into cli. Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	int first = 1;
	if (argc >= 2 && is_command(argv[1])) {
		c->command = argv[1];
		first = 2;
	} else if (argc >= 2 && argv[1][0] != '-') {
		c->command = "run"; /* fsmix PROFILE */
	}
	optind = first;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":t:l:n:s:hV", long_opts, NULL)) != -1) {
		enum override_kind kind;
		switch (ch) {
		case 't':
			kind = OVR_TIME;
			break;
		case 'l':
			kind = OVR_LOCATION;
			break;
		case 'n':
			kind = OVR_THREADS;
			break;
		case 's':
			kind = OVR_SET;
			break;
		case OPT_SEED:
			kind = OVR_SEED;
			break;
		case OPT_STRICT:
			c->strict_ffsb = true;
			continue;
		case OPT_JSON:
			/* check --json prints to stdout; run --json FILE (or --json=FILE) writes
			 * FILE. getopt's optional argument only takes the '=' form, so take the
			 * next word. */
			c->json = true;
			c->json_path = optarg;
			if (!optarg && c->command && strcmp(c->command, "check") && optind < argc &&
			    (argv[optind][0] != '-' || !strcmp(argv[optind], "-")))
				c->json_path = argv[optind++];
			continue;
		case OPT_CSV:
			c->csv_path = optarg;
			continue;
		case OPT_FORMAT:
			if (!strcmp(optarg, "ffsb"))
				c->ffsb_only = true;
			else if (strcmp(optarg, "text"))
				return usage_error("--format takes 'text' or 'ffsb', not '%s'",
				                   optarg);
			continue;
		case OPT_INTERVAL: {
			char *end;
			c->interval_s = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(c->interval_s >= 0.01 && c->interval_s <= 86400))
				return usage_error(
				    "--interval takes seconds from 0.01 to 86400, not '%s'",
				    optarg);
			continue;
		}
		case OPT_LATLOG:
			c->lat_log_path = optarg;
			continue;
		case OPT_MARKDOWN:
			c->markdown = true;
			continue;
		case OPT_CONTINUE:
			c->continue_on_error = true;
			continue;
		case OPT_CLEANUP:
			c->cleanup = true;
			continue;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("fsmix %s\n", FSMIX_VERSION);
			return EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
		if (c->n_ovr == MAX_OVERRIDES)
			return usage_error("too many overrides (the limit is %s)", "256");
		override_init(&c->ovr[c->n_ovr++], kind, optarg);
	}
	if (!c->command) {
		fputs(usage_text, stderr);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(c->command, "help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	int nargs = argc - optind;
	if (!strcmp(c->command, "keys")) {
		if (nargs > 1)
			return usage_error("keys takes at most one key name, got '%s'",
			                   argv[optind + 1]);
		c->key = nargs ? argv[optind] : NULL;
		return -1;
	}
	if (nargs == 0)
		return usage_error("%s needs a profile: fsmix run PROFILE", c->command);
	if (nargs > 1)
		return usage_error("unexpected argument '%s' (one profile at a time)",
		                   argv[optind + 1]);
	c->profile = argv[optind];
	if ((c->continue_on_error || c->cleanup) && strcmp(c->command, "run"))
		return usage_error("--continue-on-error and --cleanup are options of '%s' only",
		                   "run");
	if (c->json && !strcmp(c->command, "check") && c->json_path)
		return usage_error("check --json prints to stdout and takes no file (got '%s')",
		                   c->json_path);
	if (c->json_path && c->csv_path && !strcmp(c->json_path, "-") && !strcmp(c->csv_path, "-"))
		return usage_error("%s", "--json - and --csv - cannot both write to stdout");
	if (c->json && !strcmp(c->command, "run") && !c->json_path)
		return usage_error("%s",
		                   "run --json needs a file: --json FILE, or --json - for stdout");
	if (c->lat_log_path && strcmp(c->command, "run"))
		return usage_error("--lat-log is an option of '%s' only", "run");
	if ((c->csv_path || c->ffsb_only || c->interval_s > 0) && strcmp(c->command, "run"))
		return usage_error("--csv, --format and --interval are options of '%s' only",
		                   "run");
	if (c->json && strcmp(c->command, "check") && strcmp(c->command, "run"))
		return usage_error("--json is an option of 'run' and 'check', not '%s'",
		                   c->command);
	return -1;
}

static int cmd_keys(const struct cli *c)
{
	if (c->markdown) {
		keys_print_markdown(stdout);
		return EXIT_OK;
	}
	if (keys_print_reference(stdout, c->key)) {
		const char *hint = key_suggest(c->key);
		fprintf(stderr, "fsmix: unknown key '%s'%s%s%s\n", c->key,
		        hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

/* Loads the profile, applies overrides and builds the plan; prints every message. */
static int load(const struct cli *c, struct profile *p, struct plan *pl, struct diag *d)
{
	struct plan_opts po = {.strict_ffsb = c->strict_ffsb};
	struct stat sb;
	int rc = 0;
	if (stat(c->profile, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		diag_error(d, ((struct src_loc){c->profile, 0}), NULL, NULL,
		           "is a directory, not a profile");
		/* An empty profile keeps the caller's cleanup uniform; its own messages are
		 * dropped. */
		struct diag scratch;
		diag_init(&scratch);
		profile_parse_buffer(p, c->profile, "", 0, &scratch);
		diag_free(&scratch);
		return -1;
	}
	if (profile_parse_file(p, c->profile, d))
		rc = -1;
	if (overrides_apply(p, (struct override *)c->ovr, c->n_ovr, d))
		rc = -1;
	/* Cross-key rules run even after per-key errors, so that one pass reports everything;
	 * a profile that is not text at all has nothing more to say. */
	if (p->file && (p->any_content || rc == 0)) {
		if (plan_build(pl, p, &po, d))
			rc = -1;
		else if (rc)
			plan_free(pl);
	}
	return rc;
}

static int cmd_check(const struct cli *c)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	diag_init(&d);
	int rc = load(c, &p, &pl, &d);
	if (c->json) {
		if (p.file)
			check_print_json(stdout, &p, rc ? NULL : &pl, &d);
		else
			diag_print(&d, stderr);
	} else {
		diag_print(&d, stderr);
		if (rc == 0) {
			check_print_text(stdout, &p, &pl);
			fprintf(stderr, "%s: OK (%zu warning%s)\n", c->profile, d.warnings,
			        d.warnings == 1 ? "" : "s");
		}
	}
	if (rc)
		fprintf(stderr, "fsmix: %zu error%s in %s; nothing was run\n", d.errors,
		        d.errors == 1 ? "" : "s", c->profile);
	if (rc == 0)
		plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	return rc ? EXIT_BAD_INPUT : EXIT_OK;
}

static int cmd_run(const struct cli *c, bool clean_only, int argc, char **argv)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	diag_init(&d);
	int rc = load(c, &p, &pl, &d);
	diag_print(&d, stderr);
	if (rc) {
		fprintf(stderr, "fsmix: %zu error%s in %s; nothing was run\n", d.errors,
		        d.errors == 1 ? "" : "s", c->profile);
		profile_free(&p);
		diag_free(&d);
		return EXIT_BAD_INPUT;
	}
	struct engine_opts eo = {.continue_on_error = c->continue_on_error,
	                         .cleanup = c->cleanup,
	                         .out = stdout,
	                         .log = stderr,
	                         .json_path = c->json_path,
	                         .csv_path = c->csv_path,
	                         .ffsb_only = c->ffsb_only,
	                         .interval_s = c->interval_s,
	                         .lat_log_path = c->lat_log_path,
	                         .profile = &p,
	                         .profile_path = c->profile,
	                         .argc = argc,
	                         .argv = argv};
	/* --json - / --csv -: stdout carries only that document; the text report moves to stderr.
	 */
	if ((c->json_path && !strcmp(c->json_path, "-")) ||
	    (c->csv_path && !strcmp(c->csv_path, "-")))
		eo.out = stderr;
	if (clean_only) {
		rc = engine_clean(&pl, &eo);
	} else {
		setvbuf(stdout, NULL, _IOLBF, 0);
		rc = engine_run(&pl, &eo);
	}
	plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	return rc;
}

int main(int argc, char **argv)
{
	static struct cli c;
	int rc = parse_args(argc, argv, &c);
	if (rc >= 0)
		return rc;
	if (!strcmp(c.command, "keys"))
		return cmd_keys(&c);
	if (!strcmp(c.command, "check"))
		return cmd_check(&c);
	return cmd_run(&c, !strcmp(c.command, "clean"), argc, argv);
}
