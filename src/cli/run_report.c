/* run_report.c - the run command's sequence of engine phases and reports (run_report.h). */
#include "run_report.h"

#include <string.h>
#include <sys/stat.h>

#include "exitcode.h"
#include "outfile.h"
#include "plot.h"
#include "report.h"

/* run --plot FILE --interval S: the run over time, drawn from its JSON document. f: the
 * failure so far. */
static enum failure plot_over_time(const struct run_reports *rr, const struct results *r,
                                   enum failure f)
{
	if (!rr->plot_path)
		return FAIL_NONE;
	json_t *doc = r->measured ? report_json_build(r, &rr->run) : NULL;
	if (!doc) {
		if (f != FAIL_INPUT)
			fprintf(rr->log, "fsmix: nothing was measured: no plot drawn\n");
		return FAIL_NONE;
	}
	f = plot_write(doc, NULL, rr->plot_path, rr->log);
	json_decref(doc);
	return f;
}

static void on_plan(void *ctx, const struct plan *pl, const struct results *r)
{
	const struct run_reports *rr = ctx;
	report_config(rr->out, pl, r);
}

static void on_setup(void *ctx, const struct plan *pl, const struct results *r)
{
	const struct run_reports *rr = ctx;
	report_setup(rr->out, r, !pl->time_s && !pl->counted);
}

static void on_results(void *ctx, const struct results *r)
{
	const struct run_reports *rr = ctx;
	if (r->measured)
		report_results(rr->out, rr->log, r, rr->ffsb_only);
}

/* After --cleanup (so that the documents' exit_status and error say whether the tree could be
 * removed): every other output before the JSON, whose exit_status must count their failures. */
static enum failure on_closed(void *ctx, struct results *r, enum failure f)
{
	struct run_reports *rr = ctx;
	f = failure_first(f, report_write_outputs(r, &rr->run, NULL, rr->csv_path, rr->log));
	f = failure_first(f, plot_over_time(rr, r, f));
	char why[MSG_MAX];
	if (outfile_stdout_failed(why, sizeof(why))) { /* reported here, not again by main */
		fprintf(rr->log, "fsmix: %s\n", why);
		f = failure_first(f, FAIL_IO);
	}
	rr->run.exit_status = exit_status_of(f);
	return failure_first(f, report_write_outputs(r, &rr->run, rr->json_path, NULL, rr->log));
}

static int fill_nothing(FILE *f, void *arg)
{
	(void)f;
	(void)arg;
	return 0;
}

/* An older regular file at --json, --csv or --plot is emptied before the run (replaced whole by
 * an empty file, by outfile's rules: a symbolic link through to its target): a run that is
 * killed before its end -- SIGKILL, or an MPI rank's death, on which mpirun ends every rank --
 * then leaves no older document to pass for its result (docs/output.md). Devices and FIFOs are
 * written at the end only. A file that cannot be emptied is said, and the run goes on (the
 * ranks of a job wait for this one). */
static void empty_older_outputs(const struct run_reports *rr)
{
	const char *paths[] = {rr->json_path, rr->csv_path, rr->plot_path};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct stat st;
		char err[MSG_MAX];
		if (!paths[i] || !strcmp(paths[i], "-") || stat(paths[i], &st) ||
		    !S_ISREG(st.st_mode) || !st.st_size)
			continue;
		if (outfile_write(paths[i], fill_nothing, NULL, err, sizeof(err)))
			fprintf(rr->log,
			        "fsmix: warning: cannot empty the older %s before the run: %s\n",
			        paths[i], err);
	}
}

enum failure run_and_report(const struct plan *pl, const struct engine_opts *eo,
                            struct run_reports *rr, struct results *r)
{
	empty_older_outputs(rr);
	const struct engine_observer ob = {.ctx = rr,
	                                   .on_plan = on_plan,
	                                   .on_setup = on_setup,
	                                   .on_results = on_results,
	                                   .on_closed = on_closed};
	struct engine_opts o = *eo;
	o.observer = &ob;
	return engine_run(pl, &o, r); /* the one phase sequence, with the reports between */
}
