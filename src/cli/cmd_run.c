/* cmd_run.c - `fsmix run` (one run, or a sweep) and `fsmix clean`: load the profile, then
 * hand the plan to the engine or the sweep. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "engine.h"
#include "exitcode.h"
#include "job.h"
#include "load.h"
#include "overrides.h"
#include "plan.h"
#include "profile.h"
#include "report_data.h"
#include "run_report.h"
#include "sweep.h"

/* The profile with the command line's overrides, as a plan; prints every message. FAIL_NONE
 * with p, pl and d to free, or FAIL_INPUT with p and d to free (and "nothing was run" said). */
static enum failure load(const struct cli *c, struct profile *p, struct plan *pl, struct diag *d)
{
	int rc = load_profile(c, true, p, pl, d); /* nested locations, as fsmix check says */
	diag_print(d, stderr);
	if (rc == 0)
		return FAIL_NONE;
	fprintf(stderr, "fsmix: %zu error%s in %s; nothing was run\n", d->errors,
	        d->errors == 1 ? "" : "s", c->profile);
	return FAIL_INPUT;
}

/* load, then every rank of a distributed run agrees (job.h): one that could not load the
 * profile fails them all. The plan is freed unless FAIL_NONE; p and d always need freeing. */
static enum failure load_in_job(const struct cli *c, struct profile *p, struct plan *pl,
                                struct diag *d)
{
	enum failure f = load(c, p, pl, d);
	if (job_profile(f, d) && f == FAIL_NONE) { /* another rank could not load it */
		plan_free(pl);
		f = FAIL_INPUT;
	}
	return f;
}

static struct engine_opts engine_opts_of(const struct cli *c)
{
	return (struct engine_opts){.continue_on_error = c->continue_on_error,
	                            .cleanup = c->cleanup,
	                            .build_threads = c->build_threads,
	                            .shared_tree = c->shared_tree,
	                            .log = stderr,
	                            .interval_s = c->interval_s,
	                            .lat_log_path = c->lat_log_path,
	                            .durability_log_path = c->durability_log_path,
	                            /* a distributed run (MPI): docs/distributed.md */
	                            .hooks = job_hooks(),
	                            .seed_offset = (uint64_t)job_rank(),
	                            .crash = c->crash,
	                            .crash_random = c->crash_random,
	                            .crash_after_s = c->crash_after_s,
	                            .json_path = c->json_path,
	                            .csv_path = c->csv_path,
	                            .plot_path = c->plot_path};
}

/* One run: the locations are checked before the first tree is made; the text report, --csv,
 * --plot (the run over time, with --interval) and --json (run_report.h). */
static enum failure run_once(const struct cli *c, const struct plan *pl, struct profile *p)
{
	struct engine_opts eo = engine_opts_of(c);
	struct run_reports rr = {
	    .out = stdout,
	    .log = stderr,
	    .ffsb_only = c->ffsb_only,
	    .json_path = c->json_path,
	    .csv_path = c->csv_path,
	    .plot_path = c->plot_path,
	    .run = {.argc = c->argc, .argv = c->argv, .profile_path = c->profile, .profile = p}};
	/* --json - / --csv - / --lat-log -: stdout carries only that document; the text report
	 * moves to stderr. */
	if (stdout_outputs(c))
		rr.out = stderr;
	struct results res = {0};
	enum failure f = job_locations(pl, true);
	if (f == FAIL_NONE) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		f = run_and_report(pl, &eo, &rr, &res);
		job_said_report_time();
	}
	results_free(&res);
	return f;
}

/* A sweep: every point is a run of its own (sweep.h). */
static enum failure run_sweep(struct cli *c)
{
	struct sweep_spec s = {.profile_path = c->profile,
	                       .ovr = c->ovr,
	                       .n_ovr = c->n_ovr,
	                       .po = plan_opts_of(c), /* no --durability-log in a sweep */
	                       .n_dims = c->n_dims,
	                       .repeat = c->repeat ? c->repeat : 1,
	                       .until_pct = c->until_pct,
	                       .rank0_says = job_on() ? job_rank0_says : NULL,
	                       .eopts = engine_opts_of(c),
	                       .out = stdout,
	                       .argc = c->argc,
	                       .argv = c->argv,
	                       .json_path = c->json_path,
	                       .csv_path = c->csv_path,
	                       .plot_path = c->plot_path};
	s.eopts.cleanup = false; /* a sweep's runs keep their trees for the next point */
	memcpy(s.dims, c->dims, sizeof(s.dims));
	if (stdout_outputs(c))
		s.out = stderr;
	enum failure f = sweep_run(&s);
	for (size_t d = 0; d < c->n_dims; d++)
		sweep_dim_free(&c->dims[d]);
	return f;
}

enum failure cmd_run(struct cli *c)
{
	if (c->n_dims || c->repeat > 1 || c->until_pct > 0)
		return run_sweep(c);
	struct profile p;
	struct plan pl;
	struct diag d;
	enum failure f = load_in_job(c, &p, &pl, &d);
	if (f == FAIL_NONE) {
		f = run_once(c, &pl, &p);
		plan_free(&pl);
	}
	profile_free(&p);
	diag_free(&d);
	return f;
}

enum failure cmd_clean(struct cli *c)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	enum failure f = load_in_job(c, &p, &pl, &d);
	if (f == FAIL_NONE) {
		struct engine_opts eo = engine_opts_of(c);
		f = job_locations(&pl, false);
		if (f == FAIL_NONE)
			f = engine_clean(&pl, &eo);
		f = job_agree(f, "cleaning failed", NULL);
		plan_free(&pl);
	}
	profile_free(&p);
	diag_free(&d);
	return f;
}
