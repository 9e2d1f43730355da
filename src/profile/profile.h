/* profile.h - what the user wrote, where, and how it was resolved: the parsed profile.
 *
 * A profile is a tree of sections (top level, [filesystemN] with an optional aging
 * [threadgroup], [threadgroupN] with an optional [stats]). Every section holds one `setting`
 * per key of the key table (keys.def), each remembering its source location, so that
 * `fsmix check` can say where every value came from and messages can cite both lines of a
 * conflict. The profile is owned by the parser and the command line; workers never see it
 * (plan.h turns it into the typed, read-only plan they use).
 */
#ifndef FSMIX_PROFILE_H
#define FSMIX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "keys.h"

struct list_item {
	struct src_loc loc;
	union item_value u; /* value.h */
};

struct setting {
	bool set;                /* given in the file or on the command line (else the default) */
	bool attempted;          /* given, valid or not: "missing" errors are not repeated for it */
	struct src_loc loc;      /* where it was set (or, for a default, file NULL line 0) */
	union key_value v;       /* value.h; KT_STRING and KT_WORD: owned text, NULL when unset */
	struct list_item *items; /* KF_LIST keys (owned) */
	size_t n_items;
	bool items_from_cli; /* a --set replaced the file's items; later --set items append */
};

enum section_kind { SEC_GLOBAL, SEC_FS, SEC_TG, SEC_STATS };

/* Lines fsmix accepts but FFSB 6.0 would stop at. The parser only records them; plan_build
 * reports each kind once per section and key: an error with --strict-ffsb, else a warning for
 * the deprecated ones and nothing for the rest. */
enum compat_kind {
	COMPAT_DEPRECATED_KEY, /* num_filesystems, num_threadgroups, fsync_file: ignored */
	COMPAT_OLD_NAME,       /* an FFSB 5 name of a key (bucket, meta_weight): read as the key */
	COMPAT_SPELLING,       /* another spelling (bufferedio) */
	COMPAT_LIST_FORM,      /* a list line in the other form: "msec_range=0 1", "ignore close" */
};

struct compat_note {
	enum compat_kind kind;
	int key;             /* enum key_id */
	const char *written; /* the name as written (static: the key or alias table) */
	struct src_loc first;
	unsigned count; /* lines of this kind and key in the section */
};

#define SECTION_MAX_NOTES 16 /* distinct (kind, key) pairs remembered per section */

struct section {
	enum section_kind kind;
	unsigned ordinal;   /* filesystemN / threadgroupN numbering: order of appearance */
	long header_number; /* the N written in the header, -1 if none */
	bool aging;         /* a [threadgroup] nested in a [filesystem] */
	struct src_loc loc; /* header line (top level: the file) */
	uint32_t end_line;  /* line of the closing [end], 0 if closed implicitly */
	char name[48];      /* "filesystem0", "threadgroup1", "filesystem0.threadgroup", ... */
	struct section *parent;
	struct section *age;   /* SEC_FS: the nested aging thread group, or NULL */
	struct section *stats; /* SEC_TG: the nested [stats], or NULL */
	char *file_location;   /* SEC_FS: the file's location after --location replaced it */
	struct setting set[KEY_COUNT];
	struct compat_note notes[SECTION_MAX_NOTES];
	size_t n_notes;
};

struct profile {
	char *file; /* display name of the profile file (owned); src_loc.file points here */
	struct section global;
	struct section **fs;
	size_t n_fs;
	struct section **tg;
	size_t n_tg;
	bool any_content; /* at least one key or section line */
};

/* profile_parse_buffer - parse `len` bytes named `file` (for messages) into p (zeroed by it).
 * Every problem goes to d; returns 0 when d holds no error, -1 otherwise (p is still valid and
 * must be freed). Touches nothing on disk. */
int profile_parse_buffer(struct profile *p, const char *file, const char *buf, size_t len,
                         struct diag *d);

/* profile_parse_file - read `path` (at most 16 MiB) and parse it; unreadable files are reported
 * in d. Returns 0 or -1 like profile_parse_buffer. */
int profile_parse_file(struct profile *p, const char *path, struct diag *d);

void profile_free(struct profile *p);

/* profile_set - set `key` of section `sec` from text, as the file or the command line does:
 * type parsing, bounds, scope and deprecation checks, duplicate warnings (from_cli: none; list
 * keys then replace the file's items). Returns 0, or -1 after reporting to d. */
int profile_set(struct section *sec, const char *key, const char *value, bool had_equals,
                struct src_loc loc, bool from_cli, struct diag *d);

/* profile_stats_section - the [stats] of a thread group, created empty if it has none. */
struct section *profile_stats_section(struct section *tg);

/* setting_get - the effective setting of key k in sec: its own if set, else the default. */
const struct setting *setting_get(const struct section *sec, enum key_id k);

/* setting_u / setting_s - typed shortcuts for setting_get. */
uint64_t setting_u(const struct section *sec, enum key_id k);
const char *setting_s(const struct section *sec, enum key_id k);

/* setting_format - the value as text for `fsmix check` ("64KB" sizes keep their bytes too). */
void setting_format(const struct section *sec, enum key_id k, char *buf, size_t len);

/* section_scope - the key scope bit of a section kind. */
unsigned section_scope(const struct section *sec);

#endif
