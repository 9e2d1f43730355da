/* state.c - a crash state from a record, copy-on-write over the base image (state.h). */
#include "state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC    PC_REC_SECTOR
#define PC_MEM (1ull << 63) /* a value naming a sector of st->mem, not of the record */

/* splitmix64 of x: a stateless draw per index, so a choice depends on its seed and its index
 * only (the same seed gives the same state whatever else is asked). */
static uint64_t mix(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t draw(uint64_t seed, uint64_t i)
{
	return mix(seed ^ mix(i));
}

bool pc_spec_parse(const char *s, struct pc_spec *spec)
{
	char *end;
	spec->arg = 0;
	if (!strcmp(s, "none") || !strcmp(s, "all")) {
		spec->subset = s[0] == 'n' ? PC_SUB_NONE : PC_SUB_ALL;
		return true;
	}
	const char *v = !strncmp(s, "prefix:", 7)   ? s + 7
	                : !strncmp(s, "random:", 7) ? s + 7
	                                            : NULL;
	if (!v || *v < '0' || *v > '9')
		return false;
	errno = 0;
	spec->arg = strtoull(v, &end, 10);
	spec->subset = s[0] == 'p' ? PC_SUB_PREFIX : PC_SUB_RANDOM;
	return !*end && !errno;
}

static size_t home(const struct pc_state *st, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (st->nslots - 1);
}

/* The slot of sector sec: its own, or the empty one where it would go. */
static size_t slot_of(const struct pc_state *st, uint64_t sec)
{
	size_t i = home(st, sec + 1);
	while (st->keys[i] && st->keys[i] != sec + 1)
		i = (i + 1) & (st->nslots - 1);
	return i;
}

static int grow(struct pc_state *st)
{
	size_t old = st->nslots, n = old ? 2 * old : 1024;
	uint64_t *k = st->keys, *v = st->vals;
	st->keys = calloc(n, sizeof(*k));
	st->vals = malloc(n * sizeof(*v));
	if (!st->keys || !st->vals) {
		free(st->keys);
		free(st->vals);
		st->keys = k, st->vals = v;
		return -ENOMEM;
	}
	st->nslots = n;
	for (size_t i = 0; i < old; i++) {
		if (!k[i])
			continue;
		size_t j = slot_of(st, k[i] - 1);
		st->keys[j] = k[i];
		st->vals[j] = v[i];
	}
	free(k);
	free(v);
	return 0;
}

/* Sector sec now reads from val. */
static int set(struct pc_state *st, uint64_t sec, uint64_t val)
{
	if (2 * (st->used + 1) > st->nslots && grow(st))
		return -ENOMEM;
	size_t i = slot_of(st, sec);
	if (!st->keys[i]) {
		st->keys[i] = sec + 1;
		st->used++;
	}
	st->vals[i] = val;
	return 0;
}

/* Where sector sec reads from now. */
static const unsigned char *sector(const struct pc_state *st, uint64_t sec)
{
	static const unsigned char zero[SEC];
	if (st->nslots) {
		size_t i = slot_of(st, sec);
		if (st->keys[i]) {
			uint64_t v = st->vals[i];
			return v & PC_MEM ? st->mem + (v & ~PC_MEM) * SEC : st->rec->map + v;
		}
	}
	return st->base ? st->base + sec * SEC : zero;
}

void pc_state_read(const struct pc_state *st, uint64_t off, void *buf, size_t len)
{
	unsigned char *p = buf;
	while (len) {
		uint64_t sec = off / SEC;
		size_t in = (size_t)(off % SEC), n = SEC - in < len ? SEC - in : len;
		memcpy(p, sector(st, sec) + in, n);
		p += n, off += n, len -= n;
	}
}

/* Sector sec patched with n bytes at in from src, in memory (a sector of its own). */
static int patch(struct pc_state *st, uint64_t sec, size_t in, const unsigned char *src, size_t n)
{
	size_t i = st->nslots ? slot_of(st, sec) : 0;
	if (st->nslots && st->keys[i] && (st->vals[i] & PC_MEM)) {
		memcpy(st->mem + (st->vals[i] & ~PC_MEM) * SEC + in, src, n);
		return 0;
	}
	if (st->nmem == st->memcap) {
		size_t cap = st->memcap ? 2 * st->memcap : 64;
		unsigned char *m = realloc(st->mem, cap * SEC);
		if (!m)
			return -ENOMEM;
		st->mem = m, st->memcap = cap;
	}
	unsigned char *m = st->mem + st->nmem * SEC;
	memcpy(m, sector(st, sec), SEC);
	memcpy(m + in, src, n);
	return set(st, sec, PC_MEM | st->nmem++);
}

int pc_state_write(struct pc_state *st, uint64_t off, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	while (len) {
		uint64_t sec = off / SEC;
		size_t in = (size_t)(off % SEC), n = SEC - in < len ? SEC - in : len;
		if (patch(st, sec, in, p, n))
			return -ENOMEM;
		p += n, off += n, len -= n;
	}
	return 0;
}

/* Whether the i-th sector of a torn write (of nsec >= 2) is new: a coin per sector from the
 * seed, and if the coins came out all new or all old, sector seed % nsec turned over (a tear
 * has both). */
static bool torn_new(uint64_t seed, uint64_t i, uint64_t nsec, uint64_t nnew)
{
	bool coin = draw(seed, i) & 1;
	if ((nnew == 0 || nnew == nsec) && i == mix(seed) % nsec)
		return !coin;
	return coin;
}

/* Record write e applied: whole, or torn with seed (sector by sector, new or old). */
static int apply(struct pc_state *st, const struct pc_rec_entry *e, bool torn, uint64_t seed)
{
	uint64_t first = e->off / SEC, last = (e->off + e->len - 1) / SEC, nsec = last - first + 1;
	uint64_t nnew = 0;
	torn = torn && nsec >= 2; /* one sector is whole or absent: the subset decides */
	for (uint64_t i = 0; torn && i < nsec; i++)
		nnew += draw(seed, i) & 1;
	for (uint64_t s = first; s <= last; s++) {
		if (torn && !torn_new(seed, s - first, nsec, nnew)) {
			st->torn_old++;
			continue;
		}
		st->torn_new += torn;
		uint64_t lo = s * SEC > e->off ? s * SEC : e->off;
		uint64_t hi = (s + 1) * SEC < e->off + e->len ? (s + 1) * SEC : e->off + e->len;
		int rc = hi - lo == SEC
		             ? set(st, s, e->data + (lo - e->off))
		             : patch(st, s, (size_t)(lo - s * SEC),
		                     st->rec->map + e->data + (lo - e->off), (size_t)(hi - lo));
		if (rc)
			return rc;
	}
	st->applied++;
	return 0;
}

/* Whether the j-th volatile write (of n) is in the subset. */
static bool chosen(const struct pc_spec *sp, size_t j)
{
	switch (sp->subset) {
	case PC_SUB_NONE:
		return false;
	case PC_SUB_ALL:
		return true;
	case PC_SUB_PREFIX:
		return j < sp->arg;
	default:
		return draw(sp->arg, j) & 1;
	}
}

/* The volatile writes of [lo, hi) chosen by sp applied; the last one torn if asked. */
static int apply_volatile(struct pc_state *st, const struct pc_spec *sp, size_t lo, size_t hi,
                          char *why, size_t wl)
{
	const struct pc_record *rec = st->rec;
	size_t j = 0, last = SIZE_MAX;
	for (size_t i = lo; i < hi; i++)
		if (rec->e[i].type == PC_REC_WRITE && chosen(sp, j++))
			last = i;
	st->volatile_total = j;
	if (sp->subset == PC_SUB_PREFIX && sp->arg > j) {
		snprintf(why, wl,
		         "state %zu: prefix:%" PRIu64 " asks for more writes than the %zu "
		         "after its flush",
		         sp->k, sp->arg, j);
		return -1;
	}
	if (sp->torn && last == SIZE_MAX) {
		snprintf(why, wl,
		         "state %zu: --torn needs a write to tear, and the subset applies "
		         "none of the %zu after its flush",
		         sp->k, j);
		return -1;
	}
	j = 0;
	for (size_t i = lo; i < hi; i++) {
		if (rec->e[i].type != PC_REC_WRITE || !chosen(sp, j++))
			continue;
		if (apply(st, &rec->e[i], sp->torn && i == last, sp->torn_seed)) {
			snprintf(why, wl, "out of memory");
			return -1;
		}
		st->volatile_applied++;
	}
	return 0;
}

int pc_state_build(struct pc_state *st, const struct pc_record *rec, const unsigned char *base,
                   const struct pc_spec *sp, char *why, size_t wl)
{
	size_t lo, hi;
	memset(st, 0, sizeof(*st));
	st->rec = rec;
	st->base = base;
	st->size = rec->disk_size;
	if (sp->k > rec->nflush) {
		snprintf(why, wl, "state %zu: the record has %zu flushes, so states 0 to %zu",
		         sp->k, rec->nflush, rec->nflush);
		return -1;
	}
	size_t lost = 0, lost_end = 0, x; /* the epochs --lose N drops */
	if (sp->lose > sp->k) {
		snprintf(why, wl, "--lose %zu needs as many flushes before the state (K >= %zu)",
		         sp->lose, sp->lose);
		return -1;
	}
	if (sp->lose) {
		pc_record_epoch(rec, sp->k - sp->lose, &lost, &x);
		pc_record_epoch(rec, sp->k - 1, &x, &lost_end);
	}
	pc_record_epoch(rec, sp->k, &lo, &hi);
	for (size_t i = 0; i < lo; i++) {
		if (i >= lost && i < lost_end)
			continue;
		if (rec->e[i].type == PC_REC_WRITE && apply(st, &rec->e[i], false, 0)) {
			snprintf(why, wl, "out of memory");
			pc_state_free(st);
			return -1;
		}
	}
	if (apply_volatile(st, sp, lo, hi, why, wl)) {
		pc_state_free(st);
		return -1;
	}
	return 0;
}

void pc_state_free(struct pc_state *st)
{
	free(st->keys);
	free(st->vals);
	free(st->mem);
	st->keys = st->vals = NULL;
	st->mem = NULL;
	st->nslots = st->used = st->nmem = st->memcap = 0;
}
