/* keys.c - the key table, lookup, did-you-mean and the generated reference. */
#include "keys.h"

#include "compiler.h"
#include "plan.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* keys.def's dest and words columns (see there). */
#define FIELD_SIZE(type, f) sizeof(((type *)0)->f)
#define PLAN(f)                                                                                    \
	{                                                                                          \
		KD_PLAN, offsetof(struct plan, f), FIELD_SIZE(struct plan, f), 0                   \
	}
#define FS(f)                                                                                      \
	{                                                                                          \
		KD_FS, offsetof(struct plan_fs, f), FIELD_SIZE(struct plan_fs, f), 0               \
	}
#define GROUP(f)                                                                                   \
	{                                                                                          \
		KD_GROUP, offsetof(struct plan_group, f), FIELD_SIZE(struct plan_group, f), 0      \
	}
#define FS_LIST(f, n)                                                                              \
	{                                                                                          \
		KD_FS, offsetof(struct plan_fs, f), FIELD_SIZE(struct plan_fs, f),                 \
		    offsetof(struct plan_fs, n)                                                    \
	}
#define GROUP_LIST(f, n)                                                                           \
	{                                                                                          \
		KD_GROUP, offsetof(struct plan_group, f), FIELD_SIZE(struct plan_group, f),        \
		    offsetof(struct plan_group, n)                                                 \
	}
#define NOWHERE                                                                                    \
	{                                                                                          \
		KD_NONE, 0, 0, 0                                                                   \
	}
#define WORDS(...) ((const struct key_word[]){__VA_ARGS__, {NULL, 0}})
#define NO_WORDS   NULL

const struct key_desc key_table[KEY_COUNT] = {
#define KEY(name_, scopes_, type_, def_, lo_, hi_, flags_, dest_, words_, help_)                   \
	[KEY_##name_] = {.name = #name_,                                                           \
	                 .scopes = (scopes_),                                                      \
	                 .type = (type_),                                                          \
	                 .def = (def_),                                                            \
	                 .lo = (lo_),                                                              \
	                 .hi = (hi_),                                                              \
	                 .flags = (flags_),                                                        \
	                 .dest = dest_,                                                            \
	                 .words = (words_),                                                        \
	                 .help = (help_)},
#include "keys.def"
#undef KEY
#define OP(name_, flags_, body_, help_)                                                            \
	[KEY_##name_##                                                                             \
	    _weight] = {.name = #name_ "_weight",                                                  \
	                .scopes = SC_TG,                                                           \
	                .type = KT_U32,                                                            \
	                .def = "0",                                                                \
	                .lo = 0,                                                                   \
	                .hi = 1000000000,                                                          \
	                .flags = KF_WEIGHT | ((flags_) & (OPF_STEP | OPF_SEQ) ? KF_HIDDEN : 0),    \
	                .dest = GROUP(weight[OP_##name_]),                                         \
	                .help = "relative weight of " #name_ ": " help_},
#include "ops.def"
#undef OP
};

/* Other spellings users write. FFSB's README documents "bufferedio" but its parser only knows
 * "bufferio"; fsmix takes both. FFSB 5 profiles name latency buckets "bucket" and the
 * metadata operation "meta_weight"; FFSB 6.0 renamed them and rejects the old names. */
static const struct key_alias key_aliases[] = {
    {"bufferedio", KEY_bufferio, NULL},
    {"bucket", KEY_msec_range, "FFSB 5"},
    {"meta_weight", KEY_metaop_weight, "FFSB 5"},
};

const struct key_alias *key_alias_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_aliases); i++)
		if (strcmp(key_aliases[i].alias, name) == 0)
			return &key_aliases[i];
	return NULL;
}

int key_by_name(const char *name)
{
	for (int i = 0; i < KEY_COUNT; i++)
		if (!(key_table[i].flags & KF_HIDDEN) && strcmp(key_table[i].name, name) == 0)
			return i;
	for (size_t i = 0; i < ARRAY_SIZE(key_aliases); i++)
		if (strcmp(key_aliases[i].alias, name) == 0)
			return (int)key_aliases[i].key;
	return -1;
}

/* Case-insensitive Levenshtein distance, capped: strings longer than 63 are never "close". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return SIZE_MAX;
	size_t prev[64], cur[64];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			cur[j] = best;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *key_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (int i = 0; i < KEY_COUNT; i++) {
		if (key_table[i].flags & KF_HIDDEN)
			continue;
		size_t d = edit_distance(name, key_table[i].name);
		if (d < best_d) {
			best_d = d;
			best = key_table[i].name;
		}
	}
	/* A typo is at most a third of the word (and at least 2 edits are always allowed). */
	size_t allowed = strlen(name) / 3;
	if (allowed < 2)
		allowed = 2;
	return best_d <= allowed ? best : NULL;
}

const char *key_parse_scalar(enum key_id k, const char *text, uint64_t *u, double *d,
                             char err[VALUE_ERR_LEN])
{
	const struct key_desc *kd = &key_table[k];
	union key_value v = {0};
	union item_value unused;
	if (kd->flags & KF_LIST) {
		snprintf(err, VALUE_ERR_LEN, "%s is a list key, not a single value", kd->name);
		return err;
	}
	const char *e = value_parse(kd, text, &v, &unused, err);
	if (e)
		return e;
	if (kd->type == KT_DOUBLE)
		*d = v.d;
	else if (!key_is_text(kd))
		*u = v.u;
	return NULL;
}

const char *scope_label(unsigned scope)
{
	if (scope & SC_GLOBAL)
		return "the top level";
	if (scope & SC_FS)
		return "[filesystemN]";
	if (scope & SC_TG)
		return "[threadgroupN]";
	if (scope & SC_STATS)
		return "[stats]";
	return "?";
}

const char *key_type_label(enum key_type t)
{
	return value_type_label(t);
}

/* Bounds as users read them: sizes in binary units where exact, "no limit" for UINT64_MAX. */
static void format_bound(char *buf, size_t len, const struct key_desc *k, uint64_t v)
{
	static const char *const units[] = {"", "K", "M", "G", "T", "P"};
	if (v == UINT64_MAX) {
		snprintf(buf, len, "2^64-1");
		return;
	}
	if (k->type == KT_SIZE && v >= 1024) {
		int u = 0;
		uint64_t x = v;
		while (x % 1024 == 0 && x >= 1024 && u < 5) {
			x /= 1024;
			u++;
		}
		snprintf(buf, len, "%" PRIu64 "%s", x, units[u]);
		return;
	}
	snprintf(buf, len, "%" PRIu64, v);
}

static void key_range_text(char *buf, size_t len, const struct key_desc *k)
{
	char lo[32], hi[32];
	if (k->type == KT_WORD) { /* the words it takes: "none, sync, dsync" */
		size_t o = 0;
		buf[0] = '\0';
		for (int i = 0; k->words[i].word && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
			                      k->words[i].word);
		return;
	}
	if (k->type == KT_STRING || k->type == KT_SYSCALL || k->type == KT_BOOL) {
		snprintf(buf, len, "-");
		return;
	}
	format_bound(lo, sizeof(lo), k, k->lo);
	format_bound(hi, sizeof(hi), k, k->hi);
	snprintf(buf, len, "%s..%s%s", lo, hi, k->type == KT_SIZE_WEIGHT ? " (weight)" : "");
}

static const char *flag_text(unsigned flags)
{
	if (flags & KF_DEPRECATED)
		return "deprecated, ignored";
	if (flags & KF_REQUIRED)
		return "required";
	if (flags & KF_STRICT_OK)
		return "fsmix extension, accepted by --strict-ffsb";
	if (flags & KF_EXT)
		return "fsmix extension";
	if (flags & KF_LIST)
		return "repeatable";
	return "";
}

static void print_one(FILE *out, const struct key_desc *k)
{
	char range[64];
	key_range_text(range, sizeof(range), k);
	fprintf(out, "%s\n  section: %s\n  type:    %s\n  default: %s\n  range:   %s\n", k->name,
	        scope_label(k->scopes), key_type_label(k->type), k->def ? k->def : "(unset)",
	        range);
	if (flag_text(k->flags)[0])
		fprintf(out, "  note:    %s\n", flag_text(k->flags));
	fprintf(out, "  %s\n", k->help);
}

int keys_print_reference(FILE *out, const char *name)
{
	if (name) {
		int k = key_by_name(name);
		if (k < 0)
			return -1;
		print_one(out, &key_table[k]);
		return 0;
	}
	static const unsigned scopes[] = {SC_GLOBAL, SC_FS, SC_TG, SC_STATS};
	for (size_t s = 0; s < ARRAY_SIZE(scopes); s++) {
		fprintf(out, "%s%s:\n", s ? "\n" : "", scope_label(scopes[s]));
		for (int i = 0; i < KEY_COUNT; i++) {
			const struct key_desc *k = &key_table[i];
			if (!(k->scopes & scopes[s]) || (k->flags & KF_HIDDEN))
				continue;
			fprintf(out, "  %-22s %-11s %s%s%s%s\n", k->name, key_type_label(k->type),
			        k->help, flag_text(k->flags)[0] ? " [" : "", flag_text(k->flags),
			        flag_text(k->flags)[0] ? "]" : "");
		}
	}
	return 0;
}

void keys_print_markdown(FILE *out)
{
	static const unsigned scopes[] = {SC_GLOBAL, SC_FS, SC_TG, SC_STATS};
	fprintf(out, "| operation | weight key | needs | what it does |\n|---|---|---|---|\n");
	for (int op = 0; op < OP_COUNT; op++) {
		unsigned f = op_table[op].flags;
		const struct key_desc *wk = &key_table[key_weight_of((enum op_id)op)];
		fprintf(out, "| `%s` | `%s` | %s | %s |\n", op_table[op].name,
		        (wk->flags & KF_HIDDEN) ? "sequence" : wk->name,
		        (f & OPF_READ)    ? "read_blocksize"
		        : (f & OPF_WRITE) ? "write_blocksize"
		                          : "-",
		        op_table[op].help);
	}
	fprintf(out, "\n");
	for (size_t s = 0; s < ARRAY_SIZE(scopes); s++) {
		fprintf(out, "%s### Keys of %s\n\n", s ? "\n" : "", scope_label(scopes[s]));
		fprintf(out, "| key | type | default | range | notes | meaning |\n");
		fprintf(out, "|---|---|---|---|---|---|\n");
		for (int i = 0; i < KEY_COUNT; i++) {
			const struct key_desc *k = &key_table[i];
			char range[64];
			if (!(k->scopes & scopes[s]))
				continue;
			if (k->flags & KF_HIDDEN)
				continue;
			key_range_text(range, sizeof(range), k);
			fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", k->name,
			        key_type_label(k->type), k->def ? k->def : "unset", range,
			        flag_text(k->flags), k->help);
		}
	}
	fprintf(out,
	        "\nOther names accepted (FFSB 6.0 rejects them, so `--strict-ffsb` does too):\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(key_aliases); i++)
		fprintf(out, "- `%s` for `%s`%s%s%s\n", key_aliases[i].alias,
		        key_table[key_aliases[i].key].name,
		        key_aliases[i].old_version ? " (the " : "",
		        key_aliases[i].old_version ? key_aliases[i].old_version : "",
		        key_aliases[i].old_version ? " name; a warning)" : "");
}
