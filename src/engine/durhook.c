/* durhook.c - the records the workers add to the journal of promises (--durability-log,
 * durhook.h): cold functions behind the one branch in durhook.h, and dirsync=1's directory
 * fsync. The operation bodies (opexec.c) call them; they call no other file of the engine, so
 * the workers' side of the journal sits below everything that runs the workers (durjournal.c,
 * the main thread's side, opens and drains the log). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "durhook.h"
#include "engine_int.h"
#include "ioengine.h"

/* Adds r (t_end 0: now) to w's ring. */
static void add_rec(struct worker *w, struct durlog_rec *r)
{
	if (!r->t_end)
		r->t_end = now_ns();
	if (!r->t_start)
		r->t_start = r->t_end;
	/* --crash-after: a sync that returns once the shutdown has begun promises nothing (ext4
	 * was seen to acknowledge an fsync 5 ms into the shutdown whose file the replay then
	 * lacked; and sync(2) reports no error at all). What happened stays recorded. */
	if (UNLIKELY(engine_crashed(w->eng))) {
		uint8_t k = r->kind;
		if (k == DL_FSYNC || k == DL_FDATASYNC || k == DL_SYNC || k == DL_SYNCFS ||
		    k == DL_DIRSYNC)
			return;
		r->flags &= (uint8_t)~DLF_SYNC; /* an O_SYNC write: a plain write */
		if (k == DL_REPLACE) /* its temporary file's fsync may have come too late */
			r->flags |= DLF_UNSURE;
	}
	durlog_add(w->dl, r);
}

void durhook_add(struct worker *w, uint8_t kind, uint8_t flags, const struct engine_fs *fs,
                 uint32_t file, uint32_t dir, uint64_t off, uint64_t len, uint64_t size,
                 uint32_t gen, uint64_t t_start, uint64_t t_end)
{
	struct durlog_rec r = {.kind = kind,
	                       .flags = flags,
	                       .fs = (uint16_t)(fs - w->eng->fs),
	                       .t_start = t_start,
	                       .t_end = t_end,
	                       .file = file,
	                       .dir = dir,
	                       .off = off,
	                       .len = len,
	                       .size = size,
	                       .gen = gen};
	add_rec(w, &r);
}

void durhook_add_renamed(struct worker *w, const struct engine_fs *fs, uint32_t id, uint32_t from,
                         uint32_t to)
{
	durhook_add_linked(w, DL_RENAME, fs, id, to, from);
}

void durhook_add_linked(struct worker *w, uint8_t kind, const struct engine_fs *fs, uint32_t id,
                        uint32_t to, uint32_t from)
{
	struct durlog_rec r = {.kind = kind,
	                       .flags = to == TREE_DIR_TOP ? DLF_TOP : 0,
	                       .fs = (uint16_t)(fs - w->eng->fs),
	                       .file = id,
	                       .dir = to,
	                       .aux = from};
	add_rec(w, &r);
}

void durhook_add_fallocated(struct worker *w, const struct engine_fs *fs, uint32_t id, uint32_t dir,
                            uint32_t mode, uint64_t off, uint64_t len, uint64_t size)
{
	struct durlog_rec r = {.kind = DL_FALLOCATE,
	                       .flags = dir == TREE_DIR_TOP ? DLF_TOP : 0,
	                       .fs = (uint16_t)(fs - w->eng->fs),
	                       .file = id,
	                       .dir = dir,
	                       .off = off,
	                       .len = len,
	                       .size = size,
	                       .aux = mode};
	add_rec(w, &r);
}

/* ---- dirsync=1 ---- */

int durhook_dirsync(struct worker *w, struct engine_fs *fs, uint32_t dir, bool meta)
{
	const struct tree *t = &fs->tree;
	int dfd = meta ? tree_meta_dirfd(t) : tree_data_dirfd(t, dir), own = -1;
	if (dfd < 0) { /* a directory whose descriptor the tree does not hold: dNNN under data/ */
		char name[TREE_NAME_MAX];
		if (tree_dir_path(&t->layout, dir, name, sizeof(name)) < 0)
			return -ENAMETOOLONG;
		own = dfd = w->io->openat(w, tree_data_dirfd(t, TREE_DIR_TOP), name,
		                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (dfd < 0)
			return dfd;
	}
	bool timed = w->timed[SYS_fsync];
	uint64_t t0 = timed || w->dl || w->ll ? now_ns() : 0;
	if (timed && !w->op_t0)
		w->op_t0 = t0;
	int rc = w->io->fsync(w, dfd, false);
	if (t0) {
		uint64_t t1 = now_ns();
		if (timed) {
			stats_sys_record(&w->st, SYS_fsync, t1 - t0);
			w->last_ts = t1;
		}
		w->op_sync_ns += t1 - t0;
		if (!rc && durhook_on(w))
			durhook_add(w, DL_DIRSYNC, 0, fs, 0, meta ? DURHOOK_DIR_META : dir, 0, 0, 0,
			            0, t0, t1);
	}
	if (own >= 0)
		(void)w->io->close(w, own);
	return rc;
}

int durhook_sync_confirm(struct worker *w, struct engine_fs **bad)
{
	uint64_t t0 = w->dl_t0, t1 = w->dl_t1;
	for (size_t i = 0; i < w->eng->n_fs; i++) {
		struct engine_fs *e = &w->eng->fs[i];
		if (syncfs(tree_data_dirfd(&e->tree, TREE_DIR_TOP)) < 0) {
			*bad = e;
			return -errno;
		}
	}
	w->dl_t0 = t0, w->dl_t1 = t1;
	return 0;
}
