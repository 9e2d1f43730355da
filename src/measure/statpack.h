/* statpack.h - statistics as a byte string, so that another process can merge them exactly
 * (the ranks of a distributed run send theirs to rank 0, src/mpi).
 *
 * Format: native byte order and sizes (every process of a job runs the same build on the same
 * architecture), a magic word and the table sizes (OP_COUNT, SYS_COUNT, HIST_BUCKETS) first, so
 * that a stranger's bytes are refused rather than misread. A histogram is sent sparse: the count
 * of non-empty buckets, then (index, count) pairs, so a series of a few thousand samples costs
 * some hundred bytes instead of 19 968. Unpacking then merging gives exactly what merging the
 * original would (stats.h: every field SUM, MIN or MAX).
 *
 * A packbuf grows as needed; its first allocation failure sets `failed`, and every later put is
 * ignored, so a writer checks once at the end. A reader refuses truncated or malformed input with
 * -EBADMSG and never reads past `len`. */
#ifndef FSMIX_STATPACK_H
#define FSMIX_STATPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct packbuf {
	char *p;
	size_t len, cap;
	bool failed; /* out of memory: the contents are incomplete */
};

struct unpack {
	const char *p;
	size_t len, at;
	bool bad; /* truncated or malformed: every later get returns 0 */
};

void pack_u64(struct packbuf *b, uint64_t v);
void pack_f64(struct packbuf *b, double v);
void pack_bytes(struct packbuf *b, const void *p, size_t n);
void pack_str(struct packbuf *b, const char *s); /* length, then the bytes without NUL */
void packbuf_free(struct packbuf *b);

uint64_t unpack_u64(struct unpack *u);
double unpack_f64(struct unpack *u);
void unpack_bytes(struct unpack *u, void *p, size_t n);
void unpack_str(struct unpack *u, char *buf, size_t len); /* cut to len - 1, NUL ended */

/* statpack_put - append st (its counters, every latency series, the response series when it has
 * one, the msec_range counts). */
void statpack_put(struct packbuf *b, const struct thread_stats *st);

/* statpack_merge - read one thread_stats written by statpack_put and merge it into dst, which
 * must count the same msec_ranges (range_cols); a response series is added to dst when it has
 * none. 0, -EBADMSG (malformed, or the range columns differ), -ENOMEM. dst is changed only when
 * the whole record was read. */
int statpack_merge(struct unpack *u, struct thread_stats *dst);

#endif
