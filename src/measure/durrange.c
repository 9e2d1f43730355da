/* durrange.c - the promised content of one file (durrange.h): settled writes, reduced to their
 * envelope (each byte's highest generation) by a sweep over the ranges sorted by offset with a
 * heap of the ranges that cover the sweep point. */
#include "durrange.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int cmp_off(const void *a, const void *b)
{
	const struct dm_range *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* a covers b's bytes: the higher generation, else the later put. */
static bool above(const struct dm_range *a, const struct dm_range *b)
{
	return a->gen != b->gen ? a->gen > b->gen : a->ord > b->ord;
}

struct heap {
	const struct dm_range *r;
	size_t *h, n;
};

static void heap_push(struct heap *p, size_t i)
{
	size_t k = p->n++;
	while (k && above(&p->r[i], &p->r[p->h[(k - 1) / 2]])) {
		p->h[k] = p->h[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	p->h[k] = i;
}

static void heap_pop(struct heap *p)
{
	size_t last = p->h[--p->n], k = 0;
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= p->n)
			break;
		if (c + 1 < p->n && above(&p->r[p->h[c + 1]], &p->r[p->h[c]]))
			c++;
		if (!above(&p->r[p->h[c]], &p->r[last]))
			break;
		p->h[k] = p->h[c];
		k = c;
	}
	if (p->n)
		p->h[k] = last;
}

/* [x, nx) of top's, merged into the previous range when it continues it. */
static void emit(struct dm_range *out, size_t *k, uint64_t x, uint64_t nx,
                 const struct dm_range *top)
{
	struct dm_range *prev = *k ? &out[*k - 1] : NULL;
	if (prev && prev->end == x && prev->ord == top->ord) {
		prev->end = nx;
		return;
	}
	out[(*k)++] = (struct dm_range){x, nx, top->ord, top->gen, top->ref};
}

static void check_envelope(const struct dm_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		FSMIX_ASSERT_MSG(r[i].off < r[i].end, "a range is empty");
		FSMIX_ASSERT_MSG(!i || r[i - 1].end <= r[i].off,
		                 "ranges overlap or are out of order");
	}
}

int durrange_finish(struct dm_rangeset *s)
{
	if (s->n == s->n_env)
		return 0;
	size_t n = s->n, k = 0, i = 0;
	qsort(s->r, n, sizeof(*s->r), cmp_off);
	/* at most 2n - 1 ranges: each range's start and end change the top once */
	struct dm_range *out = malloc(2 * n * sizeof(*out));
	struct heap p = {s->r, malloc(n * sizeof(size_t)), 0};
	if (!out || !p.h) {
		free(out);
		free(p.h);
		return -ENOMEM;
	}
	uint64_t x = s->r[0].off;
	while (i < n || p.n) {
		while (i < n && s->r[i].off <= x)
			heap_push(&p, i++);
		while (p.n && s->r[p.h[0]].end <= x)
			heap_pop(&p);
		if (!p.n) {
			if (i == n)
				break;
			x = s->r[i].off;
			continue;
		}
		const struct dm_range *top = &s->r[p.h[0]];
		uint64_t nx = i < n && s->r[i].off < top->end ? s->r[i].off : top->end;
		emit(out, &k, x, nx, top);
		x = nx;
	}
	free(p.h);
	free(s->r);
	check_envelope(out, k);
	s->r = out;
	s->n = s->n_env = k;
	s->cap = 2 * n;
	return 0;
}

/* Room for twice as many ranges (16 at first). 0, or -ENOMEM. */
static int durrange_grow(struct dm_rangeset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 16;
	struct dm_range *q = realloc(s->r, cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	s->r = q;
	s->cap = cap;
	return 0;
}

int durrange_put(struct dm_rangeset *s, uint64_t off, uint64_t end, uint32_t gen, struct dm_ref ref)
{
	FSMIX_ASSERT_MSG(off < end, "an empty range put");
	if (s->n >= 2 * s->n_env + 64 && durrange_finish(s))
		return -ENOMEM;
	if (s->n == s->cap && durrange_grow(s))
		return -ENOMEM;
	s->r[s->n++] = (struct dm_range){off, end, s->ord++, gen, ref};
	return 0;
}

void durrange_cut(struct dm_rangeset *s, uint64_t len)
{
	/* each range cut by itself: the envelope of the cut ranges is the cut envelope, and the
	 * order (offsets of r[0..n_env), ord of the rest) is kept */
	size_t k = 0, env = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->r[i].off >= len)
			continue;
		s->r[k] = s->r[i];
		if (s->r[k].end > len)
			s->r[k].end = len;
		env += i < s->n_env;
		k++;
	}
	s->n = k;
	s->n_env = env;
	check_envelope(s->r, s->n_env);
}

int durrange_punch(struct dm_rangeset *s, uint64_t off, uint64_t end)
{
	if (off >= end || !s->n)
		return 0;
	if (durrange_finish(s) || (s->n == s->cap && durrange_grow(s)))
		return -ENOMEM;
	/* sorted and disjoint: at most one range holds the whole hole (the one split) */
	size_t k = 0, n = s->n;
	for (size_t i = 0; i < n; i++) {
		struct dm_range r = s->r[i];
		if (r.end <= off || r.off >= end) {
			s->r[k++] = r;
			continue;
		}
		if (r.off < off) {
			s->r[k] = r;
			s->r[k++].end = off;
		}
		if (r.end > end) { /* (k <= i + 1 here, and one slot is free: room for it) */
			if (k == i + 1) {
				memmove(&s->r[i + 2], &s->r[i + 1], (n - i - 1) * sizeof(*s->r));
				n++, i++;
			}
			s->r[k] = r;
			s->r[k++].off = end;
		}
	}
	s->n = s->n_env = k;
	check_envelope(s->r, s->n);
	return 0;
}

void durrange_free(struct dm_rangeset *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}
