/* aging.c - agefs=1: ageing a filesystem with its nested thread group until it is desired_util
 * full, before the benchmark's files are built (age_fs, called by populate_fs). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "engine.h"
#include "engine_int.h"
#include "failure.h"

/* The most op can add to fs, in bytes, rounded up to whole blocks plus one block (the inode's
 * and directory's share; statvfs counts blocks): what an aging worker reserves before it. */
static int64_t age_op_bytes(const struct engine_fs *fs, const struct plan_group *g, enum op_id op,
                            uint64_t block)
{
	uint64_t flags = op_table[op].flags, most = 0;
	if (flags & OPF_CREATES) {
		const struct plan_fs *pf = fs->pf;
		most = pf->max_filesize;
		for (size_t i = 0; i < pf->n_sizes; i++)
			if (pf->sizes[i].size > most)
				most = pf->sizes[i].size;
	} else if (flags & OPF_APPENDS) {
		most = g->write_size * ((flags & OPF_TWICE) ? 2 : 1);
	} else {
		return 0;
	}
	return (int64_t)((most + block - 1) / block * block + block);
}

/* FFSB seeds its aging set with 10 files, so appends and deletes find some from the start. */
#define AGE_SEED_FILES 10
/* The aging controller's period: short, so a round's end is seen quickly. */
#define AGE_POLL_NS 2000000u
/* A round whose credit is not used for this long is stuck: every op it could run is too big. */
#define AGE_STALL_NS 50000000u

/* The seed files of aging (FFSB's fillfiles), made by worker w before the others start: sized
 * like the filesystem's files and written with age_blocksize (at most the worker's buffer), so
 * appends and deletes have something to work on from the start; as many as fit below the
 * target, up to AGE_SEED_FILES. Returns 0, or -1 with err. */
static int age_seed_files(struct engine_fs *fs, struct worker *w, uint64_t block, char *err,
                          size_t errlen)
{
	const struct plan_group *g = fs->pf->age;
	const double target = fs->pf->desired_util;
	bool needs_files = false;
	for (int op = 0; op < OP_COUNT; op++)
		needs_files |= g->weight[op] && (op_table[op].flags & OPF_FILE);
	if (!needs_files)
		return 0;
	/* The group the seeds are written with lives in fs, not on this stack: a worker's g must
	 * point at a group that outlives the worker's use of it (a stack address left in it by
	 * a path that forgot to restore it would dangle). */
	fs->age_seed = *g;
	uint64_t bs = fs->pf->age_blocksize ? fs->pf->age_blocksize : 4096;
	fs->age_seed.write_blocksize = bs < w->buf_len ? bs : w->buf_len;
	w->g = &fs->age_seed;
	int rc = 0;
	for (int i = 0; i < AGE_SEED_FILES && !rc; i++) {
		struct op_result r = {0};
		struct tree_usage u;
		/* a seed must not take the filesystem past the target either */
		if (tree_usage(&fs->tree, &u) ||
		    target * (double)u.total_bytes - (double)u.used_bytes <
		        (double)age_op_bytes(fs, g, OP_create, block))
			break;
		if (op_execute(w, fs, OP_create, &r) < 0) {
			snprintf(err, errlen, "%s: aging: cannot create a seed file: %s",
			         fs->pf->name, strerror(w->err.err));
			rc = -1;
		}
	}
	w->g = g;
	return rc;
}

bool age_growing(struct age_growth *g, double util, uint64_t now)
{
	if (util > g->best + 0.001) {
		g->best = util;
		g->last_growth = now;
		return true;
	}
	return now - g->last_growth <= AGE_NO_GROWTH_NS;
}

/* The main thread's side of aging (see age_fs): watches the usage and grants the workers
 * credit in rounds until desired_util is reached, as close as whole operations get, or the run
 * stops. smallest and largest are the smallest and largest reservations of the weighted ops.
 * Returns 0, or -1 with err (the usage cannot be read, or has not grown for 30 s). */
static int age_control(struct engine *e, struct engine_fs *fs, int64_t smallest, int64_t largest,
                       char *err, size_t errlen)
{
	const double target = fs->pf->desired_util;
	struct tree_usage u;
	int rc = 0;
	if (tree_usage(&fs->tree, &u)) {
		snprintf(err, errlen, "%s: aging: cannot read the filesystem usage", fs->pf->name);
		return -1;
	}
	uint64_t t0 = now_ns(), round_t = t0;
	struct age_growth growth = {.best = u.util, .last_growth = t0};
	int64_t round_left = -1; /* the credit as last seen; -1: no round yet */
	bool round_full = false; /* this round granted all that is left */
	int64_t round_grant = 0; /* what it granted */
	fprintf(e->opts->log, "fsmix: %s: aging from %.1f%% to %.1f%% used\n", fs->pf->name,
	        100 * u.util, 100 * target);
	while (!rc && !engine_stopping(e)) {
		engine_wait_until(e, now_ns() + AGE_POLL_NS);
		if (tree_usage(&fs->tree, &u)) {
			snprintf(err, errlen, "%s: aging: cannot read the filesystem usage",
			         fs->pf->name);
			rc = -1;
			break;
		}
		if (u.util >= target)
			break;
		uint64_t now = now_ns();
		if (!age_growing(&growth, u.util, now)) {
			snprintf(err, errlen,
			         "%s: aging stopped at %.1f%% used: no growth for 30 s towards "
			         "desired_util=%.1f%%",
			         fs->pf->name, 100 * u.util, 100 * target);
			rc = -1;
			break;
		}
		/* The credit first: once it is below every reservation no worker can take more,
		 * so an empty in-flight count then means every granted write has landed. */
		int64_t credit = atomic_load(&e->age_credit);
		bool busy = atomic_load(&e->age_inflight) != 0, stalled = false;
		if (credit != round_left || busy) {
			round_left = credit;
			round_t = now;
		} else if (credit >= smallest && now - round_t > AGE_STALL_NS) {
			stalled = true; /* what is left fits no op the workers can run */
		}
		if ((credit >= smallest && !stalled) || busy)
			continue;
		double left_d = target * (double)u.total_bytes - (double)u.used_bytes;
		int64_t left = left_d > 0 ? (int64_t)left_d : 0;
		if (left < smallest || (stalled && round_full && left <= round_grant))
			break; /* as close as whole operations get: the ops waiting need more than
			        * is left (unless deletes have freed some since the last grant) */
		/* Half of what is left, but enough for the largest op while that fits. */
		int64_t grant = left / 2;
		if (grant < largest)
			grant = left < largest ? left : largest;
		round_full = grant == left;
		round_grant = grant;
		atomic_store(&e->age_credit, grant);
		round_left = grant;
		round_t = now;
	}
	return rc;
}

/* Ages fs with its nested thread group until the filesystem is desired_util full (FFSB's
 * agefs=1), before the benchmark's files are built. The aged files are a set of their own
 * (fs->aged), as FFSB's fill files: the benchmark's groups never pick them.
 *
 * Stopping on target: the main thread grants the aging workers credit in rounds (half of what
 * is left to desired_util, but enough for the largest op while that fits), and every worker
 * reserves its op's largest possible growth from the credit before running it, waiting with
 * the op picked when the credit does not cover it. A new round starts from a fresh statvfs only
 * when nothing is in flight and the credit is used up, or no waiting op fits it (stalled), so
 * the writes in flight never exceed what is left: aging slows down near the target and stops
 * at most one op's growth below it (above it only by what a file costs beyond its blocks).
 * Gives up when the usage has not grown for 30 s (a workload that deletes as much as it writes
 * never gets there). Returns FAIL_NONE, or with err FAIL_IO (an I/O error, no memory, no thread,
 * no growth) or FAIL_INTERRUPTED (a stop signal). */
enum failure age_fs(struct engine *e, struct engine_fs *fs, char *err, size_t errlen)
{
	const struct plan_group *g = fs->pf->age;
	const double target = fs->pf->desired_util;
	struct pick_table ops;
	struct tree_usage u;
	struct statvfs sv;
	enum failure rc = FAIL_NONE;
	if (tree_usage(&fs->tree, &u) || statvfs(fs->pf->location, &sv)) {
		snprintf(err, errlen, "%s: cannot read the filesystem usage", fs->pf->name);
		return FAIL_IO;
	}
	if (u.util >= target)
		return FAIL_NONE;
	uint64_t block = sv.f_frsize ? sv.f_frsize : 4096;
	/* Aging can make at most as many files as the filesystem has inodes left. */
	uint32_t aged_cap = ENGINE_AGED_CAPACITY;
	if (sv.f_favail && sv.f_favail < aged_cap)
		aged_cap = (uint32_t)sv.f_favail;
	if (pool_init(&fs->aged, aged_cap)) {
		snprintf(err, errlen, "cannot reserve memory for the aged files");
		return FAIL_IO;
	}
	if (worker_pick_ops(e->plan, g, &ops)) {
		snprintf(err, errlen, "%s: cannot build the aging operation table", fs->pf->name);
		return FAIL_IO;
	}
	size_t n = g->num_threads;
	struct worker **ws = calloc(n, sizeof(*ws));
	size_t made = 0;
	if (!ws) {
		pick_free(&ops);
		snprintf(err, errlen, "out of memory");
		return FAIL_IO;
	}
	int64_t smallest = INT64_MAX, largest = 0; /* reservations of the weighted ops */
	for (; made < n; made++) {
		ws[made] =
		    worker_new(e, g, 0, &ops, NULL, (unsigned)(0x100000 + made), &rc, err, errlen);
		if (!ws[made])
			goto out;
		ws[made]->only_fs = fs;
		ws[made]->aging = true;
		for (int op = 0; op < OP_COUNT; op++) {
			ws[made]->age_bytes[op] = age_op_bytes(fs, g, (enum op_id)op, block);
			if (g->weight[op] && ws[made]->age_bytes[op] &&
			    ws[made]->age_bytes[op] < smallest)
				smallest = ws[made]->age_bytes[op];
			if (g->weight[op] && ws[made]->age_bytes[op] > largest)
				largest = ws[made]->age_bytes[op];
		}
	}
	if (age_seed_files(fs, ws[0], block, err, errlen)) {
		rc = FAIL_IO;
		goto out;
	}
	atomic_store(&e->age_credit, 0);
	atomic_store(&e->age_inflight, 0);
	e->age_min = smallest;
	if (crew_start(e, ws, n, "aging", err, errlen)) {
		rc = FAIL_IO;
		goto out;
	}
	crew_release(e);
	uint64_t t0 = now_ns();
	rc = age_control(e, fs, smallest, largest, err, errlen) ? FAIL_IO : FAIL_NONE;
	int why = atomic_load(&e->stop);
	engine_stop(e, STOP_TIME);
	crew_join(ws, n);
	for (size_t i = 0; i < n && !rc; i++)
		if (ws[i]->err_set) {
			snprintf(err, errlen, "%s: aging: %s: %s(%s): %s", fs->pf->name,
			         op_table[ws[i]->err.op].name, sys_table[ws[i]->err.sys].name,
			         ws[i]->err.path, strerror(ws[i]->err.err));
			rc = FAIL_IO;
		}
	if (!rc && why == STOP_SIGNAL)
		rc = FAIL_INTERRUPTED;
	if (!rc) {
		/* Ready for the run: clear the stop flag the aging phase set. Every aging worker
		 * has been joined, so nobody reads it now; a signal arriving meanwhile is kept. */
		int expected = STOP_TIME;
		atomic_compare_exchange_strong(&e->stop, &expected, STOP_NONE);
		if (atomic_load(&e->signal_seen)) /* it came while the flag said "time" */
			engine_stop(e, STOP_SIGNAL);
		(void)tree_usage(&fs->tree, &u);
		if (u.util < target - 0.01)
			fprintf(
			    e->opts->log,
			    "fsmix: %s: warning: aging stopped %.1f points below desired_util: "
			    "what is left is less than the aging group's smallest operation may "
			    "write\n",
			    fs->pf->name, 100 * (target - u.util));
		fprintf(e->opts->log,
		        "fsmix: %s: aged to %.1f%% used in %.1f s, %" PRIu64
		        " aged files (not part of the benchmark's file set)\n",
		        fs->pf->name, 100 * u.util, (double)(now_ns() - t0) / 1e9,
		        pool_live(&fs->aged));
	}
out:
	for (size_t i = 0; i < made; i++)
		worker_free(ws[i]);
	free(ws);
	pick_free(&ops);
	return rc;
}
