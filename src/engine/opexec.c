/* opexec.c - running an operation of ops.def (op_execute: its body from the table), and the
 * bodies of the operations that make, remove or look at files and directories as wholes (create,
 * delete, stat, metaop, createdir) or flush a filesystem (sync, syncfs), with FFSB 6.0's system
 * call sequences and transaction accounting (docs/ops.md). The operations on an existing file's
 * bytes are opfile.c's, the namespace operations opns.c's; the timed system call wrappers, the
 * sync family included, are optimed.h, and the bytes the writes send (write_block,
 * write_blocks) are opcontent.h's.
 *
 * Every file operation works on the shared pool: it acquires a file (shared for reads,
 * exclusive for anything that writes, appends or deletes), performs its system calls relative
 * to the tree's directory descriptors (openat/fstatat/unlinkat: no path walks from /), and
 * releases the file. Differences from FFSB, all deliberate: writers and appenders hold the file
 * exclusively (FFSB let them race), a file smaller than read_size/write_size is read or written
 * as far as it goes (FFSB aborted), an empty pool makes an op "skipped" (FFSB aborted), metaop
 * renames toggle between two names (FFSB appended an 'a' per rename, forever), and the size is
 * known from the pool (FFSB stat()ed the path first).
 */
#include "durhook.h"
#include "engine.h"
#include "opcommon.h"
#include "opcontent.h"
#include "opfile.h"
#include "opns.h"
#include "opseq.h"
#include "optimed.h"
#include "shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* create / create_fsync: a new file sized by size_weight, written with write_blocksize. O_EXCL:
 * the slot is free, so no file of that name may exist; one that does was put there by someone
 * else (a hard link to an outside file, say), and is neither truncated nor written: EEXIST. */
static int op_create(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	int rc = pool_reserve(fileset(w, fs), &id);
	if (rc)
		return fail(w, op, SYS_create, -rc == ENOSPC ? EMFILE : -rc, fs, TREE_DIR_TOP,
		            UINT32_MAX, false);
	uint32_t dir = pick_dir(w, fs);
	uint64_t size = pick_size(w, fs);
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, dir, id, name, sizeof(name));
	int fd =
	    t_openat(w, SYS_create, dfd, name, open_wflags(w, O_CREAT | O_EXCL | O_RDWR), 0600);
	if (fd < 0) {
		rc = fail(w, op, SYS_create, -fd, fs, dir, id, false);
		pool_unreserve(fileset(w, fs), id);
		return rc;
	}
	enum sys_id failed = SYS_write;
	struct wpos c = {.key = engine_content_key(fs, disk_id(w, id)), .gen = 1, .off = 0};
	durhook_name(w, fs, DL_CREATE, id, dir);
	int64_t k = write_blocks(w, fd, size, w->g->write_blocksize, &c);
	if (k >= 0) {
		durhook_write(w, fs, id, dir, 1, 0, size, size);
		r->trans = (uint64_t)k;
		r->bytes_written = size;
		failed = sync_sys(op);
		k = sync_after(w, op, fd);
		if (k == 0 && (op_table[op].flags & (OPF_FSYNC | OPF_FDATASYNC)))
			durhook_synced(w, fs, sync_sys(op), id, dir, size, 1);
	}
	if (k < 0) {
		(void)w->io->close(w, fd);
	} else if ((k = t_close(w, fd)) < 0) {
		failed = SYS_close;
	} else if (w->g->dirsync && (k = durhook_dirsync(w, fs, dir, false)) < 0) {
		failed = SYS_fsync;
	} else {
		pool_set_gen(fileset(w, fs), id, 1, (uint32_t)time(NULL)); /* reserved: exclusive */
		pool_publish(fileset(w, fs), id, dir, size);
		return 0;
	}
	rc = fail(w, op, failed, (int)-k, fs, dir, id, false);
	if (w->io->unlinkat(w, dfd, name, 0) == 0) /* our own half-written file */
		durhook_name(w, fs, DL_DELETE, id, dir);
	pool_unreserve(fileset(w, fs), id);
	return rc;
}

static int op_delete(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	int rc = acquire(w, fs, POOL_WRITE, fs->files.part_n != 0, &id); /* own: --shared-tree */
	if (rc)
		return rc;
	uint32_t dir = pool_dir(fileset(w, fs), id);
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, dir, id, name, sizeof(name));
	/* delete removes both names, the second first (oplink.c: its own DL_UNLINK record) */
	if ((rc = oplink_drop(w, fs, op, id)) != 0) {
		pool_release(fileset(w, fs), id, POOL_WRITE);
		return rc;
	}
	if ((rc = t_unlinkat(w, dfd, name, 0, SYS_unlink)) < 0) {
		rc = fail(w, op, SYS_unlink, -rc, fs, dir, id, false);
		pool_release(fileset(w, fs), id, POOL_WRITE);
		return rc;
	}
	durhook_name(w, fs, DL_DELETE, id, dir);
	if (w->g->dirsync && (rc = durhook_dirsync(w, fs, dir, false)) < 0) {
		pool_remove(fileset(w, fs), id); /* the name is gone all the same */
		return fail(w, op, SYS_fsync, -rc, fs, dir, id, false);
	}
	pool_remove(fileset(w, fs), id);
	r->trans = 1;
	return 0;
}

static int op_stat(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	struct stat st;
	int rc = acquire(w, fs, POOL_READ, false, &id);
	if (rc)
		return rc;
	uint32_t dir = pool_dir(fileset(w, fs), id);
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, dir, id, name, sizeof(name));
	if ((rc = t_fstatat(w, dfd, name, &st)) < 0)
		rc = fail(w, op, SYS_stat, -rc, fs, dir, id, false);
	else
		r->trans = 1;
	pool_release(fileset(w, fs), id, POOL_READ);
	return rc;
}

/* metaop: two mkdir, one rmdir of a random metadata directory, one rename of another (FFSB's
 * mix). A renamed directory toggles between m<id> and m<id>.1 (the pool's size field holds the
 * generation), so names stay bounded. */
static int op_metaop(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	int mfd = tree_meta_dirfd(&fs->tree);
	char name[TREE_NAME_MAX], to[TREE_NAME_MAX];
	for (int i = 0; i < 2; i++) {
		uint32_t id;
		int rc = pool_reserve(&fs->meta, &id);
		if (rc)
			return fail(w, op, SYS_mkdir, EMFILE, fs, 0, 0, true);
		tree_meta_name(id, 0, name, sizeof(name));
		if ((rc = t_mkdirat(w, mfd, name)) < 0) {
			rc = fail(w, op, SYS_mkdir, -rc, fs, 0, id, true);
			pool_unreserve(&fs->meta, id);
			return rc;
		}
		pool_publish(&fs->meta, id, 0, 0);
	}
	uint32_t id;
	if (pool_pick(&fs->meta, &w->rng, POOL_WRITE, &id) == 0) {
		uint32_t gen = (uint32_t)pool_size(&fs->meta, id);
		tree_meta_name(id, gen, name, sizeof(name));
		int rc = t_unlinkat(w, mfd, name, AT_REMOVEDIR, SYS_rmdir);
		if (rc < 0) {
			rc = fail(w, op, SYS_rmdir, -rc, fs, gen, id, true);
			pool_release(&fs->meta, id, POOL_WRITE);
			return rc;
		}
		pool_remove(&fs->meta, id);
	}
	if (pool_pick(&fs->meta, &w->rng, POOL_WRITE, &id) == 0) {
		uint32_t gen = (uint32_t)pool_size(&fs->meta, id);
		tree_meta_name(id, gen, name, sizeof(name));
		tree_meta_name(id, !gen, to, sizeof(to));
		int rc = t_renameat(w, mfd, name, to);
		if (rc < 0) {
			rc = fail(w, op, SYS_rename, -rc, fs, gen, id, true);
			pool_release(&fs->meta, id, POOL_WRITE);
			return rc;
		}
		pool_set_size(&fs->meta, id, !gen);
		pool_release(&fs->meta, id, POOL_WRITE);
		if (w->g->dirsync && (rc = durhook_dirsync(w, fs, 0, true)) < 0)
			return fail(w, op, SYS_fsync, -rc, fs, !gen, id, true);
	}
	r->trans = 1;
	return 0;
}

/* createdir: a new data directory d<N> that later creates may fill (FFSB printed a line per
 * call; fsmix does not); dirsync: data/ fsynced before a file can be created in it. Journaled
 * (DL_MKDIR, parent data/) before a file can be: the model ties the names made in it to its own
 * (docs/durability.md, "Directories"). */
static int op_createdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t d = atomic_fetch_add_explicit(&fs->next_dir, 1, memory_order_relaxed);
	uint32_t k = d - fs->pf->data_dirs;
	char name[TREE_NAME_MAX];
	if (k >= fs->dir_ready_cap)
		return fail(w, op, SYS_mkdir, EMLINK, fs, TREE_DIR_TOP, UINT32_MAX, false);
	tree_dir_name(d, name, sizeof(name));
	int rc = t_mkdirat(w, tree_data_dirfd(&fs->tree, TREE_DIR_TOP), name);
	if (rc == 0 || engine_crashed(w->eng)) /* (durhook_dir: no file goes in it before) */
		durhook_dir(w, fs, DL_MKDIR, d, TREE_DIR_TOP);
	if (rc < 0)
		return fail(w, op, SYS_mkdir, -rc, fs, TREE_DIR_TOP, UINT32_MAX, false);
	if (w->g->dirsync && (rc = durhook_dirsync(w, fs, TREE_DIR_TOP, false)) < 0)
		return fail(w, op, SYS_fsync, -rc, fs, TREE_DIR_TOP, UINT32_MAX, false);
	atomic_store_explicit(&fs->dir_ready[k], 1, memory_order_release);
	r->trans = 1;
	return 0;
}

/* sync: sync(2), every filesystem (fs unused); journaled once durhook_sync_confirm agrees. */
static int op_sync(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	(void)t_sync_call(w, SYS_sync, -1);
	struct engine_fs *bad = fs;
	int rc = durhook_on(w) ? durhook_sync_confirm(w, &bad) : 0;
	if (rc < 0)
		return fail(w, op, SYS_syncfs, -rc, bad, TREE_DIR_TOP, UINT32_MAX, false);
	durhook_fs_synced(w, fs, DL_SYNC);
	r->trans = 1;
	return 0;
}

/* syncfs: syncfs(2) on the filesystem holding the tree. */
static int op_syncfs(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	int rc = t_sync_call(w, SYS_syncfs, tree_data_dirfd(&fs->tree, TREE_DIR_TOP));
	if (rc < 0)
		return fail(w, op, SYS_syncfs, -rc, fs, TREE_DIR_TOP, UINT32_MAX, false);
	durhook_fs_synced(w, fs, DL_SYNCFS);
	r->trans = 1;
	return 0;
}

typedef int op_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

static int op_sequence(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

static op_body *const op_bodies[OP_COUNT] = {
#define OP(name_, flags_, body_, help_) [OP_##name_] = body_,
#include "ops.def"
#undef OP
};

/* A step of a sequence done: its own row (count, bytes, latency); its transactions are its
 * sequence's one. */
static void step_done(struct worker *w, enum op_id step, const struct op_result *sr, uint64_t lat)
{
	w->st.ops[step]++;
	w->st.bytes_read[step] += sr->bytes_read;
	w->st.bytes_written[step] += sr->bytes_written;
	w->st.ffsb_read[step] += sr->bytes_read;
	w->st.ffsb_written[step] += sr->bytes_written;
	if (lat && w->time_ops)
		stats_op_record(&w->st, step, lat);
}

/* sequence: the group's steps in order (plan.h: seq), each timed and counted in its own row
 * (step_done; a skip, a busy pick or a failure in the step's row too), the whole one
 * transaction whose latency runs from its first step's start to its last's end (with every
 * call timed, from their clock reads, as an op's). A step that fails or finds no file ends the
 * sequence (seq_abort gives back what it held): the sequence counts as failed or skipped. */
static int op_sequence(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	(void)op;
	const struct plan_group *g = w->g;
	uint64_t first_t0 = 0;
	int rc = 0;
	if (w->seq.open) /* sequence_hold: the file kept open, on its filesystem */
		fs = w->seq.fs;
	for (uint32_t i = 0; i < g->n_seq && rc == 0; i++) {
		enum op_id step = (enum op_id)g->seq[i].op;
		struct op_result sr = {0};
		uint64_t t0 = 0, lat = 0;
		w->seq.step = &g->seq[i];
		w->seq.nocall = false;
		if (w->shared_clock)
			w->op_t0 = 0;
		else if (w->time_ops)
			t0 = now_ns();
		rc = op_bodies[step](w, fs, step, &sr);
		if (rc == 0) {
			if (w->shared_clock && w->op_t0) {
				first_t0 = first_t0 ? first_t0 : w->op_t0;
				lat = w->last_ts - w->op_t0;
			} else if (t0) {
				lat = now_ns() - t0;
			}
			if (!w->seq.nocall) /* a held file taken or given back: no step made */
				step_done(w, step, &sr, lat);
			r->bytes_read += sr.bytes_read;
			r->bytes_written += sr.bytes_written;
		} else if (rc == OP_SKIPPED) {
			w->skipped[step]++;
		} else if (rc == OP_BUSY) {
			w->st.busy[step]++;
		} else {
			w->st.errors[step]++;
		}
	}
	if (w->shared_clock)
		w->op_t0 = first_t0;
	if (rc) {
		seq_abort(w, fs, rc);
		return rc;
	}
	r->trans = 1;
	return 0;
}

int op_execute(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return op_bodies[op](w, fs, op, r);
}

int op_probe_directio(struct engine_fs *fs, char *err, size_t errlen)
{
	/* The tree's own probe file, not a pool id: the pool must stay empty until the build or
	 * the manifest fills it. */
	int rc = tree_probe_open(&fs->tree, O_DIRECT);
	if (rc)
		snprintf(err, errlen, "%s: O_DIRECT (directio=1) is refused here: %s",
		         fs->tree.root, strerror(-rc));
	return rc;
}
