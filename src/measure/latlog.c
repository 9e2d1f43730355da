/* latlog.c - the per-operation latency log (see latlog.h). */
#include "latlog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"

static const char header[] = "# t_s group thread op lat_ns bytes sync_ns resp_ns\n";

int latlog_open(struct latlog *l, const char *path, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	char why[MSG_MAX];
	int rc = outfile_open(&l->out, path, OUTFILE_APPEND, why, sizeof(why));
	if (rc) {
		l->fd = -1;
		snprintf(err, errlen, "--lat-log %s", why);
		return rc;
	}
	l->fd = l->out.fd;
	rc = fd_write_all(l->fd, header, sizeof(header) - 1);
	if (rc) {
		snprintf(err, errlen, "--lat-log %s: cannot write: %s", path, strerror(-rc));
		latlog_abort(l);
	}
	return rc;
}

int latlog_buf_init(struct latlog_buf *b, struct latlog *l, unsigned group, unsigned thread)
{
	memset(b, 0, sizeof(*b));
	b->log = l;
	b->text = malloc(LATLOG_BUF);
	if (!b->text)
		return -ENOMEM;
	char *p = b->prefix;
	*p++ = ' ';
	p += put_decimal(p, group, 1);
	*p++ = ' ';
	p += put_decimal(p, thread, 1);
	*p++ = ' ';
	b->prefix_len = (size_t)(p - b->prefix);
	return 0;
}

void latlog_add(struct latlog_buf *b, uint64_t t_ns, const char *op, uint64_t lat_ns,
                uint64_t bytes, uint64_t sync_ns, uint64_t resp_ns)
{
	size_t oplen = strnlen(op, 40);
	if (LATLOG_BUF - b->len < LATLOG_LINE_MAX)
		latlog_flush(b);
	char *p = b->text + b->len;
	p += put_decimal(p, t_ns / 1000000000u, 1);
	*p++ = '.';
	p += put_decimal(p, (t_ns % 1000000000u) / 1000u, 6); /* microseconds */
	memcpy(p, b->prefix, b->prefix_len);
	p += b->prefix_len;
	memcpy(p, op, oplen);
	p += oplen;
	*p++ = ' ';
	p += put_decimal(p, lat_ns, 1);
	*p++ = ' ';
	p += put_decimal(p, bytes, 1);
	*p++ = ' ';
	p += put_decimal(p, sync_ns, 1);
	*p++ = ' ';
	p += put_decimal(p, resp_ns, 1);
	*p++ = '\n';
	b->len = (size_t)(p - b->text);
	b->lines++;
}

void latlog_flush(struct latlog_buf *b)
{
	if (!b->len)
		return;
	int rc = fd_write_all(b->log->fd, b->text, b->len);
	if (rc) {
		int expected = 0;
		atomic_compare_exchange_strong(&b->log->err, &expected, -rc);
	} else {
		atomic_fetch_add_explicit(&b->log->lines, b->lines, memory_order_relaxed);
	}
	b->len = 0;
	b->lines = 0;
}

void latlog_buf_free(struct latlog_buf *b)
{
	free(b->text);
	b->text = NULL;
}

int latlog_close(struct latlog *l, char *err, size_t errlen)
{
	int e = atomic_load(&l->err);
	char why[MSG_MAX];
	l->fd = -1;
	if (e) {
		snprintf(err, errlen, "--lat-log %s: cannot write: %s", l->out.path, strerror(e));
		outfile_abort(&l->out);
		return -e;
	}
	int rc = outfile_commit(&l->out, why, sizeof(why));
	if (rc)
		snprintf(err, errlen, "--lat-log %s", why);
	return rc;
}

void latlog_abort(struct latlog *l)
{
	l->fd = -1;
	outfile_abort(&l->out);
}
