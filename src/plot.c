/* plot.c - gnuplot charts (see plot.h). Writes the data and a script into a private temporary
 * directory, runs gnuplot on it, checks that the image was written, and removes the directory. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcode.h"
#include "fdio.h"
#include "metrics.h"
#include "outfile.h"

extern char **environ;

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

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
	return end != v && !*end;
}

static int write_sweep_data(FILE *f, const json_t *doc, bool *numeric)
{
	const json_t *pts;
	size_t n = doc_points(doc, &pts);
	*numeric = true;
	for (size_t i = 0; i < n; i++) {
		double x;
		if (!numeric_x(doc, i, &x))
			*numeric = false;
	}
	for (size_t i = 0; i < n; i++) {
		double x = (double)i;
		if (*numeric)
			numeric_x(doc, i, &x);
		fprintf(f, "%g \"%s\"", x, point_label(doc, i));
		for (int m = 0; m < METRIC_COUNT; m++) {
			struct metric_stat st;
			point_stat(doc, i, (enum metric_id)m, &st);
			if (st.n)
				fprintf(f, " %g %g", st.mean, st.stddev);
			else
				fprintf(f, " NaN NaN");
		}
		fprintf(f, "\n");
	}
	return ferror(f) ? -1 : 0;
}

/* Column of metric m's mean in the data file (x, label, then mean/stddev pairs). */
static int col(enum metric_id m)
{
	return 3 + 2 * (int)m;
}

/* A name safe inside a gnuplot single-quoted string. */
static void safe_name(char *out, size_t len, const char *s)
{
	const char *base = s ? strrchr(s, '/') : NULL;
	s = base ? base + 1 : s ? s : "";
	size_t o = 0;
	for (; *s && o + 1 < len; s++)
		out[o++] = (*s == '\'' || *s == '\\' || (unsigned char)*s < 32) ? '_' : *s;
	out[o] = '\0';
}

static void sweep_script(FILE *g, const char *data, bool numeric, const char *xlabel,
                         const char *profile)
{
	char name[128];
	safe_name(name, sizeof(name), profile);
	fprintf(g, "set multiplot layout 2,1 title 'fsmix sweep: %s (mean, error bars: stddev)'\n",
	        name);
	fprintf(g, "set grid\nset key outside right\nset xlabel '%s'\n", xlabel);
	fprintf(g, "set offsets graph 0.05, graph 0.05, 0, 0\n"); /* error bars at the ends show */
	if (numeric)
		fprintf(g, "set logscale x 2\nset xtics\n");
	else
		fprintf(g, "set xtics rotate by -30\n");
	const char *xs = numeric ? "1" : "0";
	const char *xt = numeric ? "" : ":xtic(2)";
	fprintf(g, "set ylabel 'per second'\nset yrange [0:*]\n");
	fprintf(g,
	        "plot '%s' using %s:%d:%d%s with yerrorlines title 'trans/s', "
	        "'' using %s:%d:%d%s with yerrorlines title 'ops/s'\n",
	        data, xs, col(M_TRANS_PER_S), col(M_TRANS_PER_S) + 1, xt, xs, col(M_OPS_PER_S),
	        col(M_OPS_PER_S) + 1, xt);
	fprintf(g, "set ylabel 'latency (ms)'\nset logscale y 10\nset yrange [*:*]\n");
	fprintf(g,
	        "plot '%s' using %s:%d:%d%s with yerrorlines title 'op p50', "
	        "'' using %s:%d:%d%s with yerrorlines title 'op p99', "
	        "'' using %s:%d:%d%s with yerrorlines title 'sync p99'\n",
	        data, xs, col(M_OP_P50_MS), col(M_OP_P50_MS) + 1, xt, xs, col(M_OP_P99_MS),
	        col(M_OP_P99_MS) + 1, xt, xs, col(M_SYNC_P99_MS), col(M_SYNC_P99_MS) + 1, xt);
	fprintf(g, "unset multiplot\n");
}

/* A single run: one block per syscall with msec_range counts, as clustered bars. */
static int write_ranges(FILE *f, FILE *g, const json_t *doc, const char *data)
{
	const json_t *groups = json_object_get(doc, "groups"), *grp, *sc;
	size_t i, k, blocks = 0;
	json_array_foreach(groups, i, grp)
	{
		json_array_foreach(json_object_get(grp, "syscalls"), k, sc)
		{
			const json_t *r = json_object_get(sc, "msec_ranges"), *x;
			size_t j;
			if (!json_array_size(r))
				continue;
			fprintf(f, "# %s %s\n", json_string_value(json_object_get(grp, "name")),
			        json_string_value(json_object_get(sc, "name")));
			json_array_foreach(r, j, x)
			{
				fprintf(f, "\"%g-%g\" %" JSON_INTEGER_FORMAT "\n",
				        json_number_value(json_object_get(x, "lo_ms")),
				        json_number_value(json_object_get(x, "hi_ms")),
				        json_integer_value(json_object_get(x, "count")));
			}
			fprintf(f, "\"outside\" %" JSON_INTEGER_FORMAT "\n\n\n",
			        json_integer_value(json_object_get(sc, "outside")));
			blocks++;
		}
	}
	if (!blocks)
		return -1;
	fprintf(g, "set style data histograms\nset style histogram clustered gap 1\n");
	fprintf(g, "set style fill solid 0.8 border -1\nset logscale y\nset yrange [0.8:*]\n");
	fprintf(g, "set xtics rotate by -45\nset xlabel 'msec_range (ms)'\nset ylabel 'calls'\n");
	fprintf(g,
	        "set title 'fsmix: system call latency histogram (msec_range)'\nset key outside\n");
	fprintf(g, "plot for [b=0:%zu] '%s' index b using 2:xtic(1) title columnhead(1)\n",
	        blocks - 1, data);
	return 0;
}

/* Comparison: base vs new mean trans/s and op p99 per point. */
static int write_compare(FILE *f, FILE *g, const json_t *base, const json_t *now, const char *data)
{
	const json_t *pts;
	size_t n = doc_points(now, &pts), nb = doc_points(base, &pts);
	if (!n || !nb)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *label = point_label(now, i);
		size_t j = 0;
		while (j < nb && strcmp(point_label(base, j), label))
			j++;
		if (j == nb)
			continue;
		fprintf(f, "\"%s\"", label);
		const enum metric_id ms[] = {M_TRANS_PER_S, M_OP_P99_MS};
		for (size_t m = 0; m < 2; m++) {
			struct metric_stat a, b;
			point_stat(base, j, ms[m], &a);
			point_stat(now, i, ms[m], &b);
			fprintf(f, " %g %g %g %g", a.n ? a.mean : 0, a.stddev, b.n ? b.mean : 0,
			        b.stddev);
		}
		fprintf(f, "\n");
	}
	fprintf(g, "set multiplot layout 2,1 title 'fsmix compare: base vs new'\n");
	fprintf(g, "set style data histograms\nset style histogram errorbars gap 2 lw 1\n");
	fprintf(g, "set style fill solid 0.7 border -1\nset grid ytics\nset yrange [0:*]\n");
	fprintf(g, "set ylabel 'trans/s'\n");
	fprintf(g, "plot '%s' using 2:3:xtic(1) title 'base', '' using 4:5 title 'new'\n", data);
	fprintf(g, "set ylabel 'op p99 (ms)'\n");
	fprintf(g, "plot '%s' using 6:7:xtic(1) title 'base', '' using 8:9 title 'new'\n", data);
	fprintf(g, "unset multiplot\n");
	return 0;
}

static int run_gnuplot(const char *script, FILE *log)
{
	pid_t pid;
	char *argv[] = {"gnuplot", (char *)script, NULL};
	int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (rc == ENOENT) {
		fprintf(log, "fsmix: plotting needs gnuplot, which is not installed "
		             "(apt-get install gnuplot-nox)\n");
		return EXIT_UNSUPPORTED;
	}
	if (rc) {
		fprintf(log, "fsmix: cannot start gnuplot: %s\n", strerror(rc));
		return EXIT_RUN_FAILED;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(log, "fsmix: gnuplot failed (status %d)\n",
		        WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return EXIT_RUN_FAILED;
	}
	return 0;
}

int plot_check_output(const char *path, char *err, size_t errlen)
{
	if (!ends_with(path, ".png") && !ends_with(path, ".svg")) {
		snprintf(err, errlen, "%s: the file name must end in .png or .svg", path);
		return -1;
	}
	return outfile_check(path, err, errlen) ? -1 : 0;
}

/* Copies the image gnuplot drew in the private directory to `path` (outfile.h's rules: never
 * replacing a device, FIFO or symbolic link; a regular file is replaced atomically). */
static int copy_image(const char *image, const char *path, FILE *log)
{
	char why[MSG_MAX];
	struct outfile out;
	int in = open(image, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(log, "fsmix: gnuplot wrote no image: %s\n", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	if (outfile_open(&out, path, 0, why, sizeof(why))) {
		fprintf(log, "fsmix: %s\n", why);
		close(in);
		return EXIT_RUN_FAILED;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if ((rc = fd_write_all(out.fd, buf, (size_t)n)))
			break;
	if (n < 0)
		rc = -errno;
	close(in);
	if (rc) {
		fprintf(log, "fsmix: %s: cannot write: %s\n", path, strerror(-rc));
		outfile_abort(&out);
		return EXIT_RUN_FAILED;
	}
	if (outfile_commit(&out, why, sizeof(why))) {
		fprintf(log, "fsmix: %s\n", why);
		return EXIT_RUN_FAILED;
	}
	return 0;
}

int plot_write(const json_t *doc, const json_t *base, const char *path, FILE *log)
{
	const char *term;
	char why[MSG_MAX];
	if (ends_with(path, ".png"))
		term = "pngcairo size 1000,800 font 'sans,10'";
	else if (ends_with(path, ".svg"))
		term = "svg size 1000,800 dynamic";
	else {
		fprintf(log, "fsmix: --plot %s: the file name must end in .png or .svg\n", path);
		return EXIT_BAD_INPUT;
	}
	if (outfile_check(path, why, sizeof(why))) {
		fprintf(log, "fsmix: --plot %s\n", why);
		return EXIT_BAD_INPUT;
	}
	char dir[] = "/tmp/fsmix-plot.XXXXXX";
	if (!mkdtemp(dir)) {
		fprintf(log, "fsmix: cannot create a temporary directory: %s\n", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	char data[64], script[64], image[64];
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(image, sizeof(image), "%s/image", dir); /* gnuplot draws here; copied to path */
	FILE *f = fopen(data, "w"), *g = fopen(script, "w");
	int rc = 0;
	if (!f || !g) {
		fprintf(log, "fsmix: cannot write in %s: %s\n", dir, strerror(errno));
		rc = EXIT_RUN_FAILED;
		goto out;
	}
	fprintf(g, "set terminal %s\nset output '%s'\nset datafile missing 'NaN'\n", term, image);
	const json_t *pts;
	if (base) {
		if (write_compare(f, g, base, doc, data)) {
			fprintf(log, "fsmix: nothing to compare\n");
			rc = EXIT_BAD_INPUT;
		}
	} else if (json_is_array(json_object_get(doc, "points"))) {
		bool numeric;
		const json_t *dims = json_object_get(doc, "dimensions");
		const char *xl =
		    json_array_size(dims) == 1
		        ? json_string_value(json_object_get(json_array_get(dims, 0), "label"))
		        : "point";
		if (!doc_points(doc, &pts) || write_sweep_data(f, doc, &numeric)) {
			fprintf(log, "fsmix: the sweep has no finished point to plot\n");
			rc = EXIT_BAD_INPUT;
		} else {
			sweep_script(g, data, numeric, xl ? xl : "point",
			             json_string_value(json_object_get(doc, "profile_path")));
		}
	} else if (json_object_get(doc, "total")) {
		if (write_ranges(f, g, doc, data)) {
			fprintf(log,
			        "fsmix: the run has no msec_range counts to plot (enable_stats=1, "
			        "enable_range=1 and msec_range lines are needed)\n");
			rc = EXIT_BAD_INPUT;
		}
	} else {
		fprintf(log, "fsmix: not an fsmix run or sweep document\n");
		rc = EXIT_BAD_INPUT;
	}
	if (fclose(f) | fclose(g)) {
		f = g = NULL;
		rc = rc ? rc : EXIT_RUN_FAILED;
	}
	f = g = NULL;
	if (!rc)
		rc = run_gnuplot(script, log);
	struct stat sb;
	if (!rc && (stat(image, &sb) || sb.st_size == 0)) {
		fprintf(log, "fsmix: gnuplot wrote no image for %s\n", path);
		rc = EXIT_RUN_FAILED;
	}
	if (!rc)
		rc = copy_image(image, path, log);
	if (!rc)
		fprintf(log, "fsmix: plot written to %s\n", path);
out:
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	unlink(data);
	unlink(script);
	unlink(image);
	rmdir(dir);
	return rc;
}
