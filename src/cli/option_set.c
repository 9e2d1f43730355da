/* option_set.c - the option table's setters (option_set.h): each checks an option's value and
 * stores it in struct cli. Every message here is the one fsmix has always printed (tests grep
 * them). */
#include "option_set.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overrides.h"
#include "sweep.h"
#include "value.h"

/* A whole number from 1 to max (strtoul's syntax, but no minus sign: it would wrap). */
static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

int stdout_outputs(const struct cli *c)
{
	return is_stdout(c->json_path) + is_stdout(c->csv_path) + is_stdout(c->lat_log_path);
}

static bool parse_count(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || s[0] == '-' || v < 1 || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

static enum set_result add_override(struct cli *c, enum override_kind kind, const char *value,
                                    char *err, size_t errlen)
{
	if (c->n_ovr == MAX_OVERRIDES) {
		snprintf(err, errlen, "too many overrides (the limit is %d)", MAX_OVERRIDES);
		return SET_BAD;
	}
	override_init(&c->ovr[c->n_ovr++], kind, value);
	return SET_OK;
}

/* The label of a sweep dimension's column: "threads", "threadgroup1.threads", "iodepth",
 * "threadgroup1.iodepth" or the key. */
static void dim_label(struct sweep_dim *d)
{
	char t[sizeof(d->target)]; /* a copy: snprintf's source must not be inside d */
	memcpy(t, d->target, sizeof(t));
	const char *what = d->threads ? "threads" : "iodepth";
	if ((d->threads || d->iodepth) && !t[0])
		snprintf(d->label, sizeof(d->label), "%s", what);
	else if ((d->threads || d->iodepth) && t[0] >= '0' && t[0] <= '9')
		snprintf(d->label, sizeof(d->label), "threadgroup%s.%s", t, what);
	else if (d->threads || d->iodepth)
		snprintf(d->label, sizeof(d->label), "%s.%s", t, what);
	else
		snprintf(d->label, sizeof(d->label), "%s", t);
}

/* --threads [G=]LIST, --iodepth [G=]LIST (iodepth) or --sweep SECTION.KEY=LIST: one more
 * sweep dimension. */
static enum set_result add_dim(struct cli *c, bool threads, bool iodepth, const char *arg,
                               char *err, size_t errlen)
{
	if (c->n_dims == SWEEP_MAX_DIMS) {
		snprintf(err, errlen, "at most %d sweep dimensions", SWEEP_MAX_DIMS);
		return SET_BAD;
	}
	struct sweep_dim *d = &c->dims[c->n_dims];
	const char *eq = strchr(arg, '=');
	const char *list = arg;
	memset(d, 0, sizeof(*d));
	d->threads = threads;
	d->iodepth = iodepth;
	if (eq) {
		size_t len = (size_t)(eq - arg);
		if (len == 0 || len >= sizeof(d->target)) {
			snprintf(err, errlen, "'%s': expected NAME=VALUES", arg);
			return SET_BAD;
		}
		memcpy(d->target, arg, len);
		d->target[len] = '\0';
		list = eq + 1;
	} else if (!threads && !iodepth) {
		snprintf(
		    err, errlen,
		    "--sweep takes SECTION.KEY=V1,V2,... (e.g. filesystem0.num_files=1000,2000), "
		    "not '%s'",
		    arg);
		return SET_BAD;
	}
	dim_label(d);
	char why[256];
	if (sweep_parse_list(list, d, why, sizeof(why))) {
		sweep_dim_free(d);
		snprintf(err, errlen, "%s", why);
		return SET_BAD;
	}
	c->n_dims++;
	return SET_OK;
}

enum set_result set_time(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_TIME, v, err, errlen);
}

enum set_result set_location(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_LOCATION, v, err, errlen);
}

enum set_result set_threads(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_THREADS, v, err, errlen);
}

enum set_result set_thread_list(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_dim(c, true, false, v, err, errlen);
}

enum set_result set_iodepth(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_IODEPTH, v, err, errlen);
}

enum set_result set_iodepth_list(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_dim(c, false, true, v, err, errlen);
}

bool is_list(const char *v)
{
	return sweep_is_list(v);
}

bool is_count(const char *v)
{
	return !sweep_is_list(v);
}

enum set_result set_key(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_SET, v, err, errlen);
}

enum set_result set_seed(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_SEED, v, err, errlen);
}

enum set_result set_fidelity(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_FIDELITY, v, err, errlen);
}

enum set_result set_ramp(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_override(c, OVR_RAMP, v, err, errlen);
}

enum set_result set_verify(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v;
	return add_override(c, OVR_SET, "verify=1", err, errlen);
}

enum set_result set_strict(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->strict_ffsb = true;
	return SET_OK;
}

enum set_result set_continue(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->continue_on_error = true;
	return SET_OK;
}

/* --mpi: job_start has seen it in argv (main.c) before the options are parsed. */
enum set_result set_mpi(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)c, (void)v, (void)err, (void)errlen;
	return SET_OK;
}

enum set_result set_cleanup(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->cleanup = true;
	return SET_OK;
}

enum set_result set_shared_tree(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->shared_tree = true;
	return SET_OK;
}

enum set_result set_build_threads(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (parse_count(v, 256, &c->build_threads))
		return SET_OK;
	snprintf(err, errlen, "--build-threads takes a count from 1 to 256, not '%s'", v);
	return SET_BAD;
}

/* run --json FILE writes FILE; check --json prints to stdout (the commands' rules say which
 * takes a file: commands.c). */
enum set_result set_json(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->json = true;
	c->json_path = v;
	return SET_OK;
}

enum set_result set_csv(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->csv_path = v;
	return SET_OK;
}

enum set_result set_format(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "ffsb") || !strcmp(v, "text")) {
		c->ffsb_only = !strcmp(v, "ffsb");
		return SET_OK;
	}
	snprintf(err, errlen, "--format takes 'text' or 'ffsb', not '%s'", v);
	return SET_BAD;
}

enum set_result set_interval(struct cli *c, const char *v, char *err, size_t errlen)
{
	char *end;
	c->interval_s = strtod(v, &end);
	if (end != v && !*end && c->interval_s >= 0.01 && c->interval_s <= 86400)
		return SET_OK;
	snprintf(err, errlen, "--interval takes seconds from 0.01 to 86400, not '%s'", v);
	return SET_BAD;
}

enum set_result set_lat_log(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->lat_log_path = v;
	return SET_OK;
}

/* --crash-after S or random:S: seconds from 0 (S > 0 for random) to 86400. */
enum set_result set_crash_after(struct cli *c, const char *v, char *err, size_t errlen)
{
	const char *num = v;
	char *end;
	c->crash_random = !strncmp(v, "random:", 7);
	if (c->crash_random)
		num += 7;
	c->crash_after_s = strtod(num, &end);
	if (end != num && !*end && c->crash_after_s >= 0 && c->crash_after_s <= 86400 &&
	    (!c->crash_random || c->crash_after_s > 0)) {
		c->crash = true;
		return SET_OK;
	}
	snprintf(err, errlen,
	         "--crash-after takes seconds from 0 to 86400, or random:S (S > 0), not '%s'", v);
	return SET_BAD;
}

enum set_result set_durability_log(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!*v || !strcmp(v, "-")) {
		snprintf(err, errlen, "--durability-log needs a file (not standard output)");
		return SET_BAD;
	}
	c->durability_log_path = v;
	return SET_OK;
}

enum set_result set_model(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "linux") || !strcmp(v, "posix")) {
		c->model = !strcmp(v, "posix"); /* enum dm_model: DM_LINUX 0, DM_POSIX 1 */
		return SET_OK;
	}
	snprintf(err, errlen, "--model takes linux or posix, not '%s'", v);
	return SET_BAD;
}

/* A CLOCK_MONOTONIC time in ns: the profile's whole numbers (value.h), 1 and up (0: no cut). */
enum set_result set_cut_at(struct cli *c, const char *v, char *err, size_t errlen)
{
	char why[VALUE_ERR_LEN];
	uint64_t n;
	if (!value_parse_uint(v, &n, why) && n) {
		c->cut_at_ns = n;
		return SET_OK;
	}
	snprintf(err, errlen,
	         "--cut-at takes the cut's CLOCK_MONOTONIC time in nanoseconds, a whole number "
	         "above 0 (fsmix-powercut's cut_mono_ns), not '%s'",
	         v);
	return SET_BAD;
}

enum set_result set_sweep(struct cli *c, const char *v, char *err, size_t errlen)
{
	return add_dim(c, false, false, v, err, errlen);
}

/* until:PCT[:MAX] (PCT with or without '%'): c->until_pct and c->repeat (MAX, default 20). */
static bool parse_until(struct cli *c, const char *v)
{
	char *end;
	if (strncmp(v, "until:", 6) || !(isdigit((unsigned char)v[6]) || v[6] == '.'))
		return false;
	double pct = strtod(v + 6, &end);
	if (*end == '%')
		end++;
	unsigned max = 20;
	if (*end == ':' && !parse_count(end + 1, 1000, &max))
		return false;
	if ((*end && *end != ':') || !(pct > 0) || pct > 1e6 || max < SWEEP_UNTIL_MIN)
		return false;
	c->until_pct = pct;
	c->repeat = max;
	return true;
}

enum set_result set_repeat(struct cli *c, const char *v, char *err, size_t errlen)
{
	c->until_pct = 0;
	if (parse_count(v, 1000, &c->repeat) || parse_until(c, v))
		return SET_OK;
	if (!strncmp(v, "until", 5))
		snprintf(err, errlen,
		         "--repeat until:PCT[:MAX] takes a target above 0 %% and at most MAX runs, "
		         "%d to 1000 (default 20), e.g. until:2%%:20, not '%s'",
		         SWEEP_UNTIL_MIN, v);
	else
		snprintf(err, errlen,
		         "--repeat takes a count from 1 to 1000 or until:PCT[:MAX], not '%s'", v);
	return SET_BAD;
}

/* run --plot, compare --plot and plot -o: the picture to draw. */
enum set_result set_picture(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->plot_path = v;
	return SET_OK;
}

enum set_result set_force(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->force = true;
	return SET_OK;
}

enum set_result set_markdown(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->markdown = true;
	return SET_OK;
}

enum set_result set_help(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->action = ACT_HELP;
	return SET_STOP;
}

enum set_result set_version(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->action = ACT_VERSION;
	return SET_STOP;
}

enum set_result set_help_man(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->action = ACT_HELP_MAN;
	return SET_STOP;
}
