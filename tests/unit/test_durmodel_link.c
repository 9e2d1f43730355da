/* test_durmodel_link.c - the durability model's rules for second names (durmodel_ns.h: link,
 * unlink) on synthetic journals and a synthetic tree whose names know their inode:
 *   - a link covered by a later fsync of its directory, a syncfs or a sync must be found, and
 *     name the inode f<id> names (else missing, split); an fsync of the file, or of another
 *     directory, covers nothing of it; an uncovered link may be there or not;
 *   - an unlink covered likewise must stay gone (resurrected), also after the file's delete;
 *     uncovered, either;
 *   - the file's content promises are checked as usual beside its second name;
 *   - a log whose tail is lost counts a missing second name apart (lost tail);
 *   - an f<id> whose current name is not durable (a delete or replace not covered) may be an
 *     earlier inode: no split.
 * Each finding names the file id and its second name (dm_finding.second, dir). */
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

/* The synthetic tree: (directory, name) -> inode and content; name is a file id, with
 * DM_SECOND_NAME for l<id>. */
struct mem_file {
	bool exists;
	bool not_file; /* a directory or a symlink holds the name (size: -EEXIST) */
	uint32_t dir, file, ino;
	uint64_t len;
	unsigned char data[FSIZE];
};
static struct mem_file mem[NSLOT];

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
	struct mem_file *m = at(dir, file, false);
	return !m ? -ENOENT : m->not_file ? -EEXIST : (int64_t)m->len;
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

static int mem_same(void *ctx, uint32_t fs, uint32_t dir_a, uint32_t file_a, uint32_t dir_b,
                    uint32_t file_b)
{
	(void)ctx, (void)fs;
	struct mem_file *a = at(dir_a, file_a, false), *b = at(dir_b, file_b, false);
	if (!a || !b)
		return -ENOENT;
	return a->ino == b->ino;
}

static const struct dm_files files = {NULL, mem_size, mem_read, NULL, mem_same, NULL};

/* f<file> in dir holds [0, FSIZE) of generation gen, inode ino. */
static void put(uint32_t dir, uint32_t file, uint32_t gen, uint32_t ino)
{
	struct content_key k = {.seed = SEED, .fs = 0, .file = file};
	struct mem_file *m = at(dir, file, true);
	content_fill(m->data, FSIZE, &k, gen, 0);
	m->len = FSIZE;
	m->ino = ino;
}

/* l<file> in dir: a second name of f<file> in fdir (its inode and content). */
static void put_link(uint32_t dir, uint32_t file, uint32_t fdir)
{
	struct mem_file *f = at(fdir, file, false);
	struct mem_file *l = at(dir, file | DM_SECOND_NAME, true);
	memcpy(l->data, f->data, FSIZE);
	l->len = f->len;
	l->ino = f->ino;
}

static void drop(uint32_t dir, uint32_t file)
{
	struct mem_file *m = at(dir, file, false);
	if (m)
		m->exists = false;
}

static void reset_all(void)
{
	memset(mem, 0, sizeof(mem));
	fx_reset();
}

/* File 0 created in dir 0, written whole at generation 1 and fsynced; on disk as inode 7. */
static void created_synced(void)
{
	rec(DL_CREATE, 0)->gen = 1;
	rec(DL_WSTART, 0)->gen = 1;
	struct durlog_rec *r = rec(DL_WRITE, 0);
	r->gen = 1, r->len = FSIZE, r->size = FSIZE;
	r = rec(DL_FSYNC, 0);
	r->gen = 1, r->size = FSIZE;
	put(0, 0, 1, 7);
}

/* link (kind DL_LINK) or unlink (DL_UNLINK) of file's second name in ldir; f<file> in dir. */
static void j_link(enum durlog_kind kind, uint32_t file, uint32_t ldir, uint32_t dir)
{
	struct durlog_rec *r = rec(kind, file);
	r->dir = ldir, r->aux = dir;
}

static void j_dirsync(uint32_t dir)
{
	rec(DL_DIRSYNC, 0)->dir = dir;
}

static struct dm_report *verify(void)
{
	return fx_verify(&files, SEED, 0, DM_LINUX);
}

/* Linked into d1, nothing since: there or not, kept; no promise of it is counted. */
static void test_link_uncovered(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	uint64_t checked = verify()->checked;
	CHECK_EQ_U(verify()->broken, 0); /* the link lost */
	put_link(1, 0, 0);
	CHECK_EQ_U(verify()->broken, 0); /* the link kept */
	CHECK_EQ_U(verify()->checked, checked);
	/* an fsync of the file, or of the directory of its first name, covers nothing of it */
	drop(1, 0 | DM_SECOND_NAME);
	struct durlog_rec *r = rec(DL_FSYNC, 0);
	r->gen = 1, r->size = FSIZE;
	j_dirsync(0);
	CHECK_EQ_U(verify()->broken, 0);
}

/* Covered by an fsync of d1, a syncfs or a sync: l0 must be in d1, and be f0's inode. */
static void test_link_covered(void)
{
	for (int how = 0; how < 3; how++) {
		reset_all();
		created_synced();
		j_link(DL_LINK, 0, 1, 0);
		if (how == 0)
			j_dirsync(1);
		else
			rec(how == 1 ? DL_SYNCFS : DL_SYNC, 0);
		CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1);
		struct dm_finding *f = &verify()->examples[DM_MISSING][0];
		CHECK(f->second);
		CHECK_EQ_U(f->dir, 1);
		CHECK_EQ_U(f->file, 0);
		CHECK_EQ_U(f->ref.kind, how == 0 ? DL_DIRSYNC : how == 1 ? DL_SYNCFS : DL_SYNC);
		put_link(1, 0, 0);
		struct dm_report *r = verify();
		CHECK_EQ_U(r->broken, 0);
		CHECK_EQ_U(r->name_promises, 2); /* f0's and l0's */
		CHECK_EQ_U(r->link_promises, 1);
		at(1, 0 | DM_SECOND_NAME, false)->ino = 8; /* another file under the second name */
		CHECK_EQ_U(verify()->by_kind[DM_SPLIT], 1);
		CHECK_EQ_U(verify()->n_verdicts, 1);
		CHECK_EQ_U(verify()->verdicts[0].kind, DM_SPLIT);
	}
	/* a directory fsync of another directory than the second name's covers nothing */
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(2);
	CHECK_EQ_U(verify()->broken, 0);
	/* a covering call that started before the link completed covers nothing */
	reset_all();
	created_synced();
	struct durlog_rec *s = rec(DL_SYNCFS, 0);
	j_link(DL_LINK, 0, 1, 0);
	s->t_end = ++clk; /* the syncfs ran over the link */
	CHECK_EQ_U(verify()->broken, 0);
}

/* The file's content promises hold beside a second name: a stale f0 is stale. */
static void test_link_content(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	rec(DL_WSTART, 0)->gen = 2;
	struct durlog_rec *r = rec(DL_WRITE, 0);
	r->gen = 2, r->len = FSIZE, r->size = FSIZE;
	rec(DL_SYNC, 0);
	put_link(1, 0, 0);
	CHECK_EQ_U(verify()->by_kind[DM_STALE], 1); /* generation 1 where 2 was promised */
	put(0, 0, 2, 7);
	CHECK_EQ_U(verify()->broken, 0);
}

/* An unlink covered must stay gone (resurrected), also once the file is deleted; uncovered,
 * the second name may be there. */
static void test_unlink(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(1);
	j_link(DL_UNLINK, 0, 1, 0);
	put_link(1, 0, 0);
	CHECK_EQ_U(verify()->broken, 0); /* not covered: the link may be back */
	j_dirsync(0);                    /* another directory: still not */
	CHECK_EQ_U(verify()->broken, 0);
	j_dirsync(1);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK(r->examples[DM_RESURRECTED][0].second);
	CHECK_EQ_U(r->unlink_promises, 1);
	drop(1, 0 | DM_SECOND_NAME);
	CHECK_EQ_U(verify()->broken, 0);
	CHECK_EQ_U(verify()->unlink_promises, 1);
	/* back as no regular file (a directory reusing the name): back all the same */
	put_link(1, 0, 0);
	at(1, 0 | DM_SECOND_NAME, false)->not_file = true;
	CHECK_EQ_U(verify()->by_kind[DM_RESURRECTED], 1);
	drop(1, 0 | DM_SECOND_NAME);

	/* delete: the second name first (its unlink), then f0; a syncfs covers both */
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	rec(DL_SYNC, 0);
	j_link(DL_UNLINK, 0, 1, 0);
	rec(DL_DELETE, 0)->dir = 0;
	rec(DL_SYNCFS, 0);
	put_link(1, 0, 0);
	drop(0, 0);
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->examples[DM_RESURRECTED][0].dir, 1);
	CHECK(r->examples[DM_RESURRECTED][0].second);
	drop(1, 0 | DM_SECOND_NAME);
	CHECK_EQ_U(verify()->broken, 0);
	CHECK_EQ_U(verify()->unlink_promises, 2); /* f0's and l0's */

	/* linked again after an unlink: the last change counts */
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	j_link(DL_UNLINK, 0, 1, 0);
	rec(DL_SYNC, 0);
	j_link(DL_LINK, 0, 2, 0);
	put_link(2, 0, 0);
	CHECK_EQ_U(verify()->broken, 0);
	rec(DL_SYNC, 0);
	at(2, 0 | DM_SECOND_NAME, false)->not_file = true; /* a durable link's name holds no file */
	CHECK_EQ_U(verify()->by_kind[DM_SPLIT], 1);
	drop(2, 0 | DM_SECOND_NAME);
	CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1);
}

/* A log whose tail is lost: an unlink after its last record may explain a missing second
 * name (lost tail, not broken). */
static void test_link_lost_tail(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(1);
	tail_lost = true;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1);
}

/* A lost tail weighed by what the run did (the header's flags): a run that links and unlinks but
 * neither deletes, renames nor replaces (DLH_NO_DELETES) cannot lose f0 to its tail -- f0
 * missing is broken -- but may lose l0 (an unlink after the last record): lost tail; a run that
 * does none of them (DLH_NO_LINKS too): both broken. */
static void test_link_lost_tail_flags(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	rec(DL_SYNCFS, 0);
	tail_lost = true;
	hflags = DLH_NO_DELETES | DLH_NO_CREATES;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1); /* l0 */
	put_link(1, 0, 0);
	drop(0, 0);
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1); /* f0: no link or unlink removes it */
	CHECK(!r->examples[DM_MISSING][0].second);
	CHECK_EQ_U(r->lost_tail, 0);
	put(0, 0, 1, 7);
	drop(1, 0 | DM_SECOND_NAME);
	hflags |= DLH_NO_LINKS;
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1); /* l0: nothing lost could have removed it */
	CHECK(r->examples[DM_MISSING][0].second);
	hflags = DLH_NO_CREATES | DLH_NO_LINKS; /* deletes: they unlink l0 first */
	CHECK_EQ_U(verify()->lost_by_kind[DM_MISSING], 1);
}

/* A known tail (fsmix crashtest) weighs a missing second name by the file's own records after
 * the cut: an unlink of another id's name removes no l0 (broken), one of l0 may (lost tail).
 * Judged by the header's flags alone, any unlink after the cut excused it. */
static void test_link_known_tail(void)
{
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(1);
	tail_lost = true;
	struct durlog_rec tail[1] = {
	    {.kind = DL_UNLINK, .file = 1, .dir = 1, .t_start = 900, .t_end = 901}};
	ktail = tail;
	n_ktail = 1;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK(r->examples[DM_MISSING][0].second);
	CHECK_EQ_U(r->lost_tail, 0);
	tail[0].file = 0;
	r = verify();
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->broken, 0);
}

/* An id deleted and created anew: its second name is no part of an incarnation (a create never
 * makes l<id>), so the old one's unlink (the delete's first step) stays the second name's last
 * change: covered, before or after the create, l0 must stay gone (resurrected); not covered,
 * it may be back; a link of the new file is the new last change. */
static void test_link_recreated(void)
{
	for (int when = 0; when < 2; when++) {
		reset_all();
		created_synced();
		j_link(DL_LINK, 0, 1, 0);
		rec(DL_SYNC, 0);
		j_link(DL_UNLINK, 0, 1, 0);
		rec(DL_DELETE, 0)->dir = 0;
		if (when == 0)
			rec(DL_SYNCFS, 0); /* covered before the create */
		rec(DL_CREATE, 0)->gen = 1;
		if (when == 1)
			rec(DL_SYNCFS, 0); /* ...after it */
		put_link(1, 0, 0);         /* the old l0 back */
		struct dm_report *r = verify();
		CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
		CHECK(r->n_examples[DM_RESURRECTED] == 1 && r->examples[DM_RESURRECTED][0].second &&
		      r->examples[DM_RESURRECTED][0].dir == 1);
		drop(1, 0 | DM_SECOND_NAME);
		CHECK_EQ_U(verify()->broken, 0);
	}
	/* not covered: l0 may be back */
	reset_all();
	created_synced();
	j_link(DL_LINK, 0, 1, 0);
	rec(DL_SYNC, 0);
	j_link(DL_UNLINK, 0, 1, 0);
	rec(DL_DELETE, 0)->dir = 0;
	rec(DL_CREATE, 0)->gen = 1;
	put_link(1, 0, 0);
	CHECK_EQ_U(verify()->broken, 0);
	/* linked anew into d2 and covered: l0 must be in d2, the old d1's no longer counts */
	drop(0, 0);
	put(0, 0, 1, 9);
	j_link(DL_LINK, 0, 2, 0);
	rec(DL_SYNC, 0);
	put_link(2, 0, 0);
	CHECK_EQ_U(verify()->broken, 0);
	drop(2, 0 | DM_SECOND_NAME);
	CHECK_EQ_U(verify()->by_kind[DM_MISSING], 1);
}

/* l0 covered, f0's current name not durable: the f0 found may be an earlier one (a delete, or
 * a replace's rename, that no call covered), so another inode there breaks nothing. */
static void test_link_earlier_first(void)
{
	/* deleted (not covered), made anew, linked, the link covered; the delete lost */
	reset_all();
	created_synced();
	rec(DL_DELETE, 0)->dir = 0;
	rec(DL_CREATE, 0)->gen = 1;
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(1);
	put(1, 0 | DM_SECOND_NAME, 1, 9); /* l0: the new file, inode 9; f0: the old, inode 7 */
	CHECK_EQ_U(verify()->broken, 0);
	/* replaced (its rename not covered), linked, the link covered; the replace lost */
	reset_all();
	created_synced();
	struct durlog_rec *r = rec(DL_REPLACE, 0);
	r->gen = 2, r->size = FSIZE;
	j_link(DL_LINK, 0, 1, 0);
	j_dirsync(1);
	put(1, 0 | DM_SECOND_NAME, 2, 9);
	CHECK_EQ_U(verify()->broken, 0);
	/* the replace covered: f0 must be the new inode, l0's */
	j_dirsync(0);
	CHECK_EQ_U(verify()->by_kind[DM_SPLIT], 1);
}

int main(void)
{
	RUN(test_link_uncovered);
	RUN(test_link_covered);
	RUN(test_link_content);
	RUN(test_unlink);
	RUN(test_link_lost_tail);
	RUN(test_link_lost_tail_flags);
	RUN(test_link_known_tail);
	RUN(test_link_recreated);
	RUN(test_link_earlier_first);
	return test_summary();
}
