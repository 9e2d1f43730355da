/* overrides.c - command-line overrides (see overrides.h). */
#include "overrides.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "value.h"

static const char *const kind_option[] = {
    [OVR_TIME] = "--time", [OVR_LOCATION] = "--location", [OVR_THREADS] = "--threads",
    [OVR_SET] = "--set",   [OVR_SEED] = "--seed",         [OVR_FIDELITY] = "--fidelity",
    [OVR_RAMP] = "--ramp", [OVR_IODEPTH] = "--iodepth",
};

const char *override_option(enum override_kind kind)
{
	FSMIX_ASSERT((size_t)kind < sizeof(kind_option) / sizeof(kind_option[0]));
	return kind_option[kind];
}

void override_init(struct override *o, enum override_kind kind, const char *arg)
{
	o->kind = kind;
	o->arg = arg;
	snprintf(o->label, sizeof(o->label), "%s %s", kind_option[kind], arg);
	if (strlen(kind_option[kind]) + 1 + strlen(arg) >= sizeof(o->label))
		memcpy(o->label + sizeof(o->label) - 4, "...", 4);
}

/* Resolves "0", "filesystem0", "threadgroup1", "global", "filesystem0.threadgroup",
 * "threadgroup0.stats" to a section. kind_hint restricts plain numbers (SEC_FS / SEC_TG). */
static struct section *find_section(struct profile *p, const char *name, enum section_kind hint)
{
	char err[VALUE_ERR_LEN];
	uint64_t n;
	const char *rest;

	/* It may return &p->global, p's first member: NULL must mean "no such section", never a
	 * NULL profile (clang's analyzer took it for one at the callers' section_list) */
	FSMIX_ASSERT(p != NULL);
	if (!strcmp(name, "global"))
		return &p->global;
	if (!value_parse_uint(name, &n, err)) {
		if (hint == SEC_FS)
			return n < p->n_fs ? p->fs[n] : NULL;
		return n < p->n_tg ? p->tg[n] : NULL;
	}
	size_t len = strcspn(name, ".");
	char head[48];
	if (len >= sizeof(head))
		return NULL;
	memcpy(head, name, len);
	head[len] = '\0';
	rest = name[len] ? name + len + 1 : NULL;
	struct section *s = NULL;
	for (size_t i = 0; i < p->n_fs; i++)
		if (!strcmp(p->fs[i]->name, head))
			s = p->fs[i];
	for (size_t i = 0; i < p->n_tg; i++)
		if (!strcmp(p->tg[i]->name, head))
			s = p->tg[i];
	if (!s || !rest)
		return s;
	if (s->kind == SEC_FS && !strcmp(rest, "threadgroup"))
		return s->age;
	if (s->kind == SEC_TG && !strcmp(rest, "stats"))
		return profile_stats_section(s);
	if (s->kind == SEC_FS && !strcmp(rest, "threadgroup.stats") && s->age)
		return profile_stats_section(s->age);
	return NULL;
}

static void section_list(const struct profile *p, enum section_kind kind, char *buf, size_t len)
{
	size_t count = kind == SEC_FS ? p->n_fs : p->n_tg;
	const char *word = kind == SEC_FS ? "filesystem" : "threadgroup";
	if (!count)
		snprintf(buf, len, "the profile has no [%s]", word);
	else if (count == 1)
		snprintf(buf, len, "the profile has only [%s0]", word);
	else
		snprintf(buf, len, "the profile has [%s0] to [%s%zu]", word, word, count - 1);
}

/* Sets key on one section; keys of [stats] given for a thread group go to its [stats]. */
static int set_on(struct section *s, const char *key, const char *value, struct override *o,
                  struct diag *d)
{
	int k = key_by_name(key);
	struct src_loc loc = {o->label, 0};
	if (k >= 0 && s->kind == SEC_TG && (key_table[k].scopes & SC_STATS)) {
		s = profile_stats_section(s);
		if (!s) {
			diag_error(d, DIAG_NO_MEMORY, loc, NULL, NULL, "out of memory");
			return -1;
		}
	}
	bool list_form = k >= 0 && (key_table[k].flags & KF_LIST);
	return profile_set(s, key, value, !list_form, loc, true, d);
}

/* True if s[0..len) is "N", "filesystemN" or "threadgroupN". */
static bool is_section_ref(const char *s, size_t len)
{
	size_t i = 0;
	if (len >= 10 && !strncmp(s, "filesystem", 10))
		i = 10;
	else if (len >= 11 && !strncmp(s, "threadgroup", 11))
		i = 11;
	if (i == len)
		return false;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* "[SECTION=]VALUE" options: --location N=DIR, --threads G=N. Without SECTION: every section
 * of the kind. */
static int apply_each(struct profile *p, struct override *o, enum section_kind kind,
                      const char *key, struct diag *d)
{
	struct src_loc loc = {o->label, 0};
	const char *eq = strchr(o->arg, '=');
	/* A directory may contain '=' itself: only "N=", "filesystemN=" or "threadgroupN=" before
	 * the first '=' names a section. */
	if (eq && is_section_ref(o->arg, (size_t)(eq - o->arg))) {
		char name[48];
		size_t len = (size_t)(eq - o->arg);
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, o->arg, len);
		name[len] = '\0';
		struct section *s = find_section(p, name, kind);
		if (!s && !p->file) /* a profile that could not be read: its own error says it */
			return -1;
		if (!s || s->kind != kind || s->aging) {
			char have[96];
			section_list(p, kind, have, sizeof(have));
			diag_error(d, DIAG_OPTION, loc, NULL, NULL, "no %s '%s' (%s)",
			           kind == SEC_FS ? "filesystem" : "thread group", name, have);
			return -1;
		}
		return set_on(s, key, eq + 1, o, d);
	}
	size_t count = kind == SEC_FS ? p->n_fs : p->n_tg;
	int rc = 0;
	if (!count && !p->file) /* a profile that could not be read: its own error says it */
		return -1;
	if (!count) {
		char have[96];
		section_list(p, kind, have, sizeof(have));
		diag_error(d, DIAG_OPTION, loc, NULL, NULL, "nothing to change: %s", have);
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (set_on(kind == SEC_FS ? p->fs[i] : p->tg[i], key, o->arg, o, d))
			rc = -1;
	return rc;
}

static int apply_set(struct profile *p, struct override *o, struct diag *d)
{
	struct src_loc loc = {o->label, 0};
	const char *eq = strchr(o->arg, '=');
	if (!eq || eq == o->arg) {
		diag_error(d, DIAG_OPTION, loc, NULL, NULL,
		           "expected SECTION.KEY=VALUE, e.g. --set filesystem0.num_files=2000 or "
		           "--set time=10");
		return -1;
	}
	char path[128];
	size_t len = (size_t)(eq - o->arg);
	if (len >= sizeof(path)) {
		diag_error(d, DIAG_OPTION, loc, NULL, NULL, "the SECTION.KEY part is too long");
		return -1;
	}
	memcpy(path, o->arg, len);
	path[len] = '\0';
	char *dot = strrchr(path, '.');
	if (!dot) /* a bare key: the top level */
		return set_on(&p->global, path, eq + 1, o, d);
	*dot = '\0';
	/* A bare number is ambiguous here: sections are named in full. */
	struct section *s =
	    (path[0] >= '0' && path[0] <= '9') ? NULL : find_section(p, path, SEC_TG);
	if (!s && !p->file) /* a profile that could not be read: its own error says it */
		return -1;
	if (!s) {
		char fs[96], tg[96];
		section_list(p, SEC_FS, fs, sizeof(fs));
		section_list(p, SEC_TG, tg, sizeof(tg));
		diag_error(d, DIAG_OPTION, loc, NULL, NULL,
		           "no section '%s' (use global, filesystemN, threadgroupN, "
		           "filesystemN.threadgroup or threadgroupN.stats; %s; %s)",
		           path, fs, tg);
		return -1;
	}
	return set_on(s, dot + 1, eq + 1, o, d);
}

int overrides_apply(struct profile *p, struct override *v, size_t n, struct diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct override *o = &v[i];
		int r = 0;
		switch (o->kind) {
		case OVR_TIME:
			r = set_on(&p->global, "time", o->arg, o, d);
			break;
		case OVR_SEED:
			r = set_on(&p->global, "seed", o->arg, o, d);
			break;
		case OVR_FIDELITY:
			r = set_on(&p->global, "fidelity", o->arg, o, d);
			break;
		case OVR_RAMP:
			r = set_on(&p->global, "ramp_time", o->arg, o, d);
			break;
		case OVR_LOCATION:
			r = apply_each(p, o, SEC_FS, "location", d);
			break;
		case OVR_THREADS:
			r = apply_each(p, o, SEC_TG, "num_threads", d);
			break;
		case OVR_IODEPTH:
			r = apply_each(p, o, SEC_TG, "iodepth", d);
			break;
		case OVR_SET:
			r = apply_set(p, o, d);
			break;
		}
		if (r)
			rc = -1;
	}
	return rc;
}

int profile_load(const char *path, const struct override *ovr, size_t n_ovr,
                 const struct plan_opts *po, struct profile *p, struct plan *pl, struct diag *d)
{
	struct stat sb;
	int rc = 0;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		diag_error(d, DIAG_FILE, ((struct src_loc){path, 0}), NULL, NULL,
		           "is a directory, not a profile");
		/* An empty profile keeps the caller's cleanup uniform; its own messages are
		 * dropped. */
		struct diag scratch;
		diag_init(&scratch);
		profile_parse_buffer(p, path, "", 0, &scratch);
		diag_free(&scratch);
		return -1;
	}
	if (profile_parse_file(p, path, d))
		rc = -1;
	if (overrides_apply(p, (struct override *)ovr, n_ovr, d))
		rc = -1;
	/* A profile that is not text at all has nothing more to say. */
	if (p->file && (p->any_content || rc == 0)) {
		if (plan_build(pl, p, po, d))
			rc = -1;
		else if (rc)
			plan_free(pl);
	}
	return rc;
}
