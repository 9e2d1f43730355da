/* durmodel_fixture.h - the synthetic journal the durability model's unit tests build
 * (test_durmodel*.c), and its replay and check against a test's synthetic files (its own
 * struct dm_files: each test models the tree it needs).
 *
 * Records go into j in the order written, one worker, each started and ended 1 ns after the one
 * before it (rec): a test that needs calls to overlap moves a record's t_start or t_end. */
#ifndef FSMIX_TEST_DURMODEL_FIXTURE_H
#define FSMIX_TEST_DURMODEL_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "durmodel.h"
#include "test.h"

#define FX_RECS 256

static struct durlog_rec j[FX_RECS];
static size_t nj;
static uint64_t clk;             /* the last time given, ns */
static bool tail_lost;           /* the log has no end record */
static uint32_t hflags;          /* the header's flags (DLH_*) */
static struct durlog_rec *ktail; /* a known tail (durmodel_known_tail); NULL: none */
static size_t n_ktail;

/* A new record of kind on file, its times after the last record's. */
static inline struct durlog_rec *rec(enum durlog_kind kind, uint32_t file)
{
	if (nj == FX_RECS) { /* a test's own mistake: stop before writing past j */
		TEST_FAIL("the journal holds %d records", FX_RECS);
		exit(1);
	}
	struct durlog_rec *r = &j[nj];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->file = file;
	r->seq = nj++;
	r->t_start = ++clk;
	r->t_end = ++clk;
	return r;
}

/* An empty journal, complete, of a run that may have done anything (no DLH_NO_* flag). */
static inline void fx_reset(void)
{
	nj = 0;
	clk = 100;
	tail_lost = false;
	hflags = 0;
	ktail = NULL;
	n_ktail = 0;
}

/* j replayed under model, filesystem 0's content of seed and mode, and checked against files:
 * the report (valid until the next call). Every promise checked is counted once. */
static inline struct dm_report *fx_verify(const struct dm_files *files, uint64_t seed, uint8_t mode,
                                          enum dm_model model)
{
	static struct dm_report rep;
	struct durlog_header h = {
	    .version = DURLOG_VERSION, .flags = hflags, .n_fs = 1, .n_workers = 1};
	h.fs[0] = (struct durlog_fs_id){
	    .index = 0, .tree_id = 1, .content_seed = seed, .spec_hash = 2, .content_mode = mode};
	struct durmodel *m = durmodel_build(&h, j, nj, !tail_lost, model);
	CHECK(m != NULL);
	if (!m)
		return &rep;
	if (ktail)
		durmodel_known_tail(m, ktail, n_ktail);
	char err[256];
	CHECK_EQ_I(durmodel_check(m, files, &rep, err, sizeof(err)), 0);
	durmodel_free(m);
	CHECK_EQ_U(rep.checked, rep.kept + rep.broken + rep.lost_tail);
	return &rep;
}

#endif
