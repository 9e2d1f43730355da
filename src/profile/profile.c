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

/* The header that closes sec: "[end0]" for "[filesystem0]" or "[threadgroup0]" as written,
 * "[end]" for an unnumbered header, [stats] and the aging [threadgroup]. */
static void end_tag(const struct section *sec, char *buf, size_t len)
{
	if ((sec->kind == SEC_FS || sec->kind == SEC_TG) && sec->header_number >= 0)
		snprintf(buf, len, "[end%ld]", sec->header_number);
	else
		snprintf(buf, len, "[end]");
}

/* Parses the default text of every key with the parser of file values (test_keys checks that
 * every default parses and lies within its bounds, so a failure cannot happen here). */
static void section_init(struct section *sec, enum section_kind kind, struct src_loc loc)
{
	memset(sec, 0, sizeof(*sec));
	sec->kind = kind;
	sec->loc = loc;
	sec->header_number = -1;
	for (int k = 0; k < KEY_COUNT; k++) {
		char err[VALUE_ERR_LEN];
		union item_value unused;
		if (key_table[k].def && !key_is_text(&key_table[k]))
			(void)value_parse(&key_table[k], key_table[k].def, &sec->set[k].v, &unused,
			                  err);
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
		if (key_is_text(&key_table[k]))
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
		return -1;
	st->items = v;
	st->items[st->n_items++] = *it;
	return 0;
}

/* Parses `value` for key k into a scratch setting or list item. Returns NULL or the error. */
static const char *parse_value(enum key_id k, const char *value, bool had_equals,
                               struct setting *out, struct list_item *item, char *err)
{
	const struct key_desc *kd = &key_table[k];
	/* FFSB wants list lines without '=' ("size_weight 4k 33"); fsmix takes both forms. */
	if (!(kd->flags & KF_LIST) && !had_equals) {
		snprintf(err, VALUE_ERR_LEN, "missing '=': write '%s=%s'", kd->name, value);
		return err;
	}
	return value_parse(kd, value, &out->v, &item->u, err);
}

/* Records a line FFSB 6.0 would stop at (see enum compat_kind); plan_build reports it. */
static void note_compat(struct section *sec, enum compat_kind kind, int key, const char *written,
                        struct src_loc loc)
{
	for (size_t i = 0; i < sec->n_notes; i++) {
		struct compat_note *n = &sec->notes[i];
		if (n->kind == kind && n->key == key && !strcmp(n->written, written)) {
			n->count++;
			return;
		}
	}
	if (sec->n_notes < SECTION_MAX_NOTES)
		sec->notes[sec->n_notes++] = (struct compat_note){
		    .kind = kind, .key = key, .written = written, .first = loc, .count = 1};
}

int profile_set(struct section *sec, const char *key, const char *value, bool had_equals,
                struct src_loc loc, bool from_cli, struct diag *d)
{
	int k = key_by_name(key);
	char err[VALUE_ERR_LEN];
	struct setting tmp = {0};
	struct list_item item = {.loc = loc};

	const char *secname = sec->kind == SEC_GLOBAL ? "global" : sec->name;
	if (k < 0) {
		const char *hint = key_suggest(key);
		int hk = hint ? key_by_name(hint) : -1;
		if (hk >= 0 && !strcasecmp(hint, key))
			diag_error(d, DIAG_UNKNOWN_KEY, loc, secname, key,
			           "unknown key '%s' (keys are case-sensitive); did you mean '%s'?",
			           key, hint);
		else if (hk >= 0 && !(key_table[hk].scopes & section_scope(sec)))
			diag_error(d, DIAG_UNKNOWN_KEY, loc, secname, key,
			           "unknown key '%s'; did you mean '%s' (a key of %s)?", key, hint,
			           scope_label(key_table[hk].scopes));
		else if (hk >= 0)
			diag_error(d, DIAG_UNKNOWN_KEY, loc, secname, key,
			           "unknown key '%s'; did you mean '%s'?", key, hint);
		else
			diag_error(d, DIAG_UNKNOWN_KEY, loc, secname, key,
			           "unknown key '%s' (`fsmix keys` lists them all)", key);
		return -1;
	}
	const struct key_desc *kd = &key_table[k];
	if (!(kd->scopes & section_scope(sec))) {
		/* A key of an enclosing section usually means a missing [end]. */
		const struct section *up = sec->parent;
		char end[32];
		while (up && !(kd->scopes & section_scope(up)))
			up = up->parent;
		end_tag(sec, end, sizeof(end));
		if (up && !from_cli)
			diag_error(d, DIAG_MISPLACED_KEY, loc, secname, kd->name,
			           "belongs in %s, not in [%s]; is %s missing before line %u?",
			           scope_label(kd->scopes), sec->name, end, loc.line);
		else if (sec->kind == SEC_GLOBAL)
			diag_error(d, DIAG_MISPLACED_KEY, loc, secname, kd->name,
			           "belongs in %s, not at the top level", scope_label(kd->scopes));
		else
			diag_error(d, DIAG_MISPLACED_KEY, loc, secname, kd->name,
			           "belongs in %s, not in [%s]", scope_label(kd->scopes),
			           sec->name);
		return -1;
	}
	const struct key_alias *alias = key_alias_lookup(key);
	if (kd->flags & KF_DEPRECATED) {
		note_compat(sec, COMPAT_DEPRECATED_KEY, k, kd->name, loc);
		return 0;
	}
	if (alias)
		note_compat(sec, alias->old_version ? COMPAT_OLD_NAME : COMPAT_SPELLING, k,
		            alias->alias, loc);
	/* FFSB reads size_weight and msec_range as "key a b" and ignore as "ignore=name". */
	bool ffsb_form = kd->type == KT_SYSCALL ? had_equals : !had_equals;
	if ((kd->flags & KF_LIST) && !ffsb_form && !from_cli)
		note_compat(sec, COMPAT_LIST_FORM, k, alias ? alias->alias : kd->name, loc);
	sec->set[k].attempted = true;
	const char *e = parse_value((enum key_id)k, value, had_equals, &tmp, &item, err);
	if (e) {
		diag_error(d, DIAG_BAD_VALUE, loc, secname, kd->name, "%s", e);
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
			diag_error(d, DIAG_NO_MEMORY, loc, secname, kd->name, "out of memory");
			return -1;
		}
		st->set = true;
		if (!st->loc.file || !st->loc.line)
			st->loc = loc;
		return 0;
	}
	if (st->set && !from_cli && st->loc.line)
		diag_warn(d, DIAG_DUPLICATE, loc, secname, kd->name,
		          "already set at line %u; this later value wins (as in FFSB)",
		          st->loc.line);
	if (key_is_text(kd)) {
		char *s = strdup(value);
		if (!s) {
			diag_error(d, DIAG_NO_MEMORY, loc, secname, kd->name, "out of memory");
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
	if (kd->flags & KF_LIST)
		snprintf(buf, len, "%zu item%s", st->n_items, st->n_items == 1 ? "" : "s");
	else
		value_format(kd, &st->v, !st->set && !kd->def, buf, len);
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

/* Closes every open section before a [filesystem] or [threadgroup] header at `at` that cannot
 * nest where it is: each one lacks its [end]. */
static void close_all(struct parser *ps, struct src_loc at)
{
	while (ps->depth > 0) {
		struct section *s = top(ps);
		char end[32];
		end_tag(s, end, sizeof(end));
		diag_error(ps->d, DIAG_NOT_CLOSED, at, s->name, NULL,
		           "opened at line %u is not closed: is %s missing before line %u?",
		           s->loc.line, end, at.line);
		ps->depth--;
	}
}

static int push_section(struct parser *ps, struct section *s)
{
	if (!s)
		return -1;
	/* The grammar nests at most 3 deep (filesystem, aging threadgroup, stats); anything deeper
	 * has already been reported, so close the innermost section rather than overflow. */
	while (ps->depth + 1 >= (int)(sizeof(ps->stack) / sizeof(ps->stack[0])))
		ps->depth--;
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

/* Opens a section that is parsed (so its keys' own errors are found) but then dropped: a
 * misplaced [stats], a second [stats]. Keys then never land in the enclosing section, where
 * each would be one more misleading error. */
static void push_orphan(struct parser *ps, enum section_kind kind, struct src_loc loc,
                        const char *name)
{
	struct section *orphan = section_new(kind, loc);
	struct section **slot = orphan ? grow(&ps->orphans, ps->n_orphans) : NULL;
	if (!slot) {
		free(orphan);
		diag_error(ps->d, DIAG_NO_MEMORY, loc, NULL, NULL, "out of memory");
		return;
	}
	*slot = orphan;
	ps->n_orphans++;
	snprintf(orphan->name, sizeof(orphan->name), "%s", name);
	push_section(ps, orphan);
}

static const char *const section_words[] = {"filesystem", "threadgroup", "stats", "end"};

/* Splits "filesystem12" into the word and its number (-1 if none). Returns 0 if the word is
 * known, 1 if only a known word starts the header ("[end_filesystem]", "[stats_x]"; the word
 * is then set to it so that the caller can recover), -1 if nothing is recognised. */
static int split_header(const char *h, char *word, size_t wlen, long *num)
{
	size_t i = 0;
	while (h[i] && !(h[i] >= '0' && h[i] <= '9') && i + 1 < wlen) {
		word[i] = h[i];
		i++;
	}
	word[i] = '\0';
	*num = -1;
	bool bad_num = false;
	if (h[i]) {
		char err[VALUE_ERR_LEN];
		uint64_t v;
		if (value_parse_uint(h + i, &v, err) || v > 1000000)
			bad_num = true;
		else
			*num = (long)v;
	}
	for (size_t k = 0; k < sizeof(section_words) / sizeof(section_words[0]); k++) {
		size_t n = strlen(section_words[k]);
		if (!strcmp(word, section_words[k]) && !bad_num)
			return 0;
		if (!strncasecmp(h, section_words[k], n)) {
			snprintf(word, wlen, "%s", section_words[k]);
			*num = -1;
			return 1;
		}
	}
	return -1;
}

/* Makes the aging group of filesystem fs a [threadgroupN] of its own: the file forgot the
 * filesystem's [endN] before it. */
static void rehome_age_group(struct parser *ps, struct section *fs)
{
	struct profile *p = ps->p;
	struct section *g = fs->age;
	struct section **slot = grow(&p->tg, p->n_tg);
	if (!slot)
		return; /* stays the aging group; its error comes from plan_build */
	*slot = g;
	fs->age = NULL;
	g->aging = false;
	g->parent = &p->global;
	g->ordinal = (unsigned)p->n_tg++;
	snprintf(g->name, sizeof(g->name), "threadgroup%u", g->ordinal);
	if (g->stats)
		snprintf(g->stats->name, sizeof(g->stats->name), "%s.stats", g->name);
}

/* A [threadgroup] nested in a filesystem that already has its aging group: there is no valid
 * reading, so the filesystem's [endN] is missing. Where: before the aging group if the
 * filesystem says nothing about aging (no agefs, no desired_util), since a thread group FFSB
 * would swallow as aging group is the usual victim; else before this header. Either way the
 * filesystem is closed here and the group that follows is an ordinary thread group, so nothing
 * cascades. */
static void missing_fs_end(struct parser *ps, struct section *fs, struct src_loc at)
{
	char end[32];
	end_tag(fs, end, sizeof(end));
	/* agefs or desired_util written: the nested group is a deliberate aging group (perhaps
	 * switched off with agefs=0, as FFSB's own examples do). */
	bool deliberate = fs->set[KEY_agefs].set || fs->set[KEY_desired_util].set;
	if (!deliberate) {
		uint32_t line = fs->age->loc.line;
		diag_error(ps->d, DIAG_NOT_CLOSED, ((struct src_loc){at.file, line}), fs->name,
		           NULL,
		           "opened at line %u is not closed: is %s missing before line %u? (a "
		           "[threadgroup] inside a filesystem is its aging group, used only with "
		           "agefs=1)",
		           fs->loc.line, end, line);
		rehome_age_group(ps, fs);
	} else {
		diag_error(ps->d, DIAG_NOT_CLOSED, at, fs->name, NULL,
		           "opened at line %u is not closed: is %s missing before line %u? (its "
		           "aging [threadgroup] is at line %u, and a filesystem has only one)",
		           fs->loc.line, end, at.line, fs->age->loc.line);
	}
	ps->depth = 0;
}

/* FFSB closes the innermost open section at any header containing "end" and ignores its
 * number; so does fsmix. A number that names another section gets a warning saying how the
 * line was read, and, when it names an enclosing open section, where the [end] it suggests is
 * missing would go: a genuinely missing [end] then shows in the structure that follows. */
static void handle_end(struct parser *ps, const char *header, long num, struct src_loc loc)
{
	struct section *cur = top(ps);
	char end[32];
	if (ps->depth == 0) {
		diag_error(ps->d, DIAG_SECTION, loc, NULL, NULL,
		           "[%s] closes nothing: no section is open", header);
		return;
	}
	end_tag(cur, end, sizeof(end));
	if (num >= 0 && num != cur->header_number) {
		const char *shown = cur->kind == SEC_STATS ? "stats" : cur->name;
		const struct section *named = NULL;
		for (int i = ps->depth - 1; i > 0 && !named; i--)
			if (ps->stack[i]->header_number == num)
				named = ps->stack[i];
		if (named)
			diag_warn(ps->d, DIAG_SECTION, loc, cur->name, NULL,
			          "[%s] closes [%s] (line %u), the innermost open section, as in "
			          "FFSB; if it was meant to close [%s] (line %u), %s is missing "
			          "before line %u",
			          header, shown, cur->loc.line, named->name, named->loc.line, end,
			          loc.line);
		else if (cur->header_number >= 0 || cur->kind == SEC_STATS)
			diag_warn(
			    ps->d, DIAG_SECTION, loc, cur->name, NULL,
			    "[%s] closes [%s] (line %u): FFSB looks only at the word 'end', and "
			    "so does fsmix; write %s",
			    header, shown, cur->loc.line, end);
	}
	cur->end_line = loc.line;
	ps->depth--;
}

static void handle_stats(struct parser *ps, const char *header, long num, struct src_loc loc)
{
	struct section *cur = top(ps);
	if (num >= 0)
		diag_error(ps->d, DIAG_SECTION, loc, NULL, NULL, "[%s]: [stats] takes no number",
		           header);
	if (cur->kind == SEC_STATS) {
		/* [stats] cannot nest: the previous one lacks its [end]. Close it here. */
		diag_error(ps->d, DIAG_NOT_CLOSED, loc, NULL, NULL,
		           "[stats] inside [stats] (opened at line %u): is an [end] missing before "
		           "line %u?",
		           cur->loc.line, loc.line);
		ps->depth--;
		cur = top(ps);
	}
	if (cur->kind != SEC_TG) {
		if (cur->kind == SEC_GLOBAL)
			diag_error(ps->d, DIAG_SECTION, loc, NULL, NULL,
			           "[stats] must be inside a [threadgroupN], not at the top level "
			           "(its keys are checked, then ignored)");
		else
			diag_error(ps->d, DIAG_SECTION, loc, cur->name, NULL,
			           "[stats] must be inside a [threadgroupN], not in [%s] (its keys "
			           "are checked, then ignored)",
			           cur->name);
		push_orphan(ps, SEC_STATS, loc, "stats");
		return;
	}
	if (cur->stats && cur->stats->loc.line) {
		diag_error(ps->d, DIAG_SECTION, loc, cur->name, NULL,
		           "second [stats] section (the first is at line %u; its keys are checked, "
		           "then ignored)",
		           cur->stats->loc.line);
		push_orphan(ps, SEC_STATS, loc, cur->stats->name);
		return;
	}
	struct section *st = profile_stats_section(cur);
	if (!st)
		return;
	st->loc = loc;
	push_section(ps, st);
}

static void handle_section(struct parser *ps, const char *header)
{
	struct src_loc loc = {ps->lx.file, ps->lx.lineno};
	struct profile *p = ps->p;
	char word[32];
	long num;

	p->any_content = true;
	int known = split_header(header, word, sizeof(word), &num);
	if (known < 0) {
		diag_error(ps->d, DIAG_SECTION, loc, NULL, NULL,
		           "unknown section [%s]; expected [filesystemN], [threadgroupN], [stats] "
		           "or [endN]",
		           header);
		return;
	}
	if (known > 0) {
		/* Read it as the section it starts with, so what follows parses sensibly. */
		diag_error(ps->d, DIAG_SECTION, loc, NULL, NULL,
		           "unknown section [%s]; did you mean [%s%s]? (read as [%s])", header,
		           word, strcmp(word, "stats") ? "N" : "", word);
	}
	struct section *cur = top(ps);
	if (!strcmp(word, "end")) {
		handle_end(ps, header, num, loc);
		return;
	}
	if (!strcmp(word, "stats")) {
		handle_stats(ps, header, num, loc);
		return;
	}

	bool is_fs = !strcmp(word, "filesystem");
	if (!is_fs && ps->depth == 1 && cur->kind == SEC_FS && cur->age) {
		missing_fs_end(ps, cur, loc);
		cur = top(ps);
	}
	if (ps->depth > 0 && (is_fs || !(cur->kind == SEC_FS && ps->depth == 1))) {
		close_all(ps, loc);
		cur = top(ps);
	}
	struct section *s = section_new(is_fs ? SEC_FS : SEC_TG, loc);
	if (!s) {
		diag_error(ps->d, DIAG_NO_MEMORY, loc, NULL, NULL, "out of memory");
		return;
	}
	s->header_number = num;
	if (!is_fs && cur->kind == SEC_FS) {
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
		diag_error(ps->d, DIAG_NO_MEMORY, loc, NULL, NULL, "out of memory");
		return;
	}
	*slot = s;
	s->ordinal = (unsigned)(is_fs ? p->n_fs++ : p->n_tg++);
	snprintf(s->name, sizeof(s->name), "%s%u", word, s->ordinal);
	if (num >= 0 && (unsigned long)num != s->ordinal)
		diag_warn(ps->d, DIAG_SECTION, loc, s->name, NULL,
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
			diag_error(ps->d, DIAG_INTERNAL,
			           ((struct src_loc){ps->lx.file, ps->lx.lineno}), NULL, NULL,
			           "internal error: parser and lexer disagree on key '%s'", name);
		if (ps->lx.key[0] == '\0')
			return 1;
	}
	if (ps->lx.is_section) {
		handle_section(ps, ps->lx.value);
		return 1;
	}
	ps->p->any_content = true;
	(void)profile_set(top(ps), ps->lx.key, ps->lx.value, ps->lx.had_equals,
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
		diag_error(d, DIAG_NO_MEMORY, ((struct src_loc){file, 0}), NULL, NULL,
		           "out of memory");
		return -1;
	}
	if (lexer_check_text(p->file, buf, len, d))
		return -1;
	const char *ffsb4;
	uint32_t ffsb4_line = lexer_find_ffsb4(buf, len, &ffsb4);
	if (ffsb4_line) {
		/* Its keys are all unknown here: one line that says why beats a screenful. */
		diag_error(
		    d, DIAG_FILE, ((struct src_loc){p->file, ffsb4_line}), NULL, NULL,
		    "%s: this is an FFSB 4 profile, which fsmix does not read; rewrite it in "
		    "the FFSB 6.0 format ([filesystemN] and [threadgroupN] sections, see "
		    "docs/profile.md)",
		    ffsb4);
		return -1;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		diag_error(d, DIAG_NO_MEMORY, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "out of memory");
		return -1;
	}
	ps->p = p;
	ps->d = d;
	ps->stack[0] = &p->global;
	lexer_init(&ps->lx, p->file, buf, len, d);
	int rc = ini_parse_stream(lexer_read, &ps->lx, handler, ps);
	if (rc != 0)
		diag_error(d, DIAG_INTERNAL, ((struct src_loc){p->file, rc > 0 ? (uint32_t)rc : 0}),
		           NULL, NULL, "internal error: inih rejected a normalised line (code %d)",
		           rc);
	/* FFSB accepts a profile whose last sections are not closed; so does fsmix, with a
	 * warning for each, since a missing [end] elsewhere is a real mistake. */
	for (int i = ps->depth; i > 0; i--) {
		const struct section *open = ps->stack[i];
		char end[32];
		/* A filesystem that swallowed the thread group after it gets plan_build's error. */
		if (open->kind == SEC_FS && open->age && !open->set[KEY_agefs].v.u)
			continue;
		end_tag(ps->stack[i], end, sizeof(end));
		diag_warn(d, DIAG_NOT_CLOSED, ((struct src_loc){p->file, ps->stack[i]->loc.line}),
		          ps->stack[i]->name, NULL,
		          "not closed: %s is missing at the end of the file (accepted, as in FFSB)",
		          end);
	}
	if (!p->any_content && ps->lx.lineno == 0)
		diag_error(d, DIAG_FILE, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "the profile is empty (0 bytes): it needs at least a [filesystem] and "
		           "a [threadgroup] (see `fsmix keys` and docs/profile.md)");
	else if (!p->any_content)
		diag_error(d, DIAG_FILE, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "the profile is empty: it has only comments and blank lines, and needs "
		           "at least a [filesystem] and a [threadgroup] (see `fsmix keys` and "
		           "docs/profile.md)");
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
		diag_error(d, DIAG_FILE, ((struct src_loc){path, 0}), NULL, NULL, "cannot open: %s",
		           strerror(errno));
		return -1;
	}
	char *buf = malloc(PROFILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		diag_error(d, DIAG_NO_MEMORY, ((struct src_loc){path, 0}), NULL, NULL,
		           "out of memory");
		return -1;
	}
	size_t n = fread(buf, 1, PROFILE_MAX_BYTES + 1, f);
	int read_err = ferror(f);
	fclose(f);
	if (read_err) {
		diag_error(d, DIAG_FILE, ((struct src_loc){path, 0}), NULL, NULL, "cannot read: %s",
		           strerror(EIO));
		free(buf);
		return -1;
	}
	if (n > PROFILE_MAX_BYTES) {
		diag_error(d, DIAG_FILE, ((struct src_loc){path, 0}), NULL, NULL,
		           "too large for a profile (over %u MiB); is this the right file?",
		           PROFILE_MAX_BYTES >> 20);
		free(buf);
		return -1;
	}
	int rc = profile_parse_buffer(p, path, buf, n, d);
	free(buf);
	return rc;
}
