/* run_report.c - the run command's sequence of engine phases and reports (run_report.h). */
#include "run_report.h"

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

enum failure run_and_report(const struct plan *pl, const struct engine_opts *eo,
                            struct run_reports *rr, struct results *r)
{
	enum failure f;
	struct engine *e = engine_open(pl, eo, r, &f);
	if (!e) /* nothing started: no report, no document */
		return engine_job_ready(NULL, eo, f);
	if (!f) {
		report_config(rr->out, pl, r);
		/* a --lat-log FILE that cannot be opened: bad input, found before anything is
		 * built; no document is written */
		if ((f = engine_latlog_open(e))) {
			f = engine_job_ready(e, eo, f);
			engine_free(e);
			return f;
		}
		f = engine_setup(e);
		if (!f) /* FFSB: before the sync and the callout */
			report_setup(rr->out, r, !pl->time_s && !pl->counted);
	}
	if (!f)
		f = engine_callout(e);
	/* a job (MPI): every process has set up; they start together, or none does */
	f = engine_job_ready(e, eo, f);
	if (!f)
		f = engine_measure(e);
	/* a job: the outcome agreed, rank 0's results are the job's */
	f = engine_job_done(e, engine_finish(e, f));
	if (r->measured)
		report_results(rr->out, rr->log, r, rr->ffsb_only);
	/* --cleanup before the documents are written, so that their exit_status and error say
	 * whether the tree could be removed */
	f = engine_close(e, f);
	/* every other output before the JSON, whose exit_status must count their failures */
	f = failure_first(f, report_write_outputs(r, &rr->run, NULL, rr->csv_path, rr->log));
	f = failure_first(f, plot_over_time(rr, r, f));
	char why[MSG_MAX];
	if (outfile_stdout_failed(why, sizeof(why))) { /* reported here, not again by main */
		fprintf(rr->log, "fsmix: %s\n", why);
		f = failure_first(f, FAIL_IO);
	}
	rr->run.exit_status = exit_status_of(f);
	f = failure_first(f, report_write_outputs(r, &rr->run, rr->json_path, NULL, rr->log));
	/* the signal watcher runs until the documents are written: a stop signal ends the wait
	 * for a FIFO's reader */
	engine_free(e);
	return f;
}
