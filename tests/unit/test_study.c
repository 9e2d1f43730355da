/* test_study.c - the kinds of failure (failure.h) the study layer reports to the command line,
 * which alone turns them into exit statuses: compare (too few files, a missing or non-JSON
 * file, an unwritable output), plot (a bad output name, nothing to draw, gnuplot missing),
 * latency-log plots (a malformed line, a missing log) and sweep value lists. Also that the
 * messages still name what failed. Runs in a private temporary directory; gnuplot is not
 * run: PATH is emptied, or holds a stand-in that writes a file where plot.gp says. */
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "docschema.h"
#include "failure.h"
#include "latplot.h"
#include "plot.h"
#include "sweep.h"
#include "test.h"

static char dir[] = "/tmp/fsmix-study-XXXXXX";

/* DIR/name; the result stays valid for the next 15 calls. */
static const char *at(const char *name)
{
	static char buf[16][PATH_MAX];
	static int k;
	char *p = buf[k++ % 16];
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		TEST_FAIL("cannot write %s", path);
}

/* The messages written to a log stream since it was opened (rewound for the next case). */
static const char *log_text(FILE *log)
{
	static char buf[4096];
	fflush(log);
	rewind(log);
	size_t n = fread(buf, 1, sizeof(buf) - 1, log);
	buf[n] = '\0';
	rewind(log);
	if (ftruncate(fileno(log), 0))
		TEST_FAIL("cannot truncate the log");
	return buf;
}

/* A single run's results with two headline metrics: the smallest document of the schema
 * (docs/output.md; docschema.h) with a total. */
static const char run_doc[] =
    "{\"schema\": \"fsmix-report\", \"schema_version\": 1, \"exit_status\": 0, "
    "\"interrupted\": false, \"measured\": true, \"runtime_s\": 1, \"groups\": [], "
    "\"total\": {\"name\": \"total\", \"ops_per_s\": 100, \"trans_per_s\": 50}}\n";

static void test_compare_input(void)
{
	FILE *log = tmpfile(), *out = fopen("/dev/null", "w");
	struct compare_opts o = {.out = out, .log = log};
	const char *one[] = {at("base.json")};
	CHECK_EQ_I(compare_files(one, 1, &o), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "compare needs a BASE and at least one NEW");

	const char *missing[] = {at("base.json"), at("missing.json")};
	CHECK_EQ_I(compare_files(missing, 2, &o), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "missing.json");

	write_file(at("not.json"), "not json\n");
	const char *bad[] = {at("not.json"), at("base.json")};
	CHECK_EQ_I(compare_files(bad, 2, &o), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "not a JSON document");

	write_file(at("other.json"), "{\"schema\": \"something else\"}\n");
	const char *other[] = {at("base.json"), at("other.json")};
	CHECK_EQ_I(compare_files(other, 2, &o), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log),
	               "other.json: not a valid fsmix result: $.schema: \"something else\" where "
	               "\"fsmix-report\" is expected");
	fclose(log);
	fclose(out);
}

static void test_compare_outputs(void)
{
	FILE *log = tmpfile(), *out = fopen("/dev/null", "w");
	const char *files[] = {at("base.json"), at("base.json")};
	struct compare_opts o = {.out = out, .log = log, .json_path = at("cmp.json")};
	CHECK_EQ_I(compare_files(files, 2, &o), FAIL_NONE);
	struct stat st;
	CHECK(stat(at("cmp.json"), &st) == 0 && st.st_size > 0);
	log_text(log);

	/* an output in a directory that does not exist: an I/O failure, named */
	o.json_path = NULL;
	o.csv_path = at("no-such-dir/cmp.csv");
	CHECK_EQ_I(compare_files(files, 2, &o), FAIL_IO);
	CHECK_CONTAINS(log_text(log), "no-such-dir/cmp.csv");
	fclose(log);
	fclose(out);
}

/* A sweep document of one point "run" whose runs have the given trans/s. */
static json_t *trans_doc(const double *v, size_t n)
{
	json_t *runs = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, json_pack("{s{sf}}", "total", "trans_per_s", v[i]));
	return json_pack("{s[{ssso}]}", "points", "label", "run", "runs", runs);
}

/* The compare row of trans/s in a compare --json document. */
static const json_t *trans_row(const json_t *doc)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(doc, "rows"), i, r)
	{
		if (!strcmp(json_string_value(json_object_get(r, "metric")), "trans_per_s"))
			return r;
	}
	return NULL;
}

/* compare's Welch test on synthetic documents with a known answer: R's documented example
 * `t.test(extra ~ group, data = sleep)` (R datasets::sleep; Welch's test is t.test's default):
 * t = -1.8608, df = 17.776, p-value = 0.07939, 95 percent CI of mean(group 1) - mean(group 2)
 * -3.3654832 0.2054832. With group 1 as NEW and group 2 as BASE (mean 2.33), the CI of the
 * change is [-3.3654832, 0.2054832] / 2.33 = [-144.44 %, +8.819 %]. */
static void test_compare_welch(void)
{
	static const double g1[10] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
	static const double g2[10] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
	FILE *log = tmpfile(), *out = tmpfile();
	struct compare_opts o = {
	    .out = out, .log = log, .json_path = at("welch.json"), .csv_path = at("welch.csv")};
	json_t *base = trans_doc(g2, 10), *now = trans_doc(g1, 10);
	CHECK_EQ_I(compare_json(base, "base", now, "now", &o), FAIL_NONE);
	json_t *doc = json_load_file(at("welch.json"), 0, NULL);
	const json_t *r = trans_row(doc);
	CHECK(r != NULL);
	CHECK_NEAR(json_number_value(json_object_get(r, "p_value")), 0.07939, 0.000005);
	const json_t *ci = json_object_get(r, "ci95_change_pct");
	CHECK_NEAR(json_number_value(json_array_get(ci, 0)), -100 * 3.3654832 / 2.33, 1e-5);
	CHECK_NEAR(json_number_value(json_array_get(ci, 1)), 100 * 0.2054832 / 2.33, 1e-5);
	const json_t *w = json_object_get(r, "welch");
	CHECK_NEAR(json_number_value(json_object_get(w, "t")), -1.8608, 0.00005);
	CHECK_NEAR(json_number_value(json_object_get(w, "df")), 17.776, 0.0005);
	CHECK_NEAR(json_number_value(json_object_get(w, "diff_low")), -3.3654832, 5e-8);
	CHECK_NEAR(json_number_value(json_object_get(w, "diff_high")), 0.2054832, 5e-8);
	/* within 2*STDDEV: the mark stays 0 */
	CHECK_STR(json_string_value(json_object_get(r, "mark")), "0");
	json_decref(doc);
	/* the text table and the CSV carry the same */
	CHECK_CONTAINS(log_text(out), "(0)      0.079  [-144.4%, +8.8%]");
	FILE *csv = fopen(at("welch.csv"), "r");
	char line[512] = "", hdr[512] = "";
	CHECK(csv && fgets(hdr, sizeof(hdr), csv));
	CHECK_CONTAINS(hdr, ",change_pct,p_value,ci95_low_pct,ci95_high_pct,mark");
	while (csv && fgets(line, sizeof(line), csv) && !strstr(line, "trans_per_s"))
		;
	CHECK_CONTAINS(line, ",0.0793");
	CHECK_CONTAINS(line, ",-144.44");
	if (csv)
		fclose(csv);
	json_decref(now);

	/* one run on a side: no test, null in the JSON, n/a in the table */
	now = trans_doc(g1, 1);
	CHECK_EQ_I(compare_json(base, "base", now, "now", &o), FAIL_NONE);
	doc = json_load_file(at("welch.json"), 0, NULL);
	r = trans_row(doc);
	CHECK(r && json_is_null(json_object_get(r, "p_value")) &&
	      json_is_null(json_object_get(r, "ci95_change_pct")) &&
	      json_is_null(json_object_get(r, "welch")));
	/* the one run's sample standard deviation is 0, not 0/0 */
	CHECK(r && json_real_value(json_object_get(json_object_get(r, "new"), "stddev")) == 0 &&
	      json_object_get(json_object_get(r, "new"), "stddev") != NULL &&
	      json_is_real(json_object_get(json_object_get(r, "new"), "stddev")));
	CHECK_CONTAINS(log_text(out), "n/a  n/a");
	json_decref(doc);
	json_decref(now);
	json_decref(base);
	log_text(log);
	fclose(log);
	fclose(out);
}

/* The marks' margin is 2 * (sd_base + sd_new) (docs/sweeps.md): a rise of 4 with both sides'
 * sample stddev sqrt(2) (margin 5.66) is within the noise, though it exceeds 1 * the sum (2.83);
 * a rise of 10 is a '+', a fall of 10 a '-'. */
static void test_compare_mark(void)
{
	static const double base_v[2] = {10, 12}, within[2] = {14, 16}, above[2] = {20, 22},
	                    below[2] = {0, 2};
	FILE *log = tmpfile(), *out = fopen("/dev/null", "w");
	struct compare_opts o = {.out = out, .log = log, .json_path = at("mark.json")};
	json_t *base = trans_doc(base_v, 2);
	const double *news[3] = {within, above, below};
	const char *marks[3] = {"0", "+", "-"};
	for (int i = 0; i < 3; i++) {
		json_t *now = trans_doc(news[i], 2);
		CHECK_EQ_I(compare_json(base, "base", now, "now", &o), FAIL_NONE);
		json_t *doc = json_load_file(at("mark.json"), 0, NULL);
		const json_t *r = trans_row(doc);
		CHECK(r != NULL);
		CHECK_STR(json_string_value(json_object_get(r, "mark")), marks[i]);
		json_decref(doc);
		json_decref(now);
	}
	/* a figure beyond a double (two runs of 1e308: their sum): '?', null, not refused */
	static const double huge[2] = {1e308, 1e308};
	json_t *now = trans_doc(huge, 2);
	CHECK_EQ_I(compare_json(base, "base", now, "now", &o), FAIL_NONE);
	json_t *doc = json_load_file(at("mark.json"), 0, NULL);
	const json_t *r = trans_row(doc);
	CHECK(r && json_is_null(json_object_get(r, "change_pct")) &&
	      json_is_null(json_object_get(json_object_get(r, "new"), "avg")));
	CHECK_STR(json_string_value(json_object_get(r, "mark")), "?");
	json_decref(doc);
	json_decref(now);
	json_decref(base);
	fclose(log);
	fclose(out);
}

static void test_plot(void)
{
	FILE *log = tmpfile();
	json_t *run = json_loads(run_doc, 0, NULL);
	json_t *empty = json_object();
	CHECK_EQ_I(plot_write(run, NULL, at("chart.txt"), log), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "must end in .png or .svg");
	CHECK_EQ_I(plot_write(empty, NULL, at("chart.png"), log), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "not an fsmix run or sweep document");

	/* a sweep with one finished point has something to draw; without gnuplot (PATH holds
	 * only an empty directory) the picture is unsupported, not a failed run */
	json_t *sweep = json_loads("{\"points\": [{\"label\": \"threads=1\", \"params\": "
	                           "{\"threads\": \"1\"}, \"runs\": [{\"total\": "
	                           "{\"trans_per_s\": 5}}]}]}",
	                           0, NULL);
	CHECK(sweep != NULL);
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;
	mkdir(at("empty-bin"), 0700);
	setenv("PATH", at("empty-bin"), 1);
	CHECK_EQ_I(plot_write(sweep, NULL, at("chart.png"), log), FAIL_UNSUPPORTED);
	CHECK_CONTAINS(log_text(log), "plotting needs gnuplot");
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	rmdir(at("empty-bin"));
	json_decref(sweep);
	json_decref(empty);
	json_decref(run);
	fclose(log);
}

/* gnuplot's part, with a stand-in on PATH that draws what plot.gp asks for: the image named
 * relatively (gnuplot runs in the job's directory), 64 KiB + 1 bytes (a copy that stops at a
 * short read would lose the last byte); and gnuplot killed by a signal is a failure with no
 * exit status of its own (-1). */
static const char fake_gnuplot[] =
    "#!/bin/sh\n"
    "out=$(sed -n 's/^set output \"\\(.*\\)\"$/\\1/p' \"$1\")\n"
    "case $out in '' | */*) echo \"fake gnuplot: output '$out'\" >&2; exit 3 ;; esac\n"
    "[ -z \"$FAKE_GNUPLOT_KILL\" ] || kill -9 $$\n"
    "head -c 65537 /dev/zero | tr '\\0' x >\"$out\"\n";

static void test_plot_drawn(void)
{
	FILE *log = tmpfile();
	json_t *sweep = json_loads("{\"points\": [{\"label\": \"threads=1\", \"params\": "
	                           "{\"threads\": \"1\"}, \"runs\": [{\"total\": "
	                           "{\"trans_per_s\": 5}}]}]}",
	                           0, NULL);
	CHECK(sweep != NULL && log != NULL);
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;
	mkdir(at("fake-bin"), 0700);
	write_file(at("fake-bin/gnuplot"), fake_gnuplot);
	chmod(at("fake-bin/gnuplot"), 0700);
	char p[2 * PATH_MAX];
	snprintf(p, sizeof(p), "%s:%s", at("fake-bin"), saved ? saved : "/usr/bin:/bin");
	setenv("PATH", p, 1);
	CHECK_EQ_I(plot_write(sweep, NULL, at("chart.png"), log), FAIL_NONE);
	CHECK_CONTAINS(log_text(log), "plot written to");
	struct stat st;
	CHECK(stat(at("chart.png"), &st) == 0 && st.st_size == 65537);
	setenv("FAKE_GNUPLOT_KILL", "1", 1);
	CHECK_EQ_I(plot_write(sweep, NULL, at("chart2.png"), log), FAIL_IO);
	CHECK_CONTAINS(log_text(log), "gnuplot failed (status -1)");
	unsetenv("FAKE_GNUPLOT_KILL");
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unlink(at("chart.png"));
	unlink(at("chart2.png"));
	unlink(at("fake-bin/gnuplot"));
	rmdir(at("fake-bin"));
	json_decref(sweep);
	fclose(log);
}

static void test_latplot(void)
{
	struct latplot lp;
	char err[256];
	const char good[] = "# t_s group thread op lat_ns bytes sync_ns\n"
	                    "0.5 0 0 read 1000 4096 0\n";
	CHECK_EQ_I(latplot_read(&lp, good, sizeof(good) - 1, "good.log", err, sizeof(err)),
	           FAIL_NONE);
	CHECK_EQ_U(lp.lines, 1);
	latplot_free(&lp);
	const char bad[] = "0.5 0 0 read x 4096 0\n";
	CHECK_EQ_I(latplot_read(&lp, bad, sizeof(bad) - 1, "bad.log", err, sizeof(err)),
	           FAIL_INPUT);
	CHECK_CONTAINS(err, "bad.log:1: not a latency log line: bad latency");
	latplot_free(&lp);

	/* a line longer than LATPLOT_LINE_MAX is refused with its number, even when it would
	 * parse (trailing blanks) */
	size_t n = LATPLOT_LINE_MAX + 100;
	char *long_log = malloc(n + 64);
	int head = snprintf(long_log, 64, "0.5 0 0 read 1000 4096 0\n0.6 0 0 read 1 1 0");
	memset(long_log + head, ' ', n);
	long_log[head + n] = '\n';
	CHECK_EQ_I(latplot_read(&lp, long_log, (size_t)head + n + 1, "long.log", err, sizeof(err)),
	           FAIL_INPUT);
	CHECK_CONTAINS(err, "long.log:2: not a latency log line: longer than 4096 bytes");
	latplot_free(&lp);
	free(long_log);

	FILE *log = tmpfile();
	/* latplot_write streams the file in 1 MB chunks: lines that cross a chunk's end count
	 * once; a line over the maximum in a file is refused with its number (no gnuplot here:
	 * PATH holds an empty directory, the log is read before gnuplot is looked for) */
	FILE *f = fopen(at("big.log"), "w");
	for (int i = 0; i < 60000; i++)
		fprintf(f, "%d.%06d 0 %d write %d 4096 0\n", i / 1000, i % 1000, i % 7, 1000 + i);
	fclose(f);
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;
	mkdir(at("empty-bin"), 0700);
	setenv("PATH", at("empty-bin"), 1);
	CHECK_EQ_I(latplot_write(at("big.log"), at("big.png"), log), FAIL_UNSUPPORTED);
	CHECK_CONTAINS(log_text(log), "60000 operations, every one drawn");
	f = fopen(at("big.log"), "a");
	for (int i = 0; i < 3 * LATPLOT_LINE_MAX; i++)
		fputc('7', f);
	fclose(f);
	CHECK_EQ_I(latplot_write(at("big.log"), at("big.png"), log), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "big.log:60001: not a latency log line: longer than");
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	rmdir(at("empty-bin"));
	unlink(at("big.log"));

	CHECK_EQ_I(latplot_write(at("missing.log"), at("lat.png"), log), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "missing.log");
	CHECK_EQ_I(latplot_write(at("missing.log"), at("lat.gif"), log), FAIL_INPUT);
	CHECK_CONTAINS(log_text(log), "-o ");
	fclose(log);
}

/* A kind of at least LATPLOT_LINE_MIN operations gets its median and p99 lines: one point per
 * LATPLOT_LINE_COLS-th of the time, and the percentiles found also in the top row in use (here
 * every operation has the same latency: one row). */
/* A line that ends where a field should begin lacks it, whatever bytes follow it in memory (a
 * log read in pieces: the next line's digits right after the cut). */
static void test_latplot_cut_line(void)
{
	static const char buf[] = "0.001 0 0 read 50000 4096 7\n";
	struct latplot lp;
	char err[256] = "";
	latplot_begin(&lp, 16);
	CHECK_EQ_I(latplot_line(&lp, buf, strlen(buf) - 2, 1, "cut.log", err, sizeof(err)),
	           FAIL_INPUT);
	CHECK_CONTAINS(err, "cut.log:1:");
	CHECK_EQ_I(latplot_line(&lp, buf, strlen(buf) - 1, 2, "cut.log", err, sizeof(err)),
	           FAIL_NONE);
	latplot_free(&lp);
}

static void test_latplot_lines(void)
{
	size_t cap = 64 * 2000, len = 0;
	char *text = malloc(cap), err[256];
	for (int i = 0; i < 2000; i++)
		len += (size_t)snprintf(text + len, cap - len, "%d.%03d 0 0 read 50000 4096 0\n",
		                        i / 1000, i % 1000);
	struct latplot lp;
	CHECK_EQ_I(latplot_read(&lp, text, len, "lines.log", err, sizeof(err)), FAIL_NONE);
	char *data = NULL, *script = NULL;
	size_t dlen = 0, slen = 0;
	FILE *d = open_memstream(&data, &dlen), *g = open_memstream(&script, &slen);
	CHECK_EQ_I(latplot_script(&lp, d, "lines.dat", g, "t"), 0);
	fclose(d);
	fclose(g);
	CHECK_CONTAINS(script, "title 'median; p99 dashed'");
	CHECK_CONTAINS(script, "'' index 2 using 1:2 with lines");
	/* the lines' block (the points' rows carry a colour, 0xAARRGGBB): LATPLOT_LINE_COLS
	 * points, each with a median and a p99 of about 0.05 ms, none left at -1 */
	size_t points = 0;
	for (const char *l = data; *l; l = strchr(l, '\n') + 1) {
		double t, p50, p99;
		const char *colour = strstr(l, " 0x");
		if (*l == '\n' || (colour && colour < strchr(l, '\n')))
			continue;
		CHECK_EQ_I(sscanf(l, "%lf %lf %lf", &t, &p50, &p99), 3);
		CHECK(p50 > 0.04 && p50 < 0.06 && p99 == p50);
		points++;
	}
	CHECK_EQ_U(points, LATPLOT_LINE_COLS);
	free(data);
	free(script);
	latplot_free(&lp);
	free(text);
}

static void test_doc_check(void)
{
	static const char good[] =
	    "{\"schema\": \"fsmix-report\", \"schema_version\": 1, \"exit_status\": 0, "
	    "\"interrupted\": false, \"measured\": true, \"runtime_s\": 1, \"groups\": "
	    "[{\"name\": \"g\", \"syscalls\": [{\"name\": \"read\", \"msec_ranges\": null}]}], "
	    "\"total\": {\"name\": \"total\", \"op_latency\": null}}";
	static const struct {
		const char *key, *value, *want; /* set key (a top-level one) to value: want */
	} cases[] = {
	    {NULL, NULL, NULL},
	    {"schema_version", "999", "$.schema_version: 999 is not a version this fsmix reads"},
	    {"runtime_s", "\"abc\"", "$.runtime_s: must be a number (is a string)"},
	    {"groups", "{}", "$.groups: must be an array (is an object)"},
	    {"groups", "[{\"name\": 5}]", "$.groups[0].name: must be a string (is an integer)"},
	    {"groups",
	     "[{\"name\": \"g\", \"syscalls\": [{\"name\": \"x\", \"msec_ranges\": "
	     "[{\"lo_ms\": 0, \"hi_ms\": 1}]}]}]",
	     "$.groups[0].syscalls[0].msec_ranges[0].count: missing"},
	    {"total", "[]", "$.total: must be an object (is an array)"},
	    {"interrupted", "null", "$.interrupted: must be true or false (is null)"},
	    {"schema", "\"fsmix-compare\"", "$.schema: \"fsmix-compare\" where \"fsmix-report\""},
	    {"exit_status", "1.5", "$.exit_status: must be an integer (is a real)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = json_loads(good, 0, NULL);
		CHECK(doc != NULL);
		if (cases[i].key)
			json_object_set_new(doc, cases[i].key,
			                    json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		char err[512] = "";
		int rc = doc_check(doc, err, sizeof(err));
		if (!cases[i].want) {
			CHECK_EQ_I(rc, 0);
		} else {
			CHECK_EQ_I(rc, -1);
			CHECK_CONTAINS(err, cases[i].want);
		}
		json_decref(doc);
	}
	/* a sweep: its runs are checked as run documents, with their path */
	json_t *sweep = json_loads("{\"schema\": \"fsmix-sweep\", \"schema_version\": 1, "
	                           "\"dimensions\": [], \"points\": [{\"label\": \"p\", "
	                           "\"params\": {}, \"runs\": [{\"schema\": \"fsmix-report\"}]}]}",
	                           0, NULL);
	char err[512] = "";
	CHECK_EQ_I(doc_check(sweep, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "$.points[0].runs[0].schema_version: missing");
	json_decref(sweep);
}

static void test_sweep_list(void)
{
	struct sweep_dim d = {0};
	char err[256] = "";
	CHECK_EQ_I(sweep_parse_list("1,2-4,x", &d, err, sizeof(err)), 0);
	CHECK_EQ_U(d.n, 5);
	sweep_dim_free(&d);
	CHECK_EQ_I(sweep_parse_list("1-8:x1", &d, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "factor of at least 2");
	sweep_dim_free(&d);
	CHECK_EQ_I(sweep_parse_list("1,,2", &d, err, sizeof(err)), -1);
	CHECK_CONTAINS(err, "empty value in the list");
	sweep_dim_free(&d);
	CHECK_EQ_I(sweep_parse_list("1,2,", &d, err, sizeof(err)), -1); /* a trailing comma */
	CHECK_CONTAINS(err, "'1,2,': empty value in the list");
	sweep_dim_free(&d);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	write_file(at("base.json"), run_doc);
	RUN(test_compare_input);
	RUN(test_compare_outputs);
	RUN(test_compare_welch);
	RUN(test_compare_mark);
	RUN(test_plot);
	RUN(test_plot_drawn);
	RUN(test_latplot);
	RUN(test_latplot_lines);
	RUN(test_latplot_cut_line);
	RUN(test_doc_check);
	RUN(test_sweep_list);
	/* the directory is this test's own (mkdtemp): whatever the tests wrote goes with it, and a
	 * directory left behind fails the test (it left welch.json, welch.csv and mark.json in
	 * /tmp on every run) */
	if (nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) || !access(dir, F_OK))
		TEST_FAIL("cannot remove the test's directory %s", dir);
	return test_summary();
}
