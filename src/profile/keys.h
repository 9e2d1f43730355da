/* keys.h - the profile key table, expanded from keys.def plus one <op>_weight key per op. */
#ifndef FSMIX_KEYS_H
#define FSMIX_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ops.h"
#include "value.h"

/* Where a key may appear. A section kind has exactly one of these bits. */
enum key_scope {
	SC_GLOBAL = 1u << 0, /* top level, outside any section */
	SC_FS = 1u << 1,     /* [filesystemN] */
	SC_TG = 1u << 2,    /* [threadgroupN], and the aging [threadgroup] nested in a filesystem */
	SC_STATS = 1u << 3, /* [stats] nested in a thread group */
};

enum key_flags {
	KF_REQUIRED = 1u << 0,   /* the section is invalid without it */
	KF_DEPRECATED = 1u << 1, /* accepted with a warning, then ignored */
	KF_EXT = 1u << 2,        /* fsmix extension: --strict-ffsb rejects it */
	KF_LIST = 1u << 3,       /* repeatable; each occurrence adds an item */
	KF_WEIGHT = 1u << 4,     /* an <op>_weight key; key_op() tells which op */
	KF_STRICT_OK = 1u << 5,  /* an extension --strict-ffsb accepts: it asks for FFSB's own
	                          * behaviour (fidelity) */
	KF_HIDDEN = 1u << 6,     /* no key of the profile language: the weight of a sequence or a
	                          * sequence step (OPF_SEQ, OPF_STEP), which sequence= sets; not
	                          * found by name, listed or printed */
};

/* The most worker threads a group may have, and all groups together (num_threads, plan.c). */
#define KEYS_MAX_THREADS 65536u

enum key_id {
#define KEY(name, scopes, type, def, lo, hi, flags, dest, words, help) KEY_##name,
#include "keys.def"
#undef KEY
#define OP(name, flags, body, help) KEY_##name##_weight,
#include "ops.def"
#undef OP
	KEY_COUNT
};

#define KEY_FIRST_WEIGHT KEY_read_weight

/* The plan struct a key fills (plan.h): the top level fills struct plan, a [filesystemN]
 * struct plan_fs, a thread group and its [stats] struct plan_group. */
enum key_target { KD_NONE, KD_PLAN, KD_FS, KD_GROUP };

/* Where a key's value goes in the plan (fio's off1): the field at `off` of the `in` struct,
 * `size` bytes wide (checked against the key's type by test_keys). List keys: `off` is the
 * array pointer and `count_off` its size_t item count; KT_SYSCALL lists set bits (1 << sys)
 * of a uint32_t mask. KD_NONE: plan.c resolves the key itself (clone, bindfs) or ignores it
 * (deprecated keys). */
struct key_dest {
	enum key_target in;
	size_t off, size;
	size_t count_off;
};

/* An allowed word of a KT_WORD key and the value it puts in the plan (fio's posval). */
struct key_word {
	const char *word; /* NULL ends the list */
	int value;
};

struct key_desc {
	const char *name;
	unsigned scopes;    /* enum key_scope bits */
	enum key_type type; /* how the value is parsed (value.h) */
	const char *def;    /* default as text (parsed like file input), NULL: unset */
	uint64_t lo, hi;    /* inclusive bounds of numbers, sizes and list weights */
	unsigned flags;     /* enum key_flags */
	struct key_dest dest;
	const struct key_word *words; /* KT_WORD: the accepted words; else NULL */
	const char *help;
};

extern const struct key_desc key_table[KEY_COUNT];

/* key_is_text - the key's value is text the setting owns (KT_STRING, KT_WORD). */
static inline bool key_is_text(const struct key_desc *kd)
{
	return kd->type == KT_STRING || kd->type == KT_WORD;
}

/* key_by_name - key id for `name` (exact, case-sensitive; accepts documented aliases such as
 * "bufferedio"), or -1. */
int key_by_name(const char *name);

/* Another name fsmix accepts for a key. FFSB 6.0 rejects every alias as an unknown option, so
 * --strict-ffsb reports each one; `old_version` non-NULL marks the name of an older FFSB (a
 * warning by default, since the profile needs renaming before FFSB 6.0 runs it). */
struct key_alias {
	const char *alias;
	enum key_id key;
	const char *old_version; /* "FFSB 5", or NULL for a plain other spelling */
};

/* key_alias_lookup - the alias entry for `name`, or NULL if it is no alias. */
const struct key_alias *key_alias_lookup(const char *name);

/* key_op - the op an <op>_weight key weights (KEY_x_weight -> OP_x). */
static inline enum op_id key_op(enum key_id k)
{
	return (enum op_id)(k - KEY_FIRST_WEIGHT);
}

/* key_weight_of - the <op>_weight key of an op. */
static inline enum key_id key_weight_of(enum op_id op)
{
	return (enum key_id)(KEY_FIRST_WEIGHT + op);
}

/* key_suggest - the known key closest to `name` by edit distance (case-insensitive), or NULL
 * when nothing is close enough to be a plausible typo. */
const char *key_suggest(const char *name);

/* key_parse_scalar - parse `text` as the value of the scalar key k (integer, size, 0|1, number or
 * text) and check it against the key's bounds, exactly as a profile line or --set is parsed
 * (the defaults in keys.def go through it too). On success stores the value in *u (integers,
 * sizes, booleans) or *d (numbers) and returns NULL; otherwise returns the message, which names
 * the text and, for numbers, the allowed range. List keys are not scalars: an error. */
const char *key_parse_scalar(enum key_id k, const char *text, uint64_t *u, double *d,
                             char err[VALUE_ERR_LEN]);

/* scope_label - how a scope is named to users: "[filesystemN]", "top level", ... */
const char *scope_label(unsigned scope);

/* key_type_label - short type name for docs: "integer", "size", "0|1", ... (value_type_label) */
const char *key_type_label(enum key_type t);

/* keys_print_reference - `fsmix keys [NAME]`: all keys (name == NULL) or one, as text.
 * Returns 0, or -1 when `name` is not a key. */
int keys_print_reference(FILE *out, const char *name);

/* keys_print_markdown - the key reference as Markdown tables (the generated part of
 * docs/profile.md; a test compares the two). */
void keys_print_markdown(FILE *out);

#endif
