/* interval.c - per-interval rows (see interval.h). */
#include "interval.h"

#include <stdlib.h>
#include <string.h>

void ival_init(struct ival_log *l, uint64_t base_ns, uint64_t len_ns)
{
	memset(l, 0, sizeof(*l));
	l->base_ns = base_ns;
	l->len_ns = len_ns ? len_ns : 1000000000u;
	l->next_ns = base_ns + l->len_ns;
	atomic_init(&l->published, 0);
}

void ival_free(struct ival_log *l)
{
	struct ival_chunk *c = l->head;
	while (c) {
		struct ival_chunk *next = c->next;
		free(c);
		c = next;
	}
	l->head = l->tail = NULL;
}

/* Stores the current row as row `index` and publishes it. */
static void publish(struct ival_log *l)
{
	uint32_t slot = l->index % IVAL_CHUNK;
	if (l->oom)
		goto next;
	if (slot == 0) {
		struct ival_chunk *c = malloc(sizeof(*c));
		if (!c) {
			l->oom = true;
			goto next;
		}
		c->next = NULL;
		if (l->tail)
			l->tail->next = c;
		else
			l->head = c;
		l->tail = c;
	}
	l->tail->rec[slot] = l->cur;
	atomic_store_explicit(&l->published, l->index + 1, memory_order_release);
next:
	memset(&l->cur, 0, sizeof(l->cur));
	l->index++;
}

void ival_close_until(struct ival_log *l, uint64_t now_ns)
{
	while (now_ns >= l->next_ns) {
		publish(l);
		l->next_ns += l->len_ns;
	}
}

void ival_finish(struct ival_log *l, uint64_t now_ns)
{
	ival_close_until(l, now_ns);
	publish(l);
}

const struct ival_rec *ival_row(const struct ival_log *l, uint32_t i)
{
	const struct ival_chunk *c = l->head;
	for (uint32_t k = i / IVAL_CHUNK; c && k; k--)
		c = c->next;
	return c ? &c->rec[i % IVAL_CHUNK] : NULL;
}

uint64_t ival_percentile_ns(const struct ival_hist *h, uint64_t n, double p)
{
	if (!n)
		return 0;
	unsigned b = ival_hist_bucket_of_rank(h, hist_rank(n, p));
	return ival_hist_bucket_low(b) + ival_hist_bucket_width(b) / 2;
}

LOGHIST_DEFINE(ival_hist);
