/* statpack.c - statistics as a byte string (statpack.h). */
#include "statpack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STATPACK_MAGIC UINT64_C(0x6673737461747331) /* "fsstats1" */

void pack_bytes(struct packbuf *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np) {
			b->failed = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void pack_u64(struct packbuf *b, uint64_t v)
{
	pack_bytes(b, &v, sizeof(v));
}

void pack_f64(struct packbuf *b, double v)
{
	pack_bytes(b, &v, sizeof(v));
}

void pack_str(struct packbuf *b, const char *s)
{
	size_t n = strlen(s);
	pack_u64(b, n);
	pack_bytes(b, s, n);
}

void packbuf_free(struct packbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void unpack_bytes(struct unpack *u, void *p, size_t n)
{
	if (u->bad || n > u->len - u->at) {
		u->bad = true;
		memset(p, 0, n);
		return;
	}
	memcpy(p, u->p + u->at, n);
	u->at += n;
}

uint64_t unpack_u64(struct unpack *u)
{
	uint64_t v;
	unpack_bytes(u, &v, sizeof(v));
	return v;
}

double unpack_f64(struct unpack *u)
{
	double v;
	unpack_bytes(u, &v, sizeof(v));
	return v;
}

void unpack_str(struct unpack *u, char *buf, size_t len)
{
	uint64_t n = unpack_u64(u);
	if (u->bad || n > u->len - u->at || len == 0) {
		u->bad = true;
		if (len)
			buf[0] = '\0';
		return;
	}
	size_t keep = n < len - 1 ? (size_t)n : len - 1;
	memcpy(buf, u->p + u->at, keep);
	buf[keep] = '\0';
	u->at += (size_t)n;
}

static void put_lat(struct packbuf *b, const struct lat_stats *l)
{
	pack_u64(b, l->n);
	pack_u64(b, l->sum_ns);
	pack_u64(b, l->min_ns);
	pack_u64(b, l->max_ns);
	pack_bytes(b, &l->sum_sq_ns, sizeof(l->sum_sq_ns));
	uint64_t used = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		used += l->h.bucket[i] != 0;
	pack_u64(b, used);
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		if (l->h.bucket[i]) {
			pack_u64(b, i);
			pack_u64(b, l->h.bucket[i]);
		}
}

static void get_lat(struct unpack *u, struct lat_stats *l)
{
	lat_init(l);
	l->n = unpack_u64(u);
	l->sum_ns = unpack_u64(u);
	l->min_ns = unpack_u64(u);
	l->max_ns = unpack_u64(u);
	unpack_bytes(u, &l->sum_sq_ns, sizeof(l->sum_sq_ns));
	uint64_t used = unpack_u64(u);
	if (used > HIST_BUCKETS)
		u->bad = true;
	for (uint64_t k = 0; k < used && !u->bad; k++) {
		uint64_t i = unpack_u64(u), c = unpack_u64(u);
		if (i >= HIST_BUCKETS)
			u->bad = true;
		else
			l->h.bucket[i] = c;
	}
}

void statpack_put(struct packbuf *b, const struct thread_stats *st)
{
	pack_u64(b, STATPACK_MAGIC);
	pack_u64(b, OP_COUNT);
	pack_u64(b, SYS_COUNT);
	pack_u64(b, HIST_BUCKETS);
	pack_bytes(b, st->ops, sizeof(st->ops));
	pack_bytes(b, st->trans, sizeof(st->trans));
	pack_bytes(b, st->bytes_read, sizeof(st->bytes_read));
	pack_bytes(b, st->bytes_written, sizeof(st->bytes_written));
	pack_bytes(b, st->errors, sizeof(st->errors));
	pack_bytes(b, st->busy, sizeof(st->busy));
	pack_bytes(b, st->ffsb_written, sizeof(st->ffsb_written));
	pack_bytes(b, st->ffsb_read, sizeof(st->ffsb_read));
	for (int op = 0; op < OP_COUNT; op++)
		put_lat(b, &st->op_lat[op]);
	for (int s = 0; s < SYS_COUNT; s++)
		put_lat(b, &st->sys_lat[s]);
	pack_u64(b, st->resp_lat != NULL);
	if (st->resp_lat)
		put_lat(b, st->resp_lat);
	pack_u64(b, st->missed_starts);
	pack_u64(b, st->late_starts);
	pack_u64(b, st->backlog_full);
	pack_u64(b, st->range_cols);
	if (st->range_counts)
		pack_bytes(b, st->range_counts,
		           (size_t)SYS_COUNT * st->range_cols * sizeof(*st->range_counts));
}

/* Reads the record into a fresh thread_stats of dst's range table (tmp), then merges. */
static int read_record(struct unpack *u, struct thread_stats *tmp)
{
	if (unpack_u64(u) != STATPACK_MAGIC || unpack_u64(u) != OP_COUNT ||
	    unpack_u64(u) != SYS_COUNT || unpack_u64(u) != HIST_BUCKETS)
		return -EBADMSG;
	unpack_bytes(u, tmp->ops, sizeof(tmp->ops));
	unpack_bytes(u, tmp->trans, sizeof(tmp->trans));
	unpack_bytes(u, tmp->bytes_read, sizeof(tmp->bytes_read));
	unpack_bytes(u, tmp->bytes_written, sizeof(tmp->bytes_written));
	unpack_bytes(u, tmp->errors, sizeof(tmp->errors));
	unpack_bytes(u, tmp->busy, sizeof(tmp->busy));
	unpack_bytes(u, tmp->ffsb_written, sizeof(tmp->ffsb_written));
	unpack_bytes(u, tmp->ffsb_read, sizeof(tmp->ffsb_read));
	for (int op = 0; op < OP_COUNT; op++)
		get_lat(u, &tmp->op_lat[op]);
	for (int s = 0; s < SYS_COUNT; s++)
		get_lat(u, &tmp->sys_lat[s]);
	if (unpack_u64(u)) {
		int rc = thread_stats_track_response(tmp);
		if (rc)
			return rc;
		get_lat(u, tmp->resp_lat);
	}
	tmp->missed_starts = unpack_u64(u);
	tmp->late_starts = unpack_u64(u);
	tmp->backlog_full = unpack_u64(u);
	if (unpack_u64(u) != tmp->range_cols)
		return -EBADMSG;
	if (tmp->range_counts)
		unpack_bytes(u, tmp->range_counts,
		             (size_t)SYS_COUNT * tmp->range_cols * sizeof(*tmp->range_counts));
	return u->bad ? -EBADMSG : 0;
}

int statpack_merge(struct unpack *u, struct thread_stats *dst)
{
	struct thread_stats *tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	int rc = thread_stats_init(tmp, dst->ranges);
	if (rc == 0)
		rc = read_record(u, tmp);
	if (rc == 0)
		rc = thread_stats_merge(dst, tmp);
	thread_stats_free(tmp);
	free(tmp);
	return rc;
}
