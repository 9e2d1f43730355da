/* opexec.c - the bodies of the operations of ops.def, with FFSB 6.0's system call sequences and
 * transaction accounting (docs/ops.md); the timed system call wrappers, the sync family
 * included, are optimed.h, and the bytes the writes send (write_block, write_blocks) are
 * opcontent.h's.
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
#include "check.h"
#include "durhook.h"
#include "engine.h"
#include "opcommon.h"
#include "opcontent.h"
#include "opns.h"
#include "optimed.h"
#include "shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- operations on an existing file: one frame, one body each ---- */

/* The file an operation holds: from the pool, opened for the body. */
struct held_file {
	uint32_t id, dir;
	uint64_t size; /* bytes, as the pool records it */
	uint32_t gen;  /* content generation, set by begin_write (the pool's word is loaded only by
	                * the ops that need it: writers, and readers with verify=1) */
	int fd;
};

/* Latches the failure of system call s on the held file; returns -err (err 0, a short read:
 * the file changed under us, becomes EIO). */
static int file_fail(struct worker *w, struct engine_fs *fs, enum op_id op,
                     const struct held_file *f, enum sys_id s, int err)
{
	return fail(w, op, s, err, fs, f->dir, f->id, false);
}

/* Seeks the held file: 0, or -errno after latching the failure. */
static int seek_to(struct worker *w, struct engine_fs *fs, enum op_id op, const struct held_file *f,
                   uint64_t off, int whence)
{
	off_t o = t_lseek(w, f->fd, (off_t)off, whence);
	return o < 0 ? file_fail(w, fs, op, f, SYS_lseek, (int)-o) : 0;
}

/* The sync call the op's flags ask for (fsync, fdatasync or none): 0, or -errno after latching
 * the failure. */
static int sync_or_fail(struct worker *w, struct engine_fs *fs, enum op_id op,
                        const struct held_file *f)
{
	int rc = sync_after(w, op, f->fd);
	if (rc < 0)
		return file_fail(w, fs, op, f, sync_sys(op), -rc);
	if (op_table[op].flags & (OPF_FSYNC | OPF_FDATASYNC))
		durhook_synced(w, fs, sync_sys(op), f->id, f->dir, f->size, f->gen);
	return 0;
}

/* ---- content: generations and the verify=1 check ---- */

/* begin_write - the one place a writing op (write, writeall, append; each append of
 * append_fsync2) takes the held file (exclusive) to its next content generation: the pool's
 * generation +1, 1 after UINT32_MAX (a file of an old manifest, generation unknown, continues at
 * 2^31, above anything it may hold) and the second it was written, recorded before the first
 * write() so that a reader after this op accepts the new generation. Returns where the op's writes
 * go: the caller sets .off to the extent's start, write_block advances it.
 *
 * Durability journal (--durability-log, durhook.h): the start of generation g is journaled
 * here (DL_WSTART: a write cut short by a crash may have left it); each body journals the
 * extent it wrote, [c.off - len, c.off) of c.gen, once its writes completed (DL_WRITE), and
 * sync_or_fail the acknowledged fsync/fdatasync (DL_FSYNC, DL_FDATASYNC). op_create writes
 * generation 1 without coming here (the file is new) and journals its own records. */
static struct wpos begin_write(struct worker *w, struct engine_fs *fs, struct held_file *f)
{
	f->gen = pool_gen(fileset(w, fs), f->id);
	/* no ceiling: after UINT32_MAX comes 1 (0 is never written; content.h) */
	uint32_t g = f->gen == POOL_GEN_UNKNOWN ? 1u << 31 : gen_next(f->gen);
	pool_set_gen(fileset(w, fs), f->id, g, (uint32_t)time(NULL));
	f->gen = g;
	durhook_wstart(w, fs, f->id, g); /* the journal: a write of generation g began */
	return (struct wpos){.key = engine_content_key(fs, disk_id(w, f->id)), .gen = g, .off = 0};
}

/* Latches a content mismatch found by a read of the held file, at generation gen (cold). */
static int verify_fail(struct worker *w, struct engine_fs *fs, enum op_id op,
                       const struct held_file *f, uint32_t gen, const struct content_finding *cf)
{
	w->verify_bad++;
	bool first = !w->err_set;
	int rc = file_fail(w, fs, op, f, SYS_read, EBADMSG);
	if (first) {
		w->err.verify = true;
		w->err.found = *cf;
		w->err.gen_current = gen;
		w->err.gen_written_s =
		    gen == cf->gen_expected ? pool_gen_time(fileset(w, fs), f->id) : 0;
	}
	return rc;
}

/* verify=1: checks the `got` bytes just read into w->rbuf (= w->buf) from file offset off (`want`
 * asked for) against every generation the file may hold, [1, its current one], and where that
 * fails (rarely: a mismatch, or a file whose counter wrapped, which may hold generations above
 * its current one) against every generation; a read that ends before the file's recorded size
 * is a mismatch too (the file was truncated behind fsmix's back). Returns 0, or -EBADMSG after
 * latching the mismatch. */
static int verify_read(struct worker *w, struct engine_fs *fs, enum op_id op,
                       const struct held_file *f, uint64_t off, int64_t got, uint64_t want)
{
	struct content_key key = engine_content_key(fs, disk_id(w, f->id));
	struct content_finding cf;
	uint32_t gen = pool_gen(fileset(w, fs), f->id); /* held: no writer changes it */
	uint32_t hi = gen == POOL_GEN_UNKNOWN ? UINT32_MAX : gen;
	if (got > 0 && content_check(w->rbuf, (size_t)got, &key, off, 1, hi, &cf) &&
	    (hi == UINT32_MAX ||
	     content_check(w->rbuf, (size_t)got, &key, off, gen_next(hi), hi, NULL)))
		return verify_fail(w, fs, op, f, gen, &cf);
	if (got >= 0 && (uint64_t)got < want && off + (uint64_t)got < f->size) {
		cf = (struct content_finding){
		    .verdict = CONTENT_SHORT, .off = off + (uint64_t)got, .gen_expected = gen};
		return verify_fail(w, fs, op, f, gen, &cf);
	}
	return 0;
}

/* The read path's check: one predictable branch when verify is off. */
static inline int check_read(struct worker *w, struct engine_fs *fs, enum op_id op,
                             const struct held_file *f, uint64_t off, int64_t got, uint64_t want)
{
	if (LIKELY(!w->verify))
		return 0;
	return verify_read(w, fs, op, f, off, got, want);
}

/* A body does the op's I/O on the open file: returns 0, or -errno after latching the failure
 * (file_fail). */
typedef int file_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                      struct op_result *r);

/* The frame of every operation on an existing file: acquire a random file of the pool (shared
 * for reads, exclusive for writes), open it (timed), run the body, close it (timed), release
 * it. The first failure is latched with its system call and path. Returns 0, OP_SKIPPED when no
 * file could be had, or -errno. */
static int with_file(struct worker *w, struct engine_fs *fs, enum op_id op, enum pool_mode mode,
                     int oflags, file_body *body, struct op_result *r)
{
	struct held_file f;
	char name[TREE_NAME_MAX];
	int rc = acquire(w, fs, mode, false, &f.id);
	if (rc)
		return rc;
	f.dir = pool_dir(fileset(w, fs), f.id);
	f.size = pool_size(fileset(w, fs), f.id);
	f.gen = POOL_GEN_UNKNOWN;
	int dfd = file_at(w, fs, f.dir, f.id, name, sizeof(name));
	f.fd = t_openat(w, SYS_open, dfd, name, oflags, 0);
	if (f.fd < 0) {
		rc = fail(w, op, SYS_open, -f.fd, fs, f.dir, f.id, false);
	} else if (body && (rc = body(w, fs, op, &f, r)) != 0) {
		(void)close(f.fd); /* the body latched its failure, or skipped (fail) */
	} else if ((rc = t_close(w, f.fd)) < 0) {
		rc = fail(w, op, SYS_close, -rc, fs, f.dir, f.id, false);
	}
	pool_release(fileset(w, fs), f.id, mode);
	return rc;
}

/* read: read_size bytes, sequential from a random offset, at random offsets (read_random) or
 * with gaps (read_skip). A file smaller than read_size is read as far as it goes (FFSB
 * aborted). */
static int read_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                     struct op_result *r)
{
	const struct plan_group *g = w->g;
	uint64_t bs = g->read_blocksize, size = f->size;
	uint64_t want = g->read_size < size ? g->read_size : size;
	FSMIX_ASSERT(bs > 0); /* plan.c (need_key): a group that reads has a read_blocksize */
	uint64_t n = want / bs, tail = want % bs;
	uint64_t pos = 0; /* the file offset of the next read */
	int64_t k;
	int rc;
	if (w->rbuf == w->buf)
		buf_spoil(w, (size_t)(n ? bs : tail));
	if (!g->read_random && !g->read_skip && size > want &&
	    (rc = seek_to(w, fs, op, f, pos = random_offset(w, size - want), SEEK_SET)))
		return rc;
	for (uint64_t i = 0; i < n; i++) {
		if (g->read_random &&
		    (rc = seek_to(w, fs, op, f, pos = random_offset(w, size > bs ? size - bs : 0),
		                  SEEK_SET)))
			return rc;
		if ((k = t_read(w, f->fd, read_dst(w), bs)) < 0)
			return file_fail(w, fs, op, f, SYS_read, (int)-k);
		if ((rc = check_read(w, fs, op, f, pos, k, bs)))
			return rc;
		r->bytes_read += (uint64_t)k;
		pos += (uint64_t)k;
		if (g->read_skip) {
			if ((rc = seek_to(w, fs, op, f, g->read_skipsize, SEEK_CUR)))
				return rc;
			pos += g->read_skipsize;
		}
	}
	if (tail && !g->read_random) {
		if ((k = t_read(w, f->fd, read_dst(w), tail)) < 0)
			return file_fail(w, fs, op, f, SYS_read, (int)-k);
		if ((rc = check_read(w, fs, op, f, pos, k, tail)))
			return rc;
		r->bytes_read += (uint64_t)k;
	}
	/* FFSB counts whole blocks; the tail read counts only with read_skip. */
	r->trans = n + (g->read_skip && tail);
	r->ffsb_read = want; /* FFSB counted read_size bytes, also the tail read_random skips */
	return 0;
}

/* readall: the whole file, read_blocksize per read(). */
static int readall_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                        struct op_result *r)
{
	uint64_t bs = w->g->read_blocksize, left = f->size;
	FSMIX_ASSERT(bs > 0); /* plan.c (need_key): a group that reads has a read_blocksize */
	if (w->rbuf == w->buf)
		buf_spoil(w, (size_t)(left < bs ? left : bs));
	while (left) {
		size_t n = left < bs ? (size_t)left : (size_t)bs;
		int64_t k = t_read(w, f->fd, read_dst(w), n);
		int rc = k >= 0 ? check_read(w, fs, op, f, f->size - left, k, n) : 0;
		if (rc)
			return rc;
		if (k <= 0)
			return file_fail(w, fs, op, f, SYS_read, k < 0 ? (int)-k : 0); /* EIO */
		left -= (uint64_t)k;
		r->bytes_read += (uint64_t)k;
	}
	r->trans = f->size / bs; /* FFSB: whole blocks only, so 0 for files under read_blocksize */
	return 0;
}

/* write / write_fsync / write_fdatasync: overwrite write_size bytes inside the file (never
 * extends it): sequential from a random offset, at random offsets (write_random), or stepping
 * through the file (write_stride). */
static int write_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                      struct op_result *r)
{
	const struct plan_group *g = w->g;
	uint64_t bs = g->write_blocksize, size = f->size;
	uint64_t want = g->write_size < size ? g->write_size : size;
	FSMIX_ASSERT(bs > 0); /* plan.c (need_key): a group that writes has a write_blocksize */
	int64_t k;
	int rc;
	struct wpos c;
	r->ffsb_written = size; /* FFSB counted the file's size for every write (--format ffsb) */
	if (g->write_random) {
		/* Each block its own extent and generation: two blocks of one generation a byte
		 * apart would leave an older byte between them that no check could tell from a
		 * flipped one (content.c). */
		for (uint64_t i = 0; i < want / bs && size >= bs; i++) {
			c = begin_write(w, fs, f);
			if ((rc = seek_to(w, fs, op, f, c.off = random_offset(w, size - bs),
			                  SEEK_SET)))
				return rc;
			if ((k = write_block(w, f->fd, bs, &c)) < 0)
				return file_fail(w, fs, op, f, SYS_write, (int)-k);
			durhook_write(w, fs, f->id, f->dir, c.gen, c.off - bs, bs, size);
			r->trans++;
			r->bytes_written += bs;
		}
	} else {
		c = begin_write(w, fs, f);
		if (g->write_stride) {
			/* This thread's ops step through the file, wrapping at its end (synctest's
			 * lseek(step) + write(2 KB) loop). */
			uint64_t off = w->stride_off;
			if (off + want > size)
				off = 0;
			w->stride_off = off + g->write_stride;
			if ((rc = seek_to(w, fs, op, f, c.off = off, SEEK_SET)))
				return rc;
		} else if (size > want &&
		           (rc = seek_to(w, fs, op, f, c.off = random_offset(w, size - want),
		                         SEEK_SET))) {
			return rc;
		}
		if ((k = write_blocks(w, f->fd, want, bs, &c)) < 0)
			return file_fail(w, fs, op, f, SYS_write, (int)-k);
		durhook_write(w, fs, f->id, f->dir, c.gen, c.off - want, want, size);
		r->trans = (uint64_t)k;
		r->bytes_written = want;
	}
	return sync_or_fail(w, fs, op, f);
}

/* writeall / writeall_fsync / writeall_fdatasync: rewrite the whole file from offset 0 (no
 * O_TRUNC, as FFSB). */
static int writeall_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                         struct op_result *r)
{
	struct wpos c = begin_write(w, fs, f); /* from offset 0 */
	int64_t k = write_blocks(w, f->fd, f->size, w->g->write_blocksize, &c);
	if (k < 0)
		return file_fail(w, fs, op, f, SYS_write, (int)-k);
	durhook_write(w, fs, f->id, f->dir, c.gen, 0, f->size, f->size);
	r->trans = (uint64_t)k;
	r->bytes_written = f->size;
	return sync_or_fail(w, fs, op, f);
}

/* append / append_fsync / append_fdatasync: write_size bytes at the end (O_APPEND); the file
 * grows. append_fsync2 (OPF_TWICE) appends and syncs twice, as a commit that writes its record,
 * syncs, writes its status and syncs again. */
static int append_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                       struct op_result *r)
{
	for (int rep = (op_table[op].flags & OPF_TWICE) ? 2 : 1; rep > 0; rep--) {
		struct wpos c = begin_write(w, fs, f);
		c.off = f->size; /* O_APPEND: at the end the pool records (the file is held) */
		int64_t k = write_blocks(w, f->fd, w->g->write_size, w->g->write_blocksize, &c);
		if (k < 0)
			return file_fail(w, fs, op, f, SYS_write, (int)-k);
		r->trans += (uint64_t)k;
		r->bytes_written += w->g->write_size;
		durhook_write(w, fs, f->id, f->dir, c.gen, f->size, w->g->write_size,
		              f->size + w->g->write_size);
		f->size += w->g->write_size;
		pool_set_size(fileset(w, fs), f->id, f->size); /* held exclusively */
		int rc = sync_or_fail(w, fs, op, f);
		if (rc)
			return rc;
	}
	return 0;
}

static int op_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), read_body, r);
}

static int op_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), readall_body, r);
}

static int op_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY), write_body, r);
}

static int op_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY), writeall_body, r);
}

static int op_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY | O_APPEND), append_body,
	                 r);
}

static int op_open_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	int rc = with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), NULL, r);
	if (!rc)
		r->trans = 1;
	return rc;
}

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
		(void)close(fd);
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
	if (unlinkat(dfd, name, 0) == 0) /* our own half-written file */
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
 * call; fsmix does not); dirsync: data/ fsynced before a file can be created in it. */
static int op_createdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	uint32_t d = atomic_fetch_add_explicit(&fs->next_dir, 1, memory_order_relaxed);
	uint32_t k = d - fs->pf->num_dirs;
	char name[TREE_NAME_MAX];
	if (k >= fs->dir_ready_cap)
		return fail(w, op, SYS_mkdir, EMLINK, fs, TREE_DIR_TOP, UINT32_MAX, false);
	tree_dir_name(d, name, sizeof(name));
	int rc = t_mkdirat(w, tree_data_dirfd(&fs->tree, TREE_DIR_TOP), name);
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

static op_body *const op_bodies[OP_COUNT] = {
#define OP(name_, flags_, body_, help_) [OP_##name_] = body_,
#include "ops.def"
#undef OP
};

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
