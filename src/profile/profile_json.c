/* profile_json.c - the resolved profile as text and JSON (see profile_json.h). */
#include "profile_json.h"
#include "iokeys.h"
#include "seqkeys.h"
#include "dirtree.h"
#include "phases.h"
#include "realism.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "value.h"

static void origin(const struct setting *st, char *buf, size_t len)
{
	if (!st->set)
		snprintf(buf, len, "default");
	else if (st->loc.line)
		snprintf(buf, len, "%s:%u", st->loc.file, st->loc.line);
	else
		snprintf(buf, len, "%s", st->loc.file ? st->loc.file : "command line");
}

static void print_section(FILE *out, const struct section *s)
{
	unsigned scope = section_scope(s);
	char val[1100], org[160];
	fprintf(out, "[%s]\n", s->kind == SEC_GLOBAL ? "global" : s->name);
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		const struct setting *st = &s->set[k];
		if (!(kd->scopes & scope) || (kd->flags & (KF_DEPRECATED | KF_HIDDEN)))
			continue;
		origin(st, org, sizeof(org));
		if (kd->flags & KF_LIST) {
			if (!st->n_items) {
				fprintf(out, "  %-20s = (none)  # default\n", kd->name);
				continue;
			}
			for (size_t i = 0; i < st->n_items; i++) {
				struct setting one = {.set = true, .loc = st->items[i].loc};
				value_format_item(kd, &st->items[i].u, val, sizeof(val));
				origin(&one, org, sizeof(org));
				fprintf(out, "  %-20s %-17s  # %s\n", kd->name, val, org);
			}
			continue;
		}
		setting_format(s, (enum key_id)k, val, sizeof(val));
		fprintf(out, "  %-20s = %-15s  # %s\n", kd->name, val, org);
	}
}

void profile_print_text(FILE *out, const struct profile *p, const struct plan *pl)
{
	print_section(out, &p->global);
	for (size_t i = 0; i < p->n_fs; i++) {
		fprintf(out, "\n");
		print_section(out, p->fs[i]);
		if (p->fs[i]->age) {
			fprintf(out, "\n");
			print_section(out, p->fs[i]->age);
			if (p->fs[i]->age->stats) {
				fprintf(out, "\n");
				print_section(out, p->fs[i]->age->stats);
			}
		}
	}
	for (size_t i = 0; i < p->n_tg; i++) {
		fprintf(out, "\n");
		print_section(out, p->tg[i]);
		if (p->tg[i]->stats) {
			fprintf(out, "\n");
			print_section(out, p->tg[i]->stats);
		}
	}
	fprintf(out, "\nSummary\n");
	fprintf(out, "  time: %" PRIu32 " s%s\n", pl->time_s,
	        pl->n_phases ? (pl->time_s ? " (each phase's, unless phase_time)" : "")
	        : pl->time_s ? ""
	                     : " (build the file tree only)");
	phases_print(out, pl);
	for (size_t i = 0; i < pl->n_fs; i++) {
		const struct plan_fs *f = &pl->fs[i];
		fprintf(out, "  %s: %s, %" PRIu32 " files, %" PRIu32 " dirs, ", f->name,
		        f->location, f->num_files, f->num_dirs);
		if (f->size_dist.kind)
			fprintf(out, "size_dist %s", f->size_dist_text);
		else if (f->n_sizes)
			fprintf(out, "%zu size weights", f->n_sizes);
		else
			fprintf(out, "sizes %" PRIu64 "..%" PRIu64 " bytes", f->min_filesize,
			        f->max_filesize);
		fprintf(out, "%s\n", f->age ? ", aged" : "");
		realism_print_sizes(out, f);
		dirtree_print(out, f);
	}
	for (size_t i = 0; i < pl->n_groups; i++) {
		const struct plan_group *g = &pl->groups[i];
		int weighted = 0;
		for (int op = 0; op < OP_COUNT; op++)
			weighted +=
			    g->weight[op] > 0 && !(op_table[op].flags & (OPF_STEP | OPF_SEQ));
		fprintf(out, "  %s: %" PRIu32 " threads, %d weighted ops, %zu msec ranges%s\n",
		        g->name, g->num_threads, weighted, g->n_ranges,
		        g->enable_stats ? ", stats on" : "");
		realism_print_group(out, g);
		iokeys_print_group(out, g);
		seqkeys_print_group(out, g);
	}
}

static void settings_of(FILE *out, const struct section *s)
{
	unsigned scope = section_scope(s);
	char val[1100];
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		const struct setting *st = &s->set[k];
		if (!(kd->scopes & scope) || (kd->flags & (KF_DEPRECATED | KF_HIDDEN)))
			continue;
		fprintf(out, "%s.%s=", s->kind == SEC_GLOBAL ? "global" : s->name, kd->name);
		if (kd->flags & KF_LIST) {
			for (size_t i = 0; i < st->n_items; i++) {
				value_format_item(kd, &st->items[i].u, val, sizeof(val));
				fprintf(out, "%s%s", i ? "; " : "", val);
			}
		} else {
			setting_format(s, (enum key_id)k, val, sizeof(val));
			fputs(val, out);
		}
		fputc('\n', out);
	}
	if (s->age)
		settings_of(out, s->age);
	if (s->stats)
		settings_of(out, s->stats);
}

void profile_print_settings(FILE *out, const struct profile *p)
{
	settings_of(out, &p->global);
	for (size_t i = 0; i < p->n_fs; i++)
		settings_of(out, p->fs[i]);
	for (size_t i = 0; i < p->n_tg; i++)
		settings_of(out, p->tg[i]);
}

/* ---- JSON ---- */

static json_t *setting_json(const struct section *s, enum key_id k)
{
	const struct key_desc *kd = &key_table[k];
	const struct setting *st = &s->set[k];
	json_t *v;
	if (kd->flags & KF_LIST) {
		v = json_array();
		for (size_t i = 0; v && i < st->n_items; i++)
			json_array_append_new(
			    v, value_item_json(kd, &st->items[i].u, st->items[i].loc.line));
	} else {
		v = value_json(kd, &st->v, !st->set && !kd->def);
	}
	char org[160];
	origin(st, org, sizeof(org));
	return json_pack("{sosssi}", "value", v ? v : json_null(), "source", org, "line",
	                 (int)st->loc.line);
}

static json_t *section_json(const struct section *s)
{
	json_t *keys = json_object();
	unsigned scope = section_scope(s);
	for (int k = 0; keys && k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		if (!(kd->scopes & scope) || (kd->flags & (KF_DEPRECATED | KF_HIDDEN)))
			continue;
		json_object_set_new(keys, kd->name, setting_json(s, (enum key_id)k));
	}
	json_t *o = json_pack("{sssiso}", "name", s->kind == SEC_GLOBAL ? "global" : s->name,
	                      "line", (int)s->loc.line, "keys", keys);
	if (o && s->age)
		json_object_set_new(o, "aging_threadgroup", section_json(s->age));
	if (o && s->stats)
		json_object_set_new(o, "stats", section_json(s->stats));
	return o;
}

json_t *profile_json_object(const struct profile *p)
{
	json_t *o = json_object();
	json_t *fs = json_array(), *tg = json_array();
	if (!o || !fs || !tg) {
		json_decref(o);
		json_decref(fs);
		json_decref(tg);
		return NULL;
	}
	for (size_t i = 0; i < p->n_fs; i++)
		json_array_append_new(fs, section_json(p->fs[i]));
	for (size_t i = 0; i < p->n_tg; i++)
		json_array_append_new(tg, section_json(p->tg[i]));
	json_object_set_new(o, "file", p->file ? json_string(p->file) : json_null());
	json_object_set_new(o, "global", section_json(&p->global));
	json_object_set_new(o, "filesystems", fs);
	json_object_set_new(o, "threadgroups", tg);
	return o;
}

int profile_json_print(FILE *out, const struct profile *p, const struct plan *pl,
                       const struct diag *d)
{
	json_t *root = json_object();
	json_t *prof = profile_json_object(p), *msgs = json_array();
	if (!root || !prof || !msgs)
		goto fail;
	for (size_t i = 0; i < d->n; i++) {
		char line[1536];
		diag_format(&d->v[i], line, sizeof(line));
		json_array_append_new(msgs, json_string(line));
	}
	json_object_set_new(root, "fsmix_check_version", json_integer(1));
	json_object_set_new(root, "profile", json_string(p->file));
	json_object_set_new(root, "valid", json_boolean(pl != NULL));
	json_object_set_new(root, "messages", msgs);
	json_object_set(root, "global", json_object_get(prof, "global"));
	json_object_set(root, "filesystems", json_object_get(prof, "filesystems"));
	json_object_set(root, "threadgroups", json_object_get(prof, "threadgroups"));
	json_decref(prof);
	if (pl) {
		json_t *sum = json_object();
		json_t *sfs = json_array(), *stg = json_array();
		for (size_t i = 0; i < pl->n_fs; i++)
			json_array_append_new(
			    sfs, json_pack("{sssIsIsIsb}", "name", pl->fs[i].name, "num_files",
			                   (json_int_t)pl->fs[i].num_files, "num_dirs",
			                   (json_int_t)pl->fs[i].num_dirs, "size_weights",
			                   (json_int_t)pl->fs[i].n_sizes, "aging",
			                   pl->fs[i].age != NULL));
		for (size_t i = 0; i < pl->n_groups; i++)
			json_array_append_new(
			    stg, json_pack("{sssIsIsIsb}", "name", pl->groups[i].name,
			                   "num_threads", (json_int_t)pl->groups[i].num_threads,
			                   "total_weight", (json_int_t)pl->groups[i].total_weight,
			                   "msec_ranges", (json_int_t)pl->groups[i].n_ranges,
			                   "enable_stats", pl->groups[i].enable_stats));
		json_object_set_new(sum, "time", json_integer(pl->time_s));
		json_object_set_new(sum, "filesystems", sfs);
		json_object_set_new(sum, "threadgroups", stg);
		json_object_set_new(root, "summary", sum);
	}
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return rc ? -1 : 0;
fail:
	json_decref(root);
	json_decref(prof);
	json_decref(msgs);
	return -1;
}
