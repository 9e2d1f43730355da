/* diag.c - diagnostics sink (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof(*d));
}

void diag_free(struct diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].text);
		free(d->v[i].section);
		free(d->v[i].key);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* A copy of s, or NULL (also when out of memory: the message itself is still kept). */
static char *copy_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void diag_add(struct diag *d, enum diag_level level, enum diag_code code, struct src_loc loc,
              const char *section, const char *key, const char *fmt, ...)
{
	char msg[1024];
	char prefix[256] = "";
	va_list ap;

	if (level == DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	const char *shown = code == DIAG_UNKNOWN_KEY ? NULL : key;
	if (section && shown)
		snprintf(prefix, sizeof(prefix), "[%s] %s: ", section, shown);
	else if (section)
		snprintf(prefix, sizeof(prefix), "[%s] ", section);
	else if (shown)
		snprintf(prefix, sizeof(prefix), "%s: ", shown);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct diag_entry *v = realloc(d->v, cap * sizeof(*v));
		if (!v) {
			d->oom = 1;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	size_t len = strlen(prefix) + strlen(msg) + 1;
	char *text = malloc(len);
	if (!text) {
		d->oom = 1;
		return;
	}
	snprintf(text, len, "%s%s", prefix, msg);
	d->v[d->n] = (struct diag_entry){.level = level,
	                                 .code = code,
	                                 .loc = loc,
	                                 .seq = d->n,
	                                 .text = text,
	                                 .section = copy_or_null(section),
	                                 .key = copy_or_null(key)};
	d->n++;
}

const struct diag_entry *diag_find(const struct diag *d, enum diag_level level, enum diag_code code,
                                   const char *section, const char *key)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_entry *e = &d->v[i];
		if (e->level != level || (code != DIAG_ANY && e->code != code))
			continue;
		if (section && (!e->section || strcmp(e->section, section)))
			continue;
		if (key && (!e->key || strcasecmp(e->key, key)))
			continue;
		return e;
	}
	return NULL;
}

/* Sort key: files in the order they were first mentioned, then line, then discovery order. */
struct sort_item {
	size_t file_rank;
	const struct diag_entry *e;
};

static int item_cmp(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	if (x->file_rank != y->file_rank)
		return x->file_rank < y->file_rank ? -1 : 1;
	if (x->e->loc.line != y->e->loc.line)
		return x->e->loc.line < y->e->loc.line ? -1 : 1;
	return x->e->seq < y->e->seq ? -1 : (x->e->seq > y->e->seq);
}

static int same_file(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

int diag_format(const struct diag_entry *e, char *buf, size_t len)
{
	const char *lvl = e->level == DIAG_ERROR ? "error" : "warning";
	if (e->loc.file && e->loc.line)
		return snprintf(buf, len, "%s:%u: %s: %s", e->loc.file, e->loc.line, lvl, e->text);
	if (e->loc.file)
		return snprintf(buf, len, "%s: %s: %s", e->loc.file, lvl, e->text);
	return snprintf(buf, len, "fsmix: %s: %s", lvl, e->text);
}

void diag_print(const struct diag *d, FILE *out)
{
	struct sort_item *items = malloc(d->n * sizeof(*items) + 1);
	char line[1536];
	if (!items) {
		for (size_t i = 0; i < d->n; i++) {
			diag_format(&d->v[i], line, sizeof(line));
			fprintf(out, "%s\n", line);
		}
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		size_t rank = i;
		for (size_t j = 0; j < i; j++)
			if (same_file(d->v[j].loc.file, d->v[i].loc.file)) {
				rank = items[j].file_rank;
				break;
			}
		items[i] = (struct sort_item){.file_rank = rank, .e = &d->v[i]};
	}
	qsort(items, d->n, sizeof(*items), item_cmp);
	for (size_t i = 0; i < d->n; i++) {
		diag_format(items[i].e, line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	if (d->oom)
		fprintf(out, "fsmix: error: out of memory while collecting messages\n");
	free(items);
}
