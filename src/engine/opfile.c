/* opfile.c - the operations on an existing file's bytes (ops.def: read, readall, write,
 * writeall, append and their sync variants, open_close), with FFSB 6.0's system call sequences
 * and transaction accounting (docs/ops.md): one frame for all (with_file: acquire a file of the
 * pool, open, the body, close, release) and one body each; the content generation a write
 * takes and, with verify=1, the check of what a read got (opverify.c). opexec.c runs them
 * (opfile.h).
 */
#include "opfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "durhook.h"
#include "engine.h"
#include "opcommon.h"
#include "opcontent.h"
#include "optimed.h"

/* Latches the failure of system call s on the held file; returns -err (err 0, a short read:
 * the file changed under us, becomes EIO). */
static int file_fail(struct worker *w, struct engine_fs *fs, enum op_id op,
                     const struct held_file *f, enum sys_id s, int err)
{
	if (s == SYS_read && w->rbuf == w->buf) /* a failed read may have left anything there */
		buf_spoil(w, w->buf_len + 512);
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

/* Where an extent of `unit` bytes starts in [0, limit] (random_distribution; iodist.h). */
#define PICK_OFFSET(w, limit, unit) offdist_pick(&(w)->g->offd, &(w)->offs, &(w)->rng, limit, unit)

/* ---- content: generations and the verify=1 check ---- */

/* opfile_begin_write - the one place a writing op (write, writeall, append; each append of
 * append_fsync2) takes the held file (exclusive) to its next content generation: the pool's
 * generation +1, 1 after UINT32_MAX (a file of an old manifest, generation unknown, continues at
 * 2^31, above anything it may hold) and the second it was written, recorded before the first
 * write() so that a reader after this op accepts the new generation. Returns where the op's writes
 * go: the caller sets .off to the extent's start, write_block advances it.
 *
 * fresh: f->gen is the file's generation already (a file a sequence created: 0, nothing
 * written, so its first write is generation 1); else it is loaded from the pool.
 *
 * Durability journal (--durability-log, durhook.h): the start of generation g is journaled
 * here (DL_WSTART: a write cut short by a crash may have left it); each body journals the
 * extent it wrote, [c.off - len, c.off) of c.gen, once its writes completed (DL_WRITE), and
 * sync_or_fail the acknowledged fsync/fdatasync (DL_FSYNC, DL_FDATASYNC). op_create writes
 * generation 1 without coming here (the file is new) and journals its own records. */
struct wpos opfile_begin_write(struct worker *w, struct engine_fs *fs, struct held_file *f,
                               bool fresh)
{
	if (!fresh)
		f->gen = pool_gen(fileset(w, fs), f->id);
	/* no ceiling: after UINT32_MAX comes 1 (0 is never written; content.h) */
	uint32_t g = f->gen == POOL_GEN_UNKNOWN && !fresh ? 1u << 31 : gen_next(f->gen);
	pool_set_gen(fileset(w, fs), f->id, g, (uint32_t)time(NULL));
	f->gen = g;
	durhook_wstart(w, fs, f->id, g); /* the journal: a write of generation g began */
	return (struct wpos){.key = engine_content_key(fs, disk_id(w, f->id)), .gen = g, .off = 0};
}

/* The read path's check: one predictable branch when verify is off. */
static inline int check_read(struct worker *w, struct engine_fs *fs, enum op_id op,
                             const struct held_file *f, uint64_t off, int64_t got, uint64_t want)
{
	if (LIKELY(!w->verify))
		return 0;
	return opfile_verify_read(w, fs, op, f, off, got, want);
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
	/* shared_writes=1 at depth: a write may join the file of the worker's other writes */
	bool share = UNLIKELY(w->share_writes) && body == opfile_write_body;
	int rc = share ? depth_share_acquire(w, fs, &f.id) : acquire(w, fs, mode, false, &f.id);
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
		(void)w->io->close(w, f.fd); /* the body latched its failure, or skipped (fail) */
	} else if ((rc = t_close(w, f.fd)) < 0) {
		rc = fail(w, op, SYS_close, -rc, fs, f.dir, f.id, false);
	}
	if (share)
		depth_share_release(w, fs, f.id);
	else
		pool_release(fileset(w, fs), f.id, mode);
	return rc;
}

/* read: read_size bytes, sequential from a random offset, at random offsets (read_random) or
 * with gaps (read_skip); read_bssplit/_bsrange may draw bs (iodist.h), PICK_OFFSET places it. A
 * file smaller than read_size is read as far as it goes (FFSB aborted). */
int opfile_read_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                     struct op_result *r)
{
	const struct plan_group *g = w->g;
	uint64_t bs = iosize_call(&g->rmix, g->read_blocksize, &w->rng), size = f->size;
	uint64_t want = iosize_op_bytes(&g->rmix, g->read_size, bs, size);
	FSMIX_ASSERT(bs > 0); /* plan.c (need_key): a group that reads has a read_blocksize */
	uint64_t n = want / bs, tail = want % bs;
	uint64_t pos = 0; /* the file offset of the next read */
	int64_t k;
	int rc;
	/* (verify=1: opfile_verify_read marks what each read wrote) */
	if (w->rbuf == w->buf && !w->verify)
		buf_spoil(w, (size_t)(n ? bs : tail));
	if (!g->read_random && !g->read_skip && size > want &&
	    (rc = seek_to(w, fs, op, f, pos = PICK_OFFSET(w, size - want, want), SEEK_SET)))
		return rc;
	for (uint64_t i = 0; i < n; i++) {
		if (g->read_random &&
		    (rc = seek_to(w, fs, op, f, pos = PICK_OFFSET(w, size > bs ? size - bs : 0, bs),
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
	/* (verify=1: opfile_verify_read marks what each read wrote) */
	if (w->rbuf == w->buf && !w->verify)
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
 * through the file (write_stride); write_bssplit/_bsrange may draw bs, PICK_OFFSET places it. */
int opfile_write_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                      struct op_result *r)
{
	const struct plan_group *g = w->g;
	uint64_t bs = iosize_call(&g->wmix, g->write_blocksize, &w->rng), size = f->size;
	uint64_t want = iosize_op_bytes(&g->wmix, g->write_size, bs, size);
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
			uint64_t off = PICK_OFFSET(w, size - bs, bs);
			if (UNLIKELY(w->share_writes)) /* the generation after the wait */
				depth_extent_wait(w, off, bs);
			c = opfile_begin_write(w, fs, f, false);
			if ((rc = seek_to(w, fs, op, f, c.off = off, SEEK_SET)))
				return rc;
			if ((k = write_block(w, f->fd, bs, &c)) < 0)
				return file_fail(w, fs, op, f, SYS_write, (int)-k);
			if (UNLIKELY(w->share_writes))
				depth_extent_done(w);
			durhook_write(w, fs, f->id, f->dir, c.gen, c.off - bs, bs, size);
			r->trans++;
			r->bytes_written += bs;
		}
	} else {
		uint64_t off = 0; /* where it writes; no seek (offset 0) for a file too small */
		bool seek = g->write_stride || size > want;
		if (g->write_stride) {
			/* This thread's ops step through the file, wrapping at its end (synctest's
			 * lseek(step) + write(2 KB) loop). */
			off = w->stride_off;
			if (off + want > size)
				off = 0;
			w->stride_off = off + g->write_stride;
		} else if (size > want) {
			off = PICK_OFFSET(w, size - want, want);
		}
		if (UNLIKELY(w->share_writes)) /* the generation after the wait */
			depth_extent_wait(w, off, want);
		c = opfile_begin_write(w, fs, f, false);
		if (seek && (rc = seek_to(w, fs, op, f, c.off = off, SEEK_SET)))
			return rc;
		if ((k = write_blocks(w, f->fd, want, bs, &c)) < 0)
			return file_fail(w, fs, op, f, SYS_write, (int)-k);
		if (UNLIKELY(w->share_writes))
			depth_extent_done(w);
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
	struct wpos c = opfile_begin_write(w, fs, f, false); /* from offset 0 */
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
		struct wpos c = opfile_begin_write(w, fs, f, false);
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

int op_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), opfile_read_body, r);
}

int op_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), readall_body, r);
}

int op_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY), opfile_write_body, r);
}

int op_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY), writeall_body, r);
}

int op_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	return with_file(w, fs, op, POOL_WRITE, open_wflags(w, O_WRONLY | O_APPEND), append_body,
	                 r);
}

int op_open_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	int rc = with_file(w, fs, op, POOL_READ, open_flags(w, O_RDONLY), NULL, r);
	if (!rc)
		r->trans = 1;
	return rc;
}
