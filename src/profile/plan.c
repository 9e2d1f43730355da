/* plan.c - whole-profile validation and the typed plan (see plan.h): the fields come from
 * keys.def through one loop (fill); what is written here are the rules across keys. */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "dirtree.h"
#include "value.h"
#include "iokeys.h"
#include "phases.h"
#include "realism.h"
#include "seqkeys.h"

/* Context of one plan_build: the profile, the sink, and the resolved clone source of every
 * filesystem (-1: none). */
struct ctx {
	const struct profile *p;
	struct diag *d;
	int *clone_of;
};

static struct src_loc loc_of(const struct section *s, enum key_id k)
{
	if (s->set[k].set)
		return s->set[k].loc;
	return s->loc;
}

/* The effective setting of key k in filesystem i: its own, else its clone source's (following
 * chains), else the default. Own keys win over cloned ones. */
static const struct setting *fs_setting(const struct ctx *c, size_t i, enum key_id k)
{
	size_t hops = 0;
	size_t cur = i;
	while (!c->p->fs[cur]->set[k].set && c->clone_of[cur] >= 0 && hops++ < c->p->n_fs)
		cur = (size_t)c->clone_of[cur];
	return &c->p->fs[cur]->set[k];
}

static int find_fs_by_location(const struct profile *p, const char *loc)
{
	for (size_t i = 0; i < p->n_fs; i++) {
		/* --location replaces a filesystem's location; bindfs and clone in the file still
		 * name it by the location the file gave. */
		const char *l = setting_s(p->fs[i], KEY_location);
		const char *orig = p->fs[i]->file_location;
		if ((l && strcmp(l, loc) == 0) || (orig && strcmp(orig, loc) == 0))
			return (int)i;
	}
	return -1;
}

static void list_locations(const struct profile *p, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->n_fs && o < len; i++) {
		const char *l = setting_s(p->fs[i], KEY_location);
		o += (size_t)snprintf(buf + o, len - o, "%s'%s'", i ? ", " : "", l ? l : "(none)");
	}
	if (!p->n_fs)
		snprintf(buf, len, "none: the profile has no [filesystem]");
}

static void check_strict(struct ctx *c, const struct section *s)
{
	for (int k = 0; k < KEY_COUNT; k++) {
		bool ext = (key_table[k].flags & (KF_EXT | KF_STRICT_OK)) == KF_EXT;
		/* The weight of an fsmix operation (fdatasync variants, sync, ...) is one too. */
		if (key_table[k].flags & KF_WEIGHT)
			ext = op_table[key_op((enum key_id)k)].flags & OPF_EXT;
		if (ext && s->set[k].set)
			diag_error(c->d, DIAG_COMPAT, s->set[k].loc, s->name, key_table[k].name,
			           "fsmix extension, rejected by --strict-ffsb");
	}
}

/* Reports the lines of s that FFSB 6.0 would stop at (profile.h, enum compat_kind): with
 * --strict-ffsb each is an error, since FFSB would not run the profile; otherwise the
 * deprecated ones are warnings and other spellings pass silently. One message per kind and key
 * of a section, at its first line. */
static void report_compat(struct ctx *c, const struct section *s, bool strict)
{
	for (size_t i = 0; i < s->n_notes; i++) {
		const struct compat_note *n = &s->notes[i];
		const char *key = key_table[n->key].name;
		char more[64] = "";
		if (n->count > 1)
			snprintf(more, sizeof(more), " (%u lines from line %u)", n->count,
			         n->first.line);
		switch (n->kind) {
		case COMPAT_DEPRECATED_KEY:
			if (strict)
				diag_error(
				    c->d, DIAG_COMPAT, n->first, s->name, key,
				    "deprecated FFSB 5 key: FFSB 6.0 stops at it (an unknown "
				    "option); remove the line (--strict-ffsb)");
			else
				diag_warn(
				    c->d, DIAG_COMPAT, n->first, s->name, key,
				    "deprecated FFSB 5 key, ignored (FFSB 6.0 stops at it): %s",
				    n->key == KEY_fsync_file ? "use the *_fsync operations instead"
				                             : "fsmix counts the sections");
			break;
		case COMPAT_OLD_NAME:
			if (strict)
				diag_error(c->d, DIAG_COMPAT, n->first, s->name, n->written,
				           "the FFSB 5 name of %s%s: FFSB 6.0 rejects it; write %s "
				           "(--strict-ffsb)",
				           key, more, key);
			else
				diag_warn(
				    c->d, DIAG_COMPAT, n->first, s->name, n->written,
				    "the FFSB 5 name of %s%s, read as %s (FFSB 6.0 rejects it: "
				    "rename it)",
				    key, more, key);
			break;
		case COMPAT_SPELLING:
			if (strict)
				diag_error(c->d, DIAG_COMPAT, n->first, s->name, n->written,
				           "FFSB 6.0 knows only '%s' and rejects this spelling "
				           "(--strict-ffsb)",
				           key);
			break;
		case COMPAT_LIST_FORM:
			if (strict && key_table[n->key].type == KT_SYSCALL)
				diag_error(c->d, DIAG_COMPAT, n->first, s->name, n->written,
				           "written without '='%s: FFSB 6.0 rejects that; write "
				           "'%s=NAME' (--strict-ffsb)",
				           more, n->written);
			else if (strict)
				diag_error(
				    c->d, DIAG_COMPAT, n->first, s->name, n->written,
				    "written with '='%s: FFSB 6.0 rejects that; write '%s %s' "
				    "(--strict-ffsb)",
				    more, n->written,
				    key_table[n->key].type == KT_RANGE ? "LO HI" : "SIZE WEIGHT");
			break;
		}
	}
}

/* ---- every key into its field of the plan (keys.def's dest column) ---- */

/* Stores st, the effective setting of key k of section s, into its field of dst (the struct
 * key_table[k].dest.in names). A word that is not one of the key's words is reported here, at
 * the line that set it, and leaves the field 0 (the first word's value). */
static void store_key(struct ctx *c, const struct section *s, enum key_id k,
                      const struct setting *st, void *dst)
{
	const struct key_desc *kd = &key_table[k];
	char *field = (char *)dst + kd->dest.off;
	char err[VALUE_ERR_LEN];
	switch (kd->type) {
	case KT_U32: {
		uint32_t v = (uint32_t)st->v.u;
		memcpy(field, &v, sizeof(v));
		return;
	}
	case KT_U64:
	case KT_SIZE:
		memcpy(field, &st->v.u, sizeof(uint64_t));
		return;
	case KT_BOOL: {
		bool b = st->v.u != 0;
		memcpy(field, &b, sizeof(b));
		return;
	}
	case KT_DOUBLE:
		memcpy(field, &st->v.d, sizeof(double));
		return;
	case KT_STRING: {
		const char *text = st->v.s; /* borrowed from the profile */
		memcpy(field, &text, sizeof(text));
		return;
	}
	case KT_WORD: {
		int w = value_word(kd, st->v.s ? st->v.s : kd->def, err);
		if (w < 0)
			diag_error(c->d, DIAG_BAD_VALUE, st->loc, s->name, kd->name, "%s", err);
		else
			memcpy(field, &kd->words[w].value, sizeof(int));
		return;
	}
	case KT_SYSCALL: {
		uint32_t mask;
		memcpy(&mask, field, sizeof(mask));
		for (size_t i = 0; i < st->n_items; i++)
			mask |= 1u << st->items[i].u.sys;
		memcpy(field, &mask, sizeof(mask));
		return;
	}
	case KT_SIZE_WEIGHT:
	case KT_RANGE:
		break;
	}
	if (!st->n_items)
		return;
	bool ranges = kd->type == KT_RANGE;
	void *items = calloc(st->n_items,
	                     ranges ? sizeof(struct plan_range) : sizeof(struct plan_size_weight));
	if (!items) {
		diag_error(c->d, DIAG_NO_MEMORY, s->loc, s->name, NULL, "out of memory");
		return;
	}
	for (size_t i = 0; i < st->n_items; i++) {
		const union item_value *it = &st->items[i].u;
		if (ranges)
			((struct plan_range *)items)[i] =
			    (struct plan_range){it->range.lo_ms, it->range.hi_ms};
		else
			((struct plan_size_weight *)items)[i] =
			    (struct plan_size_weight){it->sw.size, it->sw.weight};
	}
	memcpy(field, &items, sizeof(items));
	memcpy((char *)dst + kd->dest.count_off, &st->n_items, sizeof(size_t));
}

/* Fills every field of dst, a struct of kind `in`, from the keys of section s: a thread
 * group's [stats] keys from its [stats] (if any), a filesystem's keys through its clone source
 * (fs_setting) except location, which clone never copies. */
static void fill(struct ctx *c, const struct section *s, enum key_target in, void *dst)
{
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		const struct section *from = (kd->scopes & SC_STATS) ? s->stats : s;
		if (kd->dest.in != in || !from)
			continue;
		const struct setting *st = &from->set[k];
		if (in == KD_FS && k != KEY_location)
			st = fs_setting(c, s->ordinal, (enum key_id)k);
		store_key(c, from, (enum key_id)k, st, dst);
	}
}

/* ---- thread groups ---- */

/* The rules of a group's [stats]: msec_range lines may touch but not overlap, and the keys
 * that depend on enable_stats / enable_range. */
static void check_stats(struct ctx *c, const struct section *tg, const struct plan_group *g)
{
	const struct section *st = tg->stats;
	if (!st)
		return;
	const struct setting *ign = setting_get(st, KEY_ignore);
	const struct setting *rs = setting_get(st, KEY_msec_range);
	for (size_t i = 0; i < g->n_ranges; i++) {
		const struct list_item *a = &rs->items[i];
		for (size_t j = 0; j < i; j++) {
			const struct list_item *b = &rs->items[j];
			/* Touching ends are fine: [0,0.01] and [0.01,0.02] share only a boundary.
			 */
			if (!(a->u.range.lo_ms < b->u.range.hi_ms &&
			      b->u.range.lo_ms < a->u.range.hi_ms))
				continue;
			/* b from --set has no line: name the option instead of "line 0" */
			if (b->loc.line)
				diag_error(c->d, DIAG_CONFLICT, a->loc, st->name, "msec_range",
				           "%g - %g overlaps %g - %g at line %u", a->u.range.lo_ms,
				           a->u.range.hi_ms, b->u.range.lo_ms, b->u.range.hi_ms,
				           b->loc.line);
			else
				diag_error(c->d, DIAG_CONFLICT, a->loc, st->name, "msec_range",
				           "%g - %g overlaps %g - %g (%s)", a->u.range.lo_ms,
				           a->u.range.hi_ms, b->u.range.lo_ms, b->u.range.hi_ms,
				           b->loc.file ? b->loc.file : "command line");
		}
	}
	if (g->enable_range && !rs->n_items)
		diag_warn(c->d, DIAG_IGNORED, loc_of(st, KEY_enable_range), st->name,
		          "enable_range",
		          "set but there is no msec_range line; no buckets will be counted");
	if (rs->n_items && !g->enable_range)
		diag_warn(c->d, DIAG_IGNORED, rs->loc, st->name, "msec_range",
		          "ignored because enable_range is not 1");
	if (!g->enable_stats && (g->enable_range || ign->n_items))
		diag_warn(c->d, DIAG_IGNORED, st->loc, st->name, NULL,
		          "ignored because enable_stats is not 1: no system call is timed");
}

/* Key k (a block size or op size) must be above 0 when an op of the group uses it: ops whose
 * flags include one of `flags`, or whose bit is in `ops`. One message per key, at the weight
 * written first, naming the others; none if k had a bad value (already reported). */
static void need_key(struct ctx *c, const struct section *tg, const struct plan_group *g,
                     enum key_id k, unsigned flags, unsigned ops, unsigned except)
{
	const struct setting *st = &tg->set[k];
	enum key_id users[OP_COUNT];
	size_t n = 0;

	if (setting_u(tg, k) || (st->attempted && !st->set))
		return;
	for (int op = 0; op < OP_COUNT; op++) {
		if (!g->weight[op] || (op_table[op].flags & OPF_STEP) ||
		    !((op_table[op].flags & flags) || (op < 32 && (ops & (1u << op)))) ||
		    (op < 32 && (except & (1u << op))))
			continue; /* (a sequence's steps: seqkeys.c names the step needing k) */
		/* Insert in file order, so the message points at the first line that needs k. */
		enum key_id wk = key_weight_of((enum op_id)op);
		size_t at = n++;
		while (at && tg->set[users[at - 1]].loc.line > tg->set[wk].loc.line) {
			users[at] = users[at - 1];
			at--;
		}
		users[at] = wk;
	}
	if (!n)
		return;
	char also[512] = "";
	size_t o = 0;
	for (size_t i = 1; i < n && o < sizeof(also); i++)
		o += (size_t)snprintf(also + o, sizeof(also) - o, "%s%s=%u at line %u",
		                      i == 1 ? " (also " : ", ", key_table[users[i]].name,
		                      g->weight[key_op(users[i])], tg->set[users[i]].loc.line);
	if (n > 1 && o < sizeof(also))
		snprintf(also + o, sizeof(also) - o, ")");
	const struct setting *first = &tg->set[users[0]];
	if (st->set)
		diag_error(c->d, DIAG_MISSING, st->loc, tg->name, key_table[k].name,
		           "0, but %s=%u (line %u) needs it above 0%s", key_table[users[0]].name,
		           g->weight[key_op(users[0])], first->loc.line, also);
	else
		diag_error(c->d, DIAG_MISSING, first->loc, tg->name, key_table[k].name,
		           "missing: %s=%u needs it%s", key_table[users[0]].name,
		           g->weight[key_op(users[0])], also);
}

/* True if d holds an unknown-key error of section `name` that was probably meant as an
 * <op>_weight (its name, or the key it was taken for, says weight): a cross-key rule about
 * weights stays quiet then, so one mistake gives one message. */
static bool weight_line_rejected(const struct diag *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_entry *e = &d->v[i];
		if (e->level != DIAG_ERROR || e->code != DIAG_UNKNOWN_KEY || !e->key ||
		    !e->section || strcmp(e->section, name))
			continue;
		const char *hint = key_suggest(e->key);
		if (strcasestr(e->key, "weight") || (hint && strcasestr(hint, "weight")))
			return true;
	}
	return false;
}

static void build_group(struct ctx *c, const struct section *tg, struct plan_group *g,
                        const struct plan_opts *o)
{
	g->name = tg->name;
	g->aging = tg->aging;
	g->bindfs = -1;
	if (o->strict_ffsb) {
		check_strict(c, tg);
		if (tg->stats)
			check_strict(c, tg->stats);
	}
	report_compat(c, tg, o->strict_ffsb);
	if (tg->stats)
		report_compat(c, tg->stats, o->strict_ffsb);
	if (!tg->set[KEY_num_threads].attempted)
		diag_error(c->d, DIAG_MISSING, tg->loc, tg->name, "num_threads",
		           "missing: every thread group needs num_threads=N (1..%u)",
		           KEYS_MAX_THREADS);
	fill(c, tg, KD_GROUP, g);
	for (int op = 0; op < OP_COUNT; op++)
		g->total_weight += g->weight[op];

	/* A weight line that was rejected (a typo, a bad number) is why the total is 0. */
	bool weight_rejected = weight_line_rejected(c->d, tg->name);
	for (int op = 0; op < OP_COUNT; op++) {
		const struct setting *w = &tg->set[key_weight_of((enum op_id)op)];
		if (w->attempted && !w->set)
			weight_rejected = true;
	}
	if (g->total_weight == 0 && !weight_rejected && !g->sequence)
		diag_error(c->d, DIAG_MISSING, tg->loc, tg->name, NULL,
		           "no weighted operation: set at least one <op>_weight above 0 "
		           "(e.g. readall_weight=1; `fsmix keys` lists the operations)");
	/* the ops whose call size comes from a mix need neither key (iokeys.h) */
	iokeys_group(c->d, tg, g, setting_u(&c->p->global, KEY_directio),
	             setting_u(&c->p->global, KEY_alignio));
	seqkeys_group(c->d, tg, g); /* sequence=: the steps, their weights (plan.h) */
	unsigned mixed = iokeys_mix_ops(g);
	need_key(c, tg, g, KEY_read_blocksize, OPF_READ, 0, mixed);
	need_key(c, tg, g, KEY_write_blocksize, OPF_WRITE, 0, mixed);
	need_key(c, tg, g, KEY_read_size, 0, 1u << OP_read, mixed);
	need_key(c, tg, g, KEY_write_size, OPF_WSIZE, 0, mixed);
	for (int op = 0; tg->aging && op < OP_COUNT; op++) {
		enum key_id wk = key_weight_of((enum op_id)op);
		unsigned fl = op_table[op].flags;
		if (g->weight[op] && !(fl & (OPF_CREATES | OPF_DELETES | OPF_APPENDS)))
			diag_error(c->d, DIAG_CONFLICT, tg->set[wk].loc, tg->name,
			           key_table[wk].name,
			           "an aging thread group can only create, append and delete");
	}
	/* Aging runs until the filesystem is full enough: no counts, delays or periods. */
	static const enum key_id not_aging[] = {KEY_num_ops, KEY_start_delay, KEY_op_period};
	for (size_t i = 0; tg->aging && i < sizeof(not_aging) / sizeof(not_aging[0]); i++)
		if (tg->set[not_aging[i]].set)
			diag_error(
			    c->d, DIAG_CONFLICT, tg->set[not_aging[i]].loc, tg->name,
			    key_table[not_aging[i]].name,
			    "not used in an aging thread group (it runs until desired_util)");
	if (g->op_period_ms && g->op_delay_ms)
		diag_error(c->d, DIAG_CONFLICT, loc_of(tg, KEY_op_period), tg->name, "op_period",
		           "cannot be combined with op_delay (line %u): the period already "
		           "spaces the operations",
		           tg->set[KEY_op_delay].loc.line);
	realism_group(c->d, tg, g); /* file_popularity, op_rate, arrival */
	if (g->write_stride && g->write_random)
		diag_error(c->d, DIAG_CONFLICT, loc_of(tg, KEY_write_stride), tg->name,
		           "write_stride", "cannot be combined with write_random (line %u)",
		           tg->set[KEY_write_random].loc.line);
	if (g->read_random && g->read_skip)
		diag_error(c->d, DIAG_CONFLICT, loc_of(tg, KEY_read_skip), tg->name, "read_skip",
		           "cannot be combined with read_random (line %u)",
		           tg->set[KEY_read_random].loc.line);

	const char *bind = setting_s(tg, KEY_bindfs);
	if (bind) {
		g->bindfs = find_fs_by_location(c->p, bind);
		if (g->bindfs < 0) {
			char locs[512];
			list_locations(c->p, locs, sizeof(locs));
			diag_error(c->d, DIAG_REFERENCE, tg->set[KEY_bindfs].loc, tg->name,
			           "bindfs", "no [filesystem] has location '%s' (locations: %s)",
			           bind, locs);
		}
	}
	check_stats(c, tg, g);
}

/* ---- filesystems ---- */

static void resolve_clones(struct ctx *c)
{
	const struct profile *p = c->p;
	for (size_t i = 0; i < p->n_fs; i++) {
		const char *src = setting_s(p->fs[i], KEY_clone);
		c->clone_of[i] = -1;
		if (!src)
			continue;
		int j = find_fs_by_location(p, src);
		if (j < 0) {
			char locs[512];
			list_locations(p, locs, sizeof(locs));
			diag_error(c->d, DIAG_REFERENCE, p->fs[i]->set[KEY_clone].loc,
			           p->fs[i]->name, "clone",
			           "no [filesystem] has location '%s' (locations: %s)", src, locs);
		} else if ((size_t)j == i) {
			diag_error(c->d, DIAG_REFERENCE, p->fs[i]->set[KEY_clone].loc,
			           p->fs[i]->name, "clone", "a filesystem cannot clone itself");
		} else {
			c->clone_of[i] = j;
		}
	}
	/* Reject cycles (a clones b clones a): walk each chain at most n_fs steps. */
	for (size_t i = 0; i < p->n_fs; i++) {
		int cur = c->clone_of[i];
		size_t steps = 0;
		while (cur >= 0 && steps <= p->n_fs) {
			cur = c->clone_of[cur];
			steps++;
		}
		if (cur >= 0) {
			diag_error(c->d, DIAG_REFERENCE, p->fs[i]->set[KEY_clone].loc,
			           p->fs[i]->name, "clone", "clone chain loops back to itself");
			c->clone_of[i] = -1;
		}
	}
}

/* The tree keys of filesystem i, for their lines (dirtree.h). */
static struct dirtree_settings tree_settings(const struct ctx *c, size_t i)
{
	return (struct dirtree_settings){
	    fs_setting(c, i, KEY_num_dirs), fs_setting(c, i, KEY_dir_depth),
	    fs_setting(c, i, KEY_dir_fanout), fs_setting(c, i, KEY_dir_files),
	    fs_setting(c, i, KEY_dir_per_thread)};
}

static void build_fs(struct ctx *c, size_t i, struct plan_fs *f, const struct plan_opts *o)
{
	const struct section *s = c->p->fs[i];
	f->index = (unsigned)i;
	f->name = s->name;
	if (o->strict_ffsb)
		check_strict(c, s);
	report_compat(c, s, o->strict_ffsb);
	if (!setting_s(s, KEY_location) && !s->set[KEY_location].attempted)
		diag_error(c->d, DIAG_MISSING, s->loc, s->name, "location",
		           "missing: every filesystem needs location=DIR (an existing directory)");
	fill(c, s, KD_FS, f);
	for (size_t k = 0; k < f->n_sizes; k++)
		f->size_weight_total += f->sizes[k].weight;
	const struct setting *sw = fs_setting(c, i, KEY_size_weight);
	const struct setting *mn = fs_setting(c, i, KEY_min_filesize);
	const struct setting *mx = fs_setting(c, i, KEY_max_filesize);
	realism_fs(c->d, s, fs_setting(c, i, KEY_size_dist), sw, mn, mx, f);
	struct dirtree_settings ts = tree_settings(c, i);
	dirtree_fs(c->d, s, &ts, f);
	if (f->n_sizes && (mn->set || mx->set))
		diag_warn(c->d, DIAG_IGNORED, mn->set ? mn->loc : mx->loc, s->name,
		          mn->set ? "min_filesize" : "max_filesize",
		          "ignored: size_weight (line %u) sets the file sizes", sw->loc.line);
	else if (f->min_filesize > f->max_filesize) {
		char mns[32], mxs[32];
		value_format_size(f->min_filesize, mns, sizeof(mns));
		value_format_size(f->max_filesize, mxs, sizeof(mxs));
		if (mx->set)
			diag_error(c->d, DIAG_CONFLICT, mn->set ? mn->loc : mx->loc, s->name,
			           "min_filesize", "%s is larger than max_filesize %s (line %u)",
			           mns, mxs, mx->loc.line);
		else
			diag_error(c->d, DIAG_CONFLICT, mn->set ? mn->loc : mx->loc, s->name,
			           "min_filesize",
			           "%s is larger than max_filesize, which is not set (0)", mns);
	}
	if (f->agefs && !s->age)
		diag_error(c->d, DIAG_MISSING, loc_of(s, KEY_agefs), s->name, "agefs",
		           "1 needs an aging [threadgroup] ... [end] nested in this filesystem");
	if (f->agefs && f->desired_util <= 0)
		diag_error(c->d, DIAG_MISSING, loc_of(s, KEY_agefs), s->name, "agefs",
		           "1 needs desired_util (the used fraction to age to, e.g. 0.5)");
	if (!f->agefs && s->age) {
		char end[32];
		if (s->header_number >= 0)
			snprintf(end, sizeof(end), "[end%ld]", s->header_number);
		else
			snprintf(end, sizeof(end), "[end]");
		if (!s->end_line) {
			/* Still open at the end of the file, or closed by a header that already
			 * said so: FFSB swallowed the thread group after a missing [endN] and
			 * ran without it. */
			if (!diag_find(c->d, DIAG_ERROR, DIAG_NOT_CLOSED, s->name, NULL))
				diag_error(c->d, DIAG_NOT_CLOSED, s->age->loc, s->name, NULL,
				           "opened at line %u is not closed: is %s missing before "
				           "line %u? (a [threadgroup] inside a filesystem is its "
				           "aging group, used only with agefs=1)",
				           s->loc.line, end, s->age->loc.line);
		} else {
			/* FFSB's own examples write the aging group out and switch it off. */
			diag_warn(c->d, DIAG_IGNORED, s->age->loc, s->name, NULL,
			          "the aging [threadgroup] at line %u is checked, then ignored: "
			          "agefs is not 1 (as in FFSB 6.0); set agefs=1 and desired_util "
			          "to age, or move the group after %s to run it",
			          s->age->loc.line, end);
		}
	}
	if (f->num_files && (f->init_size || f->init_util > 0))
		diag_warn(c->d, DIAG_IGNORED, s->loc, s->name, NULL,
		          "init_size and init_util are ignored because num_files is set");
}

/* A filesystem without file sizes (no min/max_filesize, no size_weight) gets empty files;
 * read and overwrite operations of the groups that use it then find no data, and FFSB 6.0
 * aborts on its size assertions. Worth a warning naming the first such operation. */
static void warn_empty_files(struct ctx *c, size_t i, const struct plan *pl)
{
	const struct plan_fs *f = &pl->fs[i];
	if (f->n_sizes || f->max_filesize || f->size_dist.kind)
		return;
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		const struct section *tg = c->p->tg[gi];
		if (g->bindfs >= 0 && (size_t)g->bindfs != i)
			continue;
		for (int op = 0; op < OP_COUNT; op++) {
			unsigned fl = op_table[op].flags;
			if (!g->weight[op] || !(fl & OPF_FILE) || (fl & OPF_APPENDS) ||
			    !(fl & (OPF_READ | OPF_WRITE)))
				continue;
			bool step = fl & OPF_STEP; /* a sequence's: "seq_read" is step "read" */
			enum key_id wk = step ? KEY_sequence : key_weight_of((enum op_id)op);
			diag_warn(c->d, DIAG_CONFLICT, c->p->fs[i]->loc, f->name, NULL,
			          "no file sizes (no min_filesize/max_filesize, no size_weight): "
			          "its files start empty, so %s%s of [%s] (line %u) finds no data "
			          "(FFSB 6.0 aborts on this)",
			          step ? "sequence step " : "",
			          step ? op_table[op].name + 4 : key_table[wk].name, g->name,
			          tg->set[wk].loc.line);
			return;
		}
	}
}

/* ramp_time counts seconds of a timed run: a run that ends after num_ops has no time to cut, so
 * the two are refused together (docs/profile.md); without a run (time=0) it has no effect. */
static void check_ramp(struct ctx *c, const struct plan *pl)
{
	const struct section *g = &c->p->global;
	if (!pl->ramp_s)
		return;
	for (size_t i = 0; i < c->p->n_tg; i++) {
		const struct section *tg = c->p->tg[i];
		if (!setting_u(tg, KEY_num_ops))
			continue;
		diag_error(c->d, DIAG_CONFLICT, g->set[KEY_ramp_time].loc, g->name, "ramp_time",
		           "cannot be combined with num_ops (set in [%s]): a run that ends after a "
		           "count of operations has no warm-up time to leave out; use time=N, or "
		           "drop ramp_time",
		           tg->name);
		return;
	}
	if (!pl->time_s)
		diag_warn(c->d, DIAG_CONFLICT, g->set[KEY_ramp_time].loc, g->name, "ramp_time",
		          "has no effect: time=0 only builds the file tree");
}

/* fidelity=ffsb6 reproduces FFSB's pick, whose sum of weights is 32 bits: a group or a
 * size_weight list summing to 2^32 or more is one FFSB could not run as written. */
static void check_fidelity(struct ctx *c, const struct plan *pl)
{
	if (pl->fidelity != FIDELITY_FFSB6)
		return;
	const struct setting *f = &c->p->global.set[KEY_fidelity];
	for (size_t i = 0; i < pl->n_groups; i++)
		if (pl->groups[i].total_weight > UINT32_MAX)
			diag_error(c->d, DIAG_CONFLICT, f->loc, "global", "fidelity",
			           "ffsb6: the weights of [%s] sum to %" PRIu64
			           ", beyond FFSB 6.0's 32-bit sum",
			           pl->groups[i].name, pl->groups[i].total_weight);
	for (size_t i = 0; i < pl->n_fs; i++) {
		const struct plan_group *age = pl->fs[i].age;
		if (age && age->total_weight > UINT32_MAX)
			diag_error(c->d, DIAG_CONFLICT, f->loc, "global", "fidelity",
			           "ffsb6: the weights of [%s] sum to %" PRIu64
			           ", beyond FFSB 6.0's 32-bit sum",
			           age->name, age->total_weight);
		if (pl->fs[i].size_weight_total > UINT32_MAX)
			diag_error(c->d, DIAG_CONFLICT, f->loc, "global", "fidelity",
			           "ffsb6: the size_weight weights of [%s] sum to %" PRIu64
			           ", beyond FFSB 6.0's 32-bit sum",
			           pl->fs[i].name, pl->fs[i].size_weight_total);
	}
}

/* The global key content: one of content.h's modes, given to every filesystem's files. auto,
 * the default, is header when something will check the content (verify=1, a durability log),
 * else fixed: the bytes nothing reads back cost nothing per write. */
static void build_content(struct ctx *c, struct plan *pl, const struct plan_opts *o)
{
	const struct section *g = &c->p->global;
	const struct src_loc loc = g->set[KEY_content].loc;
	const char *text = pl->content ? pl->content : key_table[KEY_content].def;
	bool checked = pl->verify || o->content_checked;
	char err[VALUE_ERR_LEN];
	if (!strcmp(text, "auto")) {
		pl->content_mode = checked ? CONTENT_MODE_HEADER : CONTENT_MODE_FIXED;
		pl->content_pct = 0;
	} else if (content_parse(text, &pl->content_mode, &pl->content_pct, err, sizeof(err))) {
		diag_error(c->d, DIAG_BAD_VALUE, loc, g->name, "content", "%s", err);
	} else if (pl->content_mode == CONTENT_MODE_FIXED && checked) {
		diag_error(c->d, DIAG_CONFLICT, loc, g->name, "content",
		           "content=fixed writes no header, so %s has nothing to check: use "
		           "auto, header or random",
		           pl->verify ? "verify=1" : "a durability log");
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		pl->fs[i].content_mode = pl->content_mode;
		pl->fs[i].content_pct = pl->content_pct;
	}
	/* holes of zeroes (truncate's, punch_hole's, zero_range's) are no generation: a read check
	 * would take them for lost data (a durability log checks only what was promised, never a
	 * hole) */
	/* metaop renames directories of meta/, which no record says: a durability log would be
	 * blind to them (mkdir and rmdir are its checked kin) */
	for (size_t gi = 0; o->content_checked && gi < pl->n_groups; gi++)
		if (pl->groups[gi].weight[OP_metaop])
			diag_error(c->d, DIAG_CONFLICT,
			           c->p->tg[gi]->set[key_weight_of(OP_metaop)].loc,
			           pl->groups[gi].name, key_table[key_weight_of(OP_metaop)].name,
			           "metaop renames directories that the durability log does not "
			           "record, so fsmix verify could not check them: use mkdir_weight "
			           "and rmdir_weight, whose directories it checks");
	for (size_t gi = 0; pl->verify && gi < pl->n_groups; gi++)
		for (int op = 0; op < OP_COUNT; op++)
			if (pl->groups[gi].weight[op] && (op_table[op].flags & OPF_HOLES))
				diag_error(
				    c->d, DIAG_CONFLICT, c->p->tg[gi]->set[key_weight_of(op)].loc,
				    pl->groups[gi].name, key_table[key_weight_of(op)].name,
				    "%s leaves holes of zeroes that verify=1 would read as lost "
				    "data: use --durability-log and fsmix verify to check it",
				    op_table[op].name);
}

int plan_build(struct plan *pl, const struct profile *p, const struct plan_opts *o, struct diag *d)
{
	static const struct plan_opts no_opts;
	size_t errors_before = d->errors;
	struct ctx c = {.p = p, .d = d};

	if (!o)
		o = &no_opts;
	memset(pl, 0, sizeof(*pl));
	const struct section *g = &p->global;
	if (o->strict_ffsb)
		check_strict(&c, g);
	report_compat(&c, g, o->strict_ffsb);
	fill(&c, g, KD_PLAN, pl);
	pl->alignio = pl->alignio || pl->directio; /* O_DIRECT needs aligned offsets */
	pl->seed_given = g->set[KEY_seed].set;

	if (p->any_content && !p->n_fs)
		diag_error(d, DIAG_MISSING, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "no [filesystem] section: fsmix needs at least one, with location=DIR");
	for (size_t i = 0; i < p->n_tg; i++)
		if (setting_u(p->tg[i], KEY_num_ops))
			pl->counted = true;
	if (p->any_content && !g->set[KEY_time].attempted && p->n_tg && !pl->counted &&
	    !phases_declared(p) && !diag_find(d, DIAG_ERROR, DIAG_ANY, NULL, "time"))
		diag_warn(d, DIAG_MISSING, ((struct src_loc){p->file, 0}), NULL, "time",
		          "not set: fsmix only builds the file tree (as FFSB does); set time=N "
		          "or pass --time N to run");
	check_ramp(&c, pl);

	c.clone_of = calloc(p->n_fs + 1, sizeof(int));
	pl->fs = calloc(p->n_fs + 1, sizeof(*pl->fs));
	pl->groups = calloc(p->n_tg + 1, sizeof(*pl->groups));
	if (!c.clone_of || !pl->fs || !pl->groups) {
		diag_error(d, DIAG_NO_MEMORY, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "out of memory");
		free(c.clone_of);
		plan_free(pl);
		return -1;
	}
	pl->n_fs = p->n_fs;
	pl->n_groups = p->n_tg;
	resolve_clones(&c);
	for (size_t i = 0; i < p->n_fs; i++) {
		build_fs(&c, i, &pl->fs[i], o);
		const struct section *age = p->fs[i]->age;
		if (age && pl->fs[i].agefs) {
			pl->fs[i].age = calloc(1, sizeof(*pl->fs[i].age));
			if (!pl->fs[i].age) {
				diag_error(d, DIAG_NO_MEMORY, age->loc, age->name, NULL,
				           "out of memory");
				continue;
			}
			build_group(&c, age, pl->fs[i].age, o);
			pl->fs[i].age->index = (unsigned)i;
		} else if (age && p->fs[i]->end_line) {
			/* Ignored (agefs is not 1), but checked like any aging group. */
			struct plan_group unused;
			memset(&unused, 0, sizeof(unused));
			build_group(&c, age, &unused, o);
			free(unused.ranges);
		}
	}
	for (size_t i = 0; i < p->n_tg; i++) {
		build_group(&c, p->tg[i], &pl->groups[i], o);
		pl->groups[i].index = (unsigned)i;
		pl->total_threads += pl->groups[i].num_threads;
	}
	/* A thread group swallowed as a filesystem's aging group has its own message. */
	bool swallowed = false;
	for (size_t i = 0; i < p->n_fs; i++)
		if (p->fs[i]->age && !pl->fs[i].agefs && !p->fs[i]->end_line)
			swallowed = true;
	phases_build(d, p, pl); /* dir_per_thread: a directory per thread of a phase */
	for (size_t i = 0; i < p->n_fs; i++) {
		warn_empty_files(&c, i, pl);
		struct dirtree_settings ts = tree_settings(&c, i);
		dirtree_threads(d, p->fs[i], &ts, &pl->fs[i], phases_threads_at_once(pl));
	}
	if (p->any_content && !p->n_tg && (pl->time_s > 0 || pl->counted) && !swallowed)
		diag_error(d, DIAG_MISSING, ((struct src_loc){p->file, 0}), NULL, NULL,
		           "no [threadgroup] section: nothing would run for time=%u",
		           (unsigned)pl->time_s);
	check_fidelity(&c, pl);
	build_content(&c, pl, o);
	if (pl->total_threads > KEYS_MAX_THREADS)
		diag_error(d, DIAG_CONFLICT, ((struct src_loc){p->file, 0}), NULL, "num_threads",
		           "%" PRIu64 " threads in all groups; the limit is %u", pl->total_threads,
		           KEYS_MAX_THREADS);
	free(c.clone_of);
	if (d->errors > errors_before) {
		plan_free(pl);
		return -1;
	}
	return 0;
}

void plan_free(struct plan *pl)
{
	for (size_t i = 0; pl->fs && i < pl->n_fs; i++) {
		free(pl->fs[i].sizes);
		if (pl->fs[i].age)
			free(pl->fs[i].age->ranges);
		free(pl->fs[i].age);
	}
	for (size_t i = 0; pl->groups && i < pl->n_groups; i++)
		free(pl->groups[i].ranges);
	free(pl->fs);
	free(pl->groups);
	memset(pl, 0, sizeof(*pl));
}
