/* run.c - the life of a run (engine.h draws its phases): the engine made and freed, setup of every
 * filesystem, the run phase, the callout, engine_run. (engine_clean is clean.c's.) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "content.h"
#include "engine.h"
#include "engine_int.h"
#include "ioengine.h"
#include "interval.h"
#include "populate.h"
#include "shared.h"
#include "sqpollcpu.h"
#include "stopsig.h"
#include "subproc.h"
#include "threads.h"

/* The engine of plan pl before setup: its tables, statistics and start gate. Returns 0, or -1
 * with err (out of memory, an invalid msec_range table). */

static int engine_init(struct engine *e, const struct plan *pl, const struct engine_opts *o,
                       char *err, size_t errlen)
{
	pthread_condattr_t ca;
	e->plan = pl;
	e->opts = o;
	atomic_init(&e->stop, STOP_NONE);
	pthread_mutex_init(&e->sleep_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->sleep_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (gate_init(&e->gate)) {
		snprintf(err, errlen, "cannot create the start gate");
		return -1;
	}
	e->gate_ready = true;
	if (pl->seed_given) {
		e->seed = pl->seed + o->seed_offset; /* rank R of a job: seed + R */
	} else if (getrandom(&e->seed, sizeof(e->seed), 0) != sizeof(e->seed)) {
		e->seed = now_ns() ^ ((uint64_t)getpid() << 32);
	}
	if (getrandom(&e->run_id, sizeof(e->run_id), 0) != sizeof(e->run_id))
		e->run_id = (now_ns() ^ ((uint64_t)getpid() << 32)) * 0x9e3779b97f4a7c15ull;
	e->run_id += !e->run_id; /* 0 is "no run id" */
	e->n_fs = pl->n_fs;
	e->fs = calloc(pl->n_fs, sizeof(*e->fs));
	e->group_ops = calloc(pl->n_groups + 1, sizeof(*e->group_ops));
	e->group_ranges = calloc(pl->n_groups + 1, sizeof(*e->group_ranges));
	if (!e->fs || !e->group_ops || !e->group_ranges) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		struct statvfs sv;
		e->fs[i].pf = &pl->fs[i];
		if (statvfs(pl->fs[i].location, &sv) == 0 && sv.f_blocks)
			e->fs[i].start_util =
			    (double)(sv.f_blocks - sv.f_bfree) / (double)sv.f_blocks;
		e->fs[i].tree.locfd = e->fs[i].tree.rootfd = -1;
		e->fs[i].tree.datafd = e->fs[i].tree.metafd = -1;
	}
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		if (worker_pick_ops(pl, g, &e->group_ops[gi])) {
			snprintf(err, errlen, "%s: cannot build the operation table", g->name);
			return -1;
		}
		if (g->enable_stats && g->enable_range && g->n_ranges) {
			double lohi[2 * g->n_ranges];
			for (size_t i = 0; i < g->n_ranges; i++) {
				lohi[2 * i] = g->ranges[i].lo_ms;
				lohi[2 * i + 1] = g->ranges[i].hi_ms;
			}
			if (range_table_new(&e->group_ranges[gi], lohi, (uint32_t)g->n_ranges)) {
				snprintf(err, errlen, "%s: invalid msec_range table", g->name);
				return -1;
			}
		}
	}
	return 0;
}

/* Frees what engine_init made (and the workers); e itself stays. */
static void engine_release(struct engine *e)
{
	if (e->latlog_open) /* a run that failed before its log was committed */
		latlog_abort(&e->latlog);
	durjournal_end(e); /* a run that failed before its run phase */
	for (size_t i = 0; e->workers && i < e->n_workers; i++)
		worker_free(e->workers[i]);
	free(e->workers);
	if (e->sink)
		munmap(e->sink, e->sink_n * e->sink_len);
	e->sink = NULL;
	if (e->fixed)
		munmap((void *)e->fixed, e->fixed_max + 512);
	e->fixed = NULL;
	e->fixed_max = 0;
	for (size_t i = 0; e->fs && i < e->n_fs; i++)
		if (e->fs[i].pf)
			populate_release(&e->fs[i]);
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		if (e->group_ops)
			pick_free(&e->group_ops[gi]);
		if (e->group_ranges)
			range_table_free(e->group_ranges[gi]);
	}
	free(e->fs);
	free(e->group_ops);
	free(e->group_ranges);
	pthread_mutex_destroy(&e->sleep_lock);
	pthread_cond_destroy(&e->sleep_cond);
	if (e->gate_ready)
		gate_destroy(&e->gate);
}

/* True when some group that may use fs changes its files or directories. */
static bool group_modifies(const struct plan *pl, size_t fsi)
{
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		if (g->bindfs >= 0 && (size_t)g->bindfs != fsi)
			continue;
		for (int op = 0; op < OP_COUNT; op++)
			if (g->weight[op] && (op_table[op].flags &
			                      (OPF_WRITE | OPF_CREATES | OPF_DELETES | OPF_META |
			                       OPF_RENAMES | OPF_RESIZES | OPF_LINKS)))
				return true;
	}
	return false;
}

/* Freezes (pool.h) the file set of each filesystem that no group may change, for the run phase:
 * its readers then take no share count (no atomic write per pick and release). Thawed after the
 * workers are joined. A group that may use the filesystem and has weight on any op that writes,
 * creates, deletes or renames keeps the counted pool (group_modifies); an op that tried anyway
 * would be refused (-EROFS), never race. */
static void run_freeze_fixed(struct engine *e, bool freeze)
{
	for (size_t i = 0; i < e->n_fs; i++) {
		if (!freeze)
			pool_thaw(&e->fs[i].files);
		else if (!group_modifies(e->plan, i))
			pool_freeze(&e->fs[i].files);
	}
}

static unsigned builder_count(const struct engine_opts *o)
{
	if (o->build_threads)
		return o->build_threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	/* File creation is mostly kernel time: more builders than CPUs only adds contention on
	 * the directory locks, but at least two keep one CPU busy while the other waits. */
	return n < 2 ? 2 : n > 16 ? 16 : (unsigned)n;
}

/* Every filesystem's tree locked, populated (reused, or built and aged) and probed. FAIL_NONE,
 * or the first failure with err. --shared-tree (docs/distributed.md): rank 0 builds or reuses
 * every tree and writes its manifest, the ranks agree, the others attach (populate.c), and
 * they agree again before rank 0 invalidates a manifest the run will make stale. */
static enum failure setup(struct engine *e, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	FILE *log = e->opts->log;
	bool shared = engine_shares(e->opts), attaches = engine_attaches(e->opts);
	enum failure f = shared ? shared_refusal(e, err, errlen) : FAIL_NONE;
	if (f)
		return f;
	/* Before anything is built: an engine (engine=io_uring) that cannot run here. A rank of
	 * a shared tree takes its failure to the agreements, as a failed build, so that no rank
	 * waits for it there. */
	if ((f = io_engine_check(e, err, errlen)) && !shared)
		return f;
	if (!f && !attaches && (f = populate_lock(e, err, errlen)) && !shared)
		return f;
	if (attaches && (f = shared_agree(e, f, err, errlen)))
		return f; /* rank 0 could not build: nothing to attach to */
	for (size_t i = 0; i < e->n_fs && !f; i++)
		f = populate_fs(e, &e->fs[i], builder_count(e->opts), age_fs, err, errlen);
	if (shared && !attaches && (f = shared_agree(e, f, err, errlen)))
		return f;
	if (shared && (f = shared_agree(e, f, err, errlen))) /* every rank has attached */
		return f;
	if (f)
		return f;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		if (attaches)
			fprintf(log, "fsmix: %s: attached to %s: %" PRIu64 " files\n", fs->pf->name,
			        fs->tree.root, pool_live(&fs->files));
		else { /* with the content mode its files hold (auto's choice is in no report) */
			char mode[32];
			content_name(fs->pf->content_mode, fs->pf->content_pct, mode, sizeof(mode));
			fprintf(log, "fsmix: %s: %s %s: %" PRIu64 " files in %.2f s, content %s\n",
			        fs->pf->name, fs->reused ? "reused" : "built", fs->tree.root,
			        fs->built_files, fs->setup_s, mode);
		}
		/* file_popularity's ranks: a permutation of the ids the run starts with. */
		rankperm_init(&fs->rank, pool_high_water(&fs->files),
		              e->seed ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull));
		if (devstat_probe(fs->pf->location, &fs->dev))
			snprintf(fs->dev.why, sizeof(fs->dev.why), "cannot stat the location");
		/* An aged tree (populate_fs aged it) never keeps a manifest. */
		fs->modified =
		    ((pl->time_s || pl->counted) && group_modifies(pl, i)) || fs->pf->age;
		/* a built tree has the run's id already (populate_fs; or now, if its filesystem was
		 * too full before the rebuild); a reused one gets it when the run changes it, or
		 * journals it (its log is then the one to verify) */
		if ((fs->modified || e->durlog_open || !fs->reused) &&
		    (f = engine_mark_tree(e, fs, false, err, errlen)))
			return f;
		if (fs->modified && !attaches) {
			char why[MSG_MAX];
			if (tree_invalidate_manifest(&fs->tree, why, sizeof(why)))
				fprintf(log, "fsmix: %s: warning: %s\n", fs->pf->name, why);
		}
	}
	return FAIL_NONE;
}

/* Device counters bracket the run phase (after setup and its syncfs): the counters before it,
 * one per filesystem (NULL when out of memory: no device figures), then their deltas. */
static struct devstat_sample *run_devices_before(struct engine *e)
{
	struct devstat_sample *dev0 = calloc(e->n_fs + 1, sizeof(*dev0));
	for (size_t i = 0; dev0 && i < e->n_fs; i++)
		if (e->fs[i].dev.has_device)
			(void)devstat_read(&e->fs[i].dev, &dev0[i]);
	return dev0;
}

static void run_devices_after(struct engine *e, struct devstat_sample *dev0)
{
	for (size_t i = 0; dev0 && i < e->n_fs; i++) {
		struct devstat_sample after;
		if (!e->fs[i].dev.has_device || !dev0[i].valid ||
		    devstat_read(&e->fs[i].dev, &after))
			continue;
		devstat_delta(&dev0[i], &after, &e->fs[i].dev_delta);
	}
	free(dev0);
}

/* Until `until` or a stop; one process of a job also stops when another one has (an error or a
 * signal there: engine_hooks.poll, every 100 ms). */
static void job_wait_until(struct engine *e, uint64_t until)
{
	const struct engine_hooks *h = e->opts->hooks;
	if (!h) {
		engine_wait_until(e, until);
		return;
	}
	while (!engine_stopping(e) && now_ns() < until) {
		uint64_t next = now_ns() + 100000000u;
		engine_wait_until(e, next < until ? next : until);
		if (h->poll(h->ctx, e))
			engine_stop(e, STOP_ERROR);
	}
}

/* One process of a job, after its run phase, or where the run phase could not start (failed:
 * its workers or their threads could not be made): tells the others when it stopped early or
 * never started, so that they stop too. Every process that passed the barrier gets here once. */
static void job_run_end(struct engine *e, bool failed)
{
	const struct engine_hooks *h = e->opts->hooks;
	int why = atomic_load(&e->stop);
	if (h)
		h->run_end(h->ctx, e, failed || why == STOP_ERROR || why == STOP_SIGNAL);
}

/* The main thread while the workers run: sleeps until the deadline or a stop, redrawing the
 * status line once a second on a terminal. */
static void run_wait(struct engine *e, uint64_t deadline)
{
	if (e->progress) {
		/* Wake once a second to redraw the status line (only on a terminal). */
		while (!engine_stopping(e) && now_ns() < deadline) {
			uint64_t next = now_ns() + 1000000000u;
			job_wait_until(e, next < deadline ? next : deadline);
			engine_progress_line(e, deadline);
		}
		fprintf(e->opts->log, "\r\033[K");
		fflush(e->opts->log);
	} else {
		job_wait_until(e, deadline);
	}
}

static double cpu_seconds(const struct timeval *from, const struct timeval *to)
{
	return (double)(to->tv_sec - from->tv_sec) + (double)(to->tv_usec - from->tv_usec) / 1e6;
}

/* ramp_time: the workers run uncounted until the ramp's end, where each drops what it did
 * (worker.c) and the counted run starts; the main thread takes the CPU time and the device
 * counters again when it wakes there (a few microseconds later). Returns true when the ramp
 * ended, false when the run stopped during it (nothing is counted then). */
static bool run_ramp(struct engine *e, struct devstat_sample **dev0, struct rusage *ru0)
{
	run_wait(e, e->ramp_end_ns);
	if (engine_stopping(e)) {
		char msg[80];
		snprintf(msg, sizeof(msg),
		         "stopped during the ramp (ramp_time=%" PRIu32 " s): nothing was measured",
		         e->plan->ramp_s);
		engine_fail(e, msg);
		return false;
	}
	free(*dev0);
	*dev0 = run_devices_before(e);
	getrusage(RUSAGE_SELF, ru0);
	e->t_count = e->ramp_end_ns; /* the workers cut there themselves (worker.c) */
	return true;
}

/* The workers of a run without phases, started together at the gate: the main thread waits
 * until the time is over, the counted groups are done or the run stops, then joins them.
 * ramp_time may retake the device counters, CPU time and sqpoll CPU (*sq0) at the ramp's end
 * (run_ramp). */
static void run_together(struct engine *e, size_t n, struct devstat_sample **dev0,
                         struct rusage *ru0, double *sq0)
{
	const struct plan *pl = e->plan;
	if (pl->counted)
		fprintf(
		    e->opts->log,
		    "fsmix: running %zu threads until the counted groups are done%s (seed %" PRIu64
		    ")\n",
		    n, pl->time_s ? ", at most for the time set" : "", e->seed);
	else if (pl->ramp_s)
		fprintf(e->opts->log,
		        "fsmix: running %zu threads for %" PRIu32 " s after a ramp of %" PRIu32
		        " s (seed %" PRIu64 ")\n",
		        n, pl->time_s, pl->ramp_s, e->seed);
	else
		fprintf(e->opts->log,
		        "fsmix: running %zu threads for %" PRIu32 " s (seed %" PRIu64 ")\n", n,
		        pl->time_s, e->seed);
	crew_arrived(e); /* the time counts from here: 4096 threads take a while to arrive */
	e->t_base = now_ns();
	e->ramp_end_ns = pl->ramp_s ? e->t_base + (uint64_t)pl->ramp_s * 1000000000u : 0;
	uint64_t deadline =
	    pl->time_s ? e->t_base + ((uint64_t)pl->ramp_s + pl->time_s) * 1000000000u : 0;
	/* --crash-after: the main thread ends the run by the crash, also at the time's end */
	e->deadline_ns = e->opts->crash ? 0 : deadline;
	crew_release(e);
	e->t0 = now_ns();
	if (pl->ramp_s && run_ramp(e, dev0, ru0)) {
		e->t0 = e->t_count;
		*sq0 = sqpoll_cpu_s(pl);
	}
	/* Without time, a counted run ends when its counted groups are done. */
	uint64_t end = deadline ? deadline : UINT64_MAX / 2;
	if (e->opts->crash && e->t0 + e->crash_ns < end)
		end = e->t0 + e->crash_ns;
	run_wait(e, end);
	if (e->opts->crash)
		engine_crash(e);
	engine_stop(e, STOP_TIME);
	crew_join(e->workers, n);
}

/* The timed run: make the workers, run them (together, or phase by phase: phase.c), join them
 * and merge their figures. Returns 0, or -1 with err and *fail (FAIL_IO, or crew_make's). */
static int run_phase(struct engine *e, enum failure *fail, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	struct rusage ru0, ru1;
	size_t n = 0;
	for (size_t gi = 0; gi < pl->n_groups; gi++)
		n += pl->groups[gi].num_threads;
	*fail = crew_make(e, n, err, errlen);
	int rc = *fail ? -1 : 0;
	if (rc) { /* the workers made so far go now: their rings' descriptors too, which
		   * --cleanup may need (the failure may be that no descriptor is left) */
		for (size_t i = 0; i < e->n_workers; i++)
			worker_free(e->workers[i]);
		e->n_workers = 0;
	} else {
		*fail = FAIL_IO; /* any later failure */
	}
	if (!rc)
		rc = durjournal_begin(e, err, errlen);
	if (!rc) {
		run_freeze_fixed(e, true);
		/* phases start their workers themselves, phase by phase */
		rc = pl->n_phases ? 0 : crew_start(e, e->workers, n, "worker", err, errlen);
		if (rc)
			run_freeze_fixed(e, false);
	}
	if (rc) {
		durjournal_end(e);
		job_run_end(e, true); /* the other ranks learn of it (dist) */
		return rc;
	}
	struct devstat_sample *dev0 = run_devices_before(e);
	getrusage(RUSAGE_SELF, &ru0);
	double sq0 = sqpoll_cpu_s(pl); /* -1: no group has sqpoll=1 */
	if (pl->n_phases)
		rc = phase_run_all(e, n, run_wait, err, errlen);
	else
		run_together(e, n, &dev0, &ru0, &sq0);
	uint64_t first = UINT64_MAX, last = 0;
	durjournal_end(e); /* everything the workers recorded, drained */
	run_freeze_fixed(e, false);
	job_run_end(e, rc != 0);
	if (rc) {
		free(dev0);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		const struct worker *w = e->workers[i];
		if (!w->t_start) /* a phase that never started (the run stopped before it) */
			continue;
		if (w->t_start < first)
			first = w->t_start;
		if (w->t_end > last)
			last = w->t_end;
	}
	if (e->t_count) /* ramp_time: the counted time starts at the ramp's end */
		first = e->t_count;
	getrusage(RUSAGE_SELF, &ru1);
	e->res->has_sqpoll = sq0 >= 0;
	e->res->sqpoll_s = sq0 >= 0 ? sqpoll_cpu_s(pl) - sq0 : 0;
	if (e->latlog_open) /* engine_run commits the log */
		for (size_t i = 0; i < n; i++)
			if (e->workers[i]->ll)
				latlog_flush(e->workers[i]->ll);
	run_devices_after(e, dev0);
	e->run_end_ns = last;
	/* Stopped by the time: the run lasted until the deadline, after which no operation started;
	 * the ones under way then finish and count. A worker that got the CPU late may end later
	 * (thousands of threads on a few CPUs): said on the log, not counted as run time. */
	if (atomic_load(&e->stop) == STOP_TIME && e->deadline_ns && last > e->deadline_ns) {
		if (last - e->deadline_ns > 100000000u)
			fprintf(e->opts->log,
			        "fsmix: the last operation under way at the end of the time ended "
			        "%.2f s after it\n",
			        (double)(last - e->deadline_ns) / 1e9);
		last = e->deadline_ns;
	}
	e->res->runtime_s = n && last > first ? (double)(last - first) / 1e9 : 0;
	e->res->user_s = cpu_seconds(&ru0.ru_utime, &ru1.ru_utime);
	e->res->sys_s = cpu_seconds(&ru0.ru_stime, &ru1.ru_stime);
	engine_report_errors(e);
	/* Merge: workers into their group, groups into the total (after every join). */
	return engine_collect(e, err, errlen);
}

/* Runs the profile's callout with /bin/sh -c, as system() would, but with no signal blocked, in
 * a process group of its own (subproc.h): a stop signal (which the watcher reads) is passed on
 * to the callout's group, SIGKILL after SUBPROC_GRACE_MS. Returns the shell's wait status, -1
 * (errno set) when it cannot be started. */
static int run_callout(const char *cmd, struct subproc_end *end)
{
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	int st = subproc_run(argv, NULL, end);
	if (st < 0) {
		errno = -st;
		return -1;
	}
	return st;
}

/* A stop signal came during setup or the callout: nothing is measured. */
static enum failure setup_interrupted(struct engine *e)
{
	e->interrupted = true;
	engine_fail(e, "interrupted during setup; nothing was measured");
	return FAIL_INTERRUPTED;
}

struct engine *engine_open(const struct plan *pl, const struct engine_opts *o, struct results *r,
                           enum failure *f)
{
	char err[MSG_MAX] = "";
	*f = FAIL_IO;
	struct engine *e = calloc(1, sizeof(*e));
	/* the groups' statistics are filled after the run, a one-thread group's moved in */
	if (results_init_lazy(r, pl) || !e) {
		fprintf(o->log, "fsmix: out of memory\n");
		free(e);
		return NULL;
	}
	e->res = r;
	sigwatch_block_signals(); /* before any thread is made: blocked in all of them */
	if (engine_init(e, pl, o, err, sizeof(err))) {
		fprintf(o->log, "fsmix: %s\n", err[0] ? err : "cannot start");
		engine_release(e);
		free(e);
		return NULL;
	}
	r->seed = e->seed;
	results_env_probe(&r->env);
	for (size_t i = 0; i < e->n_fs; i++)
		r->fs[i].start_util = e->fs[i].start_util;
	e->sw = calloc(1, sizeof(*e->sw));
	if (!e->sw || sigwatch_start(e->sw, e, err, sizeof(err))) {
		/* The first thread fsmix makes: a limit on threads shows here. Nothing was built;
		 * the --json/--csv files still say what happened. */
		free(e->sw);
		e->sw = NULL;
		engine_fail(e, err[0] ? err : "out of memory");
		return e;
	}
	*f = FAIL_NONE;
	return e;
}

enum failure engine_latlog_open(struct engine *e)
{
	char err[MSG_MAX];
	/* The latency log is opened (and its header written) before anything is built: a FILE
	 * that cannot be written is bad input, found before the tree costs any time. */
	if (!e->opts->lat_log_path)
		return engine_durlog_open(e);
	int rc = latlog_open(&e->latlog, e->opts->lat_log_path, err, sizeof(err));
	if (rc) {
		fprintf(e->opts->log, "fsmix: %s\n", err);
		/* a stop signal ended the wait for a FIFO's reader: interrupted, not bad input */
		return rc == -EINTR ? FAIL_INTERRUPTED : FAIL_INPUT;
	}
	e->latlog_open = true;
	return engine_durlog_open(e);
}

enum failure engine_setup(struct engine *e)
{
	char err[MSG_MAX] = "";
	enum failure f = setup(e, err, sizeof(err));
	for (size_t i = 0; i < e->n_fs; i++) /* "fs setup took": the caller's report */
		e->res->fs[i].setup_s = e->fs[i].setup_s;
	if (f == FAIL_INTERRUPTED || (!f && engine_stopping(e)))
		return setup_interrupted(e);
	if (f)
		engine_fail(e, err);
	return f;
}

enum failure engine_callout(struct engine *e)
{
	const char *callout = e->plan->callout;
	FILE *log = e->opts->log;
	if (callout && !engine_stopping(e)) {
		fflush(NULL);
		unsigned signals_before = stopsig_count();
		struct subproc_end end;
		int st = run_callout(callout, &end);
		/* The callout may end before the watcher has read fsmix's signal, which is then
		 * still pending (or just noted). */
		if (stopsig_arrived(signals_before) && !engine_stopping(e))
			engine_stop(e, STOP_SIGNAL);
		if (end.stopped)
			fprintf(log, "fsmix: callout stopped: SIGTERM to its process group, %s\n",
			        end.killed ? "then SIGKILL: it outlived the grace period"
			                   : "which ended within the grace period");
		else if (st < 0)
			fprintf(log, "fsmix: warning: cannot run callout '%s': %s\n", callout,
			        strerror(errno));
		else if (st != 0)
			fprintf(log, "fsmix: warning: callout '%s' exited with status %d\n",
			        callout, WIFEXITED(st) ? WEXITSTATUS(st) : st);
	}
	return engine_stopping(e) ? setup_interrupted(e) : FAIL_NONE;
}

enum failure engine_measure(struct engine *e)
{
	char err[MSG_MAX];
	enum failure f;
	if (!e->plan->time_s && !e->plan->counted)
		return FAIL_NONE; /* time=0: only the tree was built (the setup report said so) */
	if (run_phase(e, &f, err, sizeof(err))) {
		engine_fail(e, err);
		return f;
	}
	if (e->plan->ramp_s && !e->t_count) {
		/* Stopped during the ramp (ramp_time): the counted run never started, so nothing
		 * was measured (docs/output.md): no run time, CPU time or rate of the ramp. */
		e->res->runtime_s = e->res->user_s = e->res->sys_s = 0;
		e->interrupted = atomic_load(&e->stop) == STOP_SIGNAL;
		return e->interrupted ? FAIL_INTERRUPTED : FAIL_IO;
	}
	e->res->measured = true;
	return FAIL_NONE;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->sw)
		sigwatch_stop(e->sw);
	free(e->sw);
	engine_release(e);
	free(e);
}

enum failure engine_job_ready(struct engine *e, const struct engine_opts *o, enum failure f)
{
	const struct engine_hooks *h = o->hooks;
	if (!h || (e && e->job_agreed))
		return f;
	char err[MSG_MAX];
	snprintf(err, sizeof(err), "%s", e && e->res->failure[0] ? e->res->failure : "failed");
	enum failure jf = h->agree(h->ctx, f, err, sizeof(err));
	if (jf && !f) /* another process failed: said here, as this one's own would have been */
		fprintf(o->log, "fsmix: %s\n", err);
	if (!e)
		return jf;
	e->job_agreed = true;
	e->job_went = jf == FAIL_NONE;
	if (jf && !f) /* ... and this one's results say why */
		snprintf(e->res->failure, sizeof(e->res->failure), "%s", err);
	return jf;
}

enum failure engine_job_done(struct engine *e, enum failure f)
{
	const struct engine_hooks *h = e->opts->hooks;
	return h && e->job_went ? h->done(h->ctx, e->plan, e->res, f) : f;
}

enum failure engine_run(const struct plan *pl, const struct engine_opts *o, struct results *r)
{
	static const struct engine_observer none = {0};
	const struct engine_observer *ob = o->observer ? o->observer : &none;
	enum failure f;
	struct engine *e = engine_open(pl, o, r, &f);
	if (!e) /* nothing started: nothing to observe */
		return engine_job_ready(NULL, o, f);
	if (!f && ob->on_plan)
		ob->on_plan(ob->ctx, pl, r);
	/* --crash-after: refused before the logs are made and anything is built (crash.c) */
	char err[MSG_MAX];
	if (!f && ((f = engine_crash_check(e, err, sizeof(err))) ||
	           (f = phase_refusal(e, err, sizeof(err)))))
		engine_fail(e, err);
	/* a --lat-log FILE that cannot be opened: bad input, found before anything is built; the
	 * observer sees nothing more (no document is written) */
	if (!f && (f = engine_latlog_open(e))) {
		f = engine_job_ready(e, o, f);
		engine_free(e);
		return f;
	}
	if (!f && !(f = engine_setup(e)) && ob->on_setup) /* FFSB: before the sync and callout */
		ob->on_setup(ob->ctx, pl, r);
	if (!f)
		f = engine_callout(e);
	f = engine_job_ready(e, o, f); /* every process of a job has set up: they start together */
	if (!f)
		f = engine_measure(e);
	/* a job: the outcome agreed, rank 0's results are the job's */
	f = engine_job_done(e, engine_finish(e, f));
	if (ob->on_results)
		ob->on_results(ob->ctx, r);
	f = engine_close(e, f);
	if (ob->on_closed)
		f = ob->on_closed(ob->ctx, r, f);
	engine_free(e); /* the signal watcher runs until on_closed is done */
	return f;
}
