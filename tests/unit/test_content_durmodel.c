/* test_content_durmodel.c - the durability model (durmodel.c) counts generations on the 32-bit
 * circle (content.h: gen_after, gen_add, gen_in): a reused file near the top of the counter,
 * rewritten across the wrap (0xfffffff0 .. 0xffffffff, then 1, 2, 3: 0 is skipped), fsynced,
 * keeps every promise, its unrewritten blocks of generations up to its base included; a block
 * lost across the wrap (an older generation where the fsync promised a later one) is stale;
 * with the log's tail lost, later generations across the wrap are accepted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "durmodel.h"
#include "test.h"

#define SEED  0x5eedull
#define FSIZE 16384

static bool exists;
static unsigned char data[FSIZE];

static int64_t mem_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	(void)ctx, (void)fs, (void)dir;
	return file == 0 && exists ? FSIZE : -ENOENT;
}

static int64_t mem_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off,
                        void *buf, size_t len)
{
	(void)ctx, (void)fs, (void)dir, (void)file;
	if (off >= FSIZE)
		return 0;
	if (len > FSIZE - off)
		len = (size_t)(FSIZE - off);
	memcpy(buf, data + off, len);
	return (int64_t)len;
}

static const struct dm_files files = {NULL, mem_size, mem_read, NULL, NULL, NULL};

static void put(uint32_t gen, uint64_t off, uint64_t len)
{
	struct content_key k = {.seed = SEED, .fs = 0, .file = 0};
	exists = true;
	content_fill(data + off, len, &k, gen, off);
}

static struct durlog_rec j[64];
static size_t nj;
static uint64_t clk;

static struct durlog_rec *rec(enum durlog_kind kind)
{
	struct durlog_rec *r = &j[nj];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->seq = nj++;
	r->t_start = ++clk;
	r->t_end = ++clk;
	return r;
}

/* A write of generation gen over [off, off + len) as the engine journals it. */
static void j_write(uint32_t gen, uint64_t off, uint64_t len)
{
	rec(DL_WSTART)->gen = gen;
	struct durlog_rec *r = rec(DL_WRITE);
	r->gen = gen, r->off = off, r->len = len, r->size = FSIZE;
}

static struct dm_report *verify(bool complete)
{
	static struct dm_report rep;
	struct durlog_header h = {.version = DURLOG_VERSION, .n_fs = 1, .n_workers = 1};
	h.fs[0] = (struct durlog_fs_id){0, 1, SEED, 2, 0, 0};
	struct durlog_rec copy[64];
	memcpy(copy, j, nj * sizeof(j[0])); /* durmodel_build sorts them in place */
	struct durmodel *m = durmodel_build(&h, copy, nj, complete, DM_LINUX);
	CHECK(m != NULL);
	char err[256];
	CHECK_EQ_I(durmodel_check(m, &files, &rep, err, sizeof(err)), 0);
	durmodel_free(m);
	return &rep;
}

static void test_across_the_wrap(void)
{
	nj = 0;
	clk = 100;
	/* the tree's file: base generation 0xfffffff0, its blocks of 1 and a few below it */
	struct durlog_rec *b = rec(DL_BASE);
	b->size = FSIZE, b->gen = 0xfffffff0u;
	put(1, 0, FSIZE);
	put(0xffffff00u, 4096, 1000);
	put(0xfffffff0u, 8192, 700);
	/* the run: 18 writes, 0xfffffff1 .. 0xffffffff, 1, 2, 3, then an fsync */
	uint32_t g = 0xfffffff0u;
	for (int n = 0; n < 18; n++) {
		g = gen_next(g);
		uint64_t off = 512 + (uint64_t)n * 616;
		j_write(g, off, 300);
		put(g, off, 300);
	}
	CHECK_EQ_U(g, 3);
	struct durlog_rec *s = rec(DL_FSYNC);
	s->size = FSIZE, s->gen = g;
	struct dm_report *r = verify(true);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->kept, 2);
	/* the last write lost: the bytes of the generation before the wrap it overwrote */
	uint64_t last = 512 + 17 * 616;
	unsigned char keep[300];
	memcpy(keep, data + last, 300);
	put(0xffffffffu, last, 300);
	r = verify(true);
	CHECK_EQ_U(r->broken, 1);
	CHECK_EQ_U(r->by_kind[DM_STALE], 1);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_found, 0xffffffffu);
	CHECK_EQ_U(r->examples[DM_STALE][0].gen_min, 3);
	memcpy(data + last, keep, 300);
	/* the log's tail lost: a later write of generation 60 (over the one of 0xfffffff6),
	 * which it does not know */
	put(60, 512 + 5 * 616 + 100, 100);
	r = verify(false);
	CHECK_EQ_U(r->broken, 0);
	CHECK_EQ_U(r->by_kind[DM_WRONG], 0);
	/* ... but with the log complete they were never written */
	r = verify(true);
	CHECK_EQ_U(r->broken, 1);
}

int main(void)
{
	RUN(test_across_the_wrap);
	return test_summary();
}
