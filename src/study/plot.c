/* plot.c - gnuplot charts of result documents (see plot.h). The data file holds numbers only;
 * every string (labels, names, titles) goes into the script through gp_str (gnuplot.h). */
#include "plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "metrics.h"

/* The runs of a document as points: a sweep has points[].runs; a single run is one point. */
static size_t doc_points(const json_t *doc, const json_t **pts)
{
	const json_t *points = json_object_get(doc, "points");
	if (json_is_array(points)) {
		*pts = points;
		return json_array_size(points);
	}
	*pts = NULL;
	return json_object_get(doc, "total") ? 1 : 0;
}

static void point_stat(const json_t *doc, size_t i, enum metric_id m, struct metric_stat *st)
{
	const json_t *pts;
	doc_points(doc, &pts);
	if (!pts) {
		json_t *one = (json_t *)doc;
		metric_stat_of(&one, 1, m, st);
		return;
	}
	const json_t *runs = json_object_get(json_array_get(pts, i), "runs");
	size_t n = json_array_size(runs);
	json_t **v = calloc(n + 1, sizeof(*v));
	for (size_t k = 0; v && k < n; k++)
		v[k] = json_array_get(runs, k);
	metric_stat_of(v, v ? n : 0, m, st);
	free(v);
}

static const char *point_label(const json_t *doc, size_t i)
{
	const json_t *pts;
	doc_points(doc, &pts);
	const char *l =
	    pts ? json_string_value(json_object_get(json_array_get(pts, i), "label")) : NULL;
	return l ? l : "run";
}

/* x of point i: the swept value when there is one numeric dimension, else the index. */
static bool numeric_x(const json_t *doc, size_t i, double *x)
{
	const json_t *dims = json_object_get(doc, "dimensions"), *pts;
	doc_points(doc, &pts);
	if (json_array_size(dims) != 1 || !pts)
		return false;
	const char *label = json_string_value(json_object_get(json_array_get(dims, 0), "label"));
	const json_t *params = json_object_get(json_array_get(pts, i), "params");
	const char *v = json_string_value(json_object_get(params, label ? label : ""));
	char *end;
	if (!v)
		return false;
	*x = strtod(v, &end);
	/* the x axis is log 2: only positive finite values */
	return end != v && !*end && isfinite(*x) && *x > 0;
}

/* Column of metric m's mean in the sweep data file (x, then mean/stddev pairs). */
static int col(enum metric_id m)
{
	return 2 + 2 * (int)m;
}

/* The profile's file name (without its directory) from a results document, "" when absent:
 * for titles, which gp_str() quotes. */
static const char *profile_name(const json_t *doc)
{
	const char *profile = json_string_value(json_object_get(doc, "profile_path"));
	const char *base = profile ? strrchr(profile, '/') : NULL;
	return base ? base + 1 : profile ? profile : "";
}

/* `set xtics (LABEL 0, LABEL 1, ...)`: the points' labels as tics at 0, 1, ... */
static void label_tics(FILE *g, const json_t *doc, const size_t *idx, size_t n)
{
	fprintf(g, "set xtics (");
	for (size_t i = 0; i < n; i++) {
		fprintf(g, "%s", i ? ", " : "");
		gp_tic(g, point_label(doc, idx ? idx[i] : i));
		fprintf(g, " %zu", i);
	}
	fprintf(g, ")\n");
}

/* The sweep chart's panels and their series (metrics); a series without a value at any point
 * is left out, and so is a panel left without series (enable_stats=0: no latency). */
#define SWEEP_SERIES 3
static const struct sweep_panel {
	const char *ylabel, *setup, *name;
	bool log_y;
	enum metric_id m[SWEEP_SERIES];
	const char *title[SWEEP_SERIES];
} sweep_panels[] = {
    {"per second",
     "set yrange [0:*]",
     "throughput",
     false,
     {M_TRANS_PER_S, M_OPS_PER_S},
     {"trans/s", "ops/s"}},
    {"latency (ms)",
     "set logscale y 10\nset yrange [*:*]",
     "latency",
     true,
     {M_OP_P50_MS, M_OP_P99_MS, M_SYNC_P99_MS},
     {"op p50", "op p99", "sync p99"}},
};
#define SWEEP_PANELS (sizeof(sweep_panels) / sizeof(sweep_panels[0]))

/* Which metrics have a value at some point: any (finite), and above 0 (for a log axis). */
struct sweep_has {
	bool any[METRIC_COUNT], positive[METRIC_COUNT];
};

/* The data file (x, then mean and stddev of every metric per point), and what it has. */
static void sweep_data(FILE *f, const json_t *doc, size_t n, bool numeric, struct sweep_has *has)
{
	memset(has, 0, sizeof(*has));
	for (size_t i = 0; i < n; i++) {
		double x = (double)i;
		if (numeric)
			numeric_x(doc, i, &x);
		gp_num(f, x);
		for (int m = 0; m < METRIC_COUNT; m++) {
			struct metric_stat st;
			point_stat(doc, i, (enum metric_id)m, &st);
			fputc(' ', f);
			gp_num(f, st.n ? st.mean : NAN);
			fputc(' ', f);
			gp_num(f, st.n ? st.stddev : NAN);
			has->any[m] |= st.n && isfinite(st.mean);
			has->positive[m] |= st.n && isfinite(st.mean) && st.mean > 0;
		}
		fprintf(f, "\n");
	}
}

/* Whether series s of panel p can be drawn. */
static bool sweep_drawn(const struct sweep_panel *p, size_t s, const struct sweep_has *has)
{
	return p->log_y ? has->positive[p->m[s]] : has->any[p->m[s]];
}

/* Panel p's plot command with the series that have data; false when none has. */
static bool sweep_panel(FILE *g, const struct sweep_panel *p, const struct sweep_has *has,
                        const char *data)
{
	bool any = false;
	for (size_t s = 0; s < SWEEP_SERIES && p->title[s]; s++) {
		if (!sweep_drawn(p, s, has))
			continue;
		if (!any)
			fprintf(g, "set ylabel '%s'\n%s\nplot '%s' ", p->ylabel, p->setup, data);
		else
			fprintf(g, ", '' ");
		fprintf(g, "using 1:%d:%d with yerrorlines title '%s'", col(p->m[s]),
		        col(p->m[s]) + 1, p->title[s]);
		any = true;
	}
	if (any)
		fprintf(g, "\n");
	return any;
}

static enum failure sweep_chart(FILE *f, FILE *g, const json_t *doc, const char *data, FILE *log)
{
	const json_t *pts;
	size_t n = doc_points(doc, &pts);
	if (!n) {
		fprintf(log, "fsmix: the sweep has no finished point to plot\n");
		return FAIL_INPUT;
	}
	bool numeric = true;
	struct sweep_has has;
	for (size_t i = 0; i < n; i++) {
		double x;
		if (!numeric_x(doc, i, &x))
			numeric = false;
	}
	sweep_data(f, doc, n, numeric, &has);
	size_t shown = 0;
	char left_out[128] = "";
	for (size_t p = 0; p < SWEEP_PANELS; p++) {
		bool any = false;
		for (size_t s = 0; s < SWEEP_SERIES && sweep_panels[p].title[s]; s++)
			any |= sweep_drawn(&sweep_panels[p], s, &has);
		if (any)
			shown++;
		else
			snprintf(left_out + strlen(left_out), sizeof(left_out) - strlen(left_out),
			         "%s%s", left_out[0] ? ", " : "", sweep_panels[p].name);
	}
	if (!shown) {
		fprintf(log, "fsmix: the sweep has no figures to plot\n");
		return FAIL_INPUT;
	}
	if (left_out[0]) /* enable_stats=0: nothing was timed */
		fprintf(log,
		        "fsmix: plot: no %s figures in the sweep (not timed: enable_stats=0?): "
		        "that panel is left out\n",
		        left_out);
	const json_t *dims = json_object_get(doc, "dimensions");
	const char *xl = json_array_size(dims) == 1
	                     ? json_string_value(json_object_get(json_array_get(dims, 0), "label"))
	                     : NULL;
	char title[512];
	snprintf(title, sizeof(title), "fsmix sweep: %s (mean, error bars: stddev)%s%s%s",
	         profile_name(doc), left_out[0] ? "; no " : "", left_out,
	         left_out[0] ? " figures" : "");
	fprintf(g, "set multiplot layout %zu,1 title ", shown);
	gp_str(g, title);
	fprintf(g, "\nset grid\nset key outside right\nset xlabel ");
	gp_str(g, xl ? xl : "point");
	fprintf(g, "\nset offsets graph 0.05, graph 0.05, 0, 0\n"); /* end error bars show */
	if (numeric)
		fprintf(g, "set logscale x 2\nset xtics\n");
	else {
		label_tics(g, doc, NULL, n);
		fprintf(g, "set xtics rotate by -30\n");
	}
	for (size_t p = 0; p < SWEEP_PANELS; p++)
		(void)sweep_panel(g, &sweep_panels[p], &has, data);
	fprintf(g, "unset multiplot\n");
	return FAIL_NONE;
}

/* A single run: one block per syscall with msec_range counts, as clustered bars. */
static enum failure ranges_chart(FILE *f, FILE *g, const json_t *doc, const char *data, FILE *log)
{
	const json_t *groups = json_object_get(doc, "groups"), *grp, *sc;
	size_t i, k, blocks = 0;
	char **titles = NULL;
	json_array_foreach(groups, i, grp)
	{
		json_array_foreach(json_object_get(grp, "syscalls"), k, sc)
		{
			const json_t *r = json_object_get(sc, "msec_ranges"), *x;
			size_t j;
			if (!json_array_size(r))
				continue;
			char **t = realloc(titles, (blocks + 1) * sizeof(*titles));
			if (!t)
				break;
			titles = t;
			const char *gn = json_string_value(json_object_get(grp, "name"));
			const char *sn = json_string_value(json_object_get(sc, "name"));
			size_t len = strlen(gn ? gn : "?") + strlen(sn ? sn : "?") + 2;
			if (!(titles[blocks] = malloc(len)))
				break;
			snprintf(titles[blocks], len, "%s %s", gn ? gn : "?", sn ? sn : "?");
			/* The tic labels are made of numbers, so they may go in the data. */
			json_array_foreach(r, j, x)
			{
				fprintf(f, "\"%g-%g\" ",
				        json_number_value(json_object_get(x, "lo_ms")),
				        json_number_value(json_object_get(x, "hi_ms")));
				gp_num(f, json_number_value(json_object_get(x, "count")));
				fputc('\n', f);
			}
			fprintf(f, "\"outside\" ");
			gp_num(f, json_number_value(json_object_get(sc, "outside")));
			fprintf(f, "\n\n\n");
			blocks++;
		}
	}
	enum failure rc = FAIL_NONE;
	if (!blocks) {
		fprintf(log, "fsmix: the run has no msec_range counts and no --interval rows to "
		             "plot (enable_stats=1, enable_range=1 and msec_range lines, or "
		             "--interval S, are needed)\n");
		rc = FAIL_INPUT;
	} else {
		fprintf(g, "set style data histograms\nset style histogram clustered gap 1\n");
		fprintf(g, "set style fill solid 0.8 border -1\nset logscale y\n"
		           "set yrange [0.8:*]\n");
		fprintf(g, "set xtics rotate by -45\nset xlabel 'msec_range (ms)'\n"
		           "set ylabel 'calls'\n");
		fprintf(g, "set title 'fsmix: system call latency histogram (msec_range)'\n"
		           "set key outside\n");
		for (size_t b = 0; b < blocks; b++) {
			fprintf(g, "%s'%s' index %zu using 2%s title ", b ? ", " : "plot ",
			        b ? "" : data, b, b ? "" : ":xtic(1)");
			gp_str(g, titles[b]);
		}
		fprintf(g, "\n");
	}
	for (size_t b = 0; b < blocks; b++)
		free(titles[b]);
	free(titles);
	return rc;
}

/* Comparison: base vs new mean trans/s and op p99 per point. */
static enum failure compare_chart(FILE *f, FILE *g, const json_t *base, const json_t *now,
                                  const char *data, FILE *log)
{
	const json_t *pts;
	size_t n = doc_points(now, &pts), nb = doc_points(base, &pts), rows = 0;
	bool timed = false; /* an op p99 in either document (enable_stats=0: none) */
	size_t *idx = calloc(n + 1, sizeof(*idx));
	if (!idx)
		return FAIL_IO;
	for (size_t i = 0; i < n; i++) {
		const char *label = point_label(now, i);
		size_t j = 0;
		while (j < nb && strcmp(point_label(base, j), label))
			j++;
		if (j == nb)
			continue;
		idx[rows++] = i;
		const enum metric_id ms[] = {M_TRANS_PER_S, M_OP_P99_MS};
		for (size_t m = 0; m < 2; m++) {
			struct metric_stat a, b;
			point_stat(base, j, ms[m], &a);
			point_stat(now, i, ms[m], &b);
			timed |= ms[m] == M_OP_P99_MS && (a.n || b.n);
			gp_num(f, a.n ? a.mean : 0);
			fputc(' ', f);
			gp_num(f, a.n ? a.stddev : 0);
			fputc(' ', f);
			gp_num(f, b.n ? b.mean : 0);
			fputc(' ', f);
			gp_num(f, b.n ? b.stddev : 0);
			fputc(m ? '\n' : ' ', f);
		}
	}
	if (!rows) {
		free(idx);
		fprintf(log, "fsmix: nothing to compare\n");
		return FAIL_INPUT;
	}
	if (!timed)
		fprintf(log, "fsmix: plot: no op p99 in either document (not timed: "
		             "enable_stats=0?): that panel is left out\n");
	fprintf(g, "set multiplot layout %d,1 title 'fsmix compare: base vs new%s'\n",
	        timed ? 2 : 1, timed ? "" : "; no latency figures");
	fprintf(g, "set style data histograms\nset style histogram errorbars gap 2 lw 1\n");
	fprintf(g, "set style fill solid 0.7 border -1\nset grid ytics\nset yrange [0:*]\n");
	label_tics(g, now, idx, rows);
	fprintf(g, "set ylabel 'trans/s'\n");
	fprintf(g, "plot '%s' using 1:2 title 'base', '' using 3:4 title 'new'\n", data);
	if (timed) {
		fprintf(g, "set ylabel 'op p99 (ms)'\n");
		fprintf(g, "plot '%s' using 5:6 title 'base', '' using 7:8 title 'new'\n", data);
	}
	fprintf(g, "unset multiplot\n");
	free(idx);
	return FAIL_NONE;
}

int plot_has_intervals(const json_t *doc)
{
	return !json_is_array(json_object_get(doc, "points")) &&
	       json_array_size(json_object_get(doc, "intervals")) > 0;
}

/* One block of the time chart's data: x (the interval's middle), ops/s, MB/s, p99 ms. Returns
 * whether any p99 was given. The run's last interval is usually cut short by the run's end; when
 * it is shorter than half the first one its rates are mostly noise (a few operations over a few
 * milliseconds) and it is left out. */
static bool interval_block(FILE *f, const json_t *rows, double *t_max)
{
	size_t i, n = json_array_size(rows);
	const json_t *r;
	bool p99 = false;
	double len0 = json_number_value(json_object_get(json_array_get(rows, 0), "length_s"));
	json_array_foreach(rows, i, r)
	{
		double t = json_number_value(json_object_get(r, "t_s"));
		double len = json_number_value(json_object_get(r, "length_s"));
		if (n > 1 && i == n - 1 && len < len0 / 2)
			break;
		const json_t *p = json_object_get(r, "p99_op_ms");
		gp_num(f, t - len / 2);
		fputc(' ', f);
		gp_num(f, json_is_number(json_object_get(r, "ops_per_s"))
		              ? json_number_value(json_object_get(r, "ops_per_s"))
		              : NAN);
		fputc(' ', f);
		gp_num(f, json_is_number(json_object_get(r, "mb_per_s"))
		              ? json_number_value(json_object_get(r, "mb_per_s"))
		              : NAN);
		fputc(' ', f);
		double ms = json_is_number(p) ? json_number_value(p) : NAN;
		gp_num(f, ms > 0 ? ms : NAN); /* log scale: 0 cannot be drawn */
		fputc('\n', f);
		p99 |= ms > 0 && isfinite(ms);
		if (isfinite(t) && t > *t_max)
			*t_max = t;
	}
	fprintf(f, "\n\n");
	return p99;
}

/* A single run over time: ops/s, MB/s and op p99 of every group (groups[].intervals) and of
 * the total (intervals) when there are several groups or no per-group rows. */
static void interval_chart(FILE *f, FILE *g, const json_t *doc, const char *data)
{
	const json_t *groups = json_object_get(doc, "groups"), *grp;
	const char *names[65];
	bool has_p99[65];
	size_t i, n = 0, with_rows = 0;
	bool p99 = false;
	double t_max = 0;
	json_array_foreach(groups, i, grp)
	{
		if (json_array_size(json_object_get(grp, "intervals")))
			with_rows++;
	}
	json_array_foreach(groups, i, grp)
	{
		const json_t *rows = json_object_get(grp, "intervals");
		if (!json_array_size(rows) || n >= 64)
			continue;
		has_p99[n] = interval_block(f, rows, &t_max);
		p99 |= has_p99[n];
		const char *name = json_string_value(json_object_get(grp, "name"));
		names[n++] = name ? name : "?";
	}
	size_t groups_drawn = n;
	if (with_rows != 1) {
		has_p99[n] = interval_block(f, json_object_get(doc, "intervals"), &t_max);
		p99 |= has_p99[n];
		names[n++] = "total";
	}
	char title[512];
	snprintf(title, sizeof(title), "fsmix run over time: %s", profile_name(doc));
	fprintf(g, "set multiplot layout 3,1 title ");
	gp_str(g, title);
	/* Fixed margins so the three panels share one time axis. */
	fprintf(g, "\nset grid\nset key outside right top\nset lmargin 12\nset rmargin 26\n");
	fprintf(g, "set xrange [0:%.9g]\nset yrange [0:*]\nset format x ''\n",
	        t_max > 0 ? t_max : 1.0);
	const struct {
		int col;
		const char *ylabel;
	} panels[] = {{2, "ops/s"}, {3, "MB/s"}, {4, "op p99 (ms)"}};
	for (size_t p = 0; p < 3; p++) {
		fprintf(g, "set ylabel '%s'\n", panels[p].ylabel);
		if (p == 2) {
			fprintf(g, "set format x '%%g'\nset xlabel 'time (s)'\n");
			if (!p99) {
				/* nothing timed: an empty panel that says so */
				fprintf(
				    g, "set yrange [0:1]\nset label 1 'not timed (enable_stats=0)' "
				       "at graph 0.5, graph 0.5 center\n"
				       "plot NaN notitle\n");
				break;
			}
			fprintf(g, "set logscale y 10\nset yrange [*:*]\n");
		}
		/* A series without a p99 (its group is not timed) is left out of the p99 panel;
		 * colours stay those of the series. */
		bool first = true;
		for (size_t s = 0; s < n; s++) {
			bool total = s >= groups_drawn && n > 1;
			if (p == 2 && !has_p99[s])
				continue;
			fprintf(g, "%s'%s' index %zu using 1:%d with linespoints pt 7 ps 0.5 ",
			        first ? "plot " : ", ", data, s, panels[p].col);
			first = false;
			if (total)
				fprintf(g, "lc rgb 'black' dt 2 ");
			else
				fprintf(g, "lc %zu ", s + 1);
			fprintf(g, "title ");
			gp_str(g, names[s]);
		}
		fprintf(g, "\n");
	}
	fprintf(g, "unset multiplot\n");
}

enum failure plot_script(const json_t *doc, const json_t *base, FILE *data, const char *data_path,
                         FILE *script, FILE *log)
{
	if (base)
		return compare_chart(data, script, base, doc, data_path, log);
	if (json_is_array(json_object_get(doc, "points")))
		return sweep_chart(data, script, doc, data_path, log);
	if (plot_has_intervals(doc)) {
		interval_chart(data, script, doc, data_path);
		return FAIL_NONE;
	}
	if (json_object_get(doc, "total"))
		return ranges_chart(data, script, doc, data_path, log);
	fprintf(log, "fsmix: not an fsmix run or sweep document\n");
	return FAIL_INPUT;
}

int plot_check_output(const char *path, char *err, size_t errlen)
{
	return gp_check_output(path, err, errlen);
}

enum failure plot_write(const json_t *doc, const json_t *base, const char *path, FILE *log)
{
	struct gp_job j;
	enum failure rc = gp_check_path(path, "plot", log);
	if (!rc)
		rc = gp_open(&j, path, 1000, !base && plot_has_intervals(doc) ? 900 : 800, log);
	if (rc)
		return rc;
	rc = plot_script(doc, base, j.data_f, GP_DATA_NAME, j.script_f, log);
	if (rc) {
		gp_discard(&j);
		return rc;
	}
	return gp_finish(&j, path, log);
}
