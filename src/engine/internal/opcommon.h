/* opcommon.h - what the operation bodies (opexec.c, opns.c) share: the file set they work on,
 * the latching of a worker's first failure, where a file lives for the *at() calls, the open
 * flags, a create's size and directory, and the pick of an existing file. Static inline
 * functions, included by the files of the bodies only (as optimed.h), so no body calls
 * another file for them on its hot path. */
#ifndef FSMIX_OPCOMMON_H
#define FSMIX_OPCOMMON_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>

#include "engine.h"
#include "engine_int.h"
#include "shared.h"

/* ---- the file set ---- */

/* The set an operation works on: the benchmark's, or the aged files for an aging worker (FFSB
 * kept them apart: the benchmark never touches them). */
static inline struct pool *fileset(const struct worker *w, struct engine_fs *fs)
{
	return UNLIKELY(w->aging) ? &fs->aged : &fs->files;
}

/* The number in a file's name: aged file k is f<ENGINE_AGED_ID_BASE + k>, above every id of
 * the benchmark's set. */
static inline uint32_t disk_id(const struct worker *w, uint32_t id)
{
	return UNLIKELY(w->aging) ? ENGINE_AGED_ID_BASE + id : id;
}

/* ---- errors ---- */

/* Latches the worker's first error (cold path) and returns -err (or OP_SKIPPED: shared_gone). */
static inline int fail(struct worker *w, enum op_id op, enum sys_id s, int err,
                       struct engine_fs *fs, uint32_t dir, uint32_t id, bool meta)
{
	if (UNLIKELY(shared_gone(fs, err, id)) && !meta && !w->aging)
		return OP_SKIPPED;
	if (!err)
		err = EIO; /* a short read or write: the file changed under us */
	/* after --crash-after's shutdown every call fails: not an error (worker.c counts it) */
	if (!w->err_set && !engine_crashed(w->eng)) {
		w->err_set = true;
		w->err.worker = w->index;
		w->err.group = w->group;
		w->err.err = err;
		w->err.op = op;
		w->err.sys = s;
		w->err.at_ns = now_ns() - w->t_start;
		if (meta) {
			char name[TREE_NAME_MAX];
			tree_meta_name(id, dir, name, sizeof(name));
			snprintf(w->err.path, sizeof(w->err.path), "%s/meta/%s", fs->tree.root,
			         name);
		} else if (id == UINT32_MAX) {
			snprintf(w->err.path, sizeof(w->err.path), "%s/data", fs->tree.root);
		} else {
			tree_file_path(&fs->tree, dir, disk_id(w, id), w->err.path,
			               sizeof(w->err.path));
		}
	}
	return -err;
}

/* ---- helpers ---- */

/* Where file `id` of directory `dir` lives, for the *at() calls: the tree's answer, or for a
 * directory made by createdir during the run (beyond the tree's num_dirs) "d<N>/f<id>" relative
 * to data/. */
static inline int file_at(const struct worker *w, const struct engine_fs *fs, uint32_t dir,
                          uint32_t id, char *name, size_t len)
{
	id = disk_id(w, id);
	if (dir == TREE_DIR_TOP || dir < fs->tree.num_dirs)
		return tree_file_at(&fs->tree, dir, id, name, len);
	int n = tree_dir_name(dir, name, len);
	if (n < 0 || (size_t)n + 1 >= len)
		return -ENAMETOOLONG;
	name[n] = '/';
	if (tree_file_name(id, name + n + 1, len - (size_t)n - 1) < 0)
		return -ENAMETOOLONG;
	return tree_data_dirfd(&fs->tree, TREE_DIR_TOP);
}

static inline int open_flags(const struct worker *w, int base)
{
	return base | O_CLOEXEC | O_NOFOLLOW | (w->eng->plan->directio ? O_DIRECT : 0);
}

/* Files that are written also get the group's open_sync flag (O_SYNC, O_DSYNC or none). */
static inline int open_wflags(const struct worker *w, int base)
{
	return open_flags(w, base) | w->g->open_sync;
}

/* A random offset in [0, limit], aligned to 4 KiB with alignio. */
static inline uint64_t random_offset(struct worker *w, uint64_t limit)
{
	uint64_t off = limit ? rng_below(&w->rng, limit + 1) : 0;
	if (w->eng->plan->alignio)
		off &= ~(uint64_t)4095;
	return off;
}

/* File sizes for creates: size_dist, else size_weight (FFSB's biased shares with fidelity=ffsb6:
 * in the table), else uniform min..max (inclusive), or with ffsb6 FFSB's min + getrandom(max -
 * min). */
static inline uint64_t pick_size(struct worker *w, const struct engine_fs *fs)
{
	const struct plan_fs *pf = fs->pf;
	if (pf->size_dist.kind)
		return sizedist_draw(&pf->size_dist, &w->rng);
	if (pf->n_sizes)
		return pf->sizes[pick_one(&fs->sizes, &w->rng)].size;
	if (UNLIKELY(w->eng->plan->fidelity == FIDELITY_FFSB6))
		return engine_ffsb_size(pf, &w->rng);
	return pf->min_filesize + rng_below(&w->rng, pf->max_filesize - pf->min_filesize + 1);
}

/* pick_in_order (oplink.c, beside pick_dir) - file_order=sequential: the thread's next file in turn
 * (pool_pick_next from its cursor; the first pick places the cursor at the thread's share of the
 * file numbers, or with dir_per_thread at 0 among the files of its own directories, then of any
 * once those are gone). Same returns as pool_pick. */
int pick_in_order(struct worker *w, struct engine_fs *fs, enum pool_mode m, uint32_t *id);

/* Acquires an existing file (by file_order and file_popularity, popularity.h; own: one of this
 * rank's own, uniformly, for a delete of a shared tree). Returns 0, OP_SKIPPED when the set has no
 * file, or OP_BUSY when files exist but every one stayed held incompatibly (by other threads,
 * or a frozen pool) over the tries: an empty tree and a contended one are told apart. */
/* One pick of acquire: 0, -ENOENT (no file) or -EBUSY (every file held). */
static inline int acquire_once(struct worker *w, struct engine_fs *fs, enum pool_mode m, bool own,
                               uint32_t *id)
{
	bool in_order = UNLIKELY(w->g->file_order == ORDER_SEQUENTIAL) && !own && !w->aging;
	return in_order ? pick_in_order(w, fs, m, id)
	       : own    ? pool_pick_owned(&fs->files, &w->rng, m, id)
	       : LIKELY(w->g->pop.kind == POP_UNIFORM) || w->aging
	           ? pool_pick(fileset(w, fs), &w->rng, m, id)
	           : pool_pick_ranked(&fs->files, &w->g->pop, &fs->rank, &w->popc, &w->rng, m, id);
}

static inline int acquire(struct worker *w, struct engine_fs *fs, enum pool_mode m, bool own,
                          uint32_t *id)
{
	for (int tries = 0; tries < 4; tries++) {
		int rc = acquire_once(w, fs, m, own, id);
		if (rc == 0)
			return 0;
		if (rc == -ENOENT)
			return OP_SKIPPED;
		sched_yield(); /* -EBUSY: every file is held right now */
	}
	return OP_BUSY;
}

#endif
