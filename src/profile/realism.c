/* realism.c - file_popularity, op_rate, arrival and size_dist (see realism.h). */
#include "realism.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"

#define FIELDS_MAX 4

/* Splits "word:a:b" into at most FIELDS_MAX fields of buf (a copy); returns the count, or -1
 * when there are more. */
static int split(const char *text, char *buf, size_t len, char *f[FIELDS_MAX])
{
	snprintf(buf, len, "%s", text);
	int n = 0;
	for (char *p = buf;; n++) {
		if (n == FIELDS_MAX)
			return -1;
		f[n] = p;
		char *c = strchr(p, ':');
		if (!c)
			return n + 1;
		*c = '\0';
		p = c + 1;
	}
}

static const char *number(const char *s, double lo, double hi, bool lo_open, bool hi_open,
                          const char *what, double *out, char err[VALUE_ERR_LEN])
{
	char e2[VALUE_ERR_LEN];
	if (value_parse_double(s, out, e2)) {
		snprintf(err, VALUE_ERR_LEN, "%s: %s", what, e2);
		return err;
	}
	if ((lo_open ? *out <= lo : *out < lo) || (hi_open ? *out >= hi : *out > hi)) {
		snprintf(err, VALUE_ERR_LEN, "%s '%s' is out of range (%s %g, %s %g)", what, s,
		         lo_open ? "above" : "at least", lo, hi_open ? "below" : "at most", hi);
		return err;
	}
	return NULL;
}

const char *realism_parse_popularity(const char *text, struct popdist *d, char err[VALUE_ERR_LEN])
{
	char buf[256], *f[FIELDS_MAX];
	int n = split(text, buf, sizeof(buf), f);
	const char *bad;
	memset(d, 0, sizeof(*d));
	if (n == 1 && strcmp(f[0], "uniform") == 0)
		return NULL;
	if (n == 2 && strcmp(f[0], "zipf") == 0) {
		d->kind = POP_ZIPF;
		bad = number(f[1], 0, 100, true, false, "zipf THETA", &d->theta, err);
	} else if (n == 2 && strcmp(f[0], "pareto") == 0) {
		d->kind = POP_PARETO;
		bad = number(f[1], 0.5, 1, true, true, "pareto H", &d->h, err);
	} else if (n == 3 && strcmp(f[0], "hotset") == 0) {
		d->kind = POP_HOTSET;
		bad = number(f[1], 0, 100, true, true, "hotset PCT_FILES", &d->hot_files, err);
		if (!bad)
			bad =
			    number(f[2], 0, 100, false, false, "hotset PCT_OPS", &d->hot_ops, err);
		d->hot_files /= 100;
		d->hot_ops /= 100;
	} else {
		snprintf(err, VALUE_ERR_LEN,
		         "'%s' is not a popularity (use uniform, zipf:THETA, pareto:H or "
		         "hotset:PCT_FILES:PCT_OPS, e.g. zipf:1.2)",
		         text);
		return err;
	}
	if (!bad)
		popdist_init(d);
	return bad;
}

static const char *size_field(const char *s, const char *what, double *out, uint64_t *u,
                              char err[VALUE_ERR_LEN])
{
	char e2[VALUE_ERR_LEN];
	uint64_t v;
	const char *bad = value_parse_size(s, &v, e2);
	if (!bad && v > SIZEDIST_MAX)
		bad = "larger than 1 PiB (the largest file size)";
	if (bad) {
		snprintf(err, VALUE_ERR_LEN, "%s: %s", what, bad);
		return err;
	}
	*out = (double)v;
	if (u)
		*u = v;
	return NULL;
}

const char *realism_parse_sizedist(const char *text, struct sizedist *d, char err[VALUE_ERR_LEN])
{
	static const struct {
		const char *word;
		enum sizedist_kind kind;
		int fields; /* without the cap */
		const char *first, *second;
	} kinds[] = {
	    {"lognormal", SIZEDIST_LOGNORMAL, 3, "MEDIAN", "SIGMA"},
	    {"gamma", SIZEDIST_GAMMA, 3, "MEAN", "SHAPE"},
	    {"exponential", SIZEDIST_EXPONENTIAL, 2, "MEAN", NULL},
	    {"uniform", SIZEDIST_UNIFORM, 3, "MIN", "MAX"},
	};
	char buf[256], *f[FIELDS_MAX];
	int n = split(text, buf, sizeof(buf), f);
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; n > 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(f[0], kinds[i].word) != 0)
			continue;
		bool capped = kinds[i].kind != SIZEDIST_UNIFORM && n == kinds[i].fields + 1;
		if (n != kinds[i].fields && !capped)
			break;
		d->kind = kinds[i].kind;
		if (size_field(f[1], kinds[i].first, &d->a, NULL, err))
			return err;
		if (kinds[i].kind == SIZEDIST_UNIFORM) {
			if (size_field(f[2], "MAX", &d->b, NULL, err))
				return err;
			if (d->b < d->a) {
				snprintf(err, VALUE_ERR_LEN, "MIN %s is larger than MAX %s", f[1],
				         f[2]);
				return err;
			}
		} else if (kinds[i].second) {
			/* gamma's SHAPE from 0.001: below it the mass sits at 0 bytes and its
			 * mean and quantiles are no longer computable in doubles (1e-20 gave a
			 * mean of 0 B, 1e-300 one of -26 B) */
			bool sigma = kinds[i].kind == SIZEDIST_LOGNORMAL;
			if (number(f[2], sigma ? 0 : 0.001, sigma ? 10 : 1000, sigma, false,
			           kinds[i].second, &d->b, err))
				return err;
		}
		if (kinds[i].kind != SIZEDIST_UNIFORM && !(d->a > 0)) {
			snprintf(err, VALUE_ERR_LEN, "%s must be above 0", kinds[i].first);
			return err;
		}
		if (capped && size_field(f[n - 1], "CAP", &(double){0}, &d->cap, err))
			return err;
		if (capped && !d->cap) {
			snprintf(err, VALUE_ERR_LEN, "CAP must be above 0 (leave it out for none)");
			return err;
		}
		return NULL;
	}
	snprintf(err, VALUE_ERR_LEN,
	         "'%s' is not a size distribution (use lognormal:MEDIAN:SIGMA, gamma:MEAN:SHAPE, "
	         "exponential:MEAN, each with an optional :CAP, or uniform:MIN:MAX; e.g. "
	         "lognormal:16K:1.5:1G)",
	         text);
	return err;
}

const char *realism_parse_rate(const char *text, double *rate, bool *per_group,
                               char err[VALUE_ERR_LEN])
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", text);
	char *slash = strchr(buf, '/');
	*per_group = false;
	if (slash) {
		*slash = '\0';
		if (strcmp(slash + 1, "group") == 0)
			*per_group = true;
		else if (strcmp(slash + 1, "thread") != 0) {
			snprintf(err, VALUE_ERR_LEN,
			         "'%s': the suffix is /thread or /group (e.g. 100/group)", text);
			return err;
		}
	}
	return number(buf, 0, 1e9, true, false, "op_rate", rate, err);
}

static struct src_loc where(const struct section *s, enum key_id k)
{
	return s->set[k].set ? s->set[k].loc : s->loc;
}

void realism_group(struct diag *d, const struct section *tg, struct plan_group *g)
{
	char err[VALUE_ERR_LEN];
	if (g->file_popularity && realism_parse_popularity(g->file_popularity, &g->pop, err))
		diag_error(d, DIAG_BAD_VALUE, where(tg, KEY_file_popularity), tg->name,
		           "file_popularity", "%s", err);
	if (g->file_order == ORDER_SEQUENTIAL && g->pop.kind != POP_UNIFORM)
		diag_error(d, DIAG_CONFLICT, where(tg, KEY_file_order), tg->name, "file_order",
		           "sequential cannot be combined with file_popularity=%s (line %u): "
		           "both choose the files",
		           g->file_popularity, tg->set[KEY_file_popularity].loc.line);
	g->sched_period_ns = (uint64_t)g->op_period_ms * 1000000u;
	if (g->op_period_ms)
		g->rate_target = 1000.0 / g->op_period_ms * g->num_threads;
	if (g->op_rate) {
		double rate;
		bool per_group;
		if (realism_parse_rate(g->op_rate, &rate, &per_group, err)) {
			diag_error(d, DIAG_BAD_VALUE, where(tg, KEY_op_rate), tg->name, "op_rate",
			           "%s", err);
		} else if (g->op_period_ms) {
			diag_error(d, DIAG_CONFLICT, where(tg, KEY_op_rate), tg->name, "op_rate",
			           "cannot be combined with op_period (line %u): both set the "
			           "schedule",
			           tg->set[KEY_op_period].loc.line);
		} else if (g->op_delay_ms) {
			diag_error(d, DIAG_CONFLICT, where(tg, KEY_op_rate), tg->name, "op_rate",
			           "cannot be combined with op_delay (line %u): the rate already "
			           "spaces the operations",
			           tg->set[KEY_op_delay].loc.line);
		} else {
			uint32_t nt = g->num_threads ? g->num_threads : 1;
			double per_thread = per_group ? rate / nt : rate;
			g->rate_target = per_group ? rate : rate * nt;
			g->sched_period_ns = (uint64_t)llround(1e9 / per_thread);
			if (!g->sched_period_ns)
				g->sched_period_ns = 1;
		}
	}
	static const enum key_id sched_only[] = {KEY_arrival, KEY_arrival_backlog,
	                                         KEY_arrival_backlog_max};
	for (size_t i = 0; !g->sched_period_ns && i < sizeof(sched_only) / sizeof(*sched_only); i++)
		if (tg->set[sched_only[i]].set)
			diag_warn(d, DIAG_IGNORED, where(tg, sched_only[i]), tg->name,
			          key_table[sched_only[i]].name,
			          "ignored: neither op_rate nor op_period schedules this group");
	if (g->sched_period_ns && tg->set[KEY_arrival_backlog_max].set &&
	    g->arrival_backlog != BACKLOG_QUEUE)
		diag_warn(d, DIAG_IGNORED, where(tg, KEY_arrival_backlog_max), tg->name,
		          "arrival_backlog_max", "ignored: arrival_backlog=drop keeps no backlog");
	static const enum key_id not_aging[] = {KEY_op_rate,         KEY_arrival,
	                                        KEY_arrival_backlog, KEY_arrival_backlog_max,
	                                        KEY_file_popularity, KEY_file_order};
	for (size_t i = 0; tg->aging && i < sizeof(not_aging) / sizeof(not_aging[0]); i++)
		if (tg->set[not_aging[i]].set)
			diag_error(
			    d, DIAG_CONFLICT, tg->set[not_aging[i]].loc, tg->name,
			    key_table[not_aging[i]].name,
			    "not used in an aging thread group (it runs until desired_util)");
	/* iodepth > 1: operations in flight on fibers of the io_uring engine (docs/engines.md);
	 * a schedule and op_delay work there as at depth 1 (worker_depth.c). */
	if (g->iodepth > 1) {
		struct src_loc at = where(tg, KEY_iodepth);
		if (g->io_engine != IOENG_URING)
			diag_error(d, DIAG_CONFLICT, at, tg->name, "iodepth",
			           "%u needs engine=io_uring: engine=%s makes each call itself and "
			           "waits for it, one operation at a time",
			           g->iodepth, io_engine_word(g->io_engine));
		else if (tg->aging)
			diag_error(
			    d, DIAG_CONFLICT, at, tg->name, "iodepth",
			    "not used in an aging thread group (it runs until desired_util)");
	}
}

void realism_fs(struct diag *d, const struct section *s, const struct setting *sd,
                const struct setting *sw, const struct setting *mn, const struct setting *mx,
                struct plan_fs *f)
{
	char err[VALUE_ERR_LEN];
	if (!f->size_dist_text)
		return;
	if (realism_parse_sizedist(f->size_dist_text, &f->size_dist, err)) {
		diag_error(d, DIAG_BAD_VALUE, sd->loc, s->name, "size_dist", "%s", err);
		f->size_dist.kind = SIZEDIST_NONE;
		return;
	}
	if (sw->n_items)
		diag_error(d, DIAG_CONFLICT, sd->loc, s->name, "size_dist",
		           "cannot be combined with size_weight (line %u): both set the file sizes",
		           sw->loc.line);
	else if (mn->set || mx->set)
		diag_warn(d, DIAG_IGNORED, mn->set ? mn->loc : mx->loc, s->name,
		          mn->set ? "min_filesize" : "max_filesize",
		          "ignored: size_dist (line %u) sets the file sizes", sd->loc.line);
}

static void fmt_bytes(double v, char *buf, size_t len)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void realism_print_sizes(FILE *out, const struct plan_fs *f)
{
	if (f->size_dist.kind == SIZEDIST_NONE)
		return;
	char mean[32], med[32], p99[32], total[32];
	double m = sizedist_mean(&f->size_dist);
	fmt_bytes(m, mean, sizeof(mean));
	fmt_bytes(sizedist_quantile(&f->size_dist, 0.5), med, sizeof(med));
	fmt_bytes(sizedist_quantile(&f->size_dist, 0.99), p99, sizeof(p99));
	fprintf(out, "    file size: mean %s, median %s, 99th percentile %s\n", mean, med, p99);
	if (f->num_files) {
		fmt_bytes(m * f->num_files, total, sizeof(total));
		fprintf(out, "    expected tree size: %u files x %s = %s\n", f->num_files, mean,
		        total);
	} else if (f->init_size) {
		fmt_bytes((double)f->init_size, total, sizeof(total));
		fprintf(out, "    expected tree size: %s (init_size), about %.0f files\n", total,
		        m > 0 ? ceil((double)f->init_size / m) : 0.0);
	}
}

void realism_print_group(FILE *out, const struct plan_group *g)
{
	if (g->pop.kind != POP_UNIFORM)
		fprintf(out, "    file_popularity %s\n", g->file_popularity);
	if (g->file_order == ORDER_SEQUENTIAL)
		fprintf(out, "    file_order sequential: each thread takes the files in turn\n");
	if (g->sched_period_ns) {
		fprintf(out, "    schedule: %.6g ops/s in all (%.6g per thread), %s arrivals",
		        g->rate_target, 1e9 / (double)g->sched_period_ns,
		        g->arrival == ARRIVAL_POISSON ? "poisson" : "fixed");
		if (g->arrival_backlog == BACKLOG_QUEUE)
			fprintf(out, ", late starts queued (at most %u a thread)",
			        g->arrival_backlog_max);
		fputc('\n', out);
	}
}
