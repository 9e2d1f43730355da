/* test_durmodel.c - the durability model's rules (durmodel.c) on synthetic journals and synthetic
 * file contents (content_fill): kept; missing; short; stale; zeroed; torn; wrong (another
 * file's bytes); a later generation accepted; a write cut short by the crash accepted; a file
 * deleted after its promise not expected; names under --model linux and posix (dirsync);
 * sync and syncfs cover only what completed before they started; a reused file's blocks of
 * every generation up to its own are as promised; a file that cannot be opened
 * or read breaks its promises as unreadable, and the check goes on past it; a log whose tail is
 * lost accepts later generations and counts apart what a later delete or create may explain;
 * an O_DSYNC write promises its own extent only, and no later settle of an older write lowers
 * it; a covered unlink keeps the name gone (resurrected); ids, offsets and many rewrites that
 * once hung or slowed the replay; the promise table and its copy in docs/durability.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "durmodel.h"
#include "durpromise.h"
#include "durrange.h"
#include "durmodel_fixture.h"
#include "test.h"

#define SEED   0x5eedull
#define NFILES 8
#define FSIZE  16384

/* The synthetic tree: one filesystem, files 0..NFILES-1 in memory. */
struct mem_file {
	bool exists;
	int open_err, read_err; /* an errno its open (size) or its reads fail with */
	uint64_t len;
	unsigned char data[2 * FSIZE];
};
static struct mem_file mem[NFILES];

static int64_t mem_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs, (void)dir;
	if (file < NFILES && mem[file].open_err)
		return -mem[file].open_err;
	return file < NFILES && mem[file].exists ? (int64_t)mem[file].len : -ENOENT;
}

static int64_t mem_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off,
                        void *buf, size_t len)
{
	(void)ctx, (void)fs, (void)dir;
	if (mem[file].read_err)
		return -mem[file].read_err;
	if (off >= mem[file].len)
		return 0;
	if (len > mem[file].len - off)
		len = (size_t)(mem[file].len - off);
	memcpy(buf, mem[file].data + off, len);
	return (int64_t)len;
}

static const struct dm_files files = {NULL, mem_size, mem_read, NULL, NULL, NULL};

/* test_prefetch's: which files were prefetched, and whether one was read before it was. */
static bool pf_on, pf_done[NFILES], pf_late;
static unsigned pf_calls;

static void mem_prefetch(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs, (void)dir;
	pf_calls++;
	if (file < NFILES)
		pf_done[file] = true;
}

static int64_t pf_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off, void *buf,
                       size_t len)
{
	if (pf_on && (file >= NFILES || !pf_done[file]))
		pf_late = true;
	return mem_read(ctx, fs, dir, file, off, buf, len);
}

/* The file's bytes [off, off+len) at generation gen, as fsmix would have written them. */
static void put(uint32_t file, uint32_t gen, uint64_t off, uint64_t len)
{
	struct content_key k = {.seed = SEED, .fs = 0, .file = file};
	mem[file].exists = true;
	content_fill(mem[file].data + off, len, &k, gen, off);
	if (off + len > mem[file].len)
		mem[file].len = off + len;
}

static void j_create(uint32_t file, uint32_t dir)
{
	rec(DL_CREATE, file)->dir = dir;
	rec(DL_WSTART, file)->gen = 1;
}

static void j_write(uint32_t file, uint32_t gen, uint64_t off, uint64_t len)
{
	struct durlog_rec *r = rec(DL_WRITE, file);
	r->gen = gen, r->off = off, r->len = len, r->size = off + len;
}

static void j_fsync(uint32_t file, uint64_t size, uint32_t gen)
{
	struct durlog_rec *r = rec(DL_FSYNC, file);
	r->size = size, r->gen = gen;
}

static void reset_all(void)
{
	fx_reset();
	memset(mem, 0, sizeof(mem));
}

/* Replays j under model and checks the synthetic files. */
static struct dm_report *verify(enum dm_model model)
{
	return fx_verify(&files, SEED, 0, model);
}

/* One created, written and fsynced file, as it is on disk. */
static void created_synced(uint32_t file)
{
	j_create(file, 0);
	j_write(file, 1, 0, FSIZE);
	j_fsync(file, FSIZE, 1);
	put(file, 1, 0, FSIZE);
}

static void test_kept(void)
{
	reset_all();
	created_synced(0);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->files_expected, 1);
	CHECK_EQ_U(r->checked, 2); /* its data and its name */
	CHECK_EQ_U(r->kept, 2);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->acks[DL_FSYNC], 1);
}

/* durmodel_check asks files->prefetch for every file whose content it reads, once, before it
 * reads it, and for no other; the verdicts are those without it. */
static void test_prefetch(void)
{
	const struct dm_files pf = {NULL, mem_size, pf_read, NULL, NULL, mem_prefetch};
	reset_all();
	for (uint32_t f = 0; f < 4; f++)
		created_synced(f);
	j_create(5, 0); /* named, nothing written or synced: nothing to read */
	memset(pf_done, 0, sizeof(pf_done));
	pf_calls = 0, pf_late = false, pf_on = true;
	struct dm_report *r = fx_verify(&pf, SEED, 0, DM_LINUX);
	pf_on = false;
	CHECK_EQ_U(r->checked, 8);
	CHECK_EQ_U(r->kept, 8);
	CHECK_EQ_U(pf_calls, 4);
	CHECK(!pf_done[5]);
	CHECK(!pf_late);
}

static void test_missing_short_zeroed_stale(void)
{
	reset_all();
	for (uint32_t f = 0; f < 4; f++)
		created_synced(f);
	/* then a second, acknowledged generation of 0..4096 of file 3 */
	rec(DL_WSTART, 3)->gen = 2;
	j_write(3, 2, 0, 4096);
	j_fsync(3, FSIZE, 2);
	put(3, 2, 0, 4096);
	mem[0].exists = false;              /* gone */
	mem[1].len = FSIZE - 512;           /* short */
	memset(mem[2].data + 8192, 0, 512); /* a zeroed block */
	put(3, 1, 0, 4096);                 /* the old generation came back */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1);
	CHECK_EQ_U(r->by_kind[DM_ZEROED], 1);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK_EQ_U(r->examples[DM_MISSING][0].file, 0);
	CHECK_EQ_U(r->examples[DM_SHORT][0].file, 1);
	CHECK_EQ_U(r->examples[DM_SHORT][0].off, FSIZE - 512);
	CHECK_EQ_U(r->examples[DM_SHORT][0].expected_len, FSIZE);
	CHECK_EQ_U(r->examples[DM_ZEROED][0].file, 2);
	CHECK_EQ_U(r->examples[DM_ZEROED][0].off, 8192);
	CHECK_EQ_U(r->examples[DM_ZEROED][0].ref.kind, DL_FSYNC);
	CHECK_EQ_U(r->examples[DM_STALE][0].file, 3);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_min, 2);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_found, 1);
	CHECK_EQ_U(r->broken, 5); /* the missing file breaks its name and its data */
	CHECK_EQ_U(r->kept, 3);   /* the other three names */
}

static void test_torn_and_wrong(void)
{
	reset_all();
	created_synced(0);
	created_synced(1);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 4096);
	j_fsync(0, FSIZE, 2);
	put(0, 2, 0, 4096);
	put(0, 1, 256, 256); /* half of a 512-byte block is the old generation: torn */
	struct content_key other = {.seed = SEED, .fs = 0, .file = 5};
	content_fill(mem[1].data + 4096, 512, &other, 1, 4096); /* another file's block */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_TORN], 1);
	CHECK_EQ_U(r->by_kind[DM_WRONG], 1);
	CHECK_EQ_U(r->examples[DM_WRONG][0].file, 1);
	CHECK_EQ_U(r->examples[DM_WRONG][0].off, 4096);
}

static void test_later_generation_and_cut_write(void)
{
	reset_all();
	created_synced(0);
	created_synced(1);
	/* file 0: a later write completed but was never acknowledged: either may be on disk */
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 4096, 4096);
	put(0, 2, 4096, 2048); /* half of it landed */
	/* file 1: a write began (gen 2) and the crash cut it: no DL_WRITE */
	rec(DL_WSTART, 1)->gen = 2;
	put(1, 2, 0, 1000);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->kept, 4);
	/* but a generation no write began is not acceptable */
	put(1, 3, 0, 1000);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 1);
}

/* Writes of two generations meeting a few bytes into a block's header: the few bytes of the
 * older one are promised on their own and checked with their neighbours. */
static void test_small_range(void)
{
	reset_all();
	created_synced(0);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 5, 8192);
	j_fsync(0, FSIZE, 2);
	put(0, 2, 5, 8192);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	put(0, 1, 5, 8192); /* the newer generation lost: stale */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 1);
	/* content_check calls a stale header's check word foreign: either is a broken promise */
	CHECK_EQ_U(r->by_kind[DM_STALE] + r->by_kind[DM_WRONG], 1);
}

static void test_deleted_not_expected(void)
{
	reset_all();
	created_synced(0);
	rec(DL_DELETE, 0);
	mem[0].exists = false;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->files_expected, 0);
	CHECK_EQ_U(r->broken, 0);
	/* deleted and created again under the same id: the new incarnation's promise counts */
	created_synced(0);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->files_expected, 1);
	CHECK_EQ_U(r->kept, 2);
}

static void test_names_linux_posix(void)
{
	reset_all();
	created_synced(0); /* fsynced, its directory never */
	mem[0].exists = false;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	r = verify(DM_POSIX); /* posix: the name was never promised */
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->name_promises, 0);
	CHECK_EQ_U(r->names_created_promised, 0);
	CHECK_EQ_U(r->absent_unpromised, 1);
	/* with dirsync of its directory after the create, posix promises the name */
	reset_all();
	j_create(0, 4);
	rec(DL_DIRSYNC, 0)->dir = 4;
	j_create(1, 5);
	rec(DL_DIRSYNC, 0)->dir = 4; /* the other directory: file 1's name is not promised */
	j_write(0, 1, 0, FSIZE);
	j_fsync(0, FSIZE, 1);
	r = verify(DM_POSIX);
	CHECK_EQ_U(r->name_promises, 1);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->examples[DM_MISSING][0].ref.kind, DL_DIRSYNC);
	CHECK_EQ_U(r->acks[DL_DIRSYNC], 2);
}

/* An fsync settles the writes of its file that completed before it started, not one that
 * completed while it ran (shared_writes=1 at depth: another operation's write in flight
 * beside it may reach the file after the flush). */
static void test_fsync_started(void)
{
	reset_all();
	created_synced(0);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 4096); /* ended before the fsync started: promised */
	rec(DL_WSTART, 0)->gen = 3;
	struct durlog_rec *f = rec(DL_FSYNC, 0);
	f->size = FSIZE, f->gen = 2;
	j_write(0, 3, 4096, 4096); /* ended while the fsync ran: not promised */
	f->t_end = clk + 10;
	put(0, 2, 0, 4096);
	CHECK_EQ_U(verify(DM_LINUX)->broken, 0); /* the second block still of generation 1 */
	put(0, 1, 0, 4096);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK(r->examples[DM_STALE][0].off < 4096); /* the first block: the promised write */
}

static void test_sync_coverage(void)
{
	reset_all();
	/* base files, then setup's syncfs: their names, lengths and content are promised */
	for (uint32_t f = 0; f < 3; f++) {
		struct durlog_rec *b = rec(DL_BASE, f);
		b->size = FSIZE, b->gen = 1;
		put(f, 1, 0, FSIZE);
	}
	struct durlog_rec *s = rec(DL_SYNCFS, 0);
	s->t_start = 1; /* began before them: covers none */
	struct dm_report *r = verify(DM_POSIX);
	CHECK_EQ_U(r->files_expected, 0);
	s->t_start = s->t_end - 1;
	r = verify(DM_POSIX);
	CHECK_EQ_U(r->files_expected, 3);
	CHECK_EQ_U(r->kept, 6);
	/* writes completed before a sync's start are durable; one that ended after it is not */
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 4096);
	rec(DL_WSTART, 1)->gen = 2;
	struct durlog_rec *sy = rec(DL_SYNC, 0);
	j_write(1, 2, 0, 4096);
	j[nj - 1].t_end = sy->t_end - 0; /* the same moment: not before the start */
	put(0, 1, 0, 4096);              /* stale: the sync covered it */
	put(1, 1, 0, 4096);              /* old content: allowed, the sync did not cover it */
	r = verify(DM_POSIX);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK_EQ_U(r->examples[DM_STALE][0].file, 0);
	CHECK_EQ_U(r->examples[DM_STALE][0].ref.kind, DL_SYNC);
	CHECK_EQ_U(r->broken, 1);
	CHECK_EQ_U(r->acks[DL_SYNC], 1);
}

/* A reused tree's file (base, generation 5) holds blocks of several generations, each written
 * by an op of an earlier run: every one from 1 to 5 is as promised; zeroes are not, nor is a
 * generation no run wrote. (main at 9f68232 promised generation 5 for every byte: a reused
 * tree verified after the run reported its older blocks as stale.) */
static void test_reused_base(void)
{
	reset_all();
	struct durlog_rec *b = rec(DL_BASE, 0);
	b->size = FSIZE, b->gen = 5;
	rec(DL_SYNCFS, 0)->t_start = b->t_end + 1;
	put(0, 1, 0, FSIZE);
	put(0, 3, 4096, 4096);
	put(0, 5, 8192, 512);
	put(0, 2, 12288, 1024);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->files_expected, 1);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->kept, 2);
	memset(mem[0].data + 4096, 0, 512);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_ZEROED], 1);
	put(0, 3, 4096, 4096);
	put(0, 6, 0, 512); /* later than any write of the file began */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 1);
	CHECK_EQ_U(r->by_kind[DM_STALE], 0);
}

static void test_osync_write(void)
{
	reset_all();
	j_create(0, 0);
	struct durlog_rec *w = rec(DL_WRITE, 0);
	w->gen = 1, w->off = 0, w->len = 4096, w->size = 4096, w->flags = DLF_SYNC;
	j_write(0, 1, 4096, 4096); /* not O_SYNC... */
	put(0, 1, 0, 4096);        /* ...and lost: fine */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->osync_writes, 1);
	CHECK_EQ_U(r->broken, 0);
	mem[0].len = 2048;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1);
}

/* A corrupt inode (the open fails: EUCLEAN) or data block (reads fail: EIO): each a broken
 * promise of kind unreadable with its errno; the files after them are still checked. */
static void test_unreadable(void)
{
	reset_all();
	for (uint32_t f = 0; f < 4; f++)
		created_synced(f);
	mem[0].open_err = EUCLEAN;
	mem[1].read_err = EIO;
	memset(mem[3].data + 4096, 0, 512); /* after them: still found */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 2);
	CHECK_EQ_U(r->examples[DM_UNREADABLE][0].file, 0);
	CHECK_EQ_I(r->examples[DM_UNREADABLE][0].err, EUCLEAN);
	CHECK_EQ_U(r->examples[DM_UNREADABLE][1].file, 1);
	CHECK_EQ_I(r->examples[DM_UNREADABLE][1].err, EIO);
	CHECK_EQ_U(r->examples[DM_UNREADABLE][1].ref.kind, DL_FSYNC);
	CHECK_EQ_U(r->by_kind[DM_ZEROED], 1);
	CHECK_EQ_U(r->examples[DM_ZEROED][0].file, 3);
	CHECK_EQ_U(r->checked, 8);
	/* file 0: name and data; file 1: data (its name opened); file 3: data */
	CHECK_EQ_U(r->broken, 4);
	CHECK_EQ_U(r->kept, 4);
	CHECK_STR(dm_kind_name(DM_UNREADABLE), "unreadable");
}

/* A log whose tail is lost (no end record): files 0..4 created and fsynced, file 3 rewritten
 * at generation 2 and fsynced; then, after the log's last record, file 0 deleted, file 1
 * rewritten at generations 2 and 3 (half of it), file 2 deleted and made anew (generation 1,
 * shorter), file 3 deleted and made anew (generation 1: stale), and file 4 gets another
 * file's bytes (which no change explains). */
static void test_lost_tail(void)
{
	reset_all();
	for (uint32_t f = 0; f < 5; f++)
		created_synced(f);
	rec(DL_WSTART, 3)->gen = 2;
	j_write(3, 2, 0, FSIZE);
	j_fsync(3, FSIZE, 2);
	mem[0].exists = false;
	put(1, 2, 0, FSIZE);
	put(1, 3, 1000, 5000); /* a remnant of generation 2 lies between: unaligned */
	mem[2].len = FSIZE / 2;
	put(3, 1, 0, FSIZE);
	struct content_key other = {.seed = SEED, .fs = 0, .file = 6};
	content_fill(mem[4].data + 4096, 512, &other, 1, 4096);
	/* complete: every one of them is broken (file 1's generations are above any write) */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_MISSING] + r->by_kind[DM_SHORT] + r->by_kind[DM_STALE], 3);
	CHECK_EQ_U(r->by_kind[DM_WRONG] + r->by_kind[DM_TORN], 2);
	CHECK_EQ_U(r->lost_tail, 0);
	/* the tail lost: file 1 as promised (later writes), 0, 2 and 3 lost tail, 4 broken */
	tail_lost = true;
	r = verify(DM_LINUX);
	CHECK(r->tail_lost);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->lost_by_kind[DM_SHORT], 1);
	CHECK_EQ_U(r->lost_by_kind[DM_STALE], 1);
	CHECK_EQ_U(r->lost_tail, 4); /* the missing file's name and data, two data promises */
	CHECK_EQ_U(r->by_kind[DM_WRONG], 1);
	CHECK_EQ_U(r->examples[DM_WRONG][0].file, 4);
	CHECK_EQ_U(r->broken, 1);
	CHECK_EQ_U(r->checked, r->kept + r->broken + r->lost_tail);
	/* a run that deleted no file: a base file missing is broken, a created one may have been
	 * removed by its own failing create; and one that created none: no id is made anew */
	hflags = DLH_NO_DELETES;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1); /* file 0 was created in the run */
	j[0].kind = DL_BASE;                        /* ... now it is of the tree */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	hflags = DLH_NO_DELETES | DLH_NO_CREATES;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK_EQ_U(r->lost_tail, 0);
}

/* A log cut at a crash state's moment whose records after the cut are known (fsmix
 * crashtest): a missing or short file counts as lost tail only when a record after the cut may
 * have removed or renewed it; the rest is broken, where an unknown tail would excuse it all. */
static void test_known_tail(void)
{
	reset_all();
	for (uint32_t f = 0; f < 3; f++)
		created_synced(f);
	mem[0].exists = false;
	mem[1].exists = false;
	mem[2].len = FSIZE / 2;
	tail_lost = true;
	struct dm_report *r = verify(DM_LINUX); /* unknown: all three may be the tail's */
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_tail, 5);
	struct durlog_rec tail[2] = {
	    {.kind = DL_DELETE, .file = 1, .t_start = 900, .t_end = 901},
	    {.kind = DL_WRITE, .file = 2, .gen = 2, .len = 10, .t_start = 902, .t_end = 903}};
	ktail = tail;
	n_ktail = 2;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1); /* file 1: its delete follows the cut */
	CHECK_EQ_U(r->lost_tail, 2);                /* ... its data and its name */
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);      /* file 0: nothing after the cut removes it */
	CHECK_EQ_U(r->examples[DM_MISSING][0].file, 0);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1); /* file 2: a later write makes no file shorter */
	CHECK_EQ_U(r->checked, r->kept + r->broken + r->lost_tail);
	n_ktail = 0; /* nothing after the cut: every finding is broken */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->lost_tail, 0);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 2);
}

/* A log whose tail is lost: the writes after its end may be of up to 64 generations past the
 * newest the log knows for the file, even when none of the log's own later writes landed (the
 * newest the file holds is older than the log's): a remnant of generation 66 (no whole word)
 * where the log's newest write was generation 2 is a lost tail; of 67, broken. */
static void test_lost_tail_generations(void)
{
	reset_all();
	hflags = DLH_NO_DELETES | DLH_NO_CREATES; /* the id is not made anew */
	tail_lost = true;
	created_synced(0);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 4096); /* never synced: not on disk */
	put(0, 66, 1000, 5);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	put(0, 67, 1000, 5);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 1);
}

static void j_dsync_write(uint32_t file, uint32_t gen, uint64_t off, uint64_t len)
{
	rec(DL_WSTART, file)->gen = gen;
	struct durlog_rec *r = rec(DL_WRITE, file);
	r->gen = gen, r->off = off, r->len = len, r->size = off + len, r->flags = DLF_SYNC;
}

/* Issue 26: buffered writes and O_DSYNC writes to one file. The O_DSYNC write promises its own
 * extent; a buffered write before it, never fsynced, may be lost (Linux syncs only the written
 * range: generic_write_sync -> vfs_fsync_range). fc73ac9 settled every pending write of the file
 * and called the lost buffered write stale. */
static void test_dsync_own_extent(void)
{
	reset_all();
	created_synced(0);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 4096);          /* buffered, pending */
	j_dsync_write(0, 3, 8192, 4096); /* O_DSYNC: promised */
	put(0, 3, 8192, 4096);           /* on disk: the O_DSYNC write, not the buffered one */
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->osync_writes, 1);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->kept, 2);
	put(0, 1, 8192, 4096); /* the O_DSYNC write lost: stale, promised by the write */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_STALE] + r->by_kind[DM_WRONG], 1);
	CHECK_EQ_U(r->broken, 1);
	CHECK_EQ_U(r->examples[DM_STALE][0].ref.kind, DL_WRITE);
	/* its length: at least the end of its extent */
	reset_all();
	j_create(0, 0);
	j_dsync_write(0, 1, 8192, 4096);
	put(0, 1, 0, 8192);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1);
	CHECK_EQ_U(r->examples[DM_SHORT][0].expected_len, 12288);
}

/* A later fsync settles the buffered write the O_DSYNC write left pending, but the bytes the
 * newer O_DSYNC write promised keep its (higher) generation: the promise is, byte by byte, the
 * highest generation of the settled writes that cover it, whatever order they were settled in. */
static void test_dsync_then_older_settled(void)
{
	reset_all();
	created_synced(0);
	rec(DL_WSTART, 0)->gen = 2;
	j_write(0, 2, 0, 8192);          /* buffered, pending */
	j_dsync_write(0, 3, 4096, 4096); /* O_DSYNC over the second half of it */
	j_fsync(0, FSIZE, 3);            /* settles the older, generation 2 */
	put(0, 2, 0, 4096);
	put(0, 3, 4096, 4096);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	put(0, 2, 4096, 4096); /* the O_DSYNC write lost, the older one there: stale */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_STALE] + r->by_kind[DM_WRONG], 1);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_min, 3);
	put(0, 3, 4096, 4096);
	put(0, 1, 0, 4096); /* the buffered write lost though fsynced: stale */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK(r->examples[DM_STALE][0].off < 4096);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_min, 2);
	CHECK_EQ_U(r->examples[DM_STALE][0].ref.kind, DL_FSYNC);
}

/* Issue 26: a file whose unlink a later syncfs, sync or fsync of its directory covered (it
 * started after the unlink completed) must stay gone; fc73ac9 dropped deletes from the model. */
static void test_resurrected(void)
{
	static const enum durlog_kind cover[] = {DL_SYNCFS, DL_SYNC, DL_DIRSYNC};
	for (size_t c = 0; c < 3; c++)
		for (int model = DM_LINUX; model <= DM_POSIX; model++) {
			reset_all();
			created_synced(0);
			rec(DL_DELETE, 0)->dir = 0;
			rec(cover[c], 0)->dir = 0;
			struct dm_report *r = verify((enum dm_model)model);
			CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
			CHECK_EQ_U(r->broken, 1);
			CHECK_EQ_U(r->unlink_promises, 1);
			CHECK_EQ_U(r->examples[DM_RESURRECTED][0].file, 0);
			CHECK_EQ_U(r->examples[DM_RESURRECTED][0].ref.kind, cover[c]);
			mem[0].exists = false; /* gone as promised */
			r = verify((enum dm_model)model);
			CHECK_EQ_U(r->broken, 0);
			CHECK_EQ_U(r->kept, 1);
			CHECK_EQ_U(r->checked, 1);
		}
	CHECK_STR(dm_kind_name(DM_RESURRECTED), "resurrected");
	/* not covered: a syncfs that started before the unlink completed; an fsync of another
	 * directory; the file's own fsync (before the delete) */
	reset_all();
	created_synced(0);
	struct durlog_rec *d = rec(DL_DELETE, 0);
	struct durlog_rec *s = rec(DL_SYNCFS, 0);
	s->t_start = d->t_end - 1;
	rec(DL_DIRSYNC, 0)->dir = 7;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->unlink_promises, 0);
	CHECK_EQ_U(r->checked, 0);
	/* covered, then created anew: the new incarnation, whose name is not promised */
	reset_all();
	created_synced(0);
	rec(DL_DELETE, 0);
	rec(DL_SYNCFS, 0);
	j_create(0, 0);
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 0);
}

/* A log whose tail is lost: a covered unlink's name found again may be a create of the id after
 * the log's last record (a run that creates files): lost tail, not broken. */
static void test_resurrected_lost_tail(void)
{
	reset_all();
	created_synced(0);
	rec(DL_DELETE, 0);
	rec(DL_SYNCFS, 0);
	tail_lost = true;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->lost_tail, 1);
	CHECK_EQ_U(r->checked, r->kept + r->broken + r->lost_tail);
	hflags = DLH_NO_CREATES; /* no create could have brought it back */
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->lost_tail, 0);
}

/* A known tail (fsmix crashtest) weighs a resurrected name by the file's own records after the
 * cut: a create of another id brings no name back (broken), one of the id may (lost tail).
 * Judged by the header's flags alone, any create after the cut excused it. */
static void test_resurrected_known_tail(void)
{
	reset_all();
	created_synced(0);
	rec(DL_DELETE, 0);
	rec(DL_SYNCFS, 0);
	tail_lost = true;
	struct durlog_rec tail[1] = {{.kind = DL_CREATE, .file = 1, .t_start = 900, .t_end = 901}};
	ktail = tail;
	n_ktail = 1;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->lost_tail, 0);
	tail[0].file = 0;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->lost_by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->broken, 0);
}

/* A durably deleted name back as something that is not a regular file (after a barrier=0 cut
 * on ext4, the name of a file unlinked before a syncfs was found again, its entry pointing at a
 * directory: the directory block lost the unlink, the inode was reused). The size callback says
 * -EEXIST (durmodel.h): the name is there, so the unlink's promise is broken (resurrected);
 * verify called it kept, taking it for no entry. A promised live file whose name holds such a
 * thing is still missing (its content is nowhere), not unreadable. */
static void test_resurrected_not_a_file(void)
{
	reset_all();
	created_synced(0);
	rec(DL_DELETE, 0);
	rec(DL_SYNCFS, 0);
	mem[0].open_err = EEXIST;
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->broken, 1);
	reset_all();
	created_synced(0);
	mem[0].open_err = EEXIST;
	r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 0);
}

/* A syncfs promises the length its writes acknowledged (durpromise.def, DPD_WHOLE), as an
 * fsync does: a write of [0, 4096) into a file it left 16384 long (its record's size), then a
 * syncfs, and the file found 8192 long after a cut is short. verify promised only the length
 * to the end of the extent (kept); the second log reader said short. A later truncate to 8192
 * takes that back. */
static void test_syncfs_length(void)
{
	reset_all();
	j_create(0, 0);
	j_write(0, 1, 0, 4096);
	j[nj - 1].size = FSIZE;
	rec(DL_SYNCFS, 0);
	put(0, 1, 0, FSIZE / 2);
	struct dm_report *r = verify(DM_LINUX);
	CHECK_EQ_U(r->by_kind[DM_SHORT], 1);
	CHECK_EQ_U(r->broken, 1);
	reset_all();
	j_create(0, 0);
	j_write(0, 1, 0, 4096);
	j[nj - 1].size = FSIZE;
	rec(DL_TRUNCATE, 0)->size = FSIZE / 2;
	rec(DL_SYNCFS, 0);
	put(0, 1, 0, FSIZE / 2);
	CHECK_EQ_U(verify(DM_LINUX)->broken, 0);
}

/* Issue 26: one record naming file id 2^31 or more made the replay spin for ever (a 32-bit
 * count doubled to 0), 2^24 allocated gigabytes. The model is sized by what the log holds, not
 * by the ids it names; an extent past 2^64 is a bad log (EINVAL). */
static void test_hostile_ids(void)
{
	static const uint32_t ids[] = {1u << 24, 1u << 31, (1u << 31) + 5, UINT32_MAX};
	reset_all();
	created_synced(0);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		j_create(ids[i], 0);
		j_write(ids[i], 1, 0, 4096);
		j_fsync(ids[i], 4096, 1);
	}
	struct dm_report *r = verify(DM_LINUX); /* the synthetic tree has no such files */
	CHECK_EQ_U(r->files_expected, 5);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 4);
	CHECK_EQ_U(r->examples[DM_MISSING][3].file, UINT32_MAX);
	struct durlog_rec *w = rec(DL_WRITE, 0);
	w->off = UINT64_MAX - 10, w->len = 4096, w->gen = 1;
	struct durlog_header h = {.version = DURLOG_VERSION, .n_fs = 1, .n_workers = 1};
	errno = 0;
	CHECK(durmodel_build(&h, j, nj, true, DM_LINUX) == NULL);
	CHECK_EQ_I(errno, EINVAL);
}

/* The envelope of settled writes (durrange.c) against a byte-by-byte model: each byte the
 * highest generation of the puts that cover it, ties to the later put; through many puts (so
 * the set is reduced several times on the way). */
static void test_range_envelope(void)
{
	enum { SPAN = 4096, PUTS = 3000 };
	static uint32_t gen[SPAN];
	static uint64_t ord[SPAN];
	memset(gen, 0, sizeof(gen));
	struct dm_rangeset s = {0};
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < PUTS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t off = x % SPAN, len = 1 + (x >> 20) % 300;
		uint64_t end = off + len < SPAN ? off + len : SPAN;
		uint32_t g = 1 + (uint32_t)((x >> 40) % 50);
		struct dm_ref ref = {.seq = i};
		CHECK_EQ_I(durrange_put(&s, off, end, g, ref), 0);
		for (uint64_t b = off; b < end; b++)
			if (g >= gen[b])
				gen[b] = g, ord[b] = i;
	}
	CHECK_EQ_I(durrange_finish(&s), 0);
	size_t bad = 0, k = 0;
	for (uint64_t b = 0; b < SPAN; b++) {
		while (k < s.n && s.r[k].end <= b)
			k++;
		bool in = k < s.n && s.r[k].off <= b;
		if (in != (gen[b] != 0) ||
		    (in && (s.r[k].gen != gen[b] || s.r[k].ref.seq != ord[b])))
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	for (size_t i = 0; i < s.n; i++)
		CHECK(s.r[i].off < s.r[i].end && (!i || s.r[i - 1].end <= s.r[i].off));
	durrange_free(&s);
}

/* durrange_cut (a truncate) against a byte-by-byte model: puts and cuts interleaved, before
 * and after reductions, leave each byte below the shortest cut since its put the highest
 * generation put there, and nothing at or beyond a cut until a later put. */
static void test_range_cut(void)
{
	enum { SPAN = 4096, PUTS = 2000 };
	static uint32_t gen[SPAN];
	memset(gen, 0, sizeof(gen));
	struct dm_rangeset s = {0};
	uint64_t x = 2463534242ull;
	size_t cuts = 0;
	for (uint64_t i = 0; i < PUTS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (x % 17 == 0) { /* a truncate */
			uint64_t len = (x >> 8) % SPAN;
			durrange_cut(&s, len);
			for (uint64_t b = len; b < SPAN; b++)
				gen[b] = 0;
			cuts++;
			if (x % 2 == 0) /* also on an envelope */
				CHECK_EQ_I(durrange_finish(&s), 0);
			continue;
		}
		uint64_t off = x % SPAN, len = 1 + (x >> 20) % 300;
		uint64_t end = off + len < SPAN ? off + len : SPAN;
		uint32_t g = 1 + (uint32_t)((x >> 40) % 50);
		CHECK_EQ_I(durrange_put(&s, off, end, g, (struct dm_ref){.seq = i}), 0);
		for (uint64_t b = off; b < end; b++)
			gen[b] = g > gen[b] ? g : gen[b];
	}
	CHECK(cuts > 10);
	durrange_cut(&s, SPAN - 100);
	for (uint64_t b = SPAN - 100; b < SPAN; b++)
		gen[b] = 0;
	CHECK_EQ_I(durrange_finish(&s), 0);
	size_t bad = 0, k = 0;
	for (uint64_t b = 0; b < SPAN; b++) {
		while (k < s.n && s.r[k].end <= b)
			k++;
		bool in = k < s.n && s.r[k].off <= b;
		if (in != (gen[b] != 0) || (in && s.r[k].gen != gen[b]))
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	durrange_cut(&s, 0);
	CHECK_EQ_U(s.n, 0);
	durrange_free(&s);
}

/* durrange_punch (punch_hole, zero_range) against a byte-by-byte model: puts and punches
 * interleaved leave each byte outside every punch since its put the highest generation put
 * there, and nothing in a punched range until a later put; a punch inside one range splits it. */
static void test_range_punch(void)
{
	enum { SPAN = 4096, PUTS = 2000 };
	static uint32_t gen[SPAN];
	memset(gen, 0, sizeof(gen));
	struct dm_rangeset s = {0};
	uint64_t x = 3141592653ull;
	size_t punches = 0;
	for (uint64_t i = 0; i < PUTS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t off = x % SPAN, len = 1 + (x >> 20) % 300;
		uint64_t end = off + len < SPAN ? off + len : SPAN;
		if (x % 7 == 0) { /* a hole */
			CHECK_EQ_I(durrange_punch(&s, off, end), 0);
			for (uint64_t b = off; b < end; b++)
				gen[b] = 0;
			punches++;
			continue;
		}
		uint32_t g = 1 + (uint32_t)((x >> 40) % 50);
		CHECK_EQ_I(durrange_put(&s, off, end, g, (struct dm_ref){.seq = i}), 0);
		for (uint64_t b = off; b < end; b++)
			gen[b] = g > gen[b] ? g : gen[b];
	}
	CHECK(punches > 100);
	CHECK_EQ_I(durrange_finish(&s), 0);
	size_t bad = 0, k = 0;
	for (uint64_t b = 0; b < SPAN; b++) {
		while (k < s.n && s.r[k].end <= b)
			k++;
		bool in = k < s.n && s.r[k].off <= b;
		if (in != (gen[b] != 0) || (in && s.r[k].gen != gen[b]))
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	durrange_free(&s);
	/* one range, a hole in its middle: two ranges either side */
	CHECK_EQ_I(durrange_put(&s, 0, 100, 3, (struct dm_ref){0}), 0);
	CHECK_EQ_I(durrange_punch(&s, 40, 60), 0);
	CHECK_EQ_U(s.n, 2);
	CHECK(s.r[0].off == 0 && s.r[0].end == 40 && s.r[1].off == 60 && s.r[1].end == 100);
	CHECK_EQ_I(durrange_punch(&s, 0, 1000), 0);
	CHECK_EQ_U(s.n, 0);
	durrange_free(&s);
}

/* The table: O_SYNC and O_DSYNC promise the same (the log cannot tell them apart), and
 * docs/durability.md prints it as durpromise_markdown does. */
static void test_promise_table(void)
{
	const struct dp_row *a = durpromise_row(DP_OSYNC_WRITE),
	                    *b = durpromise_row(DP_ODSYNC_WRITE);
	CHECK(memcmp(a->rule, b->rule, sizeof(a->rule)) == 0);
	struct durlog_rec w = {.kind = DL_WRITE};
	CHECK(durpromise_of(&w) == NULL);
	w.flags = DLF_SYNC;
	CHECK(durpromise_of(&w) == b);
	char *gen = NULL;
	size_t glen = 0;
	FILE *o = open_memstream(&gen, &glen);
	durpromise_markdown(o);
	fclose(o);
	const char *src = getenv("FSMIX_SOURCE_DIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/docs/durability.md", src ? src : ".");
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	static char doc[1 << 20];
	size_t n = f ? fread(doc, 1, sizeof(doc) - 1, f) : 0;
	if (f)
		fclose(f);
	doc[n] = 0;
	static const char begin[] = "<!-- promise table: generated by durpromise_markdown -->\n",
	                  end[] = "<!-- end of promise table -->";
	char *p = strstr(doc, begin), *q = p ? strstr(p, end) : NULL;
	CHECK(p && q);
	if (p && q) {
		p += strlen(begin);
		*q = 0;
		if (strcmp(p, gen))
			fprintf(stderr,
			        "docs/durability.md's promise table is stale; it should be:\n%s",
			        gen);
		CHECK(strcmp(p, gen) == 0);
	}
	free(gen);
}

/* fdatasync (durpromise.def): the data and its length; under --model linux also a new file's
 * name (ext4, xfs and btrfs commit the new inode with its directory entry), under posix not. */
static void test_fdatasync_name(void)
{
	reset_all();
	j_create(0, 0);
	j_write(0, 1, 0, FSIZE);
	struct durlog_rec *r = rec(DL_FDATASYNC, 0);
	r->size = FSIZE, r->gen = 1;
	put(0, 1, 0, FSIZE);
	struct dm_report *rep = verify(DM_LINUX);
	CHECK_EQ_U(rep->acks[DL_FDATASYNC], 1);
	CHECK_EQ_U(rep->name_promises, 1);
	CHECK_EQ_U(rep->kept, 2);
	mem[0].len = FSIZE - 512;
	rep = verify(DM_LINUX);
	CHECK_EQ_U(rep->by_kind[DM_SHORT], 1);
	CHECK_EQ_U(rep->examples[DM_SHORT][0].ref.kind, DL_FDATASYNC);
	mem[0].exists = false;
	rep = verify(DM_LINUX);
	CHECK_EQ_U(rep->by_kind[DM_MISSING], 1);
	rep = verify(DM_POSIX);
	CHECK_EQ_U(rep->broken, 0);
	CHECK_EQ_U(rep->name_promises, 0);
}

int main(void)
{
	RUN(test_kept);
	RUN(test_prefetch);
	RUN(test_missing_short_zeroed_stale);
	RUN(test_torn_and_wrong);
	RUN(test_later_generation_and_cut_write);
	RUN(test_small_range);
	RUN(test_deleted_not_expected);
	RUN(test_names_linux_posix);
	RUN(test_sync_coverage);
	RUN(test_known_tail);
	RUN(test_osync_write);
	RUN(test_reused_base);
	RUN(test_unreadable);
	RUN(test_lost_tail);
	RUN(test_lost_tail_generations);
	RUN(test_dsync_own_extent);
	RUN(test_dsync_then_older_settled);
	RUN(test_resurrected);
	RUN(test_resurrected_lost_tail);
	RUN(test_resurrected_known_tail);
	RUN(test_resurrected_not_a_file);
	RUN(test_syncfs_length);
	RUN(test_hostile_ids);
	RUN(test_range_envelope);
	RUN(test_range_cut);
	RUN(test_range_punch);
	RUN(test_fdatasync_name);
	RUN(test_promise_table);
	RUN(test_fsync_started);
	return test_summary();
}
