/* test_durmodel_dirs.c - the durability model's directory rules (durmodel.h, "directories";
 * durpromise.def's mkdir and rmdir rows) on synthetic journals and a synthetic tree that holds
 * directories of meta/ and data/ and files: a mkdir covered by a later fsync of its parent,
 * syncfs or sync must be there (missing), one not covered may be lost; an rmdir covered must
 * stay gone (resurrected), one not covered may be undone; a covering call that started before
 * the mkdir completed covers nothing; a directory fsync of another parent covers nothing. A
 * file created in a directory createdir made: under linux its fsync promises the directory too
 * (both missing when both are lost), under posix a fsync of the new directory promises the
 * file only with the directory's own entry (no false alarm when both are lost). A lost log
 * tail makes a missing directory lost tail, not broken. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "durcheck.h"
#include "durmodel.h"
#include "durmodel_fixture.h"
#include "test.h"

#define TOP   UINT32_MAX /* TREE_DIR_TOP: data/ */
#define META  DURLOG_DIR_META
#define NSLOT 16

/* The synthetic tree: directories (parent, id) and empty files (dir, id); a directory's name
 * held by no directory (other: a regular file m<id> after a crash) is an entry of its own. */
struct entry {
	bool exists, is_dir;
	uint32_t parent, id;
	bool other;
};
static struct entry tree[NSLOT];

static struct entry *find(bool is_dir, uint32_t parent, uint32_t id)
{
	for (int i = 0; i < NSLOT; i++)
		if (tree[i].exists && tree[i].is_dir == is_dir && tree[i].parent == parent &&
		    tree[i].id == id)
			return &tree[i];
	return NULL;
}

static void put(bool is_dir, uint32_t parent, uint32_t id)
{
	for (int i = 0; i < NSLOT; i++)
		if (!tree[i].exists) {
			tree[i] = (struct entry){true, is_dir, parent, id, false};
			return;
		}
}

/* The name of directory id under parent held by a regular file. */
static void put_other(uint32_t parent, uint32_t id)
{
	put(true, parent, id);
	find(true, parent, id)->other = true;
}

static bool bad;         /* bad_dir's lookups fail (EBADMSG) */
static uint32_t bad_dir; /* (a data directory: TOP is UINT32_MAX) */

static int64_t mem_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs;
	if (bad && dir == bad_dir)
		return -EBADMSG;
	/* a file of a data directory is there only while its directory is */
	if (dir != TOP && !find(true, TOP, dir))
		return -ENOENT;
	return find(false, dir, file) ? 0 : -ENOENT;
}

static int64_t mem_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off,
                        void *buf, size_t len)
{
	(void)ctx, (void)fs, (void)dir, (void)file, (void)off, (void)buf, (void)len;
	return 0;
}

static int mem_dir(void *ctx, uint32_t fs, uint32_t parent, uint32_t id)
{
	(void)ctx, (void)fs;
	const struct entry *e = find(true, parent, id);
	return !e ? -ENOENT : e->other ? -EEXIST : 0; /* (verify.c's v_dir) */
}

static const struct dm_files files = {NULL, mem_size, mem_read, mem_dir, NULL, NULL};

/* A record of kind on file (a directory's id, or a file's) in directory dir. */
static struct durlog_rec *rec_in(enum durlog_kind kind, uint32_t file, uint32_t dir)
{
	struct durlog_rec *r = rec(kind, file);
	r->dir = dir;
	return r;
}

static void reset_all(void)
{
	memset(tree, 0, sizeof(tree));
	fx_reset();
	bad = false;
}

static struct dm_report *verify_as(enum dm_model model, bool complete)
{
	tail_lost = !complete;
	return fx_verify(&files, 5, 1, model);
}

static struct dm_report *verify(void)
{
	return verify_as(DM_LINUX, true);
}

/* mkdir of meta/m3: uncovered, it may be lost; covered by an fsync of meta/, a syncfs or a sync,
 * it must be there; an fsync of data/ covers nothing of meta/. */
static void test_mkdir(void)
{
	for (int model = 0; model < 2; model++) {
		reset_all();
		rec_in(DL_MKDIR, 3, META);
		CHECK_EQ_U(verify_as((enum dm_model)model, true)->dir_promises, 0);
		rec_in(DL_DIRSYNC, 0, TOP);
		struct dm_report *r = verify_as((enum dm_model)model, true);
		CHECK_EQ_U(r->dir_promises, 0);
		CHECK_EQ_U(r->broken, 0);
		enum durlog_kind cover[] = {DL_DIRSYNC, DL_SYNCFS, DL_SYNC};
		for (int c = 0; c < 3; c++) {
			nj = 1;
			rec_in(cover[c], 0, cover[c] == DL_DIRSYNC ? META : 0);
			r = verify_as((enum dm_model)model, true);
			CHECK_EQ_U(r->dir_promises, 1);
			CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
			CHECK(r->n_examples[DM_MISSING] == 1 && r->examples[DM_MISSING][0].is_dir &&
			      r->examples[DM_MISSING][0].file == 3 &&
			      r->examples[DM_MISSING][0].dir == META);
			CHECK_EQ_U(r->n_verdicts, 1);
			CHECK(r->verdicts[0].is_dir && r->verdicts[0].kind == DM_MISSING);
			put(true, META, 3);
			r = verify_as((enum dm_model)model, true);
			CHECK_EQ_U(r->broken, 0);
			CHECK_EQ_U(r->kept, 1);
			memset(tree, 0, sizeof(tree));
		}
	}
	/* a covering call that started before the mkdir completed covers nothing */
	reset_all();
	struct durlog_rec *mk = rec_in(DL_MKDIR, 3, META);
	struct durlog_rec *s = rec_in(DL_SYNCFS, 0, 0);
	s->t_start = mk->t_end - 1;
	CHECK_EQ_U(verify()->broken, 0);
	/* a lost log tail: an rmdir after its last record may explain a missing directory */
	reset_all();
	rec_in(DL_MKDIR, 3, META);
	rec_in(DL_SYNC, 0, 0);
	struct dm_report *r = verify_as(DM_LINUX, false);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1);
	/* ...but nothing removes a directory createdir made: broken all the same */
	reset_all();
	rec_in(DL_MKDIR, 4, TOP)->flags = DLF_TOP;
	rec_in(DL_SYNC, 0, 0);
	r = verify_as(DM_LINUX, false);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->lost_tail, 0);
}

/* rmdir of meta/m3 after its mkdir was made durable: uncovered, it may be undone; covered, the
 * directory must stay gone. */
static void test_rmdir(void)
{
	reset_all();
	rec_in(DL_MKDIR, 3, META);
	rec_in(DL_DIRSYNC, 0, META);
	rec_in(DL_RMDIR, 3, META);
	put(true, META, 3);
	CHECK_EQ_U(verify()->broken, 0); /* the rmdir lost: allowed */
	memset(tree, 0, sizeof(tree));
	CHECK_EQ_U(verify()->broken, 0);
	rec_in(DL_DIRSYNC, 0, TOP); /* another parent: nothing */
	put(true, META, 3);
	CHECK_EQ_U(verify()->broken, 0);
	rec_in(DL_DIRSYNC, 0, META);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->dir_promises, 1);
	memset(tree, 0, sizeof(tree));
	r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->kept, 1);
	/* made anew after the removal: the newest counts (no promise until covered again) */
	rec_in(DL_MKDIR, 3, META);
	CHECK_EQ_U(verify()->broken, 0);
}

/* A log whose tail is lost: a covered mkdir of meta/ missing is lost tail where the run removes
 * directories (an rmdir after the last record may explain it), broken where it does not
 * (DLH_NO_RMDIRS: nothing lost removes one). */
static void test_dir_lost_tail_flags(void)
{
	reset_all();
	rec_in(DL_MKDIR, 3, META);
	rec_in(DL_SYNCFS, 0, 0);
	struct dm_report *r = verify_as(DM_LINUX, false);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->lost_by_kind[DM_MISSING], 1);
	hflags = DLH_NO_RMDIRS;
	r = verify_as(DM_LINUX, false);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->lost_tail, 0);
}

/* A file whose name an fsync promised, renamed (not covered) into a directory createdir made
 * whose entry no call promised, the directory lost: the file lost with it broke nothing -- also
 * when a directory it left cannot be looked up (EBADMSG): that it may be there tells nothing,
 * the name is judged where it is now (verify said unreadable, judging the directory of the
 * failed lookup, where the second reader kept it, after a barrier=0 cut). */
static void test_renamed_into_lost_dir(void)
{
	reset_all();
	put(true, TOP, 1);
	rec_in(DL_CREATE, 0, 1)->gen = 1;
	rec_in(DL_FSYNC, 0, 1);
	rec_in(DL_MKDIR, 7, TOP);
	rec_in(DL_RENAME, 0, 7)->aux = 1;
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0); /* neither d7 nor f0 */
	bad = true, bad_dir = 1;
	r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 0);
	put(true, TOP, 7); /* d7 there: f0 was promised in d7 or d1, and d1 cannot be read */
	CHECK_EQ_U(verify()->by_kind[DM_UNREADABLE], 1);
}

/* A directory's name that comes back after a crash holding a regular file (a barrier=0 cut that
 * lost the rmdir and reused the inode): removed with its removal covered, the name is back --
 * resurrected, as a deleted file's name back as anything (docs/durability.md, "Deletes",
 * "Directories"), not "absent"; made with its mkdir covered, no directory is there: missing, not
 * unreadable. Uncovered, either may be so. */
static void test_dir_name_other(void)
{
	reset_all();
	rec_in(DL_MKDIR, 3, META);
	rec_in(DL_DIRSYNC, 0, META);
	rec_in(DL_RMDIR, 3, META);
	put_other(META, 3);
	CHECK_EQ_U(verify()->broken, 0); /* the rmdir not covered */
	rec_in(DL_SYNCFS, 0, 0);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->by_kind[DM_RESURRECTED], 1);
	CHECK_EQ_U(r->n_verdicts, 1);
	CHECK(r->verdicts[0].is_dir && r->verdicts[0].kind == DM_RESURRECTED);
	memset(tree, 0, sizeof(tree));
	CHECK_EQ_U(verify()->broken, 0);

	reset_all();
	rec_in(DL_MKDIR, 4, META);
	put_other(META, 4);
	CHECK_EQ_U(verify()->broken, 0); /* the mkdir not covered */
	rec_in(DL_SYNC, 0, 0);
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 1);
	CHECK_EQ_U(r->by_kind[DM_UNREADABLE], 0);
}

/* File 7 created in data/d005, a directory createdir made, and fsynced: under linux its fsync
 * promises the directory's entry too (the journal commits in order), so losing both breaks two
 * promises; under posix its fsync promises no name. A directory fsync of d005 promises file 7's
 * name under both, but under posix only with d005's own entry: both lost, no finding; d005
 * there and file 7 not, missing. */
static void test_file_in_new_dir(void)
{
	reset_all();
	rec_in(DL_MKDIR, 5, TOP)->flags = DLF_TOP;
	rec_in(DL_CREATE, 7, 5)->gen = 1;
	struct durlog_rec *f = rec_in(DL_FSYNC, 7, 5);
	f->gen = 1;
	struct dm_report *r = verify_as(DM_LINUX, true);
	CHECK_EQ_U(r->by_kind[DM_MISSING], 2); /* the file and its directory */
	CHECK_EQ_U(r->dir_promises, 1);
	CHECK_EQ_U(verify_as(DM_POSIX, true)->broken, 0);
	put(true, TOP, 5);
	put(false, 5, 7);
	CHECK_EQ_U(verify_as(DM_LINUX, true)->broken, 0);

	reset_all();
	rec_in(DL_MKDIR, 5, TOP)->flags = DLF_TOP;
	rec_in(DL_CREATE, 7, 5)->gen = 1;
	rec_in(DL_DIRSYNC, 0, 5);
	r = verify_as(DM_POSIX, true);
	CHECK_EQ_U(r->broken, 0); /* d005's entry never promised: lost with it */
	CHECK_EQ_U(verify_as(DM_LINUX, true)->by_kind[DM_MISSING], 2);
	put(true, TOP, 5);
	CHECK_EQ_U(verify_as(DM_POSIX, true)->by_kind[DM_MISSING], 1); /* the file alone */
	rec_in(DL_DIRSYNC, 0, TOP); /* d005's entry promised: now the file's name is, under posix */
	memset(tree, 0, sizeof(tree));
	CHECK_EQ_U(verify_as(DM_POSIX, true)->by_kind[DM_MISSING], 2);
}

/* File 7, its name durable in data/, renamed into data/d005, a directory createdir made, then
 * fsynced: the fsync does not promise the renamed name (docs/durability.md, "A name made anew"),
 * so not d005's entry either; both lost by a barrier=0 cut, the file still in data/: nothing
 * broken (verify said d005 missing, the second log reader not promised). A syncfs after the
 * rename promises both. */
static void test_renamed_into_new_dir(void)
{
	reset_all();
	rec_in(DL_CREATE, 7, TOP)->gen = 1;
	rec_in(DL_FSYNC, 7, TOP)->gen = 1;
	rec_in(DL_MKDIR, 5, TOP)->flags = DLF_TOP;
	rec_in(DL_RENAME, 7, 5)->aux = TOP;
	rec_in(DL_FSYNC, 7, 5)->gen = 1;
	put(false, TOP, 7);
	struct dm_report *r = verify();
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->dir_promises, 0);
	rec_in(DL_SYNCFS, 0, 0);
	r = verify();
	CHECK_EQ_U(r->by_kind[DM_MISSING], 2); /* the file, where the syncfs put it, and d005 */
}

int main(void)
{
	RUN(test_mkdir);
	RUN(test_rmdir);
	RUN(test_dir_name_other);
	RUN(test_dir_lost_tail_flags);
	RUN(test_renamed_into_lost_dir);
	RUN(test_file_in_new_dir);
	RUN(test_renamed_into_new_dir);
	return test_summary();
}
