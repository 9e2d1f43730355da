/* test_powercut_record.c - fsmix-powercut's record (src/powercut/record.c) and its crash states
 * (src/powercut/state.c) against a model in memory: a record of random writes (unaligned,
 * partial sectors, more than two 4 MiB buffers in all, through the writer thread) and flushes
 * reads back entry for entry; state K with none, all and a prefix equals the base with the
 * model's writes applied; a torn write has new and old sectors, the same for the same seed;
 * a random subset is the same for the same seed; the served state's own writes never reach
 * the base; every truncation and a flipped byte anywhere are refused. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "record.h"
#include "state.h"
#include "test.h"

#define DISK (256u * 1024u)

struct w {
	uint64_t off;
	uint32_t len;
	uint32_t seed; /* the data is bytes of this seed */
	bool flush;    /* a flush, not a write */
};

static uint64_t rng = 42;
static uint64_t next(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return rng >> 17;
}

static void fill(unsigned char *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 9));
}

static char path[] = "/tmp/test_powercut_record.XXXXXX";
static unsigned char base[DISK], model[DISK], got[DISK], data[1 << 16];
static struct w ws[600];
static size_t nws;

/* A record of ws (made here: random writes, a flush every ~40) at path, through the thread. */
static void make_record(void)
{
	struct pc_rec r;
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ_I(pc_rec_open(&r, fd, DISK, 0, 1), 0);
	pc_rec_start(&r);
	for (nws = 0; nws < 600; nws++) {
		struct w *w = &ws[nws];
		w->flush = next() % 40 == 0;
		w->len = (uint32_t)(1 + next() % sizeof(data));
		w->off = next() % (DISK - w->len + 1);
		w->seed = (uint32_t)nws;
		if (w->flush) {
			CHECK_EQ_I(pc_rec_flush(&r, 10 + nws), 0);
			continue;
		}
		fill(data, w->len, w->seed);
		CHECK_EQ_I(pc_rec_write(&r, w->off, data, w->len, 10 + nws), 0);
	}
	CHECK_EQ_I(pc_rec_close(&r, 1000), 0);
	close(fd);
}

/* snap[K] = base + every write of ws before flush K (ws index fl[K - 1]; snap[0] = base): made
 * once, each write applied once, so that a model below costs a copy and the writes after
 * flush K only (filling every write again for each state was most of this test's time, 80 s
 * under TSan). */
#define MAX_FLUSHES 64 /* the flushes of the record this test checks, at most */
static unsigned char snap[MAX_FLUSHES + 1][DISK];

/* put write i of ws onto img */
static void apply_write(unsigned char *img, size_t i)
{
	fill(data, ws[i].len, ws[i].seed);
	memcpy(img + ws[i].off, data, ws[i].len);
}

/* snap[0..nflush] from fl, the ws index of each flush */
static void make_snaps(const size_t *fl, size_t nflush)
{
	memcpy(snap[0], base, DISK);
	size_t i = 0;
	for (size_t K = 1; K <= nflush; K++) {
		memcpy(snap[K], snap[K - 1], DISK);
		for (; i < fl[K - 1]; i++)
			if (!ws[i].flush)
				apply_write(snap[K], i);
	}
}

/* model = snap[K] (the writes before flush K, whose ws index is end) + the first keep_first
 * writes of [end, to) */
static void apply_model(size_t K, size_t end, size_t to, size_t keep_first)
{
	memcpy(model, snap[K], DISK);
	size_t j = 0;
	for (size_t i = end; i < to; i++) {
		if (ws[i].flush || j++ >= keep_first)
			continue;
		apply_write(model, i);
	}
}

static void test_states_against_model(void)
{
	struct pc_record rec;
	char why[256];
	for (size_t i = 0; i < DISK; i++)
		base[i] = (unsigned char)(i * 13 + 5);
	make_record();
	CHECK_EQ_I(pc_record_load(&rec, path, why, sizeof(why)), 0);
	size_t nflush = 0, nw = 0;
	for (size_t i = 0; i < nws; i++)
		ws[i].flush ? nflush++ : nw++;
	CHECK_EQ_U(rec.nflush, nflush);
	CHECK_EQ_U(rec.writes, nw);
	CHECK(rec.size > 2 * (4u << 20)); /* both buffers went round */
	/* ws index of each flush */
	size_t fl[MAX_FLUSHES], k = 0;
	for (size_t i = 0; i < nws && k < MAX_FLUSHES; i++)
		if (ws[i].flush)
			fl[k++] = i;
	if (rec.nflush > MAX_FLUSHES) { /* fl and snap would overflow */
		TEST_FAIL("%zu flushes, more than the %d this test models", rec.nflush,
		          MAX_FLUSHES);
		return;
	}
	make_snaps(fl, rec.nflush);
	for (size_t K = 0; K <= rec.nflush; K++) {
		size_t end = K ? fl[K - 1] : 0, to = K < rec.nflush ? fl[K] : nws;
		size_t nvol = 0;
		for (size_t i = end; i < to; i++)
			nvol += !ws[i].flush;
		struct {
			const char *subset;
			size_t keep;
		} cases[] = {{"none", 0}, {"all", SIZE_MAX}, {"prefix:2", 2}};
		for (size_t c = 0; c < 3; c++) {
			struct pc_spec sp = {.k = K};
			struct pc_state st;
			CHECK(pc_spec_parse(cases[c].subset, &sp));
			if (cases[c].keep == 2 && nvol < 2)
				continue;
			if (pc_state_build(&st, &rec, base, &sp, why, sizeof(why))) {
				TEST_FAIL("state %zu %s: %s", K, cases[c].subset, why);
				continue;
			}
			apply_model(K, end, to, cases[c].keep);
			pc_state_read(&st, 0, got, DISK);
			if (memcmp(got, model, DISK))
				TEST_FAIL("state %zu %s differs from the model", K,
				          cases[c].subset);
			else
				test_passed_checks++;
			pc_state_free(&st);
		}
	}
	/* --lose 2 (a disk that reorders across flushes): the writes the two flushes before
	 * state K acknowledged are lost, every write after flush K kept (subset all) */
	for (size_t K = 0; K <= rec.nflush; K++) {
		struct pc_spec sp = {.k = K, .subset = PC_SUB_ALL, .lose = 2};
		struct pc_state st;
		if (K < 2) {
			CHECK(pc_state_build(&st, &rec, base, &sp, why, sizeof(why)) != 0);
			continue;
		}
		size_t hi = fl[K - 1], to = K < rec.nflush ? fl[K] : nws;
		CHECK_EQ_I(pc_state_build(&st, &rec, base, &sp, why, sizeof(why)), 0);
		/* the writes before flush K - 2 are snap[K - 2]; those up to flush K are lost */
		memcpy(model, snap[K - 2], DISK);
		for (size_t i = hi; i < to; i++)
			if (!ws[i].flush)
				apply_write(model, i);
		pc_state_read(&st, 0, got, DISK);
		if (memcmp(got, model, DISK))
			TEST_FAIL("state %zu all lose 2 differs from the model", K);
		else
			test_passed_checks++;
		pc_state_free(&st);
	}
	pc_record_free(&rec);
}

static void test_torn_and_random_repeat(void)
{
	struct pc_record rec;
	struct pc_state a, b;
	char why[256];
	CHECK_EQ_I(pc_record_load(&rec, path, why, sizeof(why)), 0);
	/* a flush point with a multi-sector last volatile write */
	struct pc_spec sp = {.k = 1, .subset = PC_SUB_ALL, .torn = true, .torn_seed = 5};
	CHECK_EQ_I(pc_state_build(&a, &rec, base, &sp, why, sizeof(why)), 0);
	CHECK_EQ_I(pc_state_build(&b, &rec, base, &sp, why, sizeof(why)), 0);
	pc_state_read(&a, 0, got, DISK);
	pc_state_read(&b, 0, model, DISK);
	CHECK(!memcmp(got, model, DISK));
	CHECK(a.torn_new + a.torn_old >= 2 ? a.torn_new > 0 && a.torn_old > 0 : true);
	CHECK_EQ_U(a.torn_new, b.torn_new);
	pc_state_free(&a);
	pc_state_free(&b);
	sp = (struct pc_spec){.k = 2};
	CHECK(pc_spec_parse("random:77", &sp));
	CHECK_EQ_I(pc_state_build(&a, &rec, base, &sp, why, sizeof(why)), 0);
	CHECK_EQ_I(pc_state_build(&b, &rec, base, &sp, why, sizeof(why)), 0);
	CHECK_EQ_U(a.volatile_applied, b.volatile_applied);
	CHECK(a.volatile_applied <= a.volatile_total);
	pc_state_read(&a, 0, got, DISK);
	pc_state_read(&b, 0, model, DISK);
	CHECK(!memcmp(got, model, DISK));
	/* the state's own writes: read back, the base untouched */
	unsigned char before[4096], mine[1000], back[1000];
	memcpy(before, base + 1000, sizeof(before));
	memset(mine, 0xab, sizeof(mine));
	CHECK_EQ_I(pc_state_write(&a, 1100, mine, sizeof(mine)), 0);
	pc_state_read(&a, 1100, back, sizeof(back));
	CHECK(!memcmp(back, mine, sizeof(mine)));
	CHECK(!memcmp(before, base + 1000, sizeof(before)));
	pc_state_free(&a);
	pc_state_free(&b);
	CHECK(!pc_spec_parse("prefix:", &sp) && !pc_spec_parse("random:x", &sp) &&
	      !pc_spec_parse("some", &sp));
	pc_record_free(&rec);
}

static void test_damage_refused(void)
{
	struct pc_record rec;
	char why[256], dam[sizeof(path) + 4];
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	unsigned char *all = malloc((size_t)size);
	rewind(f);
	CHECK(fread(all, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	snprintf(dam, sizeof(dam), "%s.d", path);
	int refused = 0, tried = 0;
	long cuts[] = {0, 10, 63, 64, 65, 96, size / 2, size - 33, size - 1};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++, tried++) {
		f = fopen(dam, "wb");
		fwrite(all, 1, (size_t)cuts[i], f);
		fclose(f);
		refused += pc_record_load(&rec, dam, why, sizeof(why)) != 0;
	}
	for (long at = 0; at < size; at += size / 97 + 1, tried++) {
		all[at] ^= 0x10;
		f = fopen(dam, "wb");
		fwrite(all, 1, (size_t)size, f);
		fclose(f);
		all[at] ^= 0x10;
		refused += pc_record_load(&rec, dam, why, sizeof(why)) != 0;
	}
	CHECK_EQ_I(refused, tried);
	CHECK_CONTAINS(why, "corrupt");
	unlink(dam);
	free(all);
}

int main(void)
{
	RUN(test_states_against_model);
	RUN(test_torn_and_random_repeat);
	RUN(test_damage_refused);
	unlink(path);
	return test_summary();
}
