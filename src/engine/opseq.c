/* opseq.c - the steps of a sequence (sequence=, docs/ops.md "Sequences") that work on the file
 * kept open between them: create, open, write, append, read, readall, fsync, fdatasync, close;
 * and seq_abort, which gives back what a failed sequence held. opexec.c's op_sequence runs the
 * steps in order and records each in its own row; stat, rename and delete steps are the stat,
 * rename and delete ops' bodies. The calls go through the worker's engine (optimed.h's timed
 * wrappers), the journal's records through durhook.h, the writes' content and generations
 * through opfile.c's helpers, as the ops'. The calls are filebench's flowops' (flowop_library.c
 * read for behaviour): createfile opens with O_CREAT and writes nothing, appendfilerand seeks
 * to the end and writes, readwholefile seeks to 0 and reads until read() returns 0.
 */
#include "opseq.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "durhook.h"
#include "opcommon.h"
#include "opcontent.h"
#include "opfile.h"
#include "opns.h"
#include "optimed.h"

/* Latches the failure of system call s on the sequence's file; -err. */
static int seq_fail(struct worker *w, struct engine_fs *fs, enum op_id op, enum sys_id s, int err)
{
	if (s == SYS_read && w->rbuf == w->buf) /* a failed read may have left anything there */
		buf_spoil(w, w->buf_len + 512);
	return fail(w, op, s, err, fs, w->seq.f.dir, w->seq.f.id, false);
}

/* create: a new file in a create's directory, opened O_CREAT|O_EXCL|O_RDWR (O_EXCL: the slot
 * is free, so a file of that name is someone else's, and neither truncated nor written), held
 * (reserved) until its close publishes it. Nothing written. */
int op_seq_create(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct seq_state *s = &w->seq;
	int rc = pool_reserve(fileset(w, fs), &s->f.id);
	if (rc)
		return fail(w, op, SYS_create, -rc == ENOSPC ? EMFILE : -rc, fs, TREE_DIR_TOP,
		            UINT32_MAX, false);
	s->held = s->created = s->excl = true;
	s->f.dir = pick_dir(w, fs);
	s->f.size = 0;
	s->f.gen = 0; /* nothing written: the first write is generation 1 */
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, s->f.dir, s->f.id, name, sizeof(name));
	int fd =
	    t_openat(w, SYS_create, dfd, name, open_wflags(w, O_CREAT | O_EXCL | O_RDWR), 0600);
	if (fd < 0)
		return seq_fail(w, fs, op, SYS_create, -fd);
	s->f.fd = fd;
	s->open = s->made = s->at0 = true;
	durhook_name(w, fs, DL_CREATE, s->f.id, s->f.dir);
	r->trans = 1;
	return 0;
}

/* sequence_hold=1, a writer's hold of file id: the file drained of its readers (pool.h:
 * pool_drain_begin), who keep taking it back every loop, so that a moment with none, which a
 * POOL_WRITE try waits for, need not come; waits while they leave (yielding), unless the run
 * stops. 0, or the pool's -EBUSY (another writer has it, or the run stops) or -errno. */
static int seq_drain(struct worker *w, struct pool *p, uint32_t id)
{
	int rc = pool_drain_begin(p, id);
	if (rc)
		return rc;
	while (pool_drain_finish(p, id) == -EBUSY) {
		if (engine_stopping(w->eng)) {
			pool_drain_cancel(p, id);
			return -EBUSY;
		}
		sched_yield(); /* its readers end their loops */
	}
	return 0;
}

/* sequence_hold=1, a loop after the first: the file kept open taken back from the pool in the
 * mode its steps need, with no call (nocall): a reader as acquire() tries (4 times, yielding
 * between), a writer by draining it (seq_drain). 0, or OP_BUSY while other threads hold it
 * incompatibly. The plan refuses a hold beside a group that deletes, renames or links
 * (seqkeys_plan), so the slot still names the file the descriptor is open on: any other answer
 * is a broken rule, a failure of the open step. */
static int seq_retake(struct worker *w, struct engine_fs *fs, enum op_id op)
{
	struct seq_state *s = &w->seq;
	struct pool *p = fileset(w, fs);
	for (int tries = 0; tries < 4; tries++) {
		int rc =
		    s->excl ? seq_drain(w, p, s->f.id) : pool_try_acquire(p, s->f.id, POOL_READ);
		if (rc == 0) {
			s->held = s->nocall = true;
			s->at0 = false; /* where the last loop left it */
			s->f.size = pool_size(p, s->f.id);
			s->f.gen = POOL_GEN_UNKNOWN;
			return 0;
		}
		if (rc != -EBUSY)
			return seq_fail(w, fs, op, SYS_open, -rc);
		sched_yield(); /* held by other threads right now */
	}
	return OP_BUSY;
}

/* open: a random file of the pool (file_popularity), shared when the steps up to its close only
 * read (O_RDONLY), exclusive when one writes or syncs (O_RDWR, with open_sync); with
 * sequence_hold=1 only once per thread, the file then kept open (seq_retake). */
int op_seq_open(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct seq_state *s = &w->seq;
	bool writes = s->step->writes;
	if (s->open)
		return seq_retake(w, fs, op);
	/* a hold's writer: a file picked as a reader would be, then drained (seq_drain) */
	bool drain = writes && w->g->sequence_hold;
	int rc = acquire(w, fs, writes && !drain ? POOL_WRITE : POOL_READ, false, &s->f.id);
	if (rc)
		return rc;
	if (drain) {
		pool_release(fileset(w, fs), s->f.id, POOL_READ);
		if ((rc = seq_drain(w, fileset(w, fs), s->f.id)))
			return rc == -EBUSY
			           ? OP_BUSY
			           : fail(w, op, SYS_open, -rc, fs, TREE_DIR_TOP, s->f.id, false);
	}
	s->held = true;
	s->created = s->made = false;
	s->excl = writes;
	s->f.dir = pool_dir(fileset(w, fs), s->f.id);
	s->f.size = pool_size(fileset(w, fs), s->f.id);
	s->f.gen = POOL_GEN_UNKNOWN;
	char name[TREE_NAME_MAX];
	int dfd = file_at(w, fs, s->f.dir, s->f.id, name, sizeof(name));
	int fd = t_openat(w, SYS_open, dfd, name,
	                  writes ? open_wflags(w, O_RDWR) : open_flags(w, O_RDONLY), 0);
	if (fd < 0)
		return seq_fail(w, fs, op, SYS_open, -fd);
	s->f.fd = fd;
	s->fs = fs;
	s->open = s->at0 = true;
	r->trans = 1;
	return 0;
}

/* The write and read ops' bodies seek to the offset they draw, except when their extent (at
 * most want bytes) may be the whole file: they start at 0, where a file just opened is. On a
 * file whose steps moved its position, that start is sought here. 0, or -errno latched. */
static int seq_rewind(struct worker *w, struct engine_fs *fs, enum op_id op, uint64_t want)
{
	bool at0 = w->seq.at0;
	w->seq.at0 = false; /* the step reads or writes */
	if (at0 || w->seq.f.size > want)
		return 0;
	off_t o = t_lseek(w, w->seq.f.fd, 0, SEEK_SET);
	return o < 0 ? seq_fail(w, fs, op, SYS_lseek, (int)-o) : 0;
}

/* One repetition's counts added to the step's (the op bodies set theirs, as one op's). */
static void seq_add(struct op_result *r, const struct op_result *one)
{
	r->trans += one->trans;
	r->bytes_read += one->bytes_read;
	r->bytes_written += one->bytes_written;
}

/* write: the write op's I/O (write_size from one offset inside the file, never past its end),
 * times times. A file a create step made is empty until an append: nothing to overwrite. */
int op_seq_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	for (uint32_t i = 0; i < w->seq.step->times && w->seq.f.size; i++) {
		struct op_result one = {0};
		int rc = seq_rewind(w, fs, op,
		                    w->g->write_size ? w->g->write_size : iosize_max(&w->g->wmix));
		if (rc || (rc = opfile_write_body(w, fs, op, &w->seq.f, &one)))
			return rc;
		seq_add(r, &one);
	}
	return 0;
}

/* writeall: the file from offset 0 to its size, write_blocksize per write() (filebench's
 * writewholefile after createfile): a file a create step made, still empty, gets a size drawn
 * as a create's (size_dist, size_weight or min/max_filesize); an opened one is rewritten. */
int op_seq_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct seq_state *s = &w->seq;
	uint64_t size = s->created && !s->f.size ? pick_size(w, fs) : s->f.size;
	int rc = seq_rewind(w, fs, op, UINT64_MAX); /* (a no-op where the position is 0) */
	if (rc)
		return rc;
	struct wpos c = opfile_begin_write(w, fs, &s->f, s->created); /* from offset 0 */
	int64_t k = write_blocks(w, s->f.fd, size, w->g->write_blocksize, &c);
	if (k < 0)
		return seq_fail(w, fs, op, SYS_write, (int)-k);
	durhook_write(w, fs, s->f.id, s->f.dir, c.gen, 0, size,
	              size > s->f.size ? size : s->f.size);
	if (size > s->f.size)
		s->f.size = size; /* only a created file grows: published at its close */
	r->trans = (uint64_t)k;
	r->bytes_written = size;
	return 0;
}

/* append: lseek(0, SEEK_END), then write_size bytes (or one call of a size drawn from
 * write_bssplit/write_bsrange: write_bsrange=1-16k is filebench's appendfilerand of 16k) in
 * write_blocksize calls; times times. */
int op_seq_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct seq_state *s = &w->seq;
	const struct plan_group *g = w->g;
	s->at0 = false;
	for (uint32_t i = 0; i < s->step->times; i++) {
		uint64_t bs = iosize_call(&g->wmix, g->write_blocksize, &w->rng);
		uint64_t want = iosize_set(&g->wmix) && !g->write_size ? bs : g->write_size;
		FSMIX_ASSERT(bs > 0); /* seqkeys.c: write_blocksize, or a mix */
		off_t o = t_lseek(w, s->f.fd, 0, SEEK_END);
		if (o < 0)
			return seq_fail(w, fs, op, SYS_lseek, (int)-o);
		struct wpos c = opfile_begin_write(w, fs, &s->f, s->created);
		c.off = s->f.size; /* the end the pool records (the file is held alone) */
		int64_t k = write_blocks(w, s->f.fd, want, bs, &c);
		if (k < 0)
			return seq_fail(w, fs, op, SYS_write, (int)-k);
		durhook_write(w, fs, s->f.id, s->f.dir, c.gen, s->f.size, want, s->f.size + want);
		s->f.size += want;
		if (!s->created) /* a created file's size is published at its close */
			pool_set_size(fileset(w, fs), s->f.id, s->f.size);
		r->trans += (uint64_t)k;
		r->bytes_written += want;
	}
	return 0;
}

/* read: the read op's I/O (read_size from one offset), times times. */
int op_seq_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	for (uint32_t i = 0; i < w->seq.step->times; i++) {
		struct op_result one = {0};
		int rc = seq_rewind(w, fs, op,
		                    w->g->read_size ? w->g->read_size : iosize_max(&w->g->rmix));
		if (rc || (rc = opfile_read_body(w, fs, op, &w->seq.f, &one)))
			return rc;
		seq_add(r, &one);
	}
	return 0;
}

/* readall: lseek(0, SEEK_SET), then read() of read_blocksize until it returns 0 (filebench's
 * readwholefile: one more call than the size needs); times times. With verify=1 each read is
 * checked, and one that ends before the size the pool records is a mismatch. */
int op_seq_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct held_file *f = &w->seq.f;
	uint64_t bs = w->g->read_blocksize;
	FSMIX_ASSERT(bs > 0); /* seqkeys.c: read_blocksize */
	/* (verify=1: opfile_verify_read marks what each read wrote) */
	if (w->rbuf == w->buf && !w->verify)
		buf_spoil(w, (size_t)(f->size < bs ? f->size : bs));
	w->seq.at0 = false;
	for (uint32_t i = 0; i < w->seq.step->times; i++) {
		off_t o = t_lseek(w, f->fd, 0, SEEK_SET);
		if (o < 0)
			return seq_fail(w, fs, op, SYS_lseek, (int)-o);
		uint64_t pos = 0;
		for (;;) {
			int64_t k = t_read(w, f->fd, read_dst(w), (size_t)bs);
			if (k < 0)
				return seq_fail(w, fs, op, SYS_read, (int)-k);
			if (UNLIKELY(w->verify)) {
				int rc = opfile_verify_read(w, fs, op, f, pos, k, bs);
				if (rc)
					return rc;
			}
			if (k == 0)
				break;
			pos += (uint64_t)k;
			r->bytes_read += (uint64_t)k;
			r->trans++;
		}
	}
	return 0;
}

/* fsync / fdatasync of the open file, journaled as acknowledged (durhook_synced). */
int op_seq_sync(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct held_file *f = &w->seq.f;
	int rc = sync_after(w, op, f->fd);
	if (rc < 0)
		return seq_fail(w, fs, op, sync_sys(op), -rc);
	durhook_synced(w, fs, sync_sys(op), f->id, f->dir, f->size, f->gen);
	r->trans = 1;
	return 0;
}

/* close: the file given back: a created one published with its size and generation (then,
 * dirsync=1, its directory fsynced, as a create's), an opened one released. */
int op_seq_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r)
{
	struct seq_state *s = &w->seq;
	if (w->g->sequence_hold) { /* given back to the pool; open until seq_finish */
		pool_release(fileset(w, fs), s->f.id, s->excl ? POOL_WRITE : POOL_READ);
		s->held = false;
		s->nocall = true;
		return 0;
	}
	s->open = false;
	int rc = t_close(w, s->f.fd);
	if (rc < 0)
		return seq_fail(w, fs, op, SYS_close, -rc);
	if (s->created) {
		if (w->g->dirsync && (rc = durhook_dirsync(w, fs, s->f.dir, false)) < 0)
			return seq_fail(w, fs, op, SYS_fsync, -rc);
		pool_set_gen(fileset(w, fs), s->f.id, s->f.gen ? s->f.gen : 1,
		             (uint32_t)time(NULL));
		pool_publish(fileset(w, fs), s->f.id, s->f.dir, s->f.size);
	} else {
		pool_release(fileset(w, fs), s->f.id, s->excl ? POOL_WRITE : POOL_READ);
	}
	s->held = s->created = s->made = false;
	r->trans = 1;
	return 0;
}

void seq_abort(struct worker *w, struct engine_fs *fs, int rc)
{
	struct seq_state *s = &w->seq;
	bool keep = w->g->sequence_hold && (rc == OP_SKIPPED || rc == OP_BUSY);
	if (s->open && !keep) {
		(void)w->io->close(w, s->f.fd);
		s->open = false;
	}
	if (!s->held)
		return;
	if (s->created) {
		char name[TREE_NAME_MAX];
		int dfd = file_at(w, fs, s->f.dir, s->f.id, name, sizeof(name));
		if (s->made && w->io->unlinkat(w, dfd, name, 0) == 0) /* our own, half made */
			durhook_name(w, fs, DL_DELETE, s->f.id, s->f.dir);
		pool_unreserve(fileset(w, fs), s->f.id);
	} else {
		pool_release(fileset(w, fs), s->f.id, s->excl ? POOL_WRITE : POOL_READ);
	}
	s->held = s->created = s->made = false;
}

void seq_finish(struct worker *w)
{
	struct seq_state *s = &w->seq;
	FSMIX_ASSERT(!s->held); /* every loop gives back what it took, also when it fails */
	if (s->open)
		(void)w->io->close(w, s->f.fd);
	s->open = false;
}
