/* opcontent.h - the bytes the operation bodies write (opexec.c): every write() carries exactly
 * the content of its extent (content.h: a function of the tree's seed, the file, its generation
 * and the offset). With content=fixed every write is sent from the engine's one read-only copy
 * of the pattern (struct engine: fixed). With content=header the payload pattern stays in the
 * worker's buffer (struct worker: buf, pat_*) and only the 512-byte blocks' headers are written per
 * write; a read or a fill that overwrites part of the buffer spoils the pattern there (buf_spoil),
 * and the next write refills only what it needs (pattern_need). Included by the files of the
 * bodies only (opexec.c, opns.c), whose translation units they stay in: static inline functions,
 * inlined into the bodies (or not) as when they were written in opexec.c. */
#ifndef FSMIX_OPCONTENT_H
#define FSMIX_OPCONTENT_H

#include <stddef.h>
#include <stdint.h>

#include "engine_int.h"
#include "optimed.h"

/* What a writing op writes: file `key` at generation `gen`, from file offset `off` on (each
 * write advances it). Every write() carries exactly the content of those bytes (content.h). */
struct wpos {
	struct content_key key;
	uint32_t gen;
	uint64_t off;
};

/* The first `len` bytes of w->buf are about to be overwritten (a read, a filled write): the
 * pattern no longer holds there. */
static inline void buf_spoil(struct worker *w, size_t len)
{
	w->pat_hi = w->pat_lo >= w->pat_hi || len > w->pat_hi ? len : w->pat_hi;
	w->pat_lo = 0;
}

/* content=header: w->buf + [from, to) to hold the pattern of `key`'s seed (header bytes aside),
 * refilled where a read or a fill spoiled it (content_pattern is periodic in 512-byte blocks,
 * so a block-aligned part can be refilled alone). */
static inline void pattern_need(struct worker *w, const struct content_key *key, size_t from,
                                size_t to)
{
	if (UNLIKELY(!w->pat_ready || w->pat_seed != key->seed)) {
		w->pat_seed = key->seed;
		w->pat_ready = true;
		w->pat_lo = 0;
		w->pat_hi = w->buf_len + 512;
	}
	if (w->pat_lo >= w->pat_hi || w->pat_lo >= to || w->pat_hi <= from)
		return;
	size_t lo = w->pat_lo & ~(size_t)511, hi = w->pat_hi < to ? w->pat_hi : to;
	content_pattern(w->buf + lo, hi - lo, key);
	w->pat_lo = hi; /* [pat_lo, hi) holds it now; the rest of the spoiled part may not */
}

/* Writes n bytes of the content at c->off (advanced); returns n or -errno. */
static inline int64_t write_block(struct worker *w, int fd, size_t n, struct wpos *c)
{
	const char *src = w->buf;
	if (c->key.mode == CONTENT_MODE_FIXED && n <= w->eng->fixed_max &&
	    (!w->eng->plan->directio || c->off % 512 == 0)) {
		/* the same bytes in every file: sent from the engine's one read-only copy (page-
		 * aligned at its start, where an O_DIRECT write at a multiple of 512 starts) */
		src = w->eng->fixed + c->off % 512;
	} else if (c->key.mode == CONTENT_MODE_HEADER && n <= w->buf_len &&
	           !w->eng->plan->directio) {
		/* the pattern is in buf (filled once, refilled where reads spoiled it); only the
		 * headers are written per write */
		size_t ph = (size_t)(c->off % 512);
		pattern_need(w, &c->key, ph, ph + n);
		content_headers(w->buf + ph, n, &c->key, c->gen, c->off);
		src = w->buf + ph;
	} else {
		buf_spoil(w, n);
		content_fill(w->buf, n, &c->key, c->gen, c->off);
	}
	ssize_t r = t_write(w, fd, src, n);
	if (r < 0)
		return r;
	c->off += n;
	return r == (ssize_t)n ? r : -ENOSPC; /* a short write means the device is full */
}

/* Writes `total` bytes at the current offset (c->off) in blocks of bs: FFSB's write(bs) x n +
 * tail. Returns the number of write() calls (transactions) or -errno. */
static inline int64_t write_blocks(struct worker *w, int fd, uint64_t total, uint64_t bs,
                                   struct wpos *c)
{
	int64_t calls = 0;
	while (total) {
		size_t n = total < bs ? (size_t)total : (size_t)bs;
		int64_t r = write_block(w, fd, n, c);
		if (r < 0)
			return r;
		total -= n;
		calls++;
	}
	return calls;
}

#endif
