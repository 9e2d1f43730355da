/* main.c - command line: parses argv, dispatches the subcommands and maps results to the
 * documented exit codes. The only place that exits. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "compare.h"
#include "engine.h"
#include "exitcode.h"
#include "exitcode_map.h"
#include "keys.h"
#include "latplot.h"
#include "outfile.h"
#include "overrides.h"
#include "plan.h"
#include "plot.h"
#include "preflight.h"
#include "profile.h"
#include "report_data.h"
#include "run_report.h"
#include "sweep.h"

#define MAX_OVERRIDES 256

static const char usage_text[] =
    "usage: fsmix run PROFILE [options]     build the file tree and run the workload\n"
    "       fsmix PROFILE [options]         the same (FFSB style)\n"
    "       fsmix check PROFILE [options]   validate; print every key, its value and origin\n"
    "       fsmix clean PROFILE [options]   remove the trees fsmix built for PROFILE\n"
    "       fsmix compare BASE.json NEW.json [...] [--force] [--csv F] [--json F] [--plot F]\n"
    "                                       before/after table with +/-/0 (2*STDDEV) marks\n"
    "       fsmix plot RESULT.json -o FILE  draw a sweep, a run over time (--interval) or a\n"
    "                                       run's msec_range histogram (.png or .svg)\n"
    "       fsmix plot --lat-log LOG -o FILE  every operation's latency over time\n"
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
    "      --strict-ffsb         accept only what FFSB 6.0 runs unchanged: no fsmix\n"
    "                            extensions, no FFSB 5 keys or names\n"
    "Run options:\n"
    "      --continue-on-error   count failed operations and go on (default: stop the run)\n"
    "      --cleanup             remove fsmix's trees (<location>/fsmix.fsN) after the run\n"
    "      --build-threads N     threads that build a file tree (default: one per CPU, 2-16)\n"
    "      --json FILE           write the results as JSON (docs/output.md; '-': stdout)\n"
    "      --csv FILE            write one CSV row per group and operation or syscall\n"
    "      --format ffsb         print only the FFSB-compatible part of the text report\n"
    "      --interval S          record ops/s, MB/s and op p99 every S seconds (JSON, CSV)\n"
    "      --lat-log FILE        one line per operation: time, group, thread, op, latency ns,\n"
    "                            bytes, ns in sync calls, response ns (docs/ops.md;\n"
    "                            '-': stdout)\n"
    "Sweeps (run):\n"
    "  -n, --threads [G=]LIST    run once per thread count: 1,2,4  1-64:x2  1-8:+1\n"
    "      --sweep SEC.KEY=LIST  run once per value of any key, e.g. "
    "filesystem0.num_files=1000,2000\n"
    "      --repeat N            run every point N times; the table gives mean +- stddev\n"
    "      --plot FILE           draw the sweep, or a single run over time (needs --interval);\n"
    "                            .png or .svg, needs gnuplot\n"
    "Check options:\n"
    "      --json                print the resolved profile as JSON\n"
    "\n"
    "Output files: a regular file is replaced atomically; a device or FIFO is written in\n"
    "place, a symbolic link is followed; both are never replaced (docs/output.md).\n"
    "Exit status: 0 success, 1 the run failed (I/O error, or stdout could not be written),\n"
    "2 bad profile, command line, location or output path, 3 unsupported (e.g. O_DIRECT\n"
    "refused), 130 interrupted.\n"
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
	OPT_SWEEP,
	OPT_REPEAT,
	OPT_PLOT,
	OPT_FORCE,
	OPT_LATLOG,
	OPT_BUILD_THREADS
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
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"output", required_argument, NULL, 'o'},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"continue-on-error", no_argument, NULL, OPT_CONTINUE},
    {"cleanup", no_argument, NULL, OPT_CLEANUP},
    {"build-threads", required_argument, NULL, OPT_BUILD_THREADS},
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
	struct sweep_dim dims[SWEEP_MAX_DIMS]; /* --threads LIST, --sweep SECTION.KEY=LIST */
	size_t n_dims;
	unsigned repeat;
	unsigned build_threads; /* run --build-threads; 0: one per CPU */
	const char *plot_path;  /* run --plot, compare --plot, plot -o */
	bool force;             /* compare: different profiles */
	char **files;           /* compare and plot arguments */
	size_t n_files;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "fsmix: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'fsmix --help'.\n");
	return EXIT_BAD_INPUT;
}

/* A whole number from 1 to max (strtoul's syntax, but no minus sign: it would wrap). */
static bool parse_count(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || s[0] == '-' || v < 1 || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool is_command(const char *s)
{
	return !strcmp(s, "run") || !strcmp(s, "check") || !strcmp(s, "keys") ||
	       !strcmp(s, "clean") || !strcmp(s, "compare") || !strcmp(s, "plot") ||
	       !strcmp(s, "help");
}

/* --threads [G=]LIST or --sweep SECTION.KEY=LIST: one more sweep dimension. Returns -1, or an
 * exit status for a bad list. */
static int add_dim(struct cli *c, bool threads, const char *arg)
{
	char err[256];
	if (c->n_dims == SWEEP_MAX_DIMS)
		return usage_error("at most %s sweep dimensions", "8");
	struct sweep_dim *d = &c->dims[c->n_dims];
	const char *eq = strchr(arg, '=');
	const char *list = arg;
	memset(d, 0, sizeof(*d));
	d->threads = threads;
	if (eq) {
		size_t len = (size_t)(eq - arg);
		if (len == 0 || len >= sizeof(d->target))
			return usage_error("'%s': expected NAME=VALUES", arg);
		memcpy(d->target, arg, len);
		d->target[len] = '\0';
		list = eq + 1;
	} else if (!threads) {
		return usage_error("--sweep takes SECTION.KEY=V1,V2,... (e.g. "
		                   "filesystem0.num_files=1000,2000), not '%s'",
		                   arg);
	}
	char target[sizeof(d->target)];
	memcpy(target, d->target, sizeof(target));
	if (threads && !target[0])
		snprintf(d->label, sizeof(d->label), "threads");
	else if (threads && target[0] >= '0' && target[0] <= '9')
		snprintf(d->label, sizeof(d->label), "threadgroup%s.threads", target);
	else if (threads)
		snprintf(d->label, sizeof(d->label), "%s.threads", target);
	else
		snprintf(d->label, sizeof(d->label), "%s", target);
	if (sweep_parse_list(list, d, err, sizeof(err))) {
		sweep_dim_free(d);
		return usage_error("%s", err);
	}
	c->n_dims++;
	return -1;
}

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

/* How many outputs go to stdout ("-"): it can carry one document, and then the text report
 * moves to stderr. */
static int stdout_outputs(const struct cli *c)
{
	return is_stdout(c->json_path) + is_stdout(c->csv_path) + is_stdout(c->lat_log_path);
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
	while ((ch = getopt_long(argc, argv, ":t:l:n:s:o:hV", long_opts, NULL)) != -1) {
		enum override_kind kind;
		switch (ch) {
		case 't':
			kind = OVR_TIME;
			break;
		case 'l':
			kind = OVR_LOCATION;
			break;
		case 'n':
			if (sweep_is_list(optarg)) {
				int rc = add_dim(c, true, optarg);
				if (rc >= 0)
					return rc;
				continue;
			}
			kind = OVR_THREADS;
			break;
		case OPT_SWEEP: {
			int rc = add_dim(c, false, optarg);
			if (rc >= 0)
				return rc;
			continue;
		}
		case OPT_REPEAT:
			if (!parse_count(optarg, 1000, &c->repeat))
				return usage_error(
				    "--repeat takes a count from 1 to 1000, not '%s'", optarg);
			continue;
		case OPT_BUILD_THREADS:
			if (!parse_count(optarg, 256, &c->build_threads))
				return usage_error(
				    "--build-threads takes a count from 1 to 256, not '%s'",
				    optarg);
			continue;
		case OPT_PLOT:
		case 'o':
			c->plot_path = optarg;
			continue;
		case OPT_FORCE:
			c->force = true;
			continue;
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
	if (stdout_outputs(c) > 1) /* for every command, compare and plot included */
		return usage_error("%s", "only one of --json, --csv and --lat-log can write to "
		                         "stdout ('-')");
	if (!strcmp(c->command, "plot") && c->lat_log_path) {
		if (nargs)
			return usage_error("plot --lat-log LOG takes no RESULT.json (got '%s')",
			                   argv[optind]);
		if (!c->plot_path)
			return usage_error("%s", "plot needs -o FILE (.png or .svg)");
		return -1;
	}
	if (!strcmp(c->command, "compare") || !strcmp(c->command, "plot")) {
		bool cmp = !strcmp(c->command, "compare");
		if (cmp ? nargs < 2 : nargs != 1)
			return usage_error("%s",
			                   cmp ? "compare needs BASE.json and at least one NEW.json"
			                       : "plot needs one RESULT.json and -o FILE");
		if (!cmp && !c->plot_path)
			return usage_error("%s", "plot needs -o FILE (.png or .svg)");
		c->files = argv + optind;
		c->n_files = (size_t)nargs;
		return -1;
	}
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
	if ((c->continue_on_error || c->cleanup || c->build_threads) && strcmp(c->command, "run"))
		return usage_error("--continue-on-error, --cleanup and --build-threads are options "
		                   "of '%s' only",
		                   "run");
	if (c->json && !strcmp(c->command, "check") && c->json_path)
		return usage_error("check --json prints to stdout and takes no file (got '%s')",
		                   c->json_path);
	if (c->json && !strcmp(c->command, "run") && !c->json_path)
		return usage_error("%s",
		                   "run --json needs a file: --json FILE, or --json - for stdout");
	if ((c->n_dims || c->repeat > 1) && strcmp(c->command, "run"))
		return usage_error("thread lists, --sweep and --repeat are options of '%s' only",
		                   "run");
	if (c->plot_path && !strcmp(c->command, "run") && !c->n_dims && c->repeat <= 1 &&
	    c->interval_s <= 0)
		return usage_error("%s",
		                   "run --plot draws a sweep or a run over time: give --threads "
		                   "LIST, --sweep, --repeat or --interval S");
	if (c->plot_path && strcmp(c->command, "run"))
		return usage_error("--plot is an option of 'run' and 'compare', not '%s'",
		                   c->command);
	if ((c->n_dims || c->repeat > 1) && c->interval_s > 0)
		return usage_error("%s", "--interval is not available in sweeps");
	if (c->lat_log_path && strcmp(c->command, "run"))
		return usage_error("--lat-log is an option of '%s' only", "run");
	if (c->lat_log_path && (c->n_dims || c->repeat > 1))
		return usage_error("%s", "--lat-log is not available in sweeps");
	if (c->csv_path && !strcmp(c->command, "compare"))
		; /* compare --csv FILE writes its table */
	else if ((c->csv_path || c->ffsb_only || c->interval_s > 0) && strcmp(c->command, "run"))
		return usage_error("--csv, --format and --interval are options of '%s' only",
		                   "run");
	if (c->json && strcmp(c->command, "check") && strcmp(c->command, "run") &&
	    strcmp(c->command, "compare"))
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
	return profile_load(c->profile, c->ovr, c->n_ovr, &po, p, pl, d);
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

static int cmd_sweep(struct cli *c, int argc, char **argv)
{
	struct sweep_spec s = {.profile_path = c->profile,
	                       .ovr = c->ovr,
	                       .n_ovr = c->n_ovr,
	                       .po = {.strict_ffsb = c->strict_ffsb},
	                       .n_dims = c->n_dims,
	                       .repeat = c->repeat ? c->repeat : 1,
	                       .eopts = {.continue_on_error = c->continue_on_error,
	                                 .cleanup = false,
	                                 .build_threads = c->build_threads,
	                                 .log = stderr},
	                       .out = stdout,
	                       .argc = argc,
	                       .argv = argv,
	                       .json_path = c->json_path,
	                       .csv_path = c->csv_path,
	                       .plot_path = c->plot_path,
	                       .exit_status_of = exit_status_of};
	memcpy(s.dims, c->dims, sizeof(s.dims));
	if (stdout_outputs(c))
		s.out = stderr;
	int rc = exit_status_of(sweep_run(&s));
	for (size_t d = 0; d < c->n_dims; d++)
		sweep_dim_free(&c->dims[d]);
	return rc;
}

static int cmd_compare(const struct cli *c)
{
	struct compare_opts o = {.force = c->force,
	                         .csv_path = c->csv_path,
	                         .json_path = c->json_path,
	                         .plot_path = c->plot_path,
	                         .out = stdout,
	                         .log = stderr};
	if (stdout_outputs(c))
		o.out = stderr;
	return exit_status_of(compare_files((const char *const *)c->files, c->n_files, &o));
}

static int cmd_plot(const struct cli *c)
{
	if (c->lat_log_path)
		return exit_status_of(latplot_write(c->lat_log_path, c->plot_path, stderr));
	json_error_t e;
	json_t *doc = json_load_file(c->files[0], 0, &e);
	if (!doc) {
		fprintf(stderr, "fsmix: %s:%d: not a JSON document: %s\n", c->files[0], e.line,
		        e.text);
		return EXIT_BAD_INPUT;
	}
	int rc = exit_status_of(plot_write(doc, NULL, c->plot_path, stderr));
	json_decref(doc);
	return rc;
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
	                         .build_threads = c->build_threads,
	                         .log = stderr,
	                         .interval_s = c->interval_s,
	                         .lat_log_path = c->lat_log_path};
	struct run_reports rr = {
	    .out = stdout,
	    .log = stderr,
	    .ffsb_only = c->ffsb_only,
	    .json_path = c->json_path,
	    .csv_path = c->csv_path,
	    .run = {.argc = argc, .argv = argv, .profile_path = c->profile, .profile = &p}};
	/* --json - / --csv - / --lat-log -: stdout carries only that document; the text report
	 * moves to stderr. */
	if (stdout_outputs(c))
		rr.out = stderr;
	struct results res = {0};
	if (clean_only) {
		rc = engine_clean(&pl, &eo);
	} else if ((rc = preflight_locations(&pl, stderr))) {
		/* a bad location: nothing is created, not even the first filesystem's tree */
	} else {
		setvbuf(stdout, NULL, _IOLBF, 0);
		rc = run_and_report(&pl, &eo, &rr, &res);
	}
	/* run --plot FILE --interval S: the run over time, from its JSON document */
	json_t *results = c->plot_path && res.measured ? report_json_build(&res, &rr.run) : NULL;
	if (results) {
		int prc = exit_status_of(plot_write(results, NULL, c->plot_path, stderr));
		rc = rc ? rc : prc;
		json_decref(results);
	} else if (c->plot_path && !clean_only && rc != EXIT_BAD_INPUT) {
		fprintf(stderr, "fsmix: nothing was measured: no plot drawn\n");
	}
	results_free(&res);
	plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	return rc;
}

/* Every file the command will write can be written (nothing is created yet): a bad path is
 * found before the run, not after it with the results lost. */
static int preflight_outputs(const struct cli *c)
{
	if (!strcmp(c->command, "check") || !strcmp(c->command, "keys") ||
	    !strcmp(c->command, "clean"))
		return 0;
	int rc = 0;
	char why[MSG_MAX];
	if (c->plot_path && plot_check_output(c->plot_path, why, sizeof(why))) {
		fprintf(stderr, "fsmix: %s %s; nothing was run\n",
		        strcmp(c->command, "plot") ? "--plot" : "-o", why);
		rc = EXIT_BAD_INPUT;
	}
	if (preflight_output("--json", c->json_path, stderr))
		rc = EXIT_BAD_INPUT;
	if (preflight_output("--csv", c->csv_path, stderr))
		rc = EXIT_BAD_INPUT;
	/* plot --lat-log LOG reads LOG */
	if (strcmp(c->command, "plot") && preflight_output("--lat-log", c->lat_log_path, stderr))
		rc = EXIT_BAD_INPUT;
	return rc;
}

static int dispatch(struct cli *c, int argc, char **argv)
{
	int rc = preflight_outputs(c);
	if (rc)
		return rc;
	if (!strcmp(c->command, "compare"))
		return cmd_compare(c);
	if (!strcmp(c->command, "plot"))
		return cmd_plot(c);
	if (!strcmp(c->command, "run") && (c->n_dims || c->repeat > 1))
		return cmd_sweep(c, argc, argv);
	if (!strcmp(c->command, "keys"))
		return cmd_keys(c);
	if (!strcmp(c->command, "check"))
		return cmd_check(c);
	return cmd_run(c, !strcmp(c->command, "clean"), argc, argv);
}

/* A closed descriptor 0, 1 or 2 would be taken by the next file fsmix opens (a report would
 * then land in the JSON's temporary file): park /dev/null there, read-only, so that writes
 * to a closed stdout still fail and are reported. */
static void keep_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

int main(int argc, char **argv)
{
	static struct cli c;
	keep_std_fds();
	/* A closed stdout (fsmix ... | head -1) must not kill the run before its JSON is written
	 * and its trees are cleaned up: the failure is reported at the end instead. */
	outfile_ignore_sigpipe();
	int rc = parse_args(argc, argv, &c);
	if (rc < 0)
		rc = dispatch(&c, argc, argv);
	char why[256];
	if (outfile_stdout_failed(why, sizeof(why))) {
		fprintf(stderr, "fsmix: %s\n", why);
		rc = rc ? rc : EXIT_RUN_FAILED;
	}
	return rc;
}
