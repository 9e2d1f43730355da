/* cache.c - fsmix-powercut's volatile write cache (cache.h). */
#include "cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t pc_rand(struct pc_cache *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t pc_below(struct pc_cache *c, size_t n)
{
	return (size_t)(pc_rand(c) % n);
}

static size_t pc_home(const struct pc_cache *c, uint64_t blk)
{
	uint64_t h = blk * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (c->nslots - 1);
}

int pc_cache_init(struct pc_cache *c, size_t max_blocks, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	if (max_blocks < 1 || max_blocks > (1u << 30))
		return -EINVAL;
	c->max_blocks = max_blocks;
	c->nslots = 4;
	while (c->nslots < 2 * max_blocks)
		c->nslots *= 2;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	c->dense = calloc(max_blocks, sizeof(*c->dense));
	c->pick = calloc(max_blocks, sizeof(*c->pick));
	c->data = malloc(max_blocks * PC_BLOCK);
	c->rng = seed;
	if (!c->slots || !c->dense || !c->pick || !c->data) {
		pc_cache_free(c);
		return -ENOMEM;
	}
	return 0;
}

void pc_cache_free(struct pc_cache *c)
{
	free(c->slots);
	free(c->dense);
	free(c->pick);
	free(c->data);
	c->slots = NULL;
	c->dense = NULL;
	c->pick = NULL;
	c->data = NULL;
	c->n = 0;
}

/* The slot of blk, or SIZE_MAX. */
static size_t pc_find(const struct pc_cache *c, uint64_t blk)
{
	for (size_t i = pc_home(c, blk);; i = (i + 1) & (c->nslots - 1)) {
		if (!c->slots[i].used)
			return SIZE_MAX;
		if (c->slots[i].blk == blk)
			return i;
	}
}

bool pc_cache_has(const struct pc_cache *c, uint64_t blk)
{
	return pc_find(c, blk) != SIZE_MAX;
}

static uint8_t *pc_data(const struct pc_cache *c, size_t slot)
{
	return c->data + (size_t)c->slots[slot].dense * PC_BLOCK;
}

/* Removes the entry in slot: its dense place taken by the last one (data moved), the probe
 * chain closed by shifting later entries back. */
static void pc_remove(struct pc_cache *c, size_t slot)
{
	uint32_t d = c->slots[slot].dense;
	size_t last = c->n - 1;
	if (d != last) {
		uint32_t moved = c->dense[last];
		memcpy(c->data + (size_t)d * PC_BLOCK, c->data + last * PC_BLOCK, PC_BLOCK);
		c->dense[d] = moved;
		c->slots[moved].dense = d;
	}
	c->n--;
	c->st.cached_bytes -= PC_BLOCK;
	size_t hole = slot, mask = c->nslots - 1;
	c->slots[hole].used = false;
	for (size_t i = (hole + 1) & mask; c->slots[i].used; i = (i + 1) & mask) {
		size_t home = pc_home(c, c->slots[i].blk);
		/* i's entry may move to the hole when the hole lies on its probe path */
		bool movable = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
		if (!movable)
			continue;
		c->slots[hole] = c->slots[i];
		c->dense[c->slots[hole].dense] = (uint32_t)hole;
		c->slots[i].used = false;
		hole = i;
	}
}

/* Writes the block in slot to s and removes it; *bytes += PC_BLOCK. */
static int pc_writeback(struct pc_cache *c, const struct pc_store *s, size_t slot, uint64_t *bytes)
{
	int rc = s->write(s->ctx, c->slots[slot].blk, pc_data(c, slot));
	if (rc)
		return rc;
	*bytes += PC_BLOCK;
	pc_remove(c, slot);
	return 0;
}

/* A slot for blk (new: filled from the store, aged from now), making room when full. */
static int pc_insert(struct pc_cache *c, const struct pc_store *s, uint64_t blk, uint64_t now,
                     bool whole, size_t *out)
{
	if (c->n == c->max_blocks) { /* full: a random block is written back */
		int rc = pc_writeback(c, s, c->dense[pc_below(c, c->n)], &c->st.evicted_bytes);
		if (rc)
			return rc;
	}
	size_t i = pc_home(c, blk);
	while (c->slots[i].used)
		i = (i + 1) & (c->nslots - 1);
	c->slots[i] =
	    (struct pc_entry){.blk = blk, .since_ns = now, .dense = (uint32_t)c->n, .used = true};
	c->dense[c->n++] = (uint32_t)i;
	c->st.cached_bytes += PC_BLOCK;
	if (c->st.cached_bytes > c->st.max_cached)
		c->st.max_cached = c->st.cached_bytes;
	if (!whole) {
		int rc = s->read(s->ctx, blk, pc_data(c, i));
		if (rc) {
			pc_remove(c, i);
			return rc;
		}
	}
	*out = i;
	return 0;
}

int pc_cache_write(struct pc_cache *c, const struct pc_store *s, uint64_t off, const void *buf,
                   size_t len, uint64_t now)
{
	const uint8_t *p = buf;
	if (c->dead)
		return -EIO;
	c->st.writes++;
	c->st.write_bytes += len;
	while (len) {
		uint64_t blk = off / PC_BLOCK;
		size_t in = (size_t)(off % PC_BLOCK), n = PC_BLOCK - in;
		n = n < len ? n : len;
		size_t slot = pc_find(c, blk);
		if (slot == SIZE_MAX) {
			int rc = pc_insert(c, s, blk, now, n == PC_BLOCK, &slot);
			if (rc)
				return rc;
		}
		memcpy(pc_data(c, slot) + in, p, n);
		c->slots[slot].epoch = c->epoch;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int pc_cache_read(struct pc_cache *c, const struct pc_store *s, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf, tmp[PC_BLOCK];
	if (c->dead)
		return -EIO;
	c->st.reads++;
	c->st.read_bytes += len;
	while (len) {
		uint64_t blk = off / PC_BLOCK;
		size_t in = (size_t)(off % PC_BLOCK), n = PC_BLOCK - in;
		n = n < len ? n : len;
		size_t slot = pc_find(c, blk);
		if (slot != SIZE_MAX) {
			memcpy(p, pc_data(c, slot) + in, n);
		} else {
			int rc = s->read(s->ctx, blk, tmp);
			if (rc)
				return rc;
			memcpy(p, tmp + in, n);
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int pc_cache_flush(struct pc_cache *c, const struct pc_store *s, bool ignore)
{
	if (c->dead)
		return -EIO;
	c->st.flushes++;
	if (ignore) {
		c->st.flushes_ignored++;
		return 0;
	}
	/* from the end: a removal moves the last entry, already seen, into the hole */
	for (size_t i = c->n; i-- > 0;) {
		const struct pc_entry *e = &c->slots[c->dense[i]];
		if (c->reorder && c->epoch - e->epoch < c->reorder)
			continue; /* written too lately: this flush leaves it cached */
		int rc = pc_writeback(c, s, c->dense[i], &c->st.flushed_bytes);
		if (rc)
			return rc;
	}
	c->epoch++;
	return 0;
}

/* Shuffles the first n of c->pick (Fisher-Yates). */
static void pc_shuffle(struct pc_cache *c, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = pc_below(c, i);
		uint64_t t = c->pick[i - 1];
		c->pick[i - 1] = c->pick[j];
		c->pick[j] = t;
	}
}

int pc_cache_destage(struct pc_cache *c, const struct pc_store *s, uint64_t now, uint64_t delay_ns,
                     size_t max, size_t *done)
{
	size_t n = 0;
	*done = 0;
	if (c->dead)
		return -EIO;
	/* Block numbers, not slots: slots move as entries are removed. */
	for (size_t i = 0; i < c->n; i++) {
		const struct pc_entry *e = &c->slots[c->dense[i]];
		if (now >= e->since_ns + delay_ns)
			c->pick[n++] = e->blk;
	}
	pc_shuffle(c, n);
	n = n < max ? n : max;
	for (size_t i = 0; i < n; i++) {
		int rc = pc_writeback(c, s, pc_find(c, c->pick[i]), &c->st.destaged_bytes);
		if (rc)
			return rc;
		++*done;
	}
	return 0;
}

int pc_cache_cut(struct pc_cache *c, const struct pc_store *s, unsigned persist_pct)
{
	if (c->dead)
		return -EIO;
	c->st.cuts++;
	int first = 0;
	for (size_t i = c->n; c->reorder && i-- > 0;) {
		size_t slot = c->dense[i];
		if (c->slots[slot].epoch == c->epoch) { /* written since the last flush: kept */
			int rc = pc_writeback(c, s, slot, &c->st.cut_persisted_bytes);
			if (!rc)
				continue;
			first = first ? first : rc;
		}
		c->st.dropped_bytes += PC_BLOCK; /* what the last flush acknowledged: lost */
		pc_remove(c, slot);
	}
	while (c->n) {
		size_t slot = c->dense[pc_below(c, c->n)]; /* random order */
		if (persist_pct && pc_below(c, 100) < persist_pct) {
			int rc = pc_writeback(c, s, slot, &c->st.cut_persisted_bytes);
			if (!rc)
				continue;
			first = first ? first : rc;
		}
		c->st.dropped_bytes += PC_BLOCK;
		pc_remove(c, slot);
	}
	c->dead = true;
	return first;
}
