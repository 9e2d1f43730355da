/* outputs.c - everything after the run: worker errors on the log, the latency log committed,
 * --cleanup, the text report, the JSON and CSV files (TEMPORARY home: output writing moves to the
 * report and command-line layers with the results model, issue 12). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"
#include "exitcode.h"
#include "outfile.h"
#include "report.h"
#include "report_data.h"

void engine_report_errors(struct engine *e)
{
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct worker *w = e->workers[i];
		if (!w->err.set)
			continue;
		fprintf(e->opts->log, "fsmix: worker %u (%s): %s: %s(%s): %s after %.3f s\n",
		        w->index, w->g->name, op_table[w->err.op].name, sys_table[w->err.sys].name,
		        w->err.path, strerror(w->err.err), (double)w->err.at_ns / 1e9);
	}
}

/* --cleanup: remove every tree; false when one could not be removed (an I/O error: exit 1),
 * with the first reason in first_err (MSG_MAX bytes). */
static bool cleanup_trees(struct engine *e, char *first_err, size_t errlen)
{
	bool ok = true;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		char why[MSG_MAX];
		struct tree_purge sw = {0};
		if (fs->tree.rootfd < 0)
			continue;
		if (tree_remove(&fs->tree, &sw, why, sizeof(why))) {
			fprintf(e->opts->log, "fsmix: %s: cleanup: %s\n", fs->pf->name, why);
			if (ok)
				snprintf(first_err, errlen, "%s: cleanup: %s", fs->pf->name, why);
			ok = false;
		} else {
			fprintf(e->opts->log, "fsmix: %s: removed its tree (%" PRIu64 " entries)\n",
			        fs->pf->name, sw.removed);
		}
	}
	return ok;
}

/* Everything after the run (or after a setup that failed or was interrupted): commit the
 * latency log, print the text report, write the JSON and CSV. Every --json/--csv gets a document
 * saying what happened, so an older file can never pass for this run's result. Returns the exit
 * status, given rc so far. */
/* Every group without statistics yet (a one-thread group whose run phase never reached the
 * merge) gets an empty copy, as the reports expect one per group. */
static void group_stats_ready(struct engine *e)
{
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		if (e->group_stats[gi])
			continue;
		/* Out of memory for the range counts still leaves a valid empty copy (no ranges).
		 */
		(void)thread_stats_init(&e->group_own[gi], e->group_ranges[gi]);
		e->group_stats[gi] = &e->group_own[gi];
	}
}

int engine_write_outputs(struct engine *e, int rc)
{
	const struct engine_opts *o = e->opts;
	char why[MSG_MAX], latlog_why[MSG_MAX];
	group_stats_ready(e);
	if (e->latlog_open) {
		e->latlog_open = false;
		if (latlog_close(&e->latlog, latlog_why, sizeof(latlog_why))) {
			fprintf(o->log, "fsmix: %s\n", latlog_why);
			e->latlog_failed = true;
			if (!e->failure)
				e->failure = latlog_why;
		}
	}
	if (e->measured) {
		int stop = atomic_load(&e->stop);
		e->interrupted = stop == STOP_SIGNAL;
		bool failed = e->latlog_failed;
		for (size_t i = 0; i < e->n_workers; i++)
			failed |= e->workers[i]->err.set;
		rc = e->interrupted ? EXIT_INTERRUPTED : failed ? EXIT_RUN_FAILED : 0;
		if (!o->quiet)
			report_results(o->out, e, e->interrupted);
		if (o->json_out) /* sweeps collect every point's results */
			*o->json_out = report_json_build(e, rc);
	} else {
		if (e->latlog_failed && !rc)
			rc = EXIT_RUN_FAILED;
		/* Where it ran, also for the filesystems setup did not get to. */
		for (size_t i = 0; i < e->n_fs; i++)
			if (!e->fs[i].dev.fstype[0])
				(void)devstat_probe(e->fs[i].pf->location, &e->fs[i].dev);
	}
	/* --cleanup before the files are written, so that their exit_status and error say
	 * whether the tree could be removed. */
	if (o->cleanup && !cleanup_trees(e, e->cleanup_err, sizeof(e->cleanup_err))) {
		rc = rc ? rc : EXIT_RUN_FAILED;
		if (!e->failure)
			e->failure = e->cleanup_err;
	}
	/* Machine-readable results: written whole (outfile.h) or not at all. */
	int wrc = o->json_path ? report_json_write(e, o->json_path, rc, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(o->log, "fsmix: %s\n", why);
		rc = rc ? rc : wrc == -EINTR ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
	}
	wrc = o->csv_path ? report_csv_write(e, o->csv_path, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(o->log, "fsmix: %s\n", why);
		rc = rc ? rc : wrc == -EINTR ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
	}
	return rc;
}
