/* test_powercut_cache.c - fsmix-powercut's volatile write cache (src/powercut/cache.c) against a
 * store in memory: writes stay volatile until a flush, the destage delay or a full cache; a
 * flush makes every earlier write durable, an ignored flush nothing; a partial block keeps its
 * durable rest; the cut drops the cache or persists a random share of it, and the disk is dead
 * after it; background destaging goes in random order; and a long random sequence of writes,
 * reads, flushes and destages against a model (reads always see the last write; after a flush
 * the store equals the model), which also checks the hash table's deletions. */
#include <errno.h>

#include "cache.h"
#include "test.h"

#define NBLK 256

struct mem {
	uint8_t b[NBLK][PC_BLOCK];
	uint64_t order[4 * NBLK]; /* the blocks in the order they were written */
	size_t n_order;
	bool fail;
};

static int mem_read(void *ctx, uint64_t blk, void *buf)
{
	struct mem *m = ctx;
	if (blk >= NBLK)
		return -EIO;
	memcpy(buf, m->b[blk], PC_BLOCK);
	return 0;
}

static int mem_write(void *ctx, uint64_t blk, const void *buf)
{
	struct mem *m = ctx;
	if (blk >= NBLK || m->fail)
		return -EIO;
	memcpy(m->b[blk], buf, PC_BLOCK);
	if (m->n_order < 4 * NBLK)
		m->order[m->n_order++] = blk;
	return 0;
}

static struct mem mem;
static const struct pc_store store = {&mem, mem_read, mem_write};

static void fill(uint8_t *buf, size_t n, uint8_t v)
{
	memset(buf, v, n);
}

static bool block_is(uint64_t blk, uint8_t v)
{
	for (size_t i = 0; i < PC_BLOCK; i++)
		if (mem.b[blk][i] != v)
			return false;
	return true;
}

static void test_volatile_until_flush(void)
{
	struct pc_cache c;
	uint8_t buf[2 * PC_BLOCK], back[2 * PC_BLOCK];
	memset(&mem, 0, sizeof(mem));
	CHECK_EQ_I(pc_cache_init(&c, 16, 1), 0);
	fill(buf, sizeof(buf), 0xab);
	CHECK_EQ_I(pc_cache_write(&c, &store, 3 * PC_BLOCK, buf, sizeof(buf), 100), 0);
	CHECK(block_is(3, 0) && block_is(4, 0)); /* not durable yet */
	CHECK_EQ_I(pc_cache_read(&c, &store, 3 * PC_BLOCK, back, sizeof(back)), 0);
	CHECK(!memcmp(back, buf, sizeof(buf))); /* but read back from the cache */
	CHECK_EQ_U(c.st.cached_bytes, 2 * PC_BLOCK);
	CHECK_EQ_I(pc_cache_flush(&c, &store, true), 0); /* --ignore-flush */
	CHECK(block_is(3, 0) && c.st.flushes_ignored == 1 && c.n == 2);
	CHECK_EQ_I(pc_cache_flush(&c, &store, false), 0);
	CHECK(block_is(3, 0xab) && block_is(4, 0xab));
	CHECK_EQ_U(c.n, 0);
	CHECK_EQ_U(c.st.flushed_bytes, 2 * PC_BLOCK);
	CHECK_EQ_U(c.st.flushes, 2);
	pc_cache_free(&c);
}

/* --reorder-across-flush: each flush persists only what came before the flush before it; the
 * cut keeps the writes since the last flush and loses what that flush acknowledged. */
static void test_reorder_across_flush(void)
{
	struct pc_cache c;
	uint8_t buf[PC_BLOCK];
	memset(&mem, 0, sizeof(mem));
	CHECK_EQ_I(pc_cache_init(&c, 16, 1), 0);
	c.reorder = 1; /* one flush late */
	fill(buf, sizeof(buf), 0xa1);
	CHECK_EQ_I(pc_cache_write(&c, &store, 1 * PC_BLOCK, buf, sizeof(buf), 1), 0);
	CHECK_EQ_I(pc_cache_flush(&c, &store, false), 0);
	CHECK(block_is(1, 0) && c.n == 1); /* acknowledged, still cached */
	fill(buf, sizeof(buf), 0xb2);
	CHECK_EQ_I(pc_cache_write(&c, &store, 2 * PC_BLOCK, buf, sizeof(buf), 2), 0);
	CHECK_EQ_I(pc_cache_flush(&c, &store, false), 0);
	CHECK(block_is(1, 0xa1) && block_is(2, 0) && c.n == 1); /* one flush late */
	fill(buf, sizeof(buf), 0xc3);
	CHECK_EQ_I(pc_cache_write(&c, &store, 3 * PC_BLOCK, buf, sizeof(buf), 3), 0);
	CHECK_EQ_I(pc_cache_cut(&c, &store, 0), 0);
	CHECK(block_is(3, 0xc3)); /* issued after the last flush: persisted */
	CHECK(block_is(2, 0));    /* acknowledged by it: lost */
	CHECK_EQ_U(c.st.cut_persisted_bytes, PC_BLOCK);
	CHECK_EQ_U(c.st.dropped_bytes, PC_BLOCK);
	CHECK_EQ_U(c.n, 0);
	pc_cache_free(&c);
}

static void test_partial_block_keeps_durable_rest(void)
{
	struct pc_cache c;
	uint8_t buf[100], back[PC_BLOCK];
	memset(&mem, 0, sizeof(mem));
	memset(mem.b[7], 0x11, PC_BLOCK);
	CHECK_EQ_I(pc_cache_init(&c, 4, 2), 0);
	fill(buf, sizeof(buf), 0x22);
	CHECK_EQ_I(pc_cache_write(&c, &store, 7 * PC_BLOCK + 1000, buf, sizeof(buf), 0), 0);
	CHECK_EQ_I(pc_cache_read(&c, &store, 7 * PC_BLOCK, back, PC_BLOCK), 0);
	CHECK(back[999] == 0x11 && back[1000] == 0x22 && back[1099] == 0x22 && back[1100] == 0x11);
	CHECK_EQ_I(pc_cache_flush(&c, &store, false), 0);
	CHECK(mem.b[7][0] == 0x11 && mem.b[7][1050] == 0x22 && mem.b[7][4095] == 0x11);
	pc_cache_free(&c);
}

static void test_cut_drops_or_persists(void)
{
	struct pc_cache c;
	uint8_t buf[PC_BLOCK];
	memset(&mem, 0, sizeof(mem));
	CHECK_EQ_I(pc_cache_init(&c, 200, 3), 0);
	fill(buf, sizeof(buf), 0x33);
	for (uint64_t b = 0; b < 200; b++)
		CHECK_EQ_I(pc_cache_write(&c, &store, b * PC_BLOCK, buf, PC_BLOCK, 0), 0);
	CHECK_EQ_I(pc_cache_cut(&c, &store, 0), 0);
	size_t durable = 0;
	for (uint64_t b = 0; b < 200; b++)
		durable += block_is(b, 0x33);
	CHECK_EQ_U(durable, 0);
	CHECK_EQ_U(c.st.dropped_bytes, 200 * PC_BLOCK);
	CHECK_EQ_U(c.st.cached_bytes, 0);
	/* dead: every request fails */
	CHECK_EQ_I(pc_cache_write(&c, &store, 0, buf, PC_BLOCK, 0), -EIO);
	CHECK_EQ_I(pc_cache_read(&c, &store, 0, buf, PC_BLOCK), -EIO);
	CHECK_EQ_I(pc_cache_flush(&c, &store, false), -EIO);
	pc_cache_free(&c);

	/* persist 50 %: some of the 200, not all, not none; 100 %: all */
	for (unsigned pct = 50; pct <= 100; pct += 50) {
		memset(&mem, 0, sizeof(mem));
		CHECK_EQ_I(pc_cache_init(&c, 200, 4), 0);
		for (uint64_t b = 0; b < 200; b++)
			CHECK_EQ_I(pc_cache_write(&c, &store, b * PC_BLOCK, buf, PC_BLOCK, 0), 0);
		CHECK_EQ_I(pc_cache_cut(&c, &store, pct), 0);
		durable = 0;
		for (uint64_t b = 0; b < 200; b++)
			durable += block_is(b, 0x33);
		if (pct == 50)
			CHECK(durable > 50 && durable < 150);
		else
			CHECK_EQ_U(durable, 200);
		CHECK_EQ_U(c.st.cut_persisted_bytes, durable * PC_BLOCK);
		CHECK_EQ_U(c.st.dropped_bytes, (200 - durable) * PC_BLOCK);
		/* random order: not ascending */
		bool ascending = true;
		for (size_t i = 1; i < mem.n_order; i++)
			ascending = ascending && mem.order[i] > mem.order[i - 1];
		CHECK(!ascending);
		pc_cache_free(&c);
	}
}

static void test_destage_after_delay_in_random_order(void)
{
	struct pc_cache c;
	uint8_t buf[PC_BLOCK];
	size_t done;
	memset(&mem, 0, sizeof(mem));
	CHECK_EQ_I(pc_cache_init(&c, 128, 5), 0);
	fill(buf, sizeof(buf), 0x44);
	for (uint64_t b = 0; b < 100; b++) /* written at t = 1000 */
		CHECK_EQ_I(pc_cache_write(&c, &store, b * PC_BLOCK, buf, PC_BLOCK, 1000), 0);
	for (uint64_t b = 100; b < 110; b++) /* written at t = 5000 */
		CHECK_EQ_I(pc_cache_write(&c, &store, b * PC_BLOCK, buf, PC_BLOCK, 5000), 0);
	CHECK_EQ_I(pc_cache_destage(&c, &store, 1500, 1000, 1000, &done), 0);
	CHECK_EQ_U(done, 0); /* nothing is old enough */
	CHECK_EQ_I(pc_cache_destage(&c, &store, 2000, 1000, 30, &done), 0);
	CHECK_EQ_U(done, 30); /* at most max */
	CHECK_EQ_I(pc_cache_destage(&c, &store, 2000, 1000, 1000, &done), 0);
	CHECK_EQ_U(done, 70);
	CHECK_EQ_U(c.n, 10);
	for (uint64_t b = 100; b < 110; b++)
		CHECK(pc_cache_has(&c, b) && block_is(b, 0));
	for (uint64_t b = 0; b < 100; b++)
		CHECK(!pc_cache_has(&c, b) && block_is(b, 0x44));
	CHECK_EQ_U(c.st.destaged_bytes, 100 * PC_BLOCK);
	bool ascending = true;
	for (size_t i = 1; i < mem.n_order; i++)
		ascending = ascending && mem.order[i] > mem.order[i - 1];
	CHECK(!ascending);
	pc_cache_free(&c);
}

static void test_full_cache_evicts(void)
{
	struct pc_cache c;
	uint8_t buf[PC_BLOCK];
	memset(&mem, 0, sizeof(mem));
	CHECK_EQ_I(pc_cache_init(&c, 8, 6), 0);
	for (uint64_t b = 0; b < 40; b++) {
		fill(buf, sizeof(buf), (uint8_t)(b + 1));
		CHECK_EQ_I(pc_cache_write(&c, &store, b * PC_BLOCK, buf, PC_BLOCK, 0), 0);
		CHECK(c.n <= 8);
	}
	CHECK_EQ_U(c.st.evicted_bytes, 32 * PC_BLOCK);
	CHECK_EQ_U(c.st.max_cached, 8 * PC_BLOCK);
	for (uint64_t b = 0; b < 40; b++) {
		CHECK_EQ_I(pc_cache_read(&c, &store, b * PC_BLOCK, buf, PC_BLOCK), 0);
		CHECK(buf[0] == (uint8_t)(b + 1) && buf[4095] == (uint8_t)(b + 1));
	}
	mem.fail = true; /* a store that fails: the error comes back, nothing is lost */
	fill(buf, sizeof(buf), 0x99);
	CHECK_EQ_I(pc_cache_write(&c, &store, 41 * PC_BLOCK, buf, PC_BLOCK, 0), -EIO);
	CHECK_EQ_U(c.n, 8);
	mem.fail = false;
	pc_cache_free(&c);
}

/* A model of what the disk holds (what a read returns), checked after every step. */
static void test_random_against_model(void)
{
	static uint8_t model[NBLK][PC_BLOCK];
	struct pc_cache c;
	uint8_t buf[3 * PC_BLOCK];
	uint64_t x = 12345;
	memset(&mem, 0, sizeof(mem));
	memset(model, 0, sizeof(model));
	CHECK_EQ_I(pc_cache_init(&c, 37, 7), 0);
	int bad_reads = 0, bad_store = 0;
	for (int step = 0; step < 20000; step++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned kind = (unsigned)(x >> 60), r = (unsigned)(x >> 20);
		uint64_t off = (uint64_t)(r % ((NBLK - 3) * PC_BLOCK));
		size_t len = 1 + (x >> 8) % (2 * PC_BLOCK);
		size_t done;
		if (kind < 9) {
			fill(buf, len, (uint8_t)step);
			CHECK_EQ_I(pc_cache_write(&c, &store, off, buf, len, (uint64_t)step), 0);
			memset((uint8_t *)model + off, (uint8_t)step, len);
		} else if (kind < 13) {
			CHECK_EQ_I(pc_cache_read(&c, &store, off, buf, len), 0);
			bad_reads += memcmp(buf, (uint8_t *)model + off, len) != 0;
		} else if (kind < 15) {
			CHECK_EQ_I(pc_cache_destage(&c, &store, (uint64_t)step, 50, 5, &done), 0);
		} else {
			CHECK_EQ_I(pc_cache_flush(&c, &store, false), 0);
			bad_store += memcmp(mem.b, model, sizeof(model)) != 0;
		}
		if (c.n > 37)
			TEST_FAIL("cache over its size: %zu", c.n);
	}
	CHECK_EQ_I(bad_reads, 0);
	CHECK_EQ_I(bad_store, 0);
	CHECK_EQ_U(c.st.cached_bytes, c.n * PC_BLOCK);
	pc_cache_free(&c);
}

int main(void)
{
	RUN(test_volatile_until_flush);
	RUN(test_reorder_across_flush);
	RUN(test_partial_block_keeps_durable_rest);
	RUN(test_cut_drops_or_persists);
	RUN(test_destage_after_delay_in_random_order);
	RUN(test_full_cache_evicts);
	RUN(test_random_against_model);
	return test_summary();
}
