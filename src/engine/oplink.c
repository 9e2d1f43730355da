/* oplink.c - second names (docs/ops.md): op link gives a random file f<id> a second name l<id>
 * (a hard link) in another data directory, op unlink removes it. A file has at most one second
 * name (the pool records its directory: pool_link_dir); delete and replace_fsync remove it
 * first (oplink_drop), so a second name always names the inode its f<id> names, and a free
 * pool slot never has one. Each op holds its file exclusively (a POOL_WRITE pick), like rename.
 *
 * Durability journal (durhook.h): DL_LINK and DL_UNLINK, logged once link(2) / unlink(2)
 * returned -- also when it failed after --crash-after's shutdown began (it may have happened:
 * the model keeps both possible); a call that fails otherwise fails the run and is not logged.
 * dirsync=1: the second name's directory is fsynced after either (a DL_DIRSYNC record).
 */
#include "durhook.h"
#include "engine.h"
#include "opcommon.h"
#include "opns.h"
#include "optimed.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* A directory for a new file. dir_per_thread: one of the thread's own (k, k+T, k+2T, ... for
 * worker k of the T that run at once, its phase's with phases; plan.c made sure each has one).
 * FFSB's layout (top_files): data/ itself with probability 1/(dirs+1), as FFSB. Otherwise one of
 * the data directories, by dir_files' shares. Directories made by createdir count (uniformly) once
 * they exist. */
uint32_t pick_dir(struct worker *w, struct engine_fs *fs)
{
	const struct plan_fs *pf = fs->pf;
	uint32_t base = pf->data_dirs;
	if (pf->dir_per_thread && base) {
		uint64_t nt = w->dir_slots                  ? w->dir_slots
		              : w->eng->plan->total_threads ? w->eng->plan->total_threads
		                                            : 1;
		uint64_t k = (w->dir_slots ? w->dir_slot : w->index) % nt;
		uint64_t own = k < base ? (base - k + nt - 1) / nt : 0;
		return own ? (uint32_t)(k + nt * rng_below(&w->rng, own)) : (uint32_t)(k % base);
	}
	uint32_t extra = atomic_load_explicit(&fs->next_dir, memory_order_relaxed) - base;
	uint64_t top = pf->top_files || !base ? 1 : 0;
	uint64_t r = rng_below(&w->rng, (uint64_t)base + extra + top);
	if (r == (uint64_t)base + extra)
		return TREE_DIR_TOP;
	if (r < base)
		return fs->dirs.n ? pick_one(&fs->dirs, &w->rng) : (uint32_t)r;
	uint32_t k = (uint32_t)(r - base);
	if (k < fs->dir_ready_cap && atomic_load_explicit(&fs->dir_ready[k], memory_order_acquire))
		return (uint32_t)r;
	return top ? TREE_DIR_TOP : (uint32_t)(r % base);
}

int pick_in_order(struct worker *w, struct engine_fs *fs, enum pool_mode m, uint32_t *id)
{
	struct pool *p = &fs->files;
	uint32_t nt = w->dir_slots ? w->dir_slots : 1, k = w->dir_slot % nt;
	/* dir_per_thread: thread k created in directories k, k + nt, ... (pick_dir) */
	bool own_dirs = fs->pf->dir_per_thread && fs->pf->data_dirs && !w->order_any;
	if (!w->order_set) {
		uint64_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
		/* its own share of the numbers (mdtest: task k's items), or all of them from 0 */
		w->order_cur = own_dirs ? 0 : (uint32_t)(hw * k / nt);
		w->order_set = true;
	}
	if (own_dirs) {
		int rc = pool_pick_next(p, &w->order_cur, m, nt, k, id);
		if (rc != -ENOENT)
			return rc;
		w->order_any = true; /* none of its own left: any thread's from now on */
	}
	return pool_pick_next(p, &w->order_cur, m, 0, 0, id);
}

/* Where a renamed file or a second name goes (opns.c, oplink.c): a create's directory
 * (pick_dir), but never from (data/ when that was drawn, or d000 for a file of data/; the next
 * directory where files live in directories only: dir_depth > 1, dir_files, dir_per_thread).
 * TREE_DIR_TOP both ways (a tree without directories): nowhere else to go. */
uint32_t other_dir(struct worker *w, struct engine_fs *fs, uint32_t from)
{
	uint32_t to = pick_dir(w, fs);
	if (to != from)
		return to;
	uint32_t n = fs->pf->data_dirs;
	if (from != TREE_DIR_TOP && !fs->pf->top_files && n > 1)
		return (from + 1) % n; /* files only in the directories: the next one */
	if (from != TREE_DIR_TOP)
		return TREE_DIR_TOP;
	return n ? 0 : TREE_DIR_TOP;
}

static int t_linkat(struct worker *w, int ofd, const char *from, int nfd, const char *to)
{
	uint64_t t0 = timed_begin(w, SYS_link);
	int r = w->io->linkat(w, ofd, from, nfd, to);
	timed_end(w, SYS_link, t0);
	return r;
}

/* The second name of file id in dir, as file_at gives its first: "l<id>" (or "dNNN/l<id>")
 * relative to the returned descriptor. */
static int link_at(const struct worker *w, const struct engine_fs *fs, uint32_t dir, uint32_t id,
                   char *name, size_t len)
{
	int dfd = file_at(w, fs, dir, id, name, len);
	char *last = strrchr(name, '/');
	last = last ? last + 1 : name;
	if (*last == 'f')
		*last = 'l';
	return dfd;
}

/* The second name of file id (in ldir; its first name is in dir) unlinked and journaled, the
 * pool told; dirsync=1: ldir fsynced. 0 or the op's failure. */
static int unlink_second(struct worker *w, struct engine_fs *fs, enum op_id op, uint32_t id,
                         uint32_t ldir, uint32_t dir)
{
	char name[TREE_NAME_MAX];
	int dfd = link_at(w, fs, ldir, id, name, sizeof(name));
	int rc = t_unlinkat(w, dfd, name, 0, SYS_unlink);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_link(w, fs, DL_UNLINK, id, ldir, dir);
	if (rc < 0)
		return fail(w, op, SYS_unlink, -rc, fs, ldir, id, false);
	pool_set_link(fileset(w, fs), id, POOL_NO_LINK); /* held exclusively */
	if (w->g->dirsync && (rc = durhook_dirsync(w, fs, ldir, false)) < 0)
		return fail(w, op, SYS_fsync, -rc, fs, ldir, id, false);
	return 0;
}

int oplink_drop(struct worker *w, struct engine_fs *fs, enum op_id op, uint32_t id)
{
	struct pool *p = fileset(w, fs);
	uint32_t ldir = pool_link_dir(p, id);
	return ldir == POOL_NO_LINK ? 0 : unlink_second(w, fs, op, id, ldir, pool_dir(p, id));
}

/* link: a random file without a second name gets l<id> in another data directory
 * (other_dir; a tree without directories has none: skipped). linkat never replaces a name:
 * one there (EEXIST) is not fsmix's doing and fails the run. */
int op_link(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	int rc = acquire(w, fs, POOL_WRITE, fs->files.part_n != 0, &id); /* own: --shared-tree */
	if (rc)
		return rc;
	struct pool *p = &fs->files;
	uint32_t dir = pool_dir(p, id);
	/* one second name at most; none in the file's own directory (to == dir: skipped) */
	uint32_t to = pool_link_dir(p, id) == POOL_NO_LINK ? other_dir(w, fs, dir) : dir;
	if (to == dir) {
		pool_release(p, id, POOL_WRITE);
		return OP_SKIPPED;
	}
	char a[TREE_NAME_MAX], b[TREE_NAME_MAX];
	int afd = file_at(w, fs, dir, id, a, sizeof(a));
	int bfd = link_at(w, fs, to, id, b, sizeof(b));
	rc = t_linkat(w, afd, a, bfd, b);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_link(w, fs, DL_LINK, id, to, dir);
	if (rc < 0) {
		rc = fail(w, op, SYS_link, -rc, fs, to, id, false);
	} else {
		pool_set_link(p, id, to); /* held exclusively */
		if (w->g->dirsync && (rc = durhook_dirsync(w, fs, to, false)) < 0)
			rc = fail(w, op, SYS_fsync, -rc, fs, to, id, false);
		else
			r->trans = 1;
	}
	pool_release(p, id, POOL_WRITE);
	return rc;
}

/* unlink: a random file's second name removed (a file without one: skipped). */
int op_unlink(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	int rc = acquire(w, fs, POOL_WRITE, fs->files.part_n != 0, &id);
	if (rc)
		return rc;
	struct pool *p = &fs->files;
	uint32_t ldir = pool_link_dir(p, id);
	if (ldir == POOL_NO_LINK) {
		pool_release(p, id, POOL_WRITE);
		return OP_SKIPPED;
	}
	if ((rc = unlink_second(w, fs, op, id, ldir, pool_dir(p, id))) == 0)
		r->trans = 1;
	pool_release(p, id, POOL_WRITE);
	return rc;
}
