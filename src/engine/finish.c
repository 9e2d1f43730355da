/* finish.c - after the run phase: every worker's figures into the results, the errors on the
 * log, the latency log committed, the results completed, --cleanup. */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"
#include "stopsig.h"

void engine_fail(struct engine *e, const char *msg)
{
	fprintf(e->opts->log, "fsmix: %s\n", msg);
	if (!e->res->failure[0]) /* the first failure stands */
		snprintf(e->res->failure, sizeof(e->res->failure), "%s", msg);
}

void engine_report_errors(struct engine *e)
{
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct worker *w = e->workers[i];
		if (!w->err_set)
			continue;
		char what[MSG_MAX];
		if (w->err.verify)
			results_verify_text(&w->err, what, sizeof(what));
		fprintf(e->opts->log, "fsmix: worker %u (%s): %s: %s(%s): %s after %.3f s\n",
		        w->index, w->g->name, op_table[w->err.op].name, sys_table[w->err.sys].name,
		        w->err.path, w->err.verify ? what : strerror(w->err.err),
		        (double)w->err.at_ns / 1e9);
	}
}

/* Worker w's figures into its group of the results, and w freed: a one-thread group takes the
 * worker's statistics as they are (moved, not copied: stats.h's memory budget). */
static int collect_worker(struct engine *e, size_t i)
{
	struct worker *w = e->workers[i];
	struct results_group *g = &e->res->groups[w->group];
	bool moved = false;
	int rc = 0;
	if (w->err_set)
		rc = results_add_error(e->res, &w->err);
	e->res->verify_mismatches += w->verify_bad;
	if (w->max_in_flight > g->max_in_flight)
		g->max_in_flight = w->max_in_flight;
	if (!g->st_ready && e->plan->groups[w->group].num_threads == 1) {
		g->st = w->st; /* the results' pages are written here first (results_init_lazy) */
		g->st.ranges = g->ranges;        /* the same bounds, the results' own table */
		thread_stats_make_dense(&g->st); /* its buckets from the worker's arena */
		thread_stats_normalize(&g->st);  /* the series it never wrote: lat_init's form */
		g->st_ready = true;
		moved = true;
		w->st.range_counts = NULL;
		w->st.resp_lat = NULL;
	} else if (!rc && !(rc = results_group_ready(e->res, w->group))) {
		rc = thread_stats_merge(&g->st, &w->st);
	}
	for (int op = 0; op < OP_COUNT; op++)
		g->skipped[op] += w->skipped[op];
	e->res->failed_after_crash += w->failed_after_crash;
	worker_free(w);
	e->workers[i] = NULL;
	if (moved) /* the worker's pages back before the next group's are written: 64 one-thread
	            * groups peak at 52 MB RSS with it, 98 MB without (glibc keeps freed heap) */
		malloc_trim(0);
	return rc;
}

int engine_collect(struct engine *e, char *err, size_t errlen)
{
	struct results *r = e->res;
	int mrc = 0;
	/* The --interval rows first: they are read from the workers' logs. */
	if (e->opts->interval_s > 0) {
		r->intervals = engine_merge_intervals(e, SIZE_MAX, &r->n_intervals);
		for (size_t gi = 0; gi < r->n_groups; gi++)
			r->groups[gi].intervals =
			    engine_merge_intervals(e, gi, &r->groups[gi].n_intervals);
	}
	for (size_t i = 0; i < e->n_workers; i++) {
		int rc = collect_worker(e, i);
		mrc = mrc ? mrc : rc;
	}
	int trc = results_total_of_groups(r); /* a group left not ready: mrc says so */
	mrc = mrc ? mrc : trc;
	if (mrc) { /* ENOMEM for a response-time series: no report rather than a wrong one */
		snprintf(err, errlen, "cannot merge the threads' statistics: %s", strerror(-mrc));
		return -1;
	}
	return 0;
}

/* tree_purge.stop during --cleanup: a stop signal came since the run phase was over. */
static bool cleanup_stop(void *arg)
{
	const struct engine *e = arg;
	return stopsig_count() != e->cleanup_signals;
}

/* --cleanup: remove every tree; false when one could not be removed (an I/O error: exit 1),
 * with the first reason in first_err (MSG_MAX bytes). A stop signal stops it where it is
 * (*stopped): that tree is left as fsmix.fsN.del, the ones after it as they are. */
static bool cleanup_trees(struct engine *e, char *first_err, size_t errlen, bool *stopped)
{
	bool ok = true;
	*stopped = false;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		char why[MSG_MAX];
		struct tree_purge sw = {0};
		if (fs->tree.rootfd < 0 || engine_attaches(e->opts)) /* rank 0 removes it */
			continue;
		fs->tree.purge_stop = cleanup_stop;
		fs->tree.purge_stop_arg = e;
		if (*stopped || cleanup_stop(e)) {
			*stopped = true;
			fprintf(e->opts->log,
			        "fsmix: %s: cleanup: not started (interrupted); "
			        "'fsmix clean' removes the tree\n",
			        fs->pf->name);
			continue;
		}
		int rc = tree_remove(&fs->tree, &sw, why, sizeof(why));
		if (rc == -EINTR) {
			*stopped = true;
			fprintf(e->opts->log, "fsmix: %s: cleanup interrupted: %s\n", fs->pf->name,
			        why);
		} else if (rc) {
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

/* verify=1: a reuse=1 tree that the run changed (fs->modified: its manifest was removed
 * before the run) gets a manifest again of what the run left -- sizes and content generations
 * -- so the next run reuses it and verify=1 checks it across runs. Without verify a changed
 * tree is rebuilt by the next run, as it always was; never in a sweep (keep_manifest: every
 * point starts from the same tree), after an operation failed (a write may have stopped half
 * way; a content mismatch is no such failure: the tree stays, to be looked at), or where metaop,
 * createdir, mkdir or rmdir made directories the manifest does not describe, or link made
 * second names (a reused file with two names is refused). */
static void keep_changed_trees(struct engine *e)
{
	const struct plan *pl = e->plan;
	uint64_t failed = 0; /* operations that failed other than by a content mismatch */
	for (int op = 0; op < OP_COUNT; op++)
		failed += e->res->total.errors[op];
	failed -= failed >= e->res->verify_mismatches ? e->res->verify_mismatches : failed;
	if (!pl->verify || e->opts->keep_manifest || !e->res->measured || failed ||
	    e->res->crashed) /* crashed: the filesystems are shut down */
		return;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		char why[MSG_MAX];
		bool dirs = false;
		for (size_t gi = 0; gi < pl->n_groups; gi++) {
			const struct plan_group *g = &pl->groups[gi];
			if (g->bindfs >= 0 && (size_t)g->bindfs != i)
				continue;
			for (int op = 0; op < OP_COUNT; op++) /* metaop, createdir, mkdir, rmdir */
				dirs |= g->weight[op] && (op_table[op].flags & OPF_META);
			dirs |= g->weight[OP_link] != 0; /* two names: no reuse (tree.h) */
		}
		if (!fs->modified || fs->pf->age || dirs || !fs->pf->reuse || fs->tree.rootfd < 0)
			continue;
		if (tree_write_manifest(&fs->tree, fs->spec_hash, &fs->files, why, sizeof(why)))
			fprintf(e->opts->log,
			        "fsmix: %s: warning: cannot write the reuse manifest: %s\n",
			        fs->pf->name, why);
	}
}

/* Each filesystem's setup and device counters into the results. */
static void results_of_fs(struct engine *e)
{
	for (size_t i = 0; i < e->n_fs; i++) {
		const struct engine_fs *fs = &e->fs[i];
		struct results_fs *rf = &e->res->fs[i];
		rf->reused = fs->reused;
		rf->setup_s = fs->setup_s;
		rf->start_util = fs->start_util;
		rf->built_files = fs->built_files;
		rf->built_bytes = fs->built_bytes;
		rf->dev = fs->dev;
		rf->dev_delta = fs->dev_delta;
	}
}

enum failure engine_finish(struct engine *e, enum failure f)
{
	struct results *r = e->res;
	char why[MSG_MAX];
	e->cleanup_signals = stopsig_count(); /* a signal from here on stops --cleanup */
	int stop = atomic_load(&e->stop);
	/* the watcher stored the signal before it set the stop flag */
	if (stop == STOP_SIGNAL || f == FAIL_INTERRUPTED)
		r->signal = atomic_load(&e->signal_seen);
	if (e->latlog_open) {
		e->latlog_open = false;
		if (latlog_close(&e->latlog, why, sizeof(why))) {
			engine_fail(e, why);
			e->latlog_failed = true;
		}
	}
	if (r->measured) {
		e->interrupted = stop == STOP_SIGNAL;
		bool failed =
		    e->latlog_failed || e->durlog_failed || r->n_errors || r->crash_failed;
		if (r->crash_failed)
			engine_fail(e, "--crash-after: a filesystem could not be shut down");
		f = e->interrupted ? FAIL_INTERRUPTED : failed ? FAIL_IO : FAIL_NONE;
		keep_changed_trees(e);
	} else {
		if (e->latlog_failed)
			f = failure_first(f, FAIL_IO);
		/* Where it ran, also for the filesystems setup did not get to. */
		for (size_t i = 0; i < e->n_fs; i++)
			if (!e->fs[i].dev.fstype[0])
				(void)devstat_probe(e->fs[i].pf->location, &e->fs[i].dev);
	}
	/* Every group gets statistics, empty where the run phase never got to it. Out of memory
	 * for them leaves it not ready: read as empty. */
	for (size_t gi = 0; gi < r->n_groups; gi++)
		(void)results_group_ready(r, gi);
	r->interrupted = e->interrupted;
	r->stop = (enum stop_reason)stop;
	results_of_fs(e);
	return f;
}

enum failure engine_close(struct engine *e, enum failure f)
{
	struct results *r = e->res;
	bool stopped = false;
	if (e->opts->cleanup && r->crashed)
		fprintf(e->opts->log, "fsmix: --cleanup skipped: the filesystems were shut down "
		                      "(--crash-after); unmount and mount them, then run fsmix "
		                      "verify\n");
	else if (e->opts->cleanup &&
	         !cleanup_trees(e, e->cleanup_err, sizeof(e->cleanup_err), &stopped)) {
		f = failure_first(f, FAIL_IO);
		if (!r->failure[0])
			snprintf(r->failure, sizeof(r->failure), "%s", e->cleanup_err);
	}
	if (stopped) { /* the documents say so: interrupted, by the signal the watcher kept */
		f = failure_first(f, FAIL_INTERRUPTED);
		r->interrupted = e->interrupted = true;
		if (!r->signal)
			r->signal = atomic_load(&e->signal_seen);
		if (!r->failure[0])
			snprintf(
			    r->failure, sizeof(r->failure),
			    "interrupted during --cleanup; 'fsmix clean' removes what is left");
	}
	/* setup failed (aging may have stopped its workers by "time") */
	if (!r->measured && r->failure[0] && r->stop != STOP_SIGNAL)
		r->stop = STOP_ERROR;
	return f;
}
