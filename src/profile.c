/* profile.c - the inih handler: section nesting, key dispatch through the key table, typed
 * values with their source lines, and every per-key error (see profile.h). Cross-key rules
 * (a read weight without read_blocksize, overlapping msec_range, ...) live in plan.c. */
#include "profile.h"

#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "value.h"

#define PROFILE_MAX_BYTES (16u << 20)

unsigned section_scope(const struct section *sec)
{
	switch (sec->kind) {
	case SEC_GLOBAL:
		return SC_GLOBAL;
	case SEC_FS:
		return SC_FS;
	case SEC_TG:
		return SC_TG;
	case SEC_STATS:
		return SC_STATS;
	}
	return 0;
}

/* Parses the default text of every key of the section's scope (defaults are checked by a unit
 * test, so a failure here cannot happen with a consistent keys.def). */
static void section_init(struct section *sec, enum section_kind kind, struct src_loc loc)
{
	memset(sec, 0, sizeof(*sec));
	sec->kind = kind;
	sec->loc = loc;
	sec->header_number = -1;
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		struct setting *st = &sec->set[k];
		char err[VALUE_ERR_LEN];
		bool b;
		if (!kd->def)
			continue;
		switch (kd->type) {
		case KT_U32:
		case KT_U64:
			(void)value_parse_uint(kd->def, &st->v.u, err);
			break;
		case KT_SIZE:
			(void)value_parse_size(kd->def, &st->v.u, err);
			break;
		case KT_BOOL:
			if (!value_parse_bool(kd->def, &b, err))
				st->v.u = b;
			break;
		case KT_DOUBLE:
			(void)value_parse_double(kd->def, &st->v.d, err);
			break;
		default:
			break;
		}
	}
}

static struct section *section_new(enum section_kind kind, struct src_loc loc)
{
	struct section *sec = malloc(sizeof(*sec));
	if (sec)
		section_init(sec, kind, loc);
	return sec;
}

static void section_free_contents(struct section *sec)
{
	for (int k = 0; k < KEY_COUNT; k++) {
		if (key_table[k].type == KT_STRING)
			free(sec->set[k].v.s);
		free(sec->set[k].items);
	}
	free(sec->file_location);
	if (sec->age) {
		section_free_contents(sec->age);
		free(sec->age);
	}
	if (sec->stats) {
		section_free_contents(sec->stats);
		free(sec->stats);
	}
}

void profile_free(struct profile *p)
{
	section_free_contents(&p->global);
	for (size_t i = 0; i < p->n_fs; i++) {
		section_free_contents(p->fs[i]);
		free(p->fs[i]);
	}
	for (size_t i = 0; i < p->n_tg; i++) {
		section_free_contents(p->tg[i]);
		free(p->tg[i]);
	}
	free(p->fs);
	free(p->tg);
	free(p->file);
	memset(p, 0, sizeof(*p));
}

const struct setting *setting_get(const struct section *sec, enum key_id k)
{
	return &sec->set[k];
}

uint64_t setting_u(const struct section *sec, enum key_id k)
{
	return sec->set[k].v.u;
}

double setting_d(const struct section *sec, enum key_id k)
{
	return sec->set[k].v.d;
}

const char *setting_s(const struct section *sec, enum key_id k)
{
	return sec->set[k].v.s;
}

struct section *profile_stats_section(struct section *tg)
{
	if (!tg->stats) {
		tg->stats = section_new(SEC_STATS, tg->loc);
		if (!tg->stats)
			return NULL;
		tg->stats->parent = tg;
		snprintf(tg->stats->name, sizeof(tg->stats->name), "%s.stats", tg->name);
	}
	return tg->stats;
}

/* ---- values ---- */

static int add_item(struct setting *st, const struct list_item *it)
{
	struct list_item *v = realloc(st->items, (st->n_items + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->items = v;
	st->items[st->n_items++] = *it;
	return 0;
}

/* Matches an `ignore=` name: exact (case-insensitive) against every timed syscall, else FFSB's
 * rule, a unique case-insensitive prefix of one of its eight names. -1: unknown. */
static int match_syscall(const char *name)
{
	int found = -1;
	size_t n = strlen(name);
	for (int i = 0; i < SYS_COUNT; i++)
		if (strcasecmp(sys_table[i].name, name) == 0)
			return i;
	if (n == 0)
		return -1;
	for (int i = 0; i < SYS_COUNT; i++) {
		if (!(sys_table[i].flags & SYSF_FFSB) || strncasecmp(sys_table[i].name, name, n))
			continue;
		if (found >= 0)
			return -1; /* ambiguous */
		found = i;
	}
	return found;
}

static void syscall_names(char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < SYS_COUNT && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", sys_table[i].name);
}

/* Parses `value` for key k into a scratch setting or list item. Returns NULL or the error. */
static const char *parse_value(enum key_id k, const char *value, bool had_equals,
                               struct setting *out, struct list_item *item, char *err)
{
	const struct key_desc *kd = &key_table[k];
	char a[LEXER_MAX_LINE + 1], b[LEXER_MAX_LINE + 1];
	const char *e;
	bool bv;

	if (!had_equals && !(kd->flags & KF_LIST)) {
		snprintf(err, VALUE_ERR_LEN, "missing '=': write '%s=%s'", kd->name, value);
		return err;
	}
	switch (kd->type) {
	case KT_U32:
	case KT_U64:
		if ((e = value_parse_uint(value, &out->v.u, err)))
			return e;
		break;
	case KT_SIZE:
		if ((e = value_parse_size(value, &out->v.u, err)))
			return e;
		break;
	case KT_BOOL:
		if ((e = value_parse_bool(value, &bv, err)))
			return e;
		out->v.u = bv;
		return NULL;
	case KT_DOUBLE:
		if ((e = value_parse_double(value, &out->v.d, err)))
			return e;
		if (out->v.d < (double)kd->lo || out->v.d > (double)kd->hi) {
			snprintf(err, VALUE_ERR_LEN,
			         "%s is out of range (%" PRIu64 "..%" PRIu64 ")", value, kd->lo,
			         kd->hi);
			return err;
		}
		return NULL;
	case KT_STRING:
		if (!*value)
			return "missing value";
		return NULL;
	case KT_SIZE_WEIGHT:
		if ((e = value_split2(value, a, b, sizeof(a), err)))
			return "expected 'size weight', e.g. 'size_weight 4KB 33'";
		if ((e = value_parse_size(a, &item->u.sw.size, err)))
			return e;
		if (b[0] == '-') {
			snprintf(err, VALUE_ERR_LEN, "weight %s is negative", b);
			return err;
		}
		if ((e = value_parse_uint(b, &item->u.sw.weight, err)))
			return e;
		if (item->u.sw.weight < kd->lo || item->u.sw.weight > kd->hi) {
			snprintf(err, VALUE_ERR_LEN,
			         "weight %s is out of range (%" PRIu64 "..%" PRIu64 ")", b, kd->lo,
			         kd->hi);
			return err;
		}
		return NULL;
	case KT_RANGE:
		if ((e = value_split2(value, a, b, sizeof(a), err)))
			return "expected 'lo hi' in milliseconds, e.g. 'msec_range 0.00 0.01'";
		if ((e = value_parse_double(a, &item->u.range.lo_ms, err)) ||
		    (e = value_parse_double(b, &item->u.range.hi_ms, err)))
			return e;
		if (item->u.range.lo_ms < 0 || item->u.range.hi_ms < 0) {
			snprintf(err, VALUE_ERR_LEN, "'%s': latencies cannot be negative", value);
			return err;
		}
		if (item->u.range.hi_ms > (double)kd->hi) {
			snprintf(err, VALUE_ERR_LEN,
			         "'%s': %s ms is beyond %" PRIu64 " ms (one day)", value, b,
			         kd->hi);
			return err;
		}
		if (item->u.range.lo_ms >= item->u.range.hi_ms) {
			snprintf(err, VALUE_ERR_LEN, "'%s': lo must be below hi", value);
			return err;
		}
		return NULL;
	case KT_SYSCALL: {
		int s = match_syscall(value);
		if (s < 0) {
			char names[256];
			syscall_names(names, sizeof(names));
			snprintf(err, VALUE_ERR_LEN, "unknown system call '%s' (known: %s)", value,
			         names);
			return err;
		}
		item->u.sys = s;
		return NULL;
	}
	}
	if (out->v.u < kd->lo || out->v.u > kd->hi) {
		char lo[32], hi[32];
		if (kd->type == KT_SIZE) {
			value_format_size(kd->lo, lo, sizeof(lo));
			value_format_size(kd->hi, hi, sizeof(hi));
		} else {
			snprintf(lo, sizeof(lo), "%" PRIu64, kd->lo);
			snprintf(hi, sizeof(hi), "%" PRIu64, kd->hi);
		}
		snprintf(err, VALUE_ERR_LEN, "%s is out of range (%s..%s)", value, lo, hi);
		return err;
	}
	return NULL;
}

int profile_set(struct profile *p, struct section *sec, const char *key, const char *value,
                bool had_equals, struct src_loc loc, bool from_cli, struct diag *d)
{
	int k = key_by_name(key);
	char err[VALUE_ERR_LEN];
	struct setting tmp = {0};
	struct list_item item = {.loc = loc};

	(void)p;
	if (k < 0) {
		const char *hint = key_suggest(key);
		if (hint)
			diag_error(d, loc, sec->name[0] ? sec->name : NULL, NULL,
			           "unknown key '%s'; did you mean '%s'?", key, hint);
		else
			diag_error(d, loc, sec->name[0] ? sec->name : NULL, NULL,
			           "unknown key '%s' (`fsmix keys` lists them all)", key);
		return -1;
	}
	const struct key_desc *kd = &key_table[k];
	const char *secname = sec->kind == SEC_GLOBAL ? "global" : sec->name;
	if (!(kd->scopes & section_scope(sec))) {
		/* A key of an enclosing section usually means a missing [end]. */
		const struct section *up = sec->parent;
		while (up && !(kd->scopes & section_scope(up)))
			up = up->parent;
		if (up && !from_cli)
			diag_error(
			    d, loc, secname, kd->name,
			    "belongs in %s, not in [%s]; is an [end] missing before line %u?",
			    scope_label(kd->scopes), sec->name, loc.line);
		else
			diag_error(d, loc, secname, kd->name, "belongs in %s, not in %s%s%s",
			           scope_label(kd->scopes),
			           sec->kind == SEC_GLOBAL ? "the top level" : "[",
			           sec->kind == SEC_GLOBAL ? "" : sec->name,
			           sec->kind == SEC_GLOBAL ? "" : "]");
		return -1;
	}
	if (kd->flags & KF_DEPRECATED) {
		diag_warn(d, loc, secname, kd->name, "deprecated and ignored: %s", kd->help);
		return 0;
	}
	sec->set[k].attempted = true;
	const char *e = parse_value((enum key_id)k, value, had_equals, &tmp, &item, err);
	if (e) {
		diag_error(d, loc, secname, kd->name, "%s", e);
		return -1;
	}

	struct setting *st = &sec->set[k];
	if (kd->flags & KF_LIST) {
		if (from_cli && !st->items_from_cli) {
			free(st->items);
			st->items = NULL;
			st->n_items = 0;
			st->items_from_cli = true;
		}
		if (add_item(st, &item)) {
			diag_error(d, loc, secname, kd->name, "out of memory");
			return -1;
		}
		st->set = true;
		if (!st->loc.file || !st->loc.line)
			st->loc = loc;
		return 0;
	}
	if (st->set && !from_cli && st->loc.line)
		diag_warn(d, loc, secname, kd->name,
		          "already set at line %u; this later value wins (as in FFSB)",
		          st->loc.line);
	if (kd->type == KT_STRING) {
		char *s = strdup(value);
		if (!s) {
			diag_error(d, loc, secname, kd->name, "out of memory");
			return -1;
		}
		if (k == KEY_location && from_cli && st->v.s && st->loc.line && !sec->file_location)
			sec->file_location = st->v.s; /* keep the file's name for bindfs/clone */
		else
			free(st->v.s);
		st->v.s = s;
	} else {
		st->v = tmp.v;
	}
	st->set = true;
	st->loc = loc;
	return 0;
}

void setting_format(const struct section *sec, enum key_id k, char *buf, size_t len)
{
	const struct key_desc *kd = &key_table[k];
	const struct setting *st = &sec->set[k];
	char sz[32];
	switch (kd->type) {
	case KT_U32:
	case KT_U64:
	case KT_BOOL:
		if (!st->set && !kd->def)
			snprintf(buf, len, "(unset)");
		else
			snprintf(buf, len, "%" PRIu64, st->v.u);
		return;
	case KT_SIZE:
		value_format_size(st->v.u, sz, sizeof(sz));
		snprintf(buf, len, "%" PRIu64 " (%s)", st->v.u, sz);
		return;
	case KT_DOUBLE:
		snprintf(buf, len, "%g", st->v.d);
		return;
	case KT_STRING:
		snprintf(buf, len, "%s", st->v.s ? st->v.s : "(unset)");
		return;
	default:
		snprintf(buf, len, "%zu item%s", st->n_items, st->n_items == 1 ? "" : "s");
		return;
	}
}

/* ---- the inih handler: sections and nesting ---- */

struct parser {
	struct profile *p;
	struct lexer lx;
	struct diag *d;
	struct section *stack[4]; /* stack[0] is the top level */
	int depth;                /* index of the innermost open section */
	struct section **orphans; /* misplaced [stats] sections: parsed, then dropped */
	size_t n_orphans;
};

static struct section *top(struct parser *ps)
{
	return ps->stack[ps->depth];
}

static const char *close_hint(const struct section *s)
{
	switch (s->kind) {
	case SEC_FS:
	case SEC_TG:
		return s->aging ? "[end]" : "[endN]";
	default:
		return "[end]";
	}
}

/* Closes sections until the top level, warning about each unclosed one. */
static void close_all(struct parser *ps, uint32_t line, const char *why)
{
	while (ps->depth > 0) {
		struct section *s = top(ps);
		diag_error(ps->d, ((struct src_loc){ps->lx.file, s->loc.line}), s->name, NULL,
		           "opened here but never closed with %s before %s at line %u",
		           close_hint(s), why, line);
		ps->depth--;
	}
}

static int push_section(struct parser *ps, struct section *s)
{
	if (!s)
		return -1;
	s->parent = top(ps);
	ps->stack[++ps->depth] = s;
	return 0;
}

static struct section **grow(struct section ***v, size_t n)
{
	struct section **nv = realloc(*v, (n + 1) * sizeof(**v));
	if (!nv)
		return NULL;
	*v = nv;
	return &nv[n];
}

/* Splits "filesystem12" into the word and its number (-1 if none); 0 if the word is known. */
static int split_header(const char *h, char *word, size_t wlen, long *num)
{
	size_t i = 0;
	while (h[i] && !(h[i] >= '0' && h[i] <= '9') && i + 1 < wlen) {
		word[i] = h[i];
		i++;
	}
	word[i] = '\0';
	*num = -1;
	if (h[i]) {
		char err[VALUE_ERR_LEN];
		uint64_t v;
		if (value_parse_uint(h + i, &v, err) || v > 1000000)
			return -1;
		*num = (long)v;
	}
	if (!strcmp(word, "filesystem") || !strcmp(word, "threadgroup") || !strcmp(word, "stats") ||
	    !strcmp(word, "end"))
		return 0;
	return -1;
}

static void handle_section(struct parser *ps, const char *header)
{
	struct src_loc loc = {ps->lx.file, ps->lx.lineno};
	struct profile *p = ps->p;
	char word[32];
	long num;

	p->any_content = true;
	if (split_header(header, word, sizeof(word), &num)) {
		diag_error(
		    ps->d, loc, NULL, NULL,
		    "unknown section [%s]; expected [filesystemN], [threadgroupN], [stats] or "
		    "[endN]",
		    header);
		return;
	}
	struct section *cur = top(ps);
	if (!strcmp(word, "end")) {
		if (ps->depth == 0) {
			diag_error(ps->d, loc, NULL, NULL,
			           "[%s] closes nothing: no section is open", header);
			return;
		}
		if (num >= 0 && cur->header_number >= 0 && num != cur->header_number) {
			diag_error(ps->d, loc, NULL, NULL,
			           "[%s] does not match [%s] opened at line %u as [%s%ld]", header,
			           cur->name, cur->loc.line,
			           cur->kind == SEC_FS ? "filesystem" : "threadgroup",
			           cur->header_number);
		} else if (num >= 0 && cur->kind == SEC_STATS) {
			diag_error(
			    ps->d, loc, NULL, NULL,
			    "[%s] closes [stats] opened at line %u; close [stats] with [end]",
			    header, cur->loc.line);
		}
		cur->end_line = loc.line;
		ps->depth--;
		return;
	}
	if (!strcmp(word, "stats")) {
		if (num >= 0)
			diag_error(ps->d, loc, NULL, NULL, "[%s]: [stats] takes no number", header);
		if (cur->kind != SEC_TG) {
			diag_error(ps->d, loc, NULL, NULL,
			           "[stats] must be inside a [threadgroupN] (it is in %s%s%s)",
			           cur->kind == SEC_GLOBAL ? "the top level" : "[",
			           cur->kind == SEC_GLOBAL ? "" : cur->name,
			           cur->kind == SEC_GLOBAL ? "" : "]");
			/* Parse its keys anyway, so their own errors are found, then drop them. */
			struct section *orphan = section_new(SEC_STATS, loc);
			struct section **slot = orphan ? grow(&ps->orphans, ps->n_orphans) : NULL;
			if (!slot) {
				free(orphan);
				return;
			}
			*slot = orphan;
			ps->n_orphans++;
			snprintf(orphan->name, sizeof(orphan->name), "stats");
			push_section(ps, orphan);
			return;
		}
		if (cur->stats && cur->stats->loc.line) {
			diag_error(ps->d, loc, cur->name, NULL,
			           "second [stats] section (the first is at line %u)",
			           cur->stats->loc.line);
			return;
		}
		struct section *st = profile_stats_section(cur);
		if (!st)
			return;
		st->loc = loc;
		push_section(ps, st);
		return;
	}

	bool is_fs = !strcmp(word, "filesystem");
	if (is_fs && ps->depth > 0) {
		close_all(ps, loc.line, "[filesystem] starts");
		cur = top(ps);
	}
	if (!is_fs && ps->depth > 0 && !(cur->kind == SEC_FS && ps->depth == 1)) {
		close_all(ps, loc.line, "[threadgroup] starts");
		cur = top(ps);
	}
	struct section *s = section_new(is_fs ? SEC_FS : SEC_TG, loc);
	if (!s) {
		diag_error(ps->d, loc, NULL, NULL, "out of memory");
		return;
	}
	s->header_number = num;
	if (!is_fs && cur->kind == SEC_FS) {
		if (cur->age) {
			diag_error(
			    ps->d, loc, cur->name, NULL,
			    "second nested [threadgroup] (the aging group is at line %u); is "
			    "an [end] missing?",
			    cur->age->loc.line);
			section_free_contents(s);
			free(s);
			/* Keep parsing its keys into the existing aging group's place? No: skip. */
			return;
		}
		s->aging = true;
		snprintf(s->name, sizeof(s->name), "%s.threadgroup", cur->name);
		cur->age = s;
		push_section(ps, s);
		return;
	}
	struct section **slot = is_fs ? grow(&p->fs, p->n_fs) : grow(&p->tg, p->n_tg);
	if (!slot) {
		section_free_contents(s);
		free(s);
		diag_error(ps->d, loc, NULL, NULL, "out of memory");
		return;
	}
	*slot = s;
	s->ordinal = (unsigned)(is_fs ? p->n_fs++ : p->n_tg++);
	snprintf(s->name, sizeof(s->name), "%s%u", word, s->ordinal);
	if (num >= 0 && (unsigned long)num != s->ordinal)
		diag_warn(ps->d, loc, s->name, NULL,
		          "[%s] is %s number %u in file order; fsmix, like FFSB, numbers sections "
		          "by their order and ignores the number in the header",
		          header, word, s->ordinal);
	push_section(ps, s);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parser *ps = user;
	(void)section;
	(void)value;
	if (ps->lx.key[0] == '\0' || strcmp(name, ps->lx.key) != 0) {
		/* Only possible if inih split a line differently from the lexer: a bug. */
		if (strncmp(name, ps->lx.key, strlen(name)) != 0)
			diag_error(ps->d, ((struct src_loc){ps->lx.file, ps->lx.lineno}), NULL,
			           NULL, "internal error: parser and lexer disagree on key '%s'",
			           name);
		if (ps->lx.key[0] == '\0')
			return 1;
	}
	if (ps->lx.is_section) {
		handle_section(ps, ps->lx.value);
		return 1;
	}
	ps->p->any_content = true;
	(void)profile_set(ps->p, top(ps), ps->lx.key, ps->lx.value, ps->lx.had_equals,
	                  (struct src_loc){ps->lx.file, ps->lx.lineno}, false, ps->d);
	return 1;
}

int profile_parse_buffer(struct profile *p, const char *file, const char *buf, size_t len,
                         struct diag *d)
{
	struct parser *ps;
	size_t errors_before = d->errors;

	memset(p, 0, sizeof(*p));
	p->file = strdup(file);
	section_init(&p->global, SEC_GLOBAL, (struct src_loc){p->file, 0});
	snprintf(p->global.name, sizeof(p->global.name), "global");
	if (!p->file) {
		diag_error(d, ((struct src_loc){file, 0}), NULL, NULL, "out of memory");
		return -1;
	}
	if (lexer_check_text(p->file, buf, len, d))
		return -1;
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		diag_error(d, ((struct src_loc){p->file, 0}), NULL, NULL, "out of memory");
		return -1;
	}
	ps->p = p;
	ps->d = d;
	ps->stack[0] = &p->global;
	lexer_init(&ps->lx, p->file, buf, len, d);
	int rc = ini_parse_stream(lexer_read, &ps->lx, handler, ps);
	if (rc != 0)
		diag_error(d, ((struct src_loc){p->file, rc > 0 ? (uint32_t)rc : 0}), NULL, NULL,
		           "internal error: inih rejected a normalised line (code %d)", rc);
	/* FFSB accepts a profile whose last sections are not closed; so does fsmix, silently for
	 * the usual missing final [end0] and with a warning when more is open. */
	if (ps->depth > 1) {
		for (int i = ps->depth; i > 0; i--)
			diag_warn(d, ((struct src_loc){p->file, ps->stack[i]->loc.line}),
			          ps->stack[i]->name, NULL,
			          "not closed with %s; closed at the end of the file",
			          close_hint(ps->stack[i]));
	}
	if (!p->any_content)
		diag_error(d, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "the profile is empty: it needs at least a [filesystem] and a "
		           "[threadgroup] (see `fsmix keys` and docs/profile.md)");
	for (size_t i = 0; i < ps->n_orphans; i++) {
		section_free_contents(ps->orphans[i]);
		free(ps->orphans[i]);
	}
	free(ps->orphans);
	free(ps);
	return d->errors > errors_before ? -1 : 0;
}

int profile_parse_file(struct profile *p, const char *path, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	memset(p, 0, sizeof(*p));
	if (!f) {
		diag_error(d, ((struct src_loc){path, 0}), NULL, NULL, "cannot open: %s",
		           strerror(errno));
		return -1;
	}
	char *buf = malloc(PROFILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		diag_error(d, ((struct src_loc){path, 0}), NULL, NULL, "out of memory");
		return -1;
	}
	size_t n = fread(buf, 1, PROFILE_MAX_BYTES + 1, f);
	int read_err = ferror(f);
	fclose(f);
	if (read_err) {
		diag_error(d, ((struct src_loc){path, 0}), NULL, NULL, "cannot read: %s",
		           strerror(EIO));
		free(buf);
		return -1;
	}
	if (n > PROFILE_MAX_BYTES) {
		diag_error(d, ((struct src_loc){path, 0}), NULL, NULL,
		           "too large for a profile (over %u MiB); is this the right file?",
		           PROFILE_MAX_BYTES >> 20);
		free(buf);
		return -1;
	}
	int rc = profile_parse_buffer(p, path, buf, n, d);
	free(buf);
	return rc;
}
