/* opns.c - the namespace operations of ops.def (docs/ops.md): rename, replace_fsync (the
 * atomic-replace commit of databases and editors; a second name the file has is unlinked
 * first, oplink.c), mkdir and rmdir, and truncate and the fallocate family (fallocate,
 * punch_hole, zero_range), which change a file's length or blocks rather than its name but share
 * their frame. Each holds its file exclusively (a POOL_WRITE pick), so no reader or writer meets
 * it between its names; the pool learns the new directory (rename) or the new size and
 * generation (replace_fsync) before the file is released.
 *
 * Durability journal (durhook.h): each logs one record once its rename(2) returned -- also when
 * it failed after --crash-after's shutdown began (then it may have happened: the model keeps
 * both names possible); a rename that fails otherwise fails the run and is not logged.
 */
#include "durhook.h"
#include "engine.h"
#include "opcommon.h"
#include "opcontent.h"
#include "opns.h"
#include "optimed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- rename ---- */

/* The namespace operations' own timed calls (optimed.h has the ones every op body shares:
 * a private header's function bodies count with every file that includes it). */
/* renameat2 between two directories; flags RENAME_NOREPLACE: never over a name that exists. */
static int t_renameat2(struct worker *w, int ofd, const char *from, int nfd, const char *to,
                       unsigned flags)
{
	uint64_t t0 = timed_begin(w, SYS_rename);
	int r = w->io->renameat(w, ofd, from, nfd, to, flags);
	timed_end(w, SYS_rename, t0);
	return r;
}

static int t_ftruncate(struct worker *w, int fd, uint64_t len)
{
	uint64_t t0 = timed_begin(w, SYS_ftruncate);
	int r = w->io->ftruncate(w, fd, (off_t)len);
	timed_end(w, SYS_ftruncate, t0);
	return r;
}

static int t_fallocate(struct worker *w, int fd, int mode, uint64_t off, uint64_t len)
{
	uint64_t t0 = timed_begin(w, SYS_fallocate);
	int r = w->io->fallocate(w, fd, mode, (off_t)off, (off_t)len);
	timed_end(w, SYS_fallocate, t0);
	return r;
}

/* rename: a random file moves to another data directory under its own name f<id> (names are
 * made from ids, so the id stays the file's identity and the tree's naming holds). renameat2
 * with RENAME_NOREPLACE: a name there is someone else's, never replaced (EEXIST). dirsync=1:
 * the new directory, then the old one, fsynced. */
int op_rename(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	int rc = acquire(w, fs, POOL_WRITE, fs->files.part_n != 0, &id); /* own: --shared-tree */
	if (rc)
		return rc;
	uint32_t from = pool_dir(&fs->files, id), to = other_dir(w, fs, from);
	if (to == from) {
		pool_release(&fs->files, id, POOL_WRITE);
		return OP_SKIPPED;
	}
	char a[TREE_NAME_MAX], b[TREE_NAME_MAX];
	int afd = file_at(w, fs, from, id, a, sizeof(a));
	int bfd = file_at(w, fs, to, id, b, sizeof(b));
	rc = t_renameat2(w, afd, a, bfd, b, RENAME_NOREPLACE);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_rename(w, fs, id, from, to);
	if (rc < 0) {
		rc = fail(w, op, SYS_rename, -rc, fs, from, id, false);
	} else {
		pool_set_dir(&fs->files, id, to); /* held exclusively */
		if (w->g->dirsync && ((rc = durhook_dirsync(w, fs, to, false)) < 0 ||
		                      (rc = durhook_dirsync(w, fs, from, false)) < 0))
			rc = fail(w, op, SYS_fsync, -rc, fs, to, id, false);
		else
			r->trans = 1;
	}
	pool_release(&fs->files, id, POOL_WRITE);
	return rc;
}

/* ---- replace_fsync ---- */

/* The next content generation of a file at gen, as begin_write (opexec.c) counts them: a file
 * of an old manifest (generation unknown) continues at 2^31. */
static uint32_t next_gen(uint32_t gen)
{
	return gen == POOL_GEN_UNKNOWN ? 1u << 31 : gen == UINT32_MAX ? gen : gen + 1;
}

/* The temporary file tmp (in dfd) made, written with generation gen of file id for size bytes,
 * fsynced and closed. A tmp left by a crash is fsmix's by its name (tree.h) and is removed
 * first. 0, or -errno after latching the failure (tmp removed again). */
static int write_tmp(struct worker *w, struct engine_fs *fs, enum op_id op, int dfd,
                     const char *tmp, uint32_t id, uint32_t dir, uint32_t gen, uint64_t size,
                     struct op_result *r)
{
	int fl = open_flags(w, O_CREAT | O_EXCL | O_WRONLY);
	int fd = t_openat(w, SYS_create, dfd, tmp, fl, 0600);
	if (fd == -EEXIST && w->io->unlinkat(w, dfd, tmp, 0) == 0)
		fd = t_openat(w, SYS_create, dfd, tmp, fl, 0600);
	if (fd < 0)
		return fail(w, op, SYS_create, -fd, fs, dir, id, false);
	struct wpos c = {.key = engine_content_key(fs, id), .gen = gen, .off = 0};
	enum sys_id failed = SYS_write;
	int64_t k = write_blocks(w, fd, size, w->g->write_blocksize, &c);
	if (k >= 0) {
		r->trans = (uint64_t)k;
		r->bytes_written = size;
		failed = SYS_fsync;
		k = t_sync_call(w, SYS_fsync, fd);
	}
	if (k < 0) {
		(void)w->io->close(w, fd);
	} else if ((k = t_close(w, fd)) < 0) {
		failed = SYS_close;
	} else {
		return 0;
	}
	int rc = fail(w, op, failed, (int)-k, fs, dir, id, false);
	(void)w->io->unlinkat(w, dfd, tmp, 0); /* our own half-made file */
	return rc;
}

/* replace_fsync: the atomic replace. The file's next generation, of a create's size, is
 * written whole to f<id>.tmp beside it, fsynced, renamed over f<id>, and the directory
 * fsynced: after a crash f<id> holds the old content or the new, whole; once the directory's
 * fsync returned, the new (docs/durability.md, "Namespace operations"). */
int op_replace_fsync(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	/* own (--shared-tree): another rank writing the file would write the old inode */
	int rc = acquire(w, fs, POOL_WRITE, fs->files.part_n != 0, &id);
	if (rc)
		return rc;
	struct pool *p = &fs->files;
	uint32_t dir = pool_dir(p, id), gen = next_gen(pool_gen(p, id));
	uint64_t old = pool_size(p, id), size = pick_size(w, fs);
	char name[TREE_NAME_MAX], tmp[TREE_NAME_MAX];
	int dfd = file_at(w, fs, dir, id, name, sizeof(name));
	if (snprintf(tmp, sizeof(tmp), "%s" TREE_TMP_SUFFIX, name) >= (int)sizeof(tmp)) {
		rc = fail(w, op, SYS_create, ENAMETOOLONG, fs, dir, id, false);
		goto out;
	}
	/* the new inode would leave a second name on the old one: removed first (oplink.c) */
	if ((rc = oplink_drop(w, fs, op, id)) < 0)
		goto out;
	/* before the first write, as begin_write: a reader after this op accepts gen */
	pool_set_gen(p, id, gen, (uint32_t)time(NULL));
	if ((rc = write_tmp(w, fs, op, dfd, tmp, id, dir, gen, size, r)) != 0)
		goto out;
	rc = t_renameat(w, dfd, tmp, name);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_replace(w, fs, id, dir, gen, old, size);
	if (rc < 0) {
		rc = fail(w, op, SYS_rename, -rc, fs, dir, id, false);
		(void)w->io->unlinkat(w, dfd, tmp, 0);
		goto out;
	}
	pool_set_size(p, id, size); /* held exclusively */
	if ((rc = durhook_dirsync(w, fs, dir, false)) < 0)
		rc = fail(w, op, SYS_fsync, -rc, fs, dir, id, false);
out:
	pool_release(p, id, POOL_WRITE);
	return rc;
}

/* ---- truncate, fallocate, punch_hole, zero_range: one frame (resize_op) ---- */

/* resize_op's mode for ftruncate; the fallocate modes are enum durlog_falloc's. */
#define RESIZE_TRUNCATE UINT32_MAX

/* The extent of a fallocate in mode (enum durlog_falloc) of a file size bytes long, into *off,
 * *len: keep size, past the end (1 to max(size, 4 KiB) bytes at it: an allocation a later
 * append or extension uses); punch, within the file (from a uniform offset, 1 to 64 KiB, not
 * past the end; [0, 4 KiB) of an empty file, a no-op); zero, from a uniform offset within it,
 * 1 to max(size, 4 KiB) bytes (may pass the end: the length grows). Any byte alignment: the
 * kernel zeroes partial blocks. */
static void falloc_extent(struct worker *w, uint32_t mode, uint64_t size, uint64_t *off,
                          uint64_t *len)
{
	uint64_t span = size > 4096 ? size : 4096;
	if (mode == DL_FALLOC_KEEP) {
		*off = size, *len = 1 + rng_below(&w->rng, span);
	} else if (mode == DL_FALLOC_PUNCH) {
		*off = size ? rng_below(&w->rng, size) : 0;
		uint64_t room = size ? size - *off : 4096;
		*len = 1 + rng_below(&w->rng, room < 65536 ? room : 65536);
	} else {
		*off = size ? rng_below(&w->rng, size) : 0;
		*len = 1 + rng_below(&w->rng, span);
	}
}

/* A new length for truncate: half of the time shorter, uniform in [0, size), half longer by 1
 * to max(size, 4 KiB) bytes. */
static uint64_t truncate_length(struct worker *w, uint64_t size)
{
	if (size && rng_below(&w->rng, 2))
		return rng_below(&w->rng, size);
	return size + 1 + rng_below(&w->rng, size > 4096 ? size : 4096);
}

/* One ftruncate(2) (RESIZE_TRUNCATE) or fallocate(2) in mode (enum durlog_falloc) of a random
 * file, held exclusively: the call is recorded when it returned 0 or failed after
 * --crash-after's shutdown began (it may have happened), and the pool learns the new length
 * before the release; no sync. A filesystem without a fallocate mode (EOPNOTSUPP: tmpfs has no
 * zero range) fails the op, and the run, naming the call: a weighted op that silently did
 * nothing would be counted as done. */
static int resize_op(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r,
                     uint32_t mode)
{
	static const int flags[DL_FALLOC_COUNT] = {
	    [DL_FALLOC_KEEP] = FALLOC_FL_KEEP_SIZE,
	    [DL_FALLOC_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    [DL_FALLOC_ZERO] = FALLOC_FL_ZERO_RANGE,
	};
	FSMIX_ASSERT(mode == RESIZE_TRUNCATE || mode < DL_FALLOC_COUNT);
	uint32_t id;
	int rc = acquire(w, fs, POOL_WRITE, false, &id);
	if (rc)
		return rc;
	uint32_t dir = pool_dir(&fs->files, id);
	uint64_t old = pool_size(&fs->files, id), size = old, off = 0, len = 0;
	if (mode == RESIZE_TRUNCATE)
		size = truncate_length(w, old);
	else
		falloc_extent(w, mode, old, &off, &len);
	if (mode == DL_FALLOC_ZERO && off + len > size)
		size = off + len;
	enum sys_id sys = mode == RESIZE_TRUNCATE ? SYS_ftruncate : SYS_fallocate;
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, dir, id, name, sizeof(name));
	int fd = t_openat(w, SYS_open, dfd, name, open_flags(w, O_WRONLY), 0);
	if (fd < 0) {
		rc = fail(w, op, SYS_open, -fd, fs, dir, id, false);
		goto out;
	}
	rc = mode == RESIZE_TRUNCATE ? t_ftruncate(w, fd, size)
	                             : t_fallocate(w, fd, flags[mode], off, len);
	if (rc == 0 || engine_crashed(w->eng)) {
		if (mode == RESIZE_TRUNCATE)
			durhook_truncate(w, fs, id, dir, old, size);
		else
			durhook_fallocate(w, fs, id, dir, mode, off, len, size);
	}
	if (rc < 0) {
		(void)w->io->close(w, fd);
		rc = fail(w, op, sys, -rc, fs, dir, id, false);
		goto out;
	}
	pool_set_size(&fs->files, id, size); /* held exclusively */
	if ((rc = t_close(w, fd)) < 0)
		rc = fail(w, op, SYS_close, -rc, fs, dir, id, false);
	else
		r->trans = 1;
out:
	pool_release(&fs->files, id, POOL_WRITE);
	return rc;
}

/* truncate: ftruncate() of a random file to a length drawn from its own: half of the time
 * shorter, uniform in [0, size) (its tail dropped), half longer by 1 to max(size, 4 KiB) bytes
 * (a hole of zeroes at its end, which no generation describes: verify=1 refuses the op,
 * plan.c). The content generation stays: what remains is what was written. The length is
 * recorded in the pool before the release; no sync. */
int op_truncate(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return resize_op(w, fs, op, r, RESIZE_TRUNCATE);
}

int op_fallocate(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return resize_op(w, fs, op, r, DL_FALLOC_KEEP);
}

int op_punch_hole(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return resize_op(w, fs, op, r, DL_FALLOC_PUNCH);
}

int op_zero_range(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return resize_op(w, fs, op, r, DL_FALLOC_ZERO);
}

/* ---- mkdir, rmdir ---- */

/* mkdir: an empty directory m<id> in meta/, from the pool metaop's directories share (its names
 * are fsmix's by tree_is_meta_name: clean and purge remove them). No file ever goes into one,
 * so rmdir may remove any of them: no use counts. dirsync=1: meta/ fsynced, which makes the
 * new entry durable (docs/durability.md, "Directories"). */
int op_mkdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	if (pool_reserve(&fs->meta, &id))
		return fail(w, op, SYS_mkdir, EMFILE, fs, 0, 0, true);
	char name[TREE_NAME_MAX];
	tree_meta_name(id, 0, name, sizeof(name));
	int rc = t_mkdirat(w, tree_meta_dirfd(&fs->tree), name);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_dir(w, fs, DL_MKDIR, id, DURHOOK_DIR_META);
	if (rc < 0) {
		rc = fail(w, op, SYS_mkdir, -rc, fs, 0, id, true);
		pool_unreserve(&fs->meta, id);
		return rc;
	}
	pool_publish(&fs->meta, id, 0, 0);
	if (w->g->dirsync && (rc = durhook_dirsync(w, fs, 0, true)) < 0)
		return fail(w, op, SYS_fsync, -rc, fs, 0, id, true);
	r->trans = 1;
	return 0;
}

/* rmdir: a random directory of meta/ (mkdir's, or metaop's: its name by the generation metaop's
 * rename left in the pool's size field), held exclusively; none: skipped. dirsync=1: meta/
 * fsynced, which makes the removal durable. */
int op_rmdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t id;
	if (pool_pick(&fs->meta, &w->rng, POOL_WRITE, &id))
		return OP_SKIPPED;
	uint32_t gen = (uint32_t)pool_size(&fs->meta, id);
	char name[TREE_NAME_MAX];
	tree_meta_name(id, gen, name, sizeof(name));
	int rc = t_unlinkat(w, tree_meta_dirfd(&fs->tree), name, AT_REMOVEDIR, SYS_rmdir);
	if (rc == 0 || engine_crashed(w->eng))
		durhook_dir(w, fs, DL_RMDIR, id, DURHOOK_DIR_META);
	if (rc < 0) {
		rc = fail(w, op, SYS_rmdir, -rc, fs, gen, id, true);
		pool_release(&fs->meta, id, POOL_WRITE);
		return rc;
	}
	pool_remove(&fs->meta, id);
	if (w->g->dirsync && (rc = durhook_dirsync(w, fs, 0, true)) < 0)
		return fail(w, op, SYS_fsync, -rc, fs, 0, id, true);
	r->trans = 1;
	return 0;
}
