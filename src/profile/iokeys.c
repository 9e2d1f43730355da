/* iokeys.c - sizes and offsets inside a file: fio's bssplit, bsrange, random_distribution and
 * percentage_random as fsmix keys (iokeys.h). */
#include "iokeys.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "realism.h"

/* Percentages that add up to 100 within rounding of decimals ("33.3/33.3/33.4"). */
#define PCT_EPS 1e-6

/* A size field of a mix: 1 B .. IOKEYS_SIZE_MAX. */
static const char *mix_size(const char *s, const char *text, uint64_t *v, char err[VALUE_ERR_LEN])
{
	char e2[VALUE_ERR_LEN];
	if (value_parse_size(s, v, e2))
		snprintf(err, VALUE_ERR_LEN, "size '%s' in '%s': %s", s, text, e2);
	else if (!*v)
		snprintf(err, VALUE_ERR_LEN,
		         "size '%s' in '%s' is zero: every call moves a byte at least", s, text);
	else if (*v > IOKEYS_SIZE_MAX)
		snprintf(err, VALUE_ERR_LEN, "size '%s' in '%s' is over 1 GiB (the largest block)",
		         s, text);
	else
		return NULL;
	return err;
}

/* A percentage field: 0 < p <= 100 (zero_ok: 0 <= p). */
static const char *pct_field(const char *s, const char *text, bool zero_ok, double *p,
                             char err[VALUE_ERR_LEN])
{
	char e2[VALUE_ERR_LEN];
	if (value_parse_double(s, p, e2))
		snprintf(err, VALUE_ERR_LEN, "percentage '%s' in '%s': %s", s, text, e2);
	else if (*p > 100 || *p < 0 || (!zero_ok && *p == 0))
		snprintf(err, VALUE_ERR_LEN,
		         "percentage '%s' in '%s' is out of range (%s 0, at most 100)", s, text,
		         zero_ok ? "at least" : "above");
	else
		return NULL;
	return err;
}

const char *iokeys_parse_split(const char *text, struct iosize *s, char err[VALUE_ERR_LEN])
{
	char buf[1024];
	memset(s, 0, sizeof(*s));
	if (strchr(text, ',')) {
		snprintf(err, VALUE_ERR_LEN,
		         "'%s': fio's comma between the read and the write split is not used here: "
		         "set read_bssplit and write_bssplit apart",
		         text);
		return err;
	}
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf) || !*buf) {
		snprintf(err, VALUE_ERR_LEN, "'%s' is not a size split (e.g. 4k/50:64k/30:1m/20)",
		         text);
		return err;
	}
	double given = 0;
	uint32_t blanks = 0;
	bool blank[IOSIZE_MAX];
	for (char *p = buf, *next; p; p = next) {
		next = strchr(p, ':');
		if (next)
			*next++ = '\0';
		if (s->n == IOSIZE_MAX) {
			snprintf(err, VALUE_ERR_LEN, "'%s' has more than %d sizes", text,
			         IOSIZE_MAX);
			return err;
		}
		char *slash = strchr(p, '/');
		if (slash)
			*slash++ = '\0';
		if (!*p) {
			snprintf(err, VALUE_ERR_LEN,
			         "'%s' has an entry without a size (use SIZE/PCT:SIZE/PCT, e.g. "
			         "4k/50:64k/30:1m/20)",
			         text);
			return err;
		}
		if (mix_size(p, text, &s->size[s->n], err))
			return err;
		blank[s->n] = !slash || !*slash;
		if (blank[s->n])
			blanks++;
		else if (pct_field(slash, text, false, &s->pct[s->n], err))
			return err;
		given += s->pct[s->n++];
	}
	if (given > 100 + PCT_EPS) {
		snprintf(err, VALUE_ERR_LEN, "the percentages of '%s' add up to %g, over 100", text,
		         given);
		return err;
	}
	if (!blanks && given < 100 - PCT_EPS) {
		snprintf(err, VALUE_ERR_LEN,
		         "the percentages of '%s' add up to %g, not 100 (leave one out to give it "
		         "the rest)",
		         text, given);
		return err;
	}
	if (blanks && given > 100 - PCT_EPS) {
		snprintf(err, VALUE_ERR_LEN,
		         "the percentages of '%s' add up to 100 and leave nothing for the sizes "
		         "without one",
		         text);
		return err;
	}
	for (uint32_t i = 0; i < s->n; i++)
		if (blank[i])
			s->pct[i] = (100 - given) / blanks;
	iosize_init(s);
	return NULL;
}

const char *iokeys_parse_range(const char *text, struct iosize *s, char err[VALUE_ERR_LEN])
{
	char buf[256];
	memset(s, 0, sizeof(*s));
	snprintf(buf, sizeof(buf), "%s", text);
	char *dash = strchr(buf, '-');
	if (!dash || strchr(dash + 1, '-')) {
		snprintf(err, VALUE_ERR_LEN, "'%s' is not a size range (use LO-HI, e.g. 4k-64k)",
		         text);
		return err;
	}
	*dash = '\0';
	if (mix_size(buf, text, &s->lo, err) || mix_size(dash + 1, text, &s->hi, err))
		return err;
	if (s->hi < s->lo) {
		snprintf(err, VALUE_ERR_LEN, "LO %s is larger than HI %s", buf, dash + 1);
		return err;
	}
	s->range = true;
	return NULL;
}

/* zoned:ACCESS/SIZE:... into d. */
static const char *parse_zones(const char *text, const char *zones, struct offdist *d,
                               char err[VALUE_ERR_LEN])
{
	char buf[1024];
	double access = 0, size = 0;
	snprintf(buf, sizeof(buf), "%s", zones);
	for (char *p = buf, *next; p; p = next) {
		next = strchr(p, ':');
		if (next)
			*next++ = '\0';
		char *slash = strchr(p, '/');
		if (!slash || !*p || !slash[1]) {
			snprintf(err, VALUE_ERR_LEN,
			         "zone '%s' of '%s' is not ACCESS/SIZE (percentages, e.g. "
			         "zoned:60/10:30/20:8/30:2/40)",
			         p, text);
			return err;
		}
		if (d->n_zones == OFFZONE_MAX) {
			snprintf(err, VALUE_ERR_LEN, "'%s' has more than %d zones", text,
			         OFFZONE_MAX);
			return err;
		}
		*slash = '\0';
		uint32_t i = d->n_zones++;
		if (pct_field(p, text, true, &d->zone_access[i], err) ||
		    pct_field(slash + 1, text, false, &d->zone_size[i], err))
			return err;
		access += d->zone_access[i];
		size += d->zone_size[i];
	}
	if (fabs(access - 100) > PCT_EPS || fabs(size - 100) > PCT_EPS) {
		snprintf(
		    err, VALUE_ERR_LEN,
		    "the zones of '%s' give %g %% of the accesses to %g %% of the file: both must "
		    "add up to 100",
		    text, access, size);
		return err;
	}
	return NULL;
}

/* The number after "word:" in range (lo, hi] (lo_open) or [lo, hi]. */
static const char *param(const char *s, const char *text, const char *what, double lo, double hi,
                         bool hi_open, double *out, char err[VALUE_ERR_LEN])
{
	char e2[VALUE_ERR_LEN];
	if (value_parse_double(s, out, e2))
		snprintf(err, VALUE_ERR_LEN, "%s of '%s': %s", what, text, e2);
	else if (*out <= lo || (hi_open ? *out >= hi : *out > hi))
		snprintf(err, VALUE_ERR_LEN, "%s '%s' is out of range (above %g, %s %g)", what, s,
		         lo, hi_open ? "below" : "at most", hi);
	else
		return NULL;
	return err;
}

const char *iokeys_parse_offdist(const char *text, struct offdist *d, char err[VALUE_ERR_LEN])
{
	memset(d, 0, sizeof(*d));
	const char *colon = strchr(text, ':');
	size_t wl = colon ? (size_t)(colon - text) : strlen(text);
	const char *arg = colon ? colon + 1 : NULL;
	const char *bad = NULL;
	if (!colon && strcmp(text, "random") == 0)
		return NULL;
	bool zipf = wl == 4 && strncmp(text, "zipf", 4) == 0;
	if (arg && !strchr(arg, ':') && (zipf || (wl == 6 && strncmp(text, "pareto", 6) == 0))) {
		/* file_popularity's syntax, bounds and sampler (popdist.h): one parser for both */
		d->kind = zipf ? OFF_ZIPF : OFF_PARETO;
		return realism_parse_popularity(text, &d->pop, err);
	} else if (arg && wl == 6 && strncmp(text, "normal", 6) == 0) {
		d->kind = OFF_NORMAL;
		bad = param(arg, text, "normal SIGMA", 0, 100, false, &d->sigma, err);
		d->sigma /= 100;
	} else if (arg && wl == 5 && strncmp(text, "zoned", 5) == 0) {
		d->kind = OFF_ZONED;
		bad = parse_zones(text, arg, d, err);
	} else {
		snprintf(err, VALUE_ERR_LEN,
		         "'%s' is not a random_distribution (use random, zipf:THETA, pareto:H, "
		         "normal:SIGMA_PCT or zoned:ACCESS_PCT/SIZE_PCT:..., e.g. zipf:1.2)",
		         text);
		return err;
	}
	if (!bad)
		offdist_init(d);
	return bad;
}

unsigned iokeys_mix_ops(const struct plan_group *g)
{
	return (iosize_set(&g->wmix) ? IOKEYS_WRITE_OPS : 0) |
	       (iosize_set(&g->rmix) ? IOKEYS_READ_OPS : 0);
}

static struct src_loc where(const struct section *s, enum key_id k)
{
	return s->set[k].set ? s->set[k].loc : s->loc;
}

/* One direction's mix: its split or its range (not both), each size a multiple of 512 with
 * directio (O_DIRECT moves whole logical blocks). */
static void mix(struct diag *d, const struct section *tg, const char *split, enum key_id ks,
                const char *range, enum key_id kr, bool directio, struct iosize *s)
{
	char err[VALUE_ERR_LEN];
	enum key_id k = split ? ks : kr;
	if (!split && !range)
		return;
	if (split && range) {
		diag_error(d, DIAG_CONFLICT, where(tg, kr), tg->name, key_table[kr].name,
		           "cannot be combined with %s (line %u): both set the call sizes",
		           key_table[ks].name, tg->set[ks].loc.line);
		return;
	}
	if (split ? iokeys_parse_split(split, s, err) : iokeys_parse_range(range, s, err)) {
		diag_error(d, DIAG_BAD_VALUE, where(tg, k), tg->name, key_table[k].name, "%s", err);
		memset(s, 0, sizeof(*s));
		return;
	}
	for (uint32_t i = 0; directio && i < (s->range ? 1 : s->n); i++) {
		uint64_t v = s->range ? s->lo : s->size[i];
		if (v % 512)
			diag_error(d, DIAG_BAD_VALUE, where(tg, k), tg->name, key_table[k].name,
			           "size %llu is not a multiple of 512 bytes, which directio=1 "
			           "(O_DIRECT) needs",
			           (unsigned long long)v);
	}
}

void iokeys_group(struct diag *d, const struct section *tg, struct plan_group *g, bool directio,
                  bool alignio)
{
	char err[VALUE_ERR_LEN];
	/* sqpoll shapes the io_uring engine's ring: no meaning under any other engine */
	if (g->sqpoll && g->io_engine != IOENG_URING)
		diag_error(d, DIAG_CONFLICT, where(tg, KEY_sqpoll), tg->name, "sqpoll",
		           "needs engine=io_uring (engine is %s)", io_engine_word(g->io_engine));
	static const enum key_id mine[] = {KEY_write_bssplit,       KEY_read_bssplit,
	                                   KEY_write_bsrange,       KEY_read_bsrange,
	                                   KEY_random_distribution, KEY_percentage_random};
	if (tg->aging) {
		for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
			if (tg->set[mine[i]].set)
				diag_error(d, DIAG_CONFLICT, tg->set[mine[i]].loc, tg->name,
				           key_table[mine[i]].name,
				           "not used in an aging thread group (it only creates, "
				           "appends and deletes)");
		return;
	}
	mix(d, tg, g->write_bssplit, KEY_write_bssplit, g->write_bsrange, KEY_write_bsrange,
	    directio, &g->wmix);
	mix(d, tg, g->read_bssplit, KEY_read_bssplit, g->read_bsrange, KEY_read_bsrange, directio,
	    &g->rmix);
	if (g->random_distribution && iokeys_parse_offdist(g->random_distribution, &g->offd, err))
		diag_error(d, DIAG_BAD_VALUE, where(tg, KEY_random_distribution), tg->name,
		           "random_distribution", "%s", err);
	g->offd.pct_random = g->percentage_random;
	g->offd.align = alignio || directio; /* O_DIRECT needs aligned offsets (plan.c) */
	enum key_id off =
	    tg->set[KEY_random_distribution].set ? KEY_random_distribution : KEY_percentage_random;
	if (g->write_stride && tg->set[off].set)
		diag_error(d, DIAG_CONFLICT, where(tg, off), tg->name, key_table[off].name,
		           "cannot be combined with write_stride (line %u): it sets the write "
		           "offsets",
		           tg->set[KEY_write_stride].loc.line);
}

/* A size as `fsmix check` prints it: whole MiB, KiB or bytes. */
static void print_size(FILE *out, uint64_t v)
{
	if (v % (1u << 20) == 0)
		fprintf(out, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v % 1024 == 0)
		fprintf(out, "%llu KiB", (unsigned long long)(v >> 10));
	else
		fprintf(out, "%llu B", (unsigned long long)v);
}

static void print_mix(FILE *out, const char *what, const struct iosize *s)
{
	if (!iosize_set(s))
		return;
	fprintf(out, "    %s call sizes: ", what);
	if (s->range) {
		print_size(out, s->lo);
		fprintf(out, " to ");
		print_size(out, iosize_max(s));
		fprintf(out, " in steps of ");
		print_size(out, s->lo);
		fprintf(out, " (%llu sizes, equally likely)\n",
		        (unsigned long long)(s->hi / s->lo));
		return;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		fprintf(out, "%s", i ? ", " : "");
		print_size(out, s->size[i]);
		fprintf(out, " %.4g %%", s->pct[i]);
	}
	fprintf(out, "\n");
}

void iokeys_print_group(FILE *out, const struct plan_group *g)
{
	print_mix(out, "write", &g->wmix);
	print_mix(out, "read", &g->rmix);
	if (g->offd.kind != OFF_RANDOM || g->percentage_random < 100)
		fprintf(out, "    offsets: %s, %u %% drawn, %u %% continuing the previous extent\n",
		        g->random_distribution ? g->random_distribution : "random",
		        g->percentage_random, 100 - g->percentage_random);
}
