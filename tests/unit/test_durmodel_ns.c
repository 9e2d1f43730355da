/* test_durmodel_ns.c - the durability model's namespace rules (durmodel_ns.c, wired into
 * durmodel.c) on synthetic journals and synthetic trees that know directories: a renamed file
 * is found under its new directory or, until a sync covers the rename, under the one it left;
 * a sync, syncfs or fsync of the new directory that started after the rename makes only the
 * new name right; a name never promised may be absent; too many untracked moves leave the name
 * unchecked. replace_fsync: until its directory fsync the file holds the old content or the
 * new, whole (a mix: mixed; empty where the old was promised not to be: emptied; the new cut
 * short: short); after it the new (the old: stale); a replace logged after --crash-after's
 * shutdown (DLF_UNSURE) promises no content; a log whose tail is lost counts a mix apart when
 * the id may have been deleted and made anew. truncate: nothing beyond the new length is
 * promised, a hole nothing at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "durmodel.h"
#include "durmodel_fixture.h"
#include "test.h"

#define SEED  0x5eedull
#define FSIZE 8192
#define NSLOT 8

/* The synthetic tree: (directory, file) -> content. */
struct mem_file {
	bool exists;
	uint32_t dir, file;
	uint64_t len;
	unsigned char data[FSIZE];
};
static struct mem_file mem[NSLOT];
static uint32_t bad_dir = UINT32_MAX; /* a directory every lookup in fails with bad_err */
static int bad_err;

static struct mem_file *at(uint32_t dir, uint32_t file, bool make)
{
	for (int i = 0; i < NSLOT; i++)
		if (mem[i].exists && mem[i].dir == dir && mem[i].file == file)
			return &mem[i];
	for (int i = 0; make && i < NSLOT; i++)
		if (!mem[i].exists) {
			mem[i] = (struct mem_file){.exists = true, .dir = dir, .file = file};
			return &mem[i];
		}
	return NULL;
}

static int64_t mem_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs;
	if (dir == bad_dir)
		return -bad_err;
	struct mem_file *m = at(dir, file, false);
	return m ? (int64_t)m->len : -ENOENT;
}

static int64_t mem_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off,
                        void *buf, size_t len)
{
	(void)ctx, (void)fs;
	struct mem_file *m = at(dir, file, false);
	if (!m)
		return -ENOENT;
	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = (size_t)(m->len - off);
	memcpy(buf, m->data + off, len);
	return (int64_t)len;
}

static const struct dm_files files = {NULL, mem_size, mem_read, NULL, NULL, NULL};

/* File `file` of dir holds [off, off+len) of generation gen. */
static void put(uint32_t dir, uint32_t file, uint32_t gen, uint64_t off, uint64_t len)
{
	struct content_key k = {.seed = SEED, .fs = 0, .file = file};
	struct mem_file *m = at(dir, file, true);
	content_fill(m->data + off, len, &k, gen, off);
	if (off + len > m->len)
		m->len = off + len;
}

static enum dm_model model;

static void reset_all(void)
{
	memset(mem, 0, sizeof(mem));
	fx_reset();
	bad_dir = UINT32_MAX;
	model = DM_LINUX;
}

/* File 0 created in dir 0, written whole at generation 1 and fsynced (its name durable under
 * --model linux), as it is on disk unless a test changes that. */
static void created_synced(void)
{
	rec(DL_CREATE, 0)->gen = 1;
	rec(DL_WSTART, 0)->gen = 1;
	struct durlog_rec *r = rec(DL_WRITE, 0);
	r->gen = 1, r->len = FSIZE, r->size = FSIZE;
	r = rec(DL_FSYNC, 0);
	r->gen = 1, r->size = FSIZE;
	put(0, 0, 1, 0, FSIZE);
}

static void j_rename(uint32_t file, uint32_t from, uint32_t to)
{
	struct durlog_rec *r = rec(DL_RENAME, file);
	r->aux = from, r->dir = to;
}

static void j_replace(uint32_t file, uint32_t gen, uint64_t size, uint8_t flags)
{
	struct durlog_rec *r = rec(DL_REPLACE, file);
	r->gen = gen, r->size = size, r->off = FSIZE, r->flags = flags;
}

static void j_dirsync(uint32_t dir)
{
	rec(DL_DIRSYNC, 0)->dir = dir;
}

static struct dm_report *verify(void)
{
	return fx_verify(&files, SEED, 0, model);
}

/* Renamed 0 -> 1, no sync since: under either directory it is kept, in neither missing. */
static void test_rename_unsynced(void)
{
	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	CHECK_EQ_U(verify()->broken, 0); /* still under d0: the rename lost */
	memset(mem, 0, sizeof(mem));
	put(1, 0, 1, 0, FSIZE);
	CHECK_EQ_U(verify()->broken, 0); /* under d1 */
	memset(mem, 0, sizeof(mem));
	struct dm_report *r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	/* its data promise holds wherever it is found: stale under the old directory */
	put(0, 0, 1, 0, FSIZE);
	struct content_key k = {.seed = SEED, .file = 0};
	content_fill(at(0, 0, false)->data, 512, &k, 1, 0);
	memset(at(0, 0, false)->data, 0, 512);
	CHECK_EQ_U(verify()->by_kind[DM_ZEROED], 1);
}

/* Renamed 0 -> 1, no sync since, and d1 cannot be read after the cut (EBADMSG: a directory
 * block failing its checksum; seen after a barrier=0 cut on ext4): the file found whole under
 * d0, where it may be, keeps its promises (verify said unreadable, stopping at d1's error); in
 * neither directory, unreadable (d1 may hold it), not missing. */
static void test_rename_unreadable_dir(void)
{
	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	bad_dir = 1, bad_err = EBADMSG;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 0);
	memset(mem, 0, sizeof(mem));
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 1);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 0);
}

/* A file whose name is not promised (--model posix: its fsync promises its data, no directory
 * fsync its name) may be absent, so a lookup that fails (EIO: a damaged directory after a cut)
 * tells nothing: not broken (verify said unreadable where the second reader said kept); with
 * its name promised (--model linux: the fsync's), it is unreadable. */
static void test_unnamed_unreadable(void)
{
	for (int mdl = 0; mdl < 2; mdl++) {
		reset_all();
		model = mdl ? DM_POSIX : DM_LINUX;
		created_synced();
		bad_dir = 0, bad_err = EIO;
		struct dm_report *r = verify();
		CHECK_EQ_U(r->by_kind[DM_UNREADABLE], mdl ? 0 : 1);
		CHECK_EQ_U(r->broken, mdl ? 0 : 2); /* (linux: its name's and its data's) */
		CHECK_EQ_U(r->absent_unpromised, mdl ? 1 : 0);
		bad_dir = UINT32_MAX; /* found and read: its data promise holds under either */
		CHECK_EQ_U(verify()->broken, 0);
	}
}

static void j_delete(uint32_t file, uint32_t dir)
{
	rec(DL_DELETE, file)->dir = dir;
}

/* What a tree with file 0 under dirs (a bit each: 1 d0, 2 d1) gives: resurrected findings. */
static uint64_t resurrected_with(unsigned dirs)
{
	memset(mem, 0, sizeof(mem));
	for (uint32_t d = 0; d < 2; d++)
		if (dirs & (1u << d))
			put(d, 0, 1, 0, FSIZE);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, r->by_kind[DM_RESURRECTED]);
	return r->by_kind[DM_RESURRECTED];
}

/* A rename's removal is an unlink of its own: renamed d0 -> d1, deleted from d1, then a syncfs:
 * gone from both; an fsync of d1 alone covers d1's unlink, not d0's removal (the rename's
 * fsync of d0 does); a directory it came back to is not one it left. */
static void test_rename_then_delete(void)
{
	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	j_delete(0, 1);
	rec(DL_SYNCFS, 0);
	CHECK_EQ_U(resurrected_with(0), 0);
	CHECK_EQ_U(verify()->unlink_promises, 2);
	CHECK_EQ_U(resurrected_with(2), 1); /* back in d1 */
	CHECK_EQ_U(resurrected_with(1), 1); /* back in d0: the syncfs covered the rename too */
	CHECK_EQ_U(resurrected_with(3), 2);

	reset_all(); /* only d1 fsynced after the delete: d0 may still hold it */
	created_synced();
	j_rename(0, 0, 1);
	j_delete(0, 1);
	j_dirsync(1);
	CHECK_EQ_U(resurrected_with(1), 0);
	CHECK_EQ_U(resurrected_with(2), 1);

	reset_all(); /* rename with dirsync=1 (both directories), delete not covered */
	created_synced();
	j_rename(0, 0, 1);
	j_dirsync(1);
	j_dirsync(0);
	j_delete(0, 1);
	CHECK_EQ_U(resurrected_with(2), 0); /* its unlink may be lost */
	CHECK_EQ_U(resurrected_with(1), 1); /* the rename's removal from d0 was not */
	CHECK_EQ_U(resurrected_with(0), 0);

	reset_all(); /* d0 -> d1 made durable, back d1 -> d0 not, deleted from d0, a crash */
	created_synced();
	j_rename(0, 0, 1);
	rec(DL_SYNCFS, 0);
	j_rename(0, 1, 0);
	j_delete(0, 0);
	CHECK_EQ_U(resurrected_with(1), 0); /* d0: it came back there */
	CHECK_EQ_U(resurrected_with(2), 0); /* d1: the way back may be lost */
	rec(DL_SYNCFS, 0);                  /* ...until a syncfs covers it and the unlink */
	CHECK_EQ_U(resurrected_with(3), 2);

	reset_all(); /* the same id created anew: a new file, nothing of the old one's places */
	created_synced();
	j_rename(0, 0, 1);
	j_delete(0, 1);
	rec(DL_SYNCFS, 0);
	rec(DL_CREATE, 0)->gen = 1;
	CHECK_EQ_U(resurrected_with(3), 0);
}

/* A syncfs that started after the rename, or an fsync of the new directory: only the new name
 * is right. An fsync of the directory it left, or a sync that began before the rename ended,
 * does not cover it. */
static void test_rename_synced(void)
{
	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	rec(DL_SYNCFS, 0);
	CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1); /* found only under d0 */
	memset(mem, 0, sizeof(mem));
	put(1, 0, 1, 0, FSIZE);
	CHECK_EQ_U(verify()->broken, 0);

	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	j_dirsync(0);
	CHECK_EQ_U(verify()->broken, 0); /* the old directory's fsync: either place */
	j_dirsync(1);
	CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1);

	reset_all();
	created_synced();
	struct durlog_rec *s = rec(DL_SYNCFS, 0); /* starts before the rename ends */
	j_rename(0, 0, 1);
	s->t_end = ++clk;
	s->seq = nj;
	CHECK_EQ_U(verify()->broken, 0);
}

/* A name never promised may be absent; after more moves than tracked, its place is not
 * checked; a file moved back is found where it is. */
static void test_rename_names(void)
{
	reset_all();
	rec(DL_CREATE, 0)->gen = 1; /* not synced: no promise on its name */
	j_rename(0, 0, 1);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->checked, 0);

	reset_all();
	created_synced();
	for (uint32_t d = 0; d < 6; d++)
		j_rename(0, d, d + 1);
	memset(mem, 0, sizeof(mem));
	r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->absent_unpromised, 1);

	reset_all();
	created_synced();
	j_rename(0, 0, 1);
	j_rename(0, 1, 0);
	j_dirsync(0);
	CHECK_EQ_U(verify()->broken, 0); /* back under d0, synced there */
}

/* The directory fsync not yet acknowledged: old whole, new whole: kept; a mix, an empty file,
 * the new cut short: broken. */
static void test_replace_open(void)
{
	reset_all();
	created_synced();
	j_replace(0, 2, FSIZE / 2, 0);
	struct dm_report *r = verify(); /* the old content, 8 KiB of generation 1 */
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->acks[DL_REPLACE], 1);
	memset(mem, 0, sizeof(mem));
	put(0, 0, 2, 0, FSIZE / 2);
	CHECK_EQ_U(verify()->broken, 0); /* the new, 4 KiB of generation 2 */
	put(0, 0, 1, 4096, 4096);        /* the new's first 4 KiB with the old's last ones */
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_MIXED], 1);
	CHECK_EQ_U(r->examples[DM_MIXED][0].off, 4096);
	CHECK_EQ_U(r->examples[DM_MIXED][0].gen_found, 1);
	CHECK_EQ_U(r->examples[DM_MIXED][0].gen_min, 2);
	CHECK_EQ_U(r->examples[DM_MIXED][0].ref.kind, DL_REPLACE);
	memset(mem, 0, sizeof(mem));
	put(0, 0, 2, 0, 1024);
	CHECK_EQ_U(verify()->by_kind[DM_SHORT], 1); /* the new content, fsynced, cut short */
	at(0, 0, false)->len = 0;
	CHECK_EQ_U(verify()->by_kind[DM_EMPTIED], 1);
}

/* Once the directory fsync covered it: the new content only. */
static void test_replace_closed(void)
{
	reset_all();
	created_synced();
	j_replace(0, 2, FSIZE, 0);
	j_dirsync(0);
	CHECK_EQ_U(verify()->by_kind[DM_STALE], 1); /* the old content */
	put(0, 0, 2, 0, FSIZE);
	CHECK_EQ_U(verify()->broken, 0);
	put(0, 0, 1, 0, 512);
	CHECK_EQ_U(verify()->by_kind[DM_MIXED], 1);
	at(0, 0, false)->len = 0;
	CHECK_EQ_U(verify()->by_kind[DM_EMPTIED], 1);
	/* later writes of generations above the replace's are the new content too */
	put(0, 0, 2, 0, FSIZE);
	put(0, 0, 3, 1000, 2000);
	struct durlog_rec *w = rec(DL_WRITE, 0);
	w->gen = 3, w->off = 1000, w->len = 2000, w->size = FSIZE;
	CHECK_EQ_U(verify()->broken, 0);
}

/* Logged after the shutdown began: no content promised (the name still is). */
static void test_replace_unsure(void)
{
	reset_all();
	created_synced();
	j_replace(0, 2, FSIZE, DLF_UNSURE);
	j_dirsync(0);
	at(0, 0, false)->len = 0;
	CHECK_EQ_U(verify()->broken, 0);
	memset(mem, 0, sizeof(mem));
	CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1);
}

/* A log without its end: a mix where the id may have been deleted and made anew is lost tail,
 * not broken; without deletes and creates, broken. */
static void test_replace_lost_tail(void)
{
	reset_all();
	created_synced();
	j_replace(0, 2, FSIZE, 0);
	j_dirsync(0);
	put(0, 0, 2, 0, FSIZE);
	put(0, 0, 1, 0, 512);
	tail_lost = true;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_MIXED], 1);
}

static void j_truncate(uint32_t file, uint64_t old, uint64_t len)
{
	struct durlog_rec *r = rec(DL_TRUNCATE, file);
	r->off = old, r->size = len;
}

/* truncate: nothing beyond the new length is promised (a crash may keep the old length too);
 * a hole made by extending it is promised nothing; a pending write cut off is not promised by
 * a later fsync; a replaced file truncated to 0 is not "emptied". */
static void test_truncate(void)
{
	reset_all();
	created_synced();
	j_truncate(0, FSIZE, 4096);
	CHECK_EQ_U(verify()->broken, 0); /* the old length, the truncate lost */
	at(0, 0, false)->len = 4096;
	CHECK_EQ_U(verify()->broken, 0);
	at(0, 0, false)->len = 1000;
	CHECK_EQ_U(verify()->by_kind[DM_SHORT], 1); /* the first 4 KiB stay promised */

	reset_all();
	created_synced();
	struct durlog_rec *w = rec(DL_WRITE, 0); /* pending, beyond the truncate */
	w->gen = 2, w->off = 4096, w->len = 4096, w->size = FSIZE;
	j_truncate(0, FSIZE, 2048);
	j_truncate(0, 2048, 6000); /* a hole of zeroes at [2048, 6000) */
	struct durlog_rec *s = rec(DL_FSYNC, 0);
	s->gen = 2, s->size = 6000;
	memset(at(0, 0, false)->data + 2048, 0, FSIZE - 2048);
	at(0, 0, false)->len = 6000;
	CHECK_EQ_U(verify()->broken, 0);
	at(0, 0, false)->len = 3000;
	CHECK_EQ_U(verify()->by_kind[DM_SHORT], 1); /* the fsynced length */

	reset_all();
	created_synced();
	j_replace(0, 2, FSIZE, 0);
	j_dirsync(0);
	j_truncate(0, FSIZE, 0);
	rec(DL_SYNCFS, 0);
	at(0, 0, false)->len = 0;
	CHECK_EQ_U(verify()->broken, 0);
}

static void j_falloc(uint32_t file, uint32_t mode, uint64_t off, uint64_t len, uint64_t size)
{
	struct durlog_rec *r = rec(DL_FALLOCATE, file);
	r->aux = mode, r->off = off, r->len = len, r->size = size;
}

/* punch_hole and zero_range: nothing in the range is promised (zeroes or the old content both
 * kept), the bytes around it still are; a pending write across the hole keeps its part before
 * it; a write into the hole later is promised again; a zero range's new length only once an
 * fsync records it. fallocate with keep size promises as before: zeroes in a promised range
 * are still broken, as they are where no punch was logged. */
static void test_fallocate(void)
{
	reset_all();
	created_synced();
	memset(at(0, 0, false)->data + 1000, 0, 4000);
	CHECK_EQ_U(verify()->broken, 1); /* no punch logged: torn (zeroes mid-block) */
	j_falloc(0, DL_FALLOC_KEEP, FSIZE, 4096, FSIZE);
	CHECK_EQ_U(verify()->broken, 1); /* keep size changes no byte */
	j_falloc(0, DL_FALLOC_PUNCH, 1000, 4000, FSIZE);
	CHECK_EQ_U(verify()->broken, 0);
	put(0, 0, 1, 0, FSIZE); /* the punch lost: the old content */
	CHECK_EQ_U(verify()->broken, 0);
	memset(at(0, 0, false)->data + 5000, 0, 100); /* beyond the hole: still promised */
	CHECK_EQ_U(verify()->broken, 1);

	reset_all();
	created_synced();
	struct durlog_rec *w = rec(DL_WRITE, 0); /* pending, across the hole */
	w->gen = 2, w->len = FSIZE, w->size = FSIZE;
	j_falloc(0, DL_FALLOC_ZERO, 2048, 2048, FSIZE);
	w = rec(DL_WRITE, 0); /* into the hole, after it */
	w->gen = 3, w->off = 3000, w->len = 100, w->size = FSIZE;
	struct durlog_rec *f = rec(DL_FSYNC, 0);
	f->gen = 3, f->size = FSIZE;
	put(0, 0, 2, 0, 2048);
	memset(at(0, 0, false)->data + 2048, 0, 2048);
	put(0, 0, 3, 3000, 100);
	CHECK_EQ_U(verify()->broken, 0);
	put(0, 0, 1, 0, 2048); /* before the hole: generation 2 promised */
	CHECK_EQ_U(verify()->by_kind[DM_STALE], 1);
	put(0, 0, 2, 0, 2048);
	memset(at(0, 0, false)->data + 3000, 0, 100); /* the later write lost */
	CHECK_EQ_U(verify()->by_kind[DM_ZEROED], 1);

	reset_all();
	created_synced();
	j_falloc(0, DL_FALLOC_ZERO, 6000, 4000, 10000); /* grows the file to 10000 */
	CHECK_EQ_U(verify()->broken, 0);                /* the old length kept */
	f = rec(DL_FSYNC, 0);
	f->gen = 1, f->size = 10000;
	CHECK_EQ_U(verify()->by_kind[DM_SHORT], 1);
}

int main(void)
{
	RUN(test_rename_unsynced);
	RUN(test_rename_unreadable_dir);
	RUN(test_unnamed_unreadable);
	RUN(test_rename_synced);
	RUN(test_rename_names);
	RUN(test_rename_then_delete);
	RUN(test_replace_open);
	RUN(test_replace_closed);
	RUN(test_replace_unsure);
	RUN(test_replace_lost_tail);
	RUN(test_truncate);
	RUN(test_fallocate);
	return test_summary();
}
