/* test_report_golden.c - golden-file tests of the text and CSV report layouts, and an FFSB-style
 * parse of the text report.
 *
 * The results of results_fixture.h, with the additions of golden_setup() (an untimed-range
 * group with timed syscalls: "   -" lines; an op without data: "NA"; a write op that moved no
 * bytes: "0B/sec"; a size_weight fileset; non-zero sizes), is rendered with report_config() +
 * report_results() (the full report, interrupted, and --format ffsb, not interrupted) and with
 * report_csv_write(), and each is compared byte for byte with
 *   tests/golden/report.txt, tests/golden/report-ffsb.txt, tests/golden/report.csv.
 *
 * Two values depend on the machine or the build, not on the report code: FSMIX_VERSION in the
 * banner and the online CPU count of the "CPU: ... of all N CPUs" line. The report takes both from
 * the environment (no seam for tests), so before comparing the test replaces exactly those values,
 * computed here as the report computes them, by the placeholders @FSMIX_VERSION@ and
 * "@ALL_CPUS_PCT@% of all @NCPU@ CPUs"; the rest of those lines is still compared. If the value
 * is not where it is expected, the test fails (the line's layout changed).
 *
 * On a mismatch the first differing line is printed, unified-diff style, with line numbers and
 * tabs shown as \t.
 *
 * Regenerating: after an intended change of the output,
 *   FSMIX_UPDATE_GOLDEN=1 <build>/tests/test_report_golden
 * rewrites the three files in the source tree (found through FSMIX_SOURCE_DIR, which ctest sets,
 * or this file's path). A regeneration must be reviewed line by line (git diff tests/golden):
 * every changed line is a change that scripts parsing FFSB's or fsmix's reports will see, and
 * the FFSB-compatible part must keep FFSB 6.0's exact layout
 * (../shared/reference/ffsb-6.0-behaviour.md section 1.9).
 */
#include "results_fixture.h"
#include "report.h"
#include "report_data.h"
#include "test.h"

#include <regex.h>
#include <unistd.h>

/* ---- the fake run ---- */

static struct plan_size_weight golden_sizes[3] = {{4096, 10}, {65536, 5}, {1048576, 1}};

static void golden_setup(struct fake *f)
{
	fake_plan(f);
	struct plan_group *g0 = &f->groups[0], *g1 = &f->groups[1];
	g0->read_size = 4096;
	g0->read_blocksize = 4096;
	g0->write_size = 4096;
	g0->write_blocksize = 1024;
	g0->read_random = true;
	g1->write_blocksize = 65536;
	g1->op_delay_ms = 5;
	g1->enable_stats = true; /* timed, without msec_range */
	g1->weight[OP_stat] = 1;
	g1->weight[OP_create_fsync] = 1;
	g1->total_weight = 3;
	f->fs[0].num_files = 100;
	f->fs[0].num_dirs = 10;
	f->fs[0].sizes = golden_sizes;
	f->fs[0].n_sizes = 3;
	f->fs[0].size_weight_total = 16;
	f->fs[1].num_files = 20;
	f->fs[1].num_dirs = 1;
	f->fs[1].min_filesize = 65536;
	f->fs[1].max_filesize = 65536;
	f->plan.directio = true;
	fake_fill(f);

	/* group 1: stat (no data: NA), create_fsync of empty files (0B/sec), timed syscalls */
	struct thread_stats *s1 = &f->r.groups[1].st, *tot = &f->r.total;
	struct thread_stats *both[2] = {s1, tot};
	for (int k = 0; k < 2; k++) {
		struct thread_stats *st = both[k];
		st->ops[OP_stat] += 30;
		st->trans[OP_stat] += 30;
		st->ops[OP_create_fsync] += 5;
		st->trans[OP_create_fsync] += 5;
		for (uint64_t i = 0; i < 30; i++)
			stats_sys_record(st, SYS_stat, 4000 + i * 100);
		for (uint64_t i = 0; i < 5; i++) {
			stats_sys_record(st, SYS_open, 30000 + i * 1000);
			stats_sys_record(st, SYS_fsync, 900000 + i * 50000);
			stats_sys_record(st, SYS_close, 2000 + i);
			stats_op_record(st, OP_create_fsync, 950000 + i * 51000);
		}
	}
}

/* ---- rendering ---- */

static char *render_text(const struct fake *f, bool ffsb_only)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(stderr, "open_memstream: %s\n", strerror(errno));
		exit(2);
	}
	report_config(m, &f->plan, &f->r);
	report_results(m, stderr, &f->r, ffsb_only);
	if (fclose(m)) {
		fprintf(stderr, "memstream: %s\n", strerror(errno));
		exit(2);
	}
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

static char *render_csv(const struct results *r)
{
	char dir[] = "/tmp/fsmix-golden-XXXXXX";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	char path[64], err[512] = "";
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	char *text = NULL;
	if (report_csv_write(r, path, err, sizeof(err)))
		TEST_FAIL("report_csv_write: %s", err);
	else
		text = slurp(path);
	unlink(path);
	rmdir(dir);
	return text;
}

/* Replace the first `needle` of the line starting with `line_prefix` by `repl`. Returns a new
 * string, or NULL when there is no such line or the needle is not on it. */
static char *replace_on_line(const char *text, const char *line_prefix, const char *needle,
                             const char *repl)
{
	size_t pl = strlen(line_prefix);
	for (const char *l = text; *l;) {
		const char *eol = strchr(l, '\n');
		size_t ll = eol ? (size_t)(eol - l) : strlen(l);
		if (ll >= pl && !strncmp(l, line_prefix, pl)) {
			const char *hit = strstr(l, needle);
			if (!hit || hit + strlen(needle) > l + ll)
				return NULL;
			size_t before = (size_t)(hit - text), nl = strlen(needle),
			       rl = strlen(repl);
			size_t total = strlen(text) - nl + rl;
			char *out = malloc(total + 1);
			if (!out)
				return NULL;
			memcpy(out, text, before);
			memcpy(out + before, repl, rl);
			strcpy(out + before + rl, hit + nl);
			return out;
		}
		if (!eol)
			break;
		l = eol + 1;
	}
	return NULL;
}

/* The machine-dependent values (see the header comment) replaced by placeholders; frees text. */
static char *normalize(char *text, const struct results *r, bool has_cpu_line)
{
	char *out = replace_on_line(text, "fsmix version ", FSMIX_VERSION, "@FSMIX_VERSION@");
	if (!out) {
		TEST_FAIL("the banner line does not carry FSMIX_VERSION \"%s\"", FSMIX_VERSION);
		return text;
	}
	free(text);
	text = out;
	if (!has_cpu_line)
		return text;
	long ncpu = r->env.cpus_online;
	char needle[128];
	snprintf(needle, sizeof(needle), "%.1f%% of all %ld CPUs",
	         100.0 * (r->user_s + r->sys_s) / r->runtime_s / (double)ncpu, ncpu);
	out = replace_on_line(text, "CPU: ", needle, "@ALL_CPUS_PCT@% of all @NCPU@ CPUs");
	if (!out) {
		TEST_FAIL("the CPU line does not end in \"%s\"", needle);
		return text;
	}
	free(text);
	return out;
}

/* ---- golden comparison ---- */

static void golden_path(char *buf, size_t len, const char *name)
{
	const char *src = getenv("FSMIX_SOURCE_DIR");
	if (src && *src) {
		snprintf(buf, len, "%s/tests/golden/%s", src, name);
		return;
	}
	/* this file is <src>/tests/unit/test_report_golden.c */
	const char *me = __FILE__, *cut = strstr(me, "tests/unit/test_report_golden.c");
	snprintf(buf, len, "%.*stests/golden/%s", cut ? (int)(cut - me) : 0, me, name);
}

static void put_escaped(const char *prefix, const char *s, size_t n)
{
	fputs(prefix, stderr);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t')
			fputs("\\t", stderr);
		else if (s[i] == '\r')
			fputs("\\r", stderr);
		else
			fputc(s[i], stderr);
	}
	fputc('\n', stderr);
}

/* the line `no` (1-based) of s: start and length, false past the end */
static bool nth_line(const char *s, size_t no, const char **start, size_t *len)
{
	for (size_t i = 1; *s; i++) {
		const char *eol = strchr(s, '\n');
		size_t ll = eol ? (size_t)(eol - s) : strlen(s);
		if (i == no) {
			*start = s;
			*len = ll;
			return true;
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	return false;
}

static void print_first_difference(const char *path, const char *want, const char *got)
{
	size_t no = 1;
	const char *a = want, *b = got;
	for (;;) { /* find the first line that differs (a missing last newline counts) */
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t la = ea ? (size_t)(ea - a) + 1 : strlen(a);
		size_t lb = eb ? (size_t)(eb - b) + 1 : strlen(b);
		if (la != lb || memcmp(a, b, la) || !la)
			break;
		a += la;
		b += lb;
		no++;
	}
	fprintf(stderr, "--- %s:%zu (golden)\n+++ rendered:%zu\n@@ line %zu @@\n", path, no, no,
	        no);
	const char *s;
	size_t n;
	for (size_t c = no > 2 ? no - 2 : 1; c < no; c++)
		if (nth_line(want, c, &s, &n))
			put_escaped(" ", s, n);
	if (nth_line(want, no, &s, &n))
		put_escaped("-", s, n);
	else
		fputs("-(end of file)\n", stderr);
	if (nth_line(got, no, &s, &n))
		put_escaped("+", s, n);
	else
		fputs("+(end of file)\n", stderr);
	fprintf(stderr, "(FSMIX_UPDATE_GOLDEN=1 rewrites the golden files; review the diff)\n");
}

static void check_golden(const char *name, const char *got)
{
	char path[4096];
	golden_path(path, sizeof(path), name);
	if (!got) {
		TEST_FAIL("%s: nothing rendered", name);
		return;
	}
	const char *upd = getenv("FSMIX_UPDATE_GOLDEN");
	if (upd && !strcmp(upd, "1")) {
		FILE *f = fopen(path, "wb");
		if (!f || fputs(got, f) == EOF || fclose(f)) {
			TEST_FAIL("cannot rewrite %s: %s", path, strerror(errno));
			return;
		}
		fprintf(stderr, "rewrote %s: review the difference (git diff) before committing\n",
		        path);
		test_passed_checks++;
		return;
	}
	char *want = slurp(path);
	if (!want) {
		TEST_FAIL("cannot read %s: %s (FSMIX_UPDATE_GOLDEN=1 creates it)", path,
		          strerror(errno));
		return;
	}
	if (strcmp(want, got)) {
		TEST_FAIL("%s differs from the rendered report", path);
		print_first_difference(path, want, got);
	} else {
		test_passed_checks++;
	}
	free(want);
}

static void test_golden_text(void)
{
	static struct fake f;
	golden_setup(&f);
	char *text = normalize(render_text(&f, false), &f.r, true);
	check_golden("report.txt", text);
	free(text);
	fake_free(&f);
}

static void test_golden_ffsb(void)
{
	static struct fake f;
	golden_setup(&f);
	f.r.interrupted = false;
	f.r.signal = 0;
	f.r.stop = STOP_TIME;
	char *text = normalize(render_text(&f, true), &f.r, false);
	/* --format ffsb: nothing of fsmix's own sections */
	CHECK(text && !strstr(text, "fsmix: ") && !strstr(text, "Device counters") &&
	      !strstr(text, "Operation latency") && !strstr(text, "CPU: "));
	check_golden("report-ffsb.txt", text);
	free(text);
	fake_free(&f);
}

/* --format ffsb of an agefs=1 filesystem and a write group: FFSB's "current utilization",
 * "desired utilization" and "Aging ThreadGroup" block, the `fsync_file = 0` line, and FFSB's
 * write figure (a whole file's size per write) in the throughput columns. */
static void test_golden_ffsb_aging(void)
{
	static struct fake f;
	golden_setup(&f);
	f.r.interrupted = false;
	f.r.signal = 0;
	f.r.stop = STOP_TIME;
	static struct plan_group age;
	age = f.groups[1];
	age.name = "filesystem0.threadgroup";
	age.index = 0;
	age.bindfs = -1;
	age.op_delay_ms = 0;
	memset(age.weight, 0, sizeof(age.weight));
	age.weight[OP_create] = 3;
	age.weight[OP_delete] = 1;
	age.total_weight = 4;
	f.fs[0].agefs = true;
	f.fs[0].desired_util = 0.5;
	f.fs[0].age = &age;
	f.r.fs[0].start_util = 0.1234;
	f.r.fs[1].start_util = 0.5;
	/* group 0's write_fsync: fsmix counts write_size (4 KB) a write, FFSB the file (64 KB) */
	f.r.groups[0].st.ffsb_written[OP_write_fsync] = 20 * 65536;
	f.r.total.ffsb_written[OP_write_fsync] = 20 * 65536;
	char *text = normalize(render_text(&f, true), &f.r, false);
	check_golden("report-ffsb-aging.txt", text);
	free(text);
	fake_free(&f);
}

/* The size text of the throughput line `what` of text ("Read Throughput: 1.5MB/sec"), into
 * out[32]; "" when there is none. */
static void throughput_of(const char *text, const char *what, char out[32])
{
	const char *at = strstr(text, what);
	out[0] = '\0';
	if (at && sscanf(at + strlen(what), "%31[^/]", out) != 1)
		out[0] = '\0';
}

/* FFSB 6.0's byte counts (fileops.c:174, 187-188, 290-291): group 0's reads are read_random
 * with read_size 6 KiB over 4 KiB blocks, so FFSB counted 6 KiB per read where one 4 KiB block
 * was read; its write_fsync counted the 64 KiB file per 4 KiB write. The text shows the bytes
 * moved by default, FFSB's with --format ffsb and with fidelity=ffsb6. */
static void test_ffsb_accounting(void)
{
	static struct fake f;
	golden_setup(&f);
	f.groups[0].read_size = 6144;
	f.r.groups[0].st.ffsb_read[OP_read] = 1000 * 6144;
	f.r.total.ffsb_read[OP_read] = 1000 * 6144;
	f.r.groups[0].st.ffsb_written[OP_write_fsync] = 20 * 65536;
	f.r.total.ffsb_written[OP_write_fsync] = 20 * 65536;
	char moved_rd[32], moved_wr[32], ffsb_rd[32], ffsb_wr[32], got[32];
	double rt = f.r.runtime_s;
	/* group 0 alone reads and writes in the fixture */
	report_size(moved_rd, sizeof(moved_rd), 1000 * 4096 / rt);
	report_size(ffsb_rd, sizeof(ffsb_rd), 1000 * 6144 / rt);
	report_size(moved_wr, sizeof(moved_wr), 20 * 4096 / rt);
	report_size(ffsb_wr, sizeof(ffsb_wr), 20 * 65536 / rt);
	CHECK(strcmp(moved_rd, ffsb_rd) != 0);
	for (int mode = 0; mode < 3; mode++) {
		bool ffsb = mode > 0;
		f.r.fidelity = mode == 2 ? FIDELITY_FFSB6 : FIDELITY_EXACT;
		char *text = render_text(&f, mode == 1);
		throughput_of(text, "Read Throughput: ", got);
		CHECK_STR(got, ffsb ? ffsb_rd : moved_rd);
		throughput_of(text, "Write Throughput: ", got);
		CHECK_STR(got, ffsb ? ffsb_wr : moved_wr);
		if (mode == 2)
			CHECK_CONTAINS(text, ", fidelity ffsb6 (FFSB 6.0's picks and byte counts)");
		else
			CHECK(!strstr(text, "fidelity ffsb6"));
		free(text);
	}
	fake_free(&f);
}

/* The CPU line is there whenever the run took any time, also under a second; a run of no time
 * has no rate to give. */
static void test_cpu_line(void)
{
	static struct fake f;
	golden_setup(&f);
	const double runtimes[] = {0.5, 1.0, 0};
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		f.r.runtime_s = runtimes[i];
		char *text = render_text(&f, false);
		if (!strstr(text, "\nCPU: user 1.50 s") != (runtimes[i] == 0))
			TEST_FAIL("runtime %g s: the CPU line is %sthere", runtimes[i],
			          runtimes[i] == 0 ? "" : "not ");
		free(text);
	}
	fake_free(&f);
}

static void test_golden_csv(void)
{
	static struct fake f;
	golden_setup(&f);
	char *text = render_csv(&f.r);
	check_golden("report.csv", text);
	free(text);
	fake_free(&f);
}

/* ---- an FFSB-style parser, as mmtests and similar scripts read FFSB's output ---- */

#define MAX_MATCH 8

struct rx {
	regex_t re;
	regmatch_t m[MAX_MATCH];
};

static void rx_init(struct rx *r, const char *pattern)
{
	int rc = regcomp(&r->re, pattern, REG_EXTENDED);
	if (rc) {
		char msg[256];
		regerror(rc, &r->re, msg, sizeof(msg));
		fprintf(stderr, "regcomp %s: %s\n", pattern, msg);
		exit(2);
	}
}

/* match a whole line (NUL-terminated copy) */
static bool rx_match(struct rx *r, const char *line)
{
	return regexec(&r->re, line, MAX_MATCH, r->m, 0) == 0;
}

static void rx_group(const struct rx *r, const char *line, int g, char *out, size_t len)
{
	int n = (int)(r->m[g].rm_eo - r->m[g].rm_so);
	snprintf(out, len, "%.*s", n, line + r->m[g].rm_so);
}

static double rx_num(const struct rx *r, const char *line, int g)
{
	char buf[64];
	rx_group(r, line, g, buf, sizeof(buf));
	return strtod(buf, NULL);
}

/* One parsed results table ("ThreadGroup N" or "Total Results"). */
struct parsed_table {
	char title[32];
	uint64_t trans[OP_COUNT];
	double trans_s[OP_COUNT], pct_trans[OP_COUNT], pct_weight[OP_COUNT];
	char tput[OP_COUNT][24];
	bool seen[OP_COUNT];
	size_t rows;
	double tps;
	char read_tput[24], write_tput[24];
	/* syscall block */
	uint64_t sys_n[SYS_COUNT];
	double sys_min[SYS_COUNT], sys_avg[SYS_COUNT], sys_max[SYS_COUNT];
	uint64_t range[SYS_COUNT][8];
	double range_lo[8], range_hi[8];
	size_t n_ranges[SYS_COUNT];
	bool dash[SYS_COUNT];
};

struct parsed {
	struct parsed_table t[4];
	size_t n;
	double user_pct, sys_pct, cpu_pct;
	int cpu_lines;
};

static int op_named(const char *name)
{
	for (int op = 0; op < OP_COUNT; op++)
		if (!strcmp(op_table[op].name, name))
			return op;
	return -1;
}

static int sys_named(const char *name)
{
	for (int s = 0; s < SYS_COUNT; s++)
		if (!strcmp(sys_table[s].name, name))
			return s;
	return -1;
}

static void parse_ffsb(const char *text, struct parsed *p)
{
	struct rx title, row, tps, rd, wr, sys, range, user, sysl, cpu;
	rx_init(&title, "^(Total Results|ThreadGroup [0-9]+)$");
	rx_init(&row, "^ *([a-z0-9_]+) : +([0-9]+)\t +([0-9.]+)\t *([0-9.]+)%\t\t *([0-9.]+)%\t  "
	              " *([^ ]+)$");
	rx_init(&tps, "^([0-9.]+) Transactions per Second$");
	rx_init(&rd, "^Read Throughput: ([^ ]+)/sec$");
	rx_init(&wr, "^Write Throughput: ([^ ]+)/sec$");
	rx_init(&sys, "^\\[ *([a-z]+)\\]\t([0-9.]+)\t([0-9.]+)\t([0-9.]+)\t +([0-9]+)$");
	rx_init(&range, "^\t\t msec_range\\[([0-9]+)\\]\t([0-9.]+) - ([0-9.]+) : +([0-9]+)$");
	rx_init(&user, "^([0-9.]+)% User   Time$");
	rx_init(&sysl, "^([0-9.]+)% System Time$");
	rx_init(&cpu, "^([0-9.]+)% CPU Utilization$");
	memset(p, 0, sizeof(*p));
	struct parsed_table *t = NULL;
	int cur_sys = -1;
	char line[1024];
	/* as FFSB parsers do: the results follow "Results:" (the config echo has its own
	 * "ThreadGroup N" titles) */
	const char *res = strstr(text, "\nResults:\n");
	if (!res) {
		TEST_FAIL("no \"Results:\" line");
		res = text;
	}
	for (const char *s = res; *s;) {
		const char *eol = strchr(s, '\n');
		size_t ll = eol ? (size_t)(eol - s) : strlen(s);
		snprintf(line, sizeof(line), "%.*s", (int)ll, s);
		s = eol ? eol + 1 : s + ll;
		char name[64];
		if (rx_match(&title, line) && p->n < 4) {
			t = &p->t[p->n++];
			snprintf(t->title, sizeof(t->title), "%s", line);
			cur_sys = -1;
		} else if (t && rx_match(&row, line)) {
			rx_group(&row, line, 1, name, sizeof(name));
			int op = op_named(name);
			if (op < 0) {
				TEST_FAIL("parsed an unknown op \"%s\"", name);
				continue;
			}
			t->seen[op] = true;
			t->rows++;
			t->trans[op] = (uint64_t)rx_num(&row, line, 2);
			t->trans_s[op] = rx_num(&row, line, 3);
			t->pct_trans[op] = rx_num(&row, line, 4);
			t->pct_weight[op] = rx_num(&row, line, 5);
			rx_group(&row, line, 6, t->tput[op], sizeof(t->tput[op]));
		} else if (t && rx_match(&tps, line)) {
			t->tps = rx_num(&tps, line, 1);
		} else if (t && rx_match(&rd, line)) {
			rx_group(&rd, line, 1, t->read_tput, sizeof(t->read_tput));
		} else if (t && rx_match(&wr, line)) {
			rx_group(&wr, line, 1, t->write_tput, sizeof(t->write_tput));
		} else if (t && rx_match(&sys, line)) {
			rx_group(&sys, line, 1, name, sizeof(name));
			cur_sys = sys_named(name);
			if (cur_sys < 0) {
				TEST_FAIL("parsed an unknown syscall \"%s\"", name);
				continue;
			}
			t->sys_min[cur_sys] = rx_num(&sys, line, 2);
			t->sys_avg[cur_sys] = rx_num(&sys, line, 3);
			t->sys_max[cur_sys] = rx_num(&sys, line, 4);
			t->sys_n[cur_sys] = (uint64_t)rx_num(&sys, line, 5);
		} else if (t && cur_sys >= 0 && rx_match(&range, line)) {
			size_t i = (size_t)rx_num(&range, line, 1);
			if (i >= 8 || i != t->n_ranges[cur_sys]) {
				TEST_FAIL("msec_range index %zu out of order", i);
				continue;
			}
			t->range_lo[i] = rx_num(&range, line, 2);
			t->range_hi[i] = rx_num(&range, line, 3);
			t->range[cur_sys][i] = (uint64_t)rx_num(&range, line, 4);
			t->n_ranges[cur_sys]++;
		} else if (t && cur_sys >= 0 && !strcmp(line, "   -")) {
			t->dash[cur_sys] = true;
		} else if (rx_match(&user, line)) {
			p->user_pct = rx_num(&user, line, 1);
			p->cpu_lines++;
		} else if (rx_match(&sysl, line)) {
			p->sys_pct = rx_num(&sysl, line, 1);
			p->cpu_lines++;
		} else if (rx_match(&cpu, line)) {
			p->cpu_pct = rx_num(&cpu, line, 1);
			p->cpu_lines++;
		}
	}
	struct rx *all[] = {&title, &row, &tps, &rd, &wr, &sys, &range, &user, &sysl, &cpu};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		regfree(&all[i]->re);
}

/* what FFSB's ffsb_printsize prints for bytes per second over rt */
static void expect_size(char *buf, size_t len, uint64_t bytes, double rt)
{
	report_size(buf, len, (double)bytes / rt);
}

static void check_table(const struct parsed_table *t, const struct thread_stats *st, double rt)
{
	uint64_t all_trans = 0, all_ops = 0, rd = 0, wr = 0;
	size_t rows = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		all_trans += st->trans[op];
		all_ops += st->ops[op];
		rd += st->bytes_read[op];
		wr += st->bytes_written[op];
		rows += st->trans[op] != 0;
	}
	CHECK_EQ_U(t->rows, rows);
	for (int op = 0; op < OP_COUNT; op++) {
		if (!st->trans[op]) {
			CHECK(!t->seen[op]);
			continue;
		}
		CHECK(t->seen[op]);
		CHECK_EQ_U(t->trans[op], st->trans[op]);
		CHECK_NEAR(t->trans_s[op], (double)st->trans[op] / rt, 0.005);
		CHECK_NEAR(t->pct_trans[op], 100.0 * (double)st->trans[op] / (double)all_trans,
		           0.0005);
		CHECK_NEAR(t->pct_weight[op], 100.0 * (double)st->ops[op] / (double)all_ops,
		           0.0005);
		char want[48] = "NA";
		if (op_table[op].flags & (OPF_READ | OPF_WRITE)) {
			char sz[32];
			expect_size(sz, sizeof(sz), st->bytes_read[op] + st->bytes_written[op], rt);
			snprintf(want, sizeof(want), "%s/sec", sz);
		}
		CHECK_STR(t->tput[op], want);
	}
	CHECK_NEAR(t->tps, (double)all_trans / rt, 0.005);
	char sz[32];
	expect_size(sz, sizeof(sz), rd, rt);
	CHECK_STR(t->read_tput, rd ? sz : "");
	expect_size(sz, sizeof(sz), wr, rt);
	CHECK_STR(t->write_tput, wr ? sz : "");
}

static void check_syscalls(const struct parsed_table *t, const struct thread_stats *st,
                           const struct range_table *rtab)
{
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct lat_stats *l = &st->sys_lat[s];
		CHECK_EQ_U(t->sys_n[s], l->n);
		if (!l->n)
			continue;
		CHECK_NEAR(t->sys_min[s], (double)lat_min_ns(l) / 1e6, 5e-7);
		CHECK_NEAR(t->sys_avg[s], lat_mean_ns(l) / 1e6, 5e-7);
		CHECK_NEAR(t->sys_max[s], (double)l->max_ns / 1e6, 5e-7);
		if (!rtab) {
			CHECK(t->dash[s]);
			CHECK_EQ_U(t->n_ranges[s], 0);
			continue;
		}
		CHECK(!t->dash[s]);
		CHECK_EQ_U(t->n_ranges[s], rtab->n);
		const uint64_t *row = stats_range_row(st, (enum sys_id)s);
		for (uint32_t c = 0; c < rtab->n && c < 8; c++) {
			/* FFSB's index i is the (n-1-i)-th declared range */
			uint32_t i = rtab->n - 1 - rtab->r[c].decl;
			CHECK_EQ_U(t->range[s][i], row[c]);
			CHECK_NEAR(t->range_lo[i], (double)rtab->r[c].lo_ns / 1e6, 5e-7);
			CHECK_NEAR(t->range_hi[i], (double)rtab->r[c].hi_ns / 1e6, 5e-7);
		}
	}
}

static void check_parse(const char *text, const struct fake *f)
{
	struct parsed p;
	parse_ffsb(text, &p);
	const struct results *r = &f->r;
	double rt = r->runtime_s;
	CHECK_EQ_U(p.n, 3);
	if (p.n != 3)
		return;
	CHECK_STR(p.t[0].title, "ThreadGroup 0");
	CHECK_STR(p.t[1].title, "ThreadGroup 1");
	CHECK_STR(p.t[2].title, "Total Results");
	for (size_t gi = 0; gi < 2; gi++) {
		check_table(&p.t[gi], &r->groups[gi].st, rt);
		check_syscalls(&p.t[gi], &r->groups[gi].st, r->groups[gi].ranges);
	}
	check_table(&p.t[2], &r->total, rt);
	for (int s = 0; s < SYS_COUNT; s++) /* FFSB prints no latency for the total */
		CHECK_EQ_U(p.t[2].sys_n[s], 0);
	/* the fake's exact figures, independently of the stats code */
	CHECK_EQ_U(p.t[0].trans[OP_read], 1000);
	CHECK_NEAR(p.t[0].tps, 102.0, 1e-9);
	CHECK_EQ_U(p.t[0].sys_n[SYS_read], 1000);
	CHECK_NEAR(p.t[0].sys_min[SYS_read], 0.2, 1e-9);
	CHECK_NEAR(p.t[0].sys_max[SYS_read], 25.0, 1e-9);
	CHECK_EQ_U(p.t[0].range[SYS_read][0], f->expect_ranges[2]); /* 5 - 10, declared last */
	CHECK_EQ_U(p.t[0].range[SYS_read][1], f->expect_ranges[1]); /* 0 - 1 */
	CHECK_EQ_U(p.t[0].range[SYS_read][2], f->expect_ranges[0]); /* 1 - 2, declared first */
	CHECK_EQ_U(p.t[2].trans[OP_create], 80);
	CHECK_EQ_U(p.t[2].trans[OP_stat], 30);
	CHECK_STR(p.t[2].tput[OP_stat], "NA");
	CHECK_STR(p.t[2].tput[OP_create_fsync], "0B/sec");
	CHECK_NEAR(p.t[2].tps, (1000 + 20 + 80 + 30 + 5) / 10.0, 1e-9);
	CHECK_EQ_I(p.cpu_lines, 3);
	CHECK_NEAR(p.user_pct, 15.0, 1e-9);
	CHECK_NEAR(p.sys_pct, 25.0, 1e-9);
	CHECK_NEAR(p.cpu_pct, 40.0, 1e-9);
}

static void test_ffsb_parse(void)
{
	static struct fake f;
	for (int ffsb_only = 0; ffsb_only < 2; ffsb_only++) {
		golden_setup(&f);
		f.r.interrupted = !ffsb_only;
		char *text = render_text(&f, ffsb_only);
		check_parse(text, &f);
		free(text);
		fake_free(&f);
	}
}

int main(void)
{
	RUN(test_golden_text);
	RUN(test_golden_ffsb);
	RUN(test_golden_ffsb_aging);
	RUN(test_golden_csv);
	RUN(test_ffsb_accounting);
	RUN(test_cpu_line);
	RUN(test_ffsb_parse);
	return test_summary();
}
