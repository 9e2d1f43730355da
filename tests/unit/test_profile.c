/* test_profile.c - profile parsing and plan building end to end.
 *
 * The twin test: the 2010 ext4 barrier profile, a tab-indented copy of it and a CRLF copy with
 * trailing comments must give plans identical in every field (plans_equal). This is the bug
 * stock libinih had (indented keys silently became continuation lines). Then the 2010 plan is
 * checked value by value, and the section rules: numbering, aging, clone, bindfs, duplicates,
 * deprecated keys and the bufferedio alias. */
#include <dirent.h>
#include <stdbool.h>

#include "content.h"
#include "diag.h"
#include "plan.h"
#include "profile.h"
#include "test.h"

/* ---- helpers ---- */

static char *read_profile(const char *name, size_t *len)
{
	char path[4096];
	const char *srcdir = getenv("FSMIX_SOURCE_DIR");
	snprintf(path, sizeof(path), "%s/profiles/%s", srcdir ? srcdir : ".", name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		TEST_FAIL("cannot open %s (set FSMIX_SOURCE_DIR)", path);
		return NULL;
	}
	size_t cap = 1 << 20;
	char *buf = malloc(cap + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, cap, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* A copy of `text` with every non-blank line inside a section (keys, comments, nested headers)
 * prefixed with a tab; top-level lines and the outermost headers stay flush left. */
static char *tab_indented(const char *text)
{
	size_t n = strlen(text), o = 0;
	char *out = malloc(2 * n + 1);
	int depth = 0;
	if (!out)
		exit(1);
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		bool header = line[0] == '[';
		bool end = header && !strncmp(line, "[end", 4);
		if (end)
			depth--;
		if (depth > 0 && line[0] != '\n' && line[0] != '\r')
			out[o++] = '\t';
		if (header && !end)
			depth++;
		memcpy(out + o, line, len);
		o += len;
		line += len;
	}
	out[o] = '\0';
	return out;
}

/* A copy with CRLF line ends and " # trailing comment" after every key and header line. */
static char *crlf_commented(const char *text)
{
	size_t n = strlen(text), o = 0;
	char *out = malloc(30 * n + 1);
	if (!out)
		exit(1);
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		memcpy(out + o, line, len);
		o += len;
		if (len && line[0] != '#')
			o += (size_t)sprintf(out + o, "  # trailing comment [end] x=1");
		if (nl)
			o += (size_t)sprintf(out + o, "\r\n");
		line += len + (nl != NULL);
	}
	out[o] = '\0';
	return out;
}

static int parse(struct profile *p, const char *text, struct diag *d)
{
	return profile_parse_buffer(p, "t.ffsb", text, strlen(text), d);
}

/* Number of diagnostics of `level` at `line` whose text contains `needle`. */
static size_t count_diag(const struct diag *d, enum diag_level level, uint32_t line,
                         const char *needle)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].level == level && d->v[i].loc.line == line &&
		    strstr(d->v[i].text, needle))
			n++;
	return n;
}

static void dump_diag(const struct diag *d)
{
	char buf[2048];
	for (size_t i = 0; i < d->n; i++) {
		diag_format(&d->v[i], buf, sizeof(buf));
		fprintf(stderr, "    %s\n", buf);
	}
}

/* ---- plans_equal: every field of struct plan, plan_fs and plan_group ---- */

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

#define FIELD(a, b, f)                                                                             \
	do {                                                                                       \
		if ((a)->f != (b)->f) {                                                            \
			TEST_FAIL("%s: field %s differs", where, #f);                              \
			ok = false;                                                                \
		}                                                                                  \
	} while (0)
#define MFIELD(a, b, f)                                                                            \
	do {                                                                                       \
		if (memcmp(&(a)->f, &(b)->f, sizeof((a)->f))) {                                    \
			TEST_FAIL("%s: field %s differs", where, #f);                              \
			ok = false;                                                                \
		}                                                                                  \
	} while (0)
#define SFIELD(a, b, f)                                                                            \
	do {                                                                                       \
		if (!str_eq((a)->f, (b)->f)) {                                                     \
			TEST_FAIL("%s: field %s differs: \"%s\" vs \"%s\"", where, #f,             \
			          (a)->f ? (a)->f : "(null)", (b)->f ? (b)->f : "(null)");         \
			ok = false;                                                                \
		}                                                                                  \
	} while (0)

static bool groups_equal(const struct plan_group *a, const struct plan_group *b, const char *where)
{
	bool ok = true;
	if (!a || !b) {
		if (a != b)
			TEST_FAIL("%s: one group is missing", where);
		return a == b;
	}
	FIELD(a, b, index);
	SFIELD(a, b, name);
	FIELD(a, b, aging);
	FIELD(a, b, num_threads);
	for (int op = 0; op < OP_COUNT; op++)
		FIELD(a, b, weight[op]);
	FIELD(a, b, total_weight);
	FIELD(a, b, read_random);
	FIELD(a, b, read_skip);
	FIELD(a, b, write_random);
	FIELD(a, b, read_size);
	FIELD(a, b, read_blocksize);
	FIELD(a, b, read_skipsize);
	FIELD(a, b, write_size);
	FIELD(a, b, write_blocksize);
	FIELD(a, b, op_delay_ms);
	FIELD(a, b, num_ops);
	FIELD(a, b, start_delay_ms);
	FIELD(a, b, phase);
	FIELD(a, b, phase_time_s);
	FIELD(a, b, stonewall);
	FIELD(a, b, op_period_ms);
	FIELD(a, b, write_stride);
	FIELD(a, b, open_sync);
	FIELD(a, b, dirsync);
	FIELD(a, b, bindfs);
	SFIELD(a, b, sequence);
	FIELD(a, b, n_seq);
	for (uint32_t i = 0; i < a->n_seq && i < PLAN_SEQ_MAX; i++) {
		FIELD(a, b, seq[i].op);
		FIELD(a, b, seq[i].writes);
		FIELD(a, b, seq[i].times);
	}
	SFIELD(a, b, file_popularity);
	MFIELD(a, b, pop); /* memset by the parser, calloc'ed when unset: compared whole */
	SFIELD(a, b, write_bssplit);
	SFIELD(a, b, write_bsrange);
	SFIELD(a, b, read_bssplit);
	SFIELD(a, b, read_bsrange);
	MFIELD(a, b, wmix); /* memset by the parser, calloc'ed when unset: compared whole */
	MFIELD(a, b, rmix);
	SFIELD(a, b, random_distribution);
	FIELD(a, b, percentage_random);
	MFIELD(a, b, offd); /* as pop: memset by the parser, calloc'ed when unset */
	SFIELD(a, b, op_rate);
	FIELD(a, b, rate_target);
	FIELD(a, b, sched_period_ns);
	FIELD(a, b, arrival);
	FIELD(a, b, arrival_backlog);
	FIELD(a, b, arrival_backlog_max);
	FIELD(a, b, file_order);
	FIELD(a, b, io_engine);
	FIELD(a, b, iodepth);
	FIELD(a, b, enable_stats);
	FIELD(a, b, enable_range);
	FIELD(a, b, ignore_mask);
	FIELD(a, b, n_ranges);
	for (size_t i = 0; ok && i < a->n_ranges; i++) {
		FIELD(a, b, ranges[i].lo_ms);
		FIELD(a, b, ranges[i].hi_ms);
	}
	return ok;
}

static bool fs_equal(const struct plan_fs *a, const struct plan_fs *b, const char *where)
{
	bool ok = true;
	FIELD(a, b, index);
	SFIELD(a, b, name);
	SFIELD(a, b, location);
	FIELD(a, b, num_files);
	FIELD(a, b, num_dirs);
	FIELD(a, b, dir_depth);
	FIELD(a, b, dir_fanout);
	FIELD(a, b, data_dirs);
	SFIELD(a, b, dir_files_text);
	FIELD(a, b, dir_gamma);
	FIELD(a, b, dir_per_thread);
	FIELD(a, b, top_files);
	FIELD(a, b, reuse);
	FIELD(a, b, agefs);
	FIELD(a, b, min_filesize);
	FIELD(a, b, max_filesize);
	FIELD(a, b, n_sizes);
	for (size_t i = 0; ok && i < a->n_sizes; i++) {
		FIELD(a, b, sizes[i].size);
		FIELD(a, b, sizes[i].weight);
	}
	FIELD(a, b, size_weight_total);
	SFIELD(a, b, size_dist_text);
	FIELD(a, b, size_dist.kind);
	FIELD(a, b, size_dist.a);
	FIELD(a, b, size_dist.b);
	FIELD(a, b, size_dist.cap);
	FIELD(a, b, create_blocksize);
	FIELD(a, b, age_blocksize);
	FIELD(a, b, create_method);
	FIELD(a, b, desired_util);
	FIELD(a, b, init_util);
	FIELD(a, b, init_size);
	FIELD(a, b, content_mode);
	FIELD(a, b, content_pct);
	char w[64];
	snprintf(w, sizeof(w), "%s.age", where);
	if (!groups_equal(a->age, b->age, w))
		ok = false;
	return ok;
}

static bool plans_equal(const struct plan *a, const struct plan *b)
{
	const char *where = "plan";
	bool ok = true;
	FIELD(a, b, time_s);
	FIELD(a, b, ramp_s);
	FIELD(a, b, fidelity);
	FIELD(a, b, directio);
	FIELD(a, b, alignio);
	FIELD(a, b, verify);
	FIELD(a, b, bufferio);
	FIELD(a, b, verbose);
	SFIELD(a, b, callout);
	SFIELD(a, b, content);
	FIELD(a, b, content_mode);
	FIELD(a, b, content_pct);
	FIELD(a, b, seed_given);
	FIELD(a, b, seed);
	FIELD(a, b, counted);
	FIELD(a, b, n_fs);
	FIELD(a, b, n_groups);
	FIELD(a, b, total_threads);
	FIELD(a, b, n_phases);
	for (size_t i = 0; ok && i < a->n_phases; i++) {
		FIELD(a, b, phases[i].time_s);
		FIELD(a, b, phases[i].counted);
		FIELD(a, b, phases[i].stonewall);
		FIELD(a, b, phases[i].n_groups);
		FIELD(a, b, phases[i].threads);
	}
	if (!ok)
		return false;
	for (size_t i = 0; i < a->n_fs; i++) {
		char w[32];
		snprintf(w, sizeof(w), "fs[%zu]", i);
		if (!fs_equal(&a->fs[i], &b->fs[i], w))
			ok = false;
	}
	for (size_t i = 0; i < a->n_groups; i++) {
		char w[32];
		snprintf(w, sizeof(w), "groups[%zu]", i);
		if (!groups_equal(&a->groups[i], &b->groups[i], w))
			ok = false;
	}
	return ok;
}

/* plans_equal must know every field: a field added to plan.h changes these sizes (LP64). */
static void test_plans_equal_covers_every_field(void)
{
	if (sizeof(struct plan) != 1648 || sizeof(struct plan_fs) != 216 ||
	    sizeof(struct plan_group) != 11976 || OP_COUNT != 46)
		TEST_FAIL(
		    "struct plan, plan_fs or plan_group changed size (%zu, %zu, %zu) or "
		    "OP_COUNT changed (%d): extend plans_equal() in test_profile.c with the new "
		    "fields, then update these numbers",
		    sizeof(struct plan), sizeof(struct plan_fs), sizeof(struct plan_group),
		    (int)OP_COUNT);
	else
		test_passed_checks++;
}

/* ---- the twin test ---- */

struct parsed {
	struct profile p;
	struct plan pl;
	struct diag d;
	int parse_rc, plan_rc;
};

static void parse_and_plan(struct parsed *x, const char *text)
{
	diag_init(&x->d);
	x->parse_rc = parse(&x->p, text, &x->d);
	x->plan_rc = plan_build(&x->pl, &x->p, NULL, &x->d);
	if (x->parse_rc || x->plan_rc || x->d.n) {
		fprintf(stderr, "  diagnostics:\n");
		dump_diag(&x->d);
	}
}

static void parsed_free(struct parsed *x)
{
	if (x->plan_rc == 0)
		plan_free(&x->pl);
	profile_free(&x->p);
	diag_free(&x->d);
}

static void test_twins_give_identical_plans(void)
{
	size_t len;
	char *orig = read_profile("ext4-barrier-2010.ffsb", &len);
	if (!orig)
		return;
	char *tabs = tab_indented(orig);
	char *crlf = crlf_commented(orig);
	char *both = crlf_commented(tabs);
	/* The copies really are different texts of the same profile. */
	CHECK(strstr(tabs, "\n\tnum_files=100000\n") != NULL);
	CHECK(strstr(tabs, "\n\tsize_weight 1KB 10\n") != NULL);
	CHECK(strstr(tabs, "\n\tmsec_range 0.00 0.01\n") != NULL);
	CHECK(strstr(tabs, "\n\t[stats]\n") != NULL);
	CHECK(strstr(tabs, "\n\t[end]\n[end0]") != NULL);
	CHECK(strstr(crlf, "time=300  # trailing comment [end] x=1\r\n") != NULL);

	static struct parsed a, b, c, e;
	parse_and_plan(&a, orig);
	parse_and_plan(&b, tabs);
	parse_and_plan(&c, crlf);
	parse_and_plan(&e, both);
	CHECK_EQ_I(a.parse_rc, 0);
	CHECK_EQ_I(a.plan_rc, 0);
	CHECK_EQ_I(b.plan_rc, 0);
	CHECK_EQ_I(c.plan_rc, 0);
	CHECK_EQ_I(e.plan_rc, 0);
	CHECK_EQ_U(a.d.n, 0);
	CHECK_EQ_U(b.d.n, 0);
	CHECK_EQ_U(c.d.n, 0);
	CHECK_EQ_U(e.d.n, 0);
	if (!a.plan_rc && !b.plan_rc)
		CHECK(plans_equal(&a.pl, &b.pl));
	if (!a.plan_rc && !c.plan_rc)
		CHECK(plans_equal(&a.pl, &c.pl));
	if (!a.plan_rc && !e.plan_rc)
		CHECK(plans_equal(&a.pl, &e.pl));
	/* Every key is set from the same line in all copies. */
	for (int k = 0; a.p.n_tg && b.p.n_tg && k < KEY_COUNT; k++)
		CHECK_EQ_U(a.p.tg[0]->set[k].loc.line, b.p.tg[0]->set[k].loc.line);
	parsed_free(&a);
	parsed_free(&b);
	parsed_free(&c);
	parsed_free(&e);
	free(orig);
	free(tabs);
	free(crlf);
	free(both);
}

static void test_2010_plan(void)
{
	size_t len;
	char *text = read_profile("ext4-barrier-2010.ffsb", &len);
	if (!text)
		return;
	static struct parsed x;
	parse_and_plan(&x, text);
	CHECK_EQ_I(x.parse_rc, 0);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	if (x.plan_rc) {
		parsed_free(&x);
		free(text);
		return;
	}
	const struct plan *pl = &x.pl;
	CHECK_EQ_U(pl->time_s, 300);
	CHECK(pl->directio);
	CHECK(pl->alignio);
	CHECK(!pl->bufferio);
	CHECK(!pl->seed_given);
	CHECK_EQ_U(pl->n_fs, 1);
	CHECK_EQ_U(pl->n_groups, 1);
	CHECK_EQ_U(pl->total_threads, 64);

	const struct plan_fs *f = &pl->fs[0];
	CHECK_STR(f->name, "filesystem0");
	CHECK_STR(f->location, "/mnt/");
	CHECK_EQ_U(f->num_files, 100000);
	CHECK_EQ_U(f->num_dirs, 1000);
	CHECK(f->reuse);
	CHECK(!f->agefs);
	CHECK(f->age == NULL);
	CHECK_EQ_U(f->create_blocksize, 1048576);
	static const struct plan_size_weight sizes[] = {
	    {1 << 10, 10},  {2 << 10, 15},  {4 << 10, 16}, {8 << 10, 16},
	    {16 << 10, 15}, {32 << 10, 10}, {64 << 10, 8}, {128 << 10, 4},
	    {256 << 10, 3}, {512 << 10, 2}, {1 << 20, 1},
	};
	CHECK_EQ_U(f->n_sizes, 11);
	for (size_t i = 0; i < f->n_sizes && i < 11; i++) {
		CHECK_EQ_U(f->sizes[i].size, sizes[i].size);
		CHECK_EQ_U(f->sizes[i].weight, sizes[i].weight);
	}
	CHECK_EQ_U(f->size_weight_total, 100);

	const struct plan_group *g = &pl->groups[0];
	CHECK_STR(g->name, "threadgroup0");
	CHECK_EQ_U(g->index, 0);
	CHECK(!g->aging);
	CHECK_EQ_U(g->num_threads, 64);
	CHECK_EQ_I(g->bindfs, -1);
	uint32_t want[OP_COUNT] = {0};
	want[OP_readall] = 4;
	want[OP_create_fsync] = 2;
	want[OP_delete] = 1;
	want[OP_append] = 1;
	want[OP_append_fsync] = 1;
	want[OP_stat] = 1;
	want[OP_create] = 1;
	want[OP_writeall] = 1;
	want[OP_writeall_fsync] = 1;
	want[OP_open_close] = 1;
	for (int op = 0; op < OP_COUNT; op++)
		CHECK_EQ_U(g->weight[op], want[op]);
	CHECK_EQ_U(g->total_weight, 14);
	CHECK_EQ_U(g->read_size, 64 << 10);
	CHECK_EQ_U(g->read_blocksize, 512 << 10);
	CHECK_EQ_U(g->write_size, 64 << 10);
	CHECK_EQ_U(g->write_blocksize, 512 << 10);
	CHECK(!g->read_random && !g->write_random && !g->read_skip);
	CHECK_EQ_U(g->op_delay_ms, 0);
	CHECK(g->enable_stats);
	CHECK(g->enable_range);
	CHECK_EQ_U(g->ignore_mask, 0);
	static const double bounds[] = {0.00,   0.01,   0.02,    0.05,    0.10,    0.20,    0.50,
	                                1.00,   2.00,   5.00,    10.00,   20.00,   50.00,   100.00,
	                                200.00, 500.00, 1000.00, 2000.00, 5000.00, 10000.00};
	CHECK_EQ_U(g->n_ranges, 19);
	for (size_t i = 0; i < g->n_ranges && i < 19; i++) {
		CHECK_NEAR(g->ranges[i].lo_ms, bounds[i], 1e-12);
		CHECK_NEAR(g->ranges[i].hi_ms, bounds[i + 1], 1e-12);
	}
	/* Where things came from. */
	CHECK_EQ_U(x.p.fs[0]->loc.line, 5);
	CHECK_EQ_U(x.p.fs[0]->end_line, 25);
	CHECK_EQ_U(x.p.tg[0]->loc.line, 27);
	CHECK_EQ_U(x.p.tg[0]->end_line, 73);
	CHECK_EQ_U(x.p.tg[0]->stats->loc.line, 49);
	CHECK_EQ_U(x.p.tg[0]->stats->end_line, 72);
	CHECK_EQ_U(x.p.tg[0]->set[KEY_num_threads].loc.line, 28);
	CHECK_EQ_U(x.p.fs[0]->set[KEY_size_weight].items[10].loc.line, 22);
	parsed_free(&x);
	free(text);
}

/* ---- section rules ---- */

static const char two_by_two[] = "time=1\n"
                                 "[filesystem5]\n"
                                 "location=/a\n"
                                 "num_files=1\n"
                                 "[end5]\n"
                                 "[filesystem2]\n"
                                 "location=/b\n"
                                 "num_files=2\n"
                                 "[end2]\n"
                                 "[threadgroup]\n"
                                 "num_threads=3\n"
                                 "stat_weight=1\n"
                                 "[end]\n"
                                 "[threadgroup0]\n"
                                 "num_threads=4\n"
                                 "stat_weight=1\n"
                                 "[end0]\n";

static void test_sections_numbered_by_order(void)
{
	static struct parsed x;
	diag_init(&x.d);
	x.parse_rc = parse(&x.p, two_by_two, &x.d);
	x.plan_rc = plan_build(&x.pl, &x.p, NULL, &x.d);
	CHECK_EQ_I(x.parse_rc, 0);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.p.n_fs, 2);
	CHECK_EQ_U(x.p.n_tg, 2);
	if (x.p.n_fs == 2 && x.p.n_tg == 2) {
		CHECK_STR(x.p.fs[0]->name, "filesystem0");
		CHECK_EQ_U(x.p.fs[0]->ordinal, 0);
		CHECK_EQ_I(x.p.fs[0]->header_number, 5);
		CHECK_STR(x.p.fs[0]->set[KEY_location].v.s, "/a");
		CHECK_STR(x.p.fs[1]->name, "filesystem1");
		CHECK_EQ_I(x.p.fs[1]->header_number, 2);
		CHECK_STR(x.p.tg[0]->name, "threadgroup0");
		CHECK_EQ_I(x.p.tg[0]->header_number, -1);
		CHECK_STR(x.p.tg[1]->name, "threadgroup1");
		CHECK_EQ_I(x.p.tg[1]->header_number, 0);
	}
	if (!x.plan_rc) {
		CHECK_EQ_U(x.pl.fs[0].num_files, 1);
		CHECK_EQ_U(x.pl.fs[1].num_files, 2);
		CHECK_EQ_U(x.pl.groups[0].num_threads, 3);
		CHECK_EQ_U(x.pl.groups[1].num_threads, 4);
		CHECK_EQ_U(x.pl.groups[1].index, 1);
	}
	/* A number that disagrees with the order is a warning at its header. */
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 2, "number 0 in file order"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 6, "number 1 in file order"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 14, "number 1 in file order"), 1);
	CHECK_EQ_U(x.d.errors, 0);
	parsed_free(&x);
}

static const char aging[] = "time=1\n"
                            "[filesystem0]\n"
                            "\tlocation=/a\n"
                            "\tagefs=1\n"
                            "\tdesired_util=0.25\n"
                            "\t[threadgroup]\n"
                            "\t\tnum_threads=2\n"
                            "\t\tcreate_weight=3\n"
                            "\t\tdelete_weight=1\n"
                            "\t\twrite_blocksize=4KB\n"
                            "\t[end]\n"
                            "[end0]\n"
                            "[threadgroup0]\n"
                            "\tnum_threads=1\n"
                            "\tstat_weight=1\n"
                            "[end0]\n";

static void test_aging_group(void)
{
	static struct parsed x;
	parse_and_plan(&x, aging);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.n, 0);
	CHECK(x.p.n_fs == 1 && x.p.fs[0]->age != NULL);
	if (x.p.n_fs == 1 && x.p.fs[0]->age) {
		CHECK(x.p.fs[0]->age->aging);
		CHECK_STR(x.p.fs[0]->age->name, "filesystem0.threadgroup");
		CHECK_EQ_U(x.p.fs[0]->age->loc.line, 6);
		CHECK_EQ_U(x.p.fs[0]->age->end_line, 11);
	}
	CHECK_EQ_U(x.p.n_tg, 1);
	if (!x.plan_rc) {
		const struct plan_fs *f = &x.pl.fs[0];
		CHECK(f->agefs);
		CHECK_NEAR(f->desired_util, 0.25, 1e-12);
		CHECK(f->age != NULL);
		if (f->age) {
			CHECK(f->age->aging);
			CHECK_STR(f->age->name, "filesystem0.threadgroup");
			CHECK_EQ_U(f->age->index, 0);
			CHECK_EQ_U(f->age->num_threads, 2);
			CHECK_EQ_U(f->age->weight[OP_create], 3);
			CHECK_EQ_U(f->age->weight[OP_delete], 1);
			CHECK_EQ_U(f->age->total_weight, 4);
			CHECK_EQ_U(f->age->write_blocksize, 4096);
		}
		/* The aging group is not one of the run's groups. */
		CHECK_EQ_U(x.pl.n_groups, 1);
		CHECK_EQ_U(x.pl.total_threads, 1);
	}
	parsed_free(&x);
}

static const char cloned[] = "time=1\n"
                             "[filesystem0]\n"
                             "location=/a\n"
                             "num_files=10\n"
                             "num_dirs=3\n"
                             "size_weight 4k 1\n"
                             "size_weight 8k 3\n"
                             "create_blocksize=8KB\n"
                             "[end0]\n"
                             "[filesystem1]\n"
                             "location=/b\n"
                             "clone=/a\n"
                             "num_files=20\n"
                             "[end1]\n"
                             "[threadgroup0]\n"
                             "num_threads=1\n"
                             "bindfs=/b\n"
                             "stat_weight=1\n"
                             "[end0]\n"
                             "[threadgroup1]\n"
                             "num_threads=1\n"
                             "stat_weight=1\n"
                             "[end1]\n";

static void test_clone_and_bindfs(void)
{
	static struct parsed x;
	parse_and_plan(&x, cloned);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.n, 0);
	if (x.plan_rc) {
		parsed_free(&x);
		return;
	}
	const struct plan_fs *b = &x.pl.fs[1];
	CHECK_STR(b->location, "/b"); /* never cloned */
	CHECK_EQ_U(b->num_files, 20); /* own setting wins */
	CHECK_EQ_U(b->num_dirs, 3);   /* cloned */
	CHECK_EQ_U(b->create_blocksize, 8192);
	CHECK_EQ_U(b->n_sizes, 2);
	if (b->n_sizes == 2) {
		CHECK_EQ_U(b->sizes[0].size, 4096);
		CHECK_EQ_U(b->sizes[1].weight, 3);
	}
	CHECK_EQ_U(b->size_weight_total, 4);
	CHECK_EQ_U(x.pl.fs[0].num_files, 10); /* the source is untouched */
	CHECK_EQ_I(x.pl.groups[0].bindfs, 1);
	CHECK_EQ_I(x.pl.groups[1].bindfs, -1);
	parsed_free(&x);

	/* A bindfs naming no filesystem is an error at its line that lists the locations. */
	char *bad = strdup(cloned);
	char *at = strstr(bad, "bindfs=/b");
	at[8] = 'z';
	parse_and_plan(&x, bad);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 17, "no [filesystem] has location '/z'"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 17, "'/a', '/b'"), 1);
	parsed_free(&x);
	free(bad);
}

static void test_duplicate_key(void)
{
	static struct parsed x;
	diag_init(&x.d);
	x.parse_rc = parse(&x.p,
	                   "time=1\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "num_files=1\n"
	                   "\n"
	                   "num_files=2\n"
	                   "[end0]\n",
	                   &x.d);
	CHECK_EQ_I(x.parse_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	CHECK_EQ_U(x.d.warnings, 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 6, "already set at line 4"), 1);
	if (x.d.n == 1) {
		char buf[512];
		diag_format(&x.d.v[0], buf, sizeof(buf));
		CHECK_STR(buf, "t.ffsb:6: warning: [filesystem0] num_files: already set at line 4; "
		               "this later value wins (as in FFSB)");
	}
	if (x.p.n_fs == 1) {
		CHECK_EQ_U(setting_u(x.p.fs[0], KEY_num_files), 2);
		CHECK_EQ_U(x.p.fs[0]->set[KEY_num_files].loc.line, 6);
	}
	profile_free(&x.p);
	diag_free(&x.d);
}

/* Like parse_and_plan, with the plan options po. */
static void parse_and_plan_po(struct parsed *x, const char *text, const struct plan_opts *po)
{
	diag_init(&x->d);
	x->parse_rc = parse(&x->p, text, &x->d);
	x->plan_rc = plan_build(&x->pl, &x->p, po, &x->d);
}

/* Like parse_and_plan, with --strict-ffsb when `strict`. */
static void parse_and_plan_opts(struct parsed *x, const char *text, bool strict)
{
	struct plan_opts po = {.strict_ffsb = strict};
	parse_and_plan_po(x, text, &po);
}

static const char deprecated[] = "num_filesystems=1\n"
                                 "[filesystem0]\n"
                                 "location=/a\n"
                                 "[end0]\n"
                                 "[threadgroup0]\n"
                                 "num_threads=1\n"
                                 "fsync_file=1\n"
                                 "stat_weight=1\n"
                                 "[end0]\n";

/* FFSB 5 keys: ignored with a warning by default; FFSB 6.0 stops at them, so --strict-ffsb
 * makes each an error (and then gives no warning for it). */
static void test_deprecated_key(void)
{
	static struct parsed x;
	parse_and_plan_opts(&x, deprecated, false);
	CHECK_EQ_I(x.parse_rc, 0);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 1, "deprecated"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 1, "ignored"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 7, "deprecated"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 7, "ignored"), 1);
	CHECK(!x.p.global.set[KEY_num_filesystems].set);
	if (x.p.n_tg == 1)
		CHECK(!x.p.tg[0]->set[KEY_fsync_file].set);
	parsed_free(&x);

	parse_and_plan_opts(&x, deprecated, true);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(x.d.errors, 2);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 1, "FFSB 6.0 stops at it"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 7, "FFSB 6.0 stops at it"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 1, "deprecated"), 0);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 7, "deprecated"), 0);
	parsed_free(&x);
}

/* FFSB's own examples/profile_everything: an aging group written out and switched off with
 * agefs=0. It is checked, then ignored with one warning, in both modes; a mistake in it is
 * still an error. */
static const char aging_off[] = "time=1\n"
                                "[filesystem]\n"
                                "\tlocation=/a\n"
                                "\tsize_weight 4k 1\n"
                                "\tagefs=0\n"
                                "\t[threadgroup]\n"
                                "\t\tnum_threads=10\n"
                                "\t\tcreate_weight=10\n"
                                "\t\twrite_blocksize=1024\n"
                                "\t[end]\n"
                                "\tdesired_util=0.005\n"
                                "[end]\n"
                                "[threadgroup]\n"
                                "\tnum_threads=4\n"
                                "\tstat_weight=1\n"
                                "[end]\n";

static void test_aging_group_switched_off(void)
{
	static struct parsed x;
	for (int strict = 0; strict <= 1; strict++) {
		parse_and_plan_opts(&x, aging_off, strict);
		CHECK_EQ_I(x.parse_rc, 0);
		CHECK_EQ_I(x.plan_rc, 0);
		CHECK_EQ_U(x.d.errors, 0);
		CHECK_EQ_U(x.d.warnings, 1);
		CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 6, "checked, then ignored"), 1);
		if (!x.plan_rc) {
			CHECK_EQ_U(x.pl.n_fs, 1);
			CHECK(!x.pl.fs[0].agefs);
			CHECK(x.pl.fs[0].age == NULL);
			CHECK_EQ_U(x.pl.n_groups, 1);
			CHECK_EQ_U(x.pl.total_threads, 4);
		}
		parsed_free(&x);
	}
	/* Checked: an operation no aging group may do is an error at its line. */
	char *bad;
	bad = strdup(aging_off);
	char *w = strstr(bad, "\t\tcreate_weight=10");
	memcpy(w, "\t\tstat_weight=10\n ", 18);
	parse_and_plan(&x, bad);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 8, "can only create, append and delete"), 1);
	parsed_free(&x);
	free(bad);
}

/* A missing [end] is found from the structure, not from agefs: the filesystem still open at
 * the end of the file swallowed the only thread group (FFSB would run nothing). */
static void test_missing_end_not_from_agefs(void)
{
	static struct parsed x;
	parse_and_plan(&x, "time=1\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "size_weight 4k 1\n"
	                   "agefs=0\n"
	                   "[threadgroup0]\n"
	                   "num_threads=1\n"
	                   "stat_weight=1\n"
	                   "[end0]\n");
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(x.d.errors, 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 6, "is [end0] missing before line 6?"), 1);
	parsed_free(&x);
}

/* [endN] closes the innermost section whatever N says (FFSB looks only at "end"). */
static void test_end_number_differs(void)
{
	static struct parsed x;
	parse_and_plan(&x, "time=1\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "size_weight 4k 1\n"
	                   "[end0]\n"
	                   "[filesystem1]\n"
	                   "location=/b\n"
	                   "size_weight 4k 1\n"
	                   "[end0]\n"
	                   "[threadgroup0]\n"
	                   "num_threads=1\n"
	                   "stat_weight=1\n"
	                   "[end7]\n");
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 9, "[end0] closes [filesystem1] (line 6)"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 13, "write [end0]"), 1);
	CHECK_EQ_U(x.p.n_fs, 2);
	CHECK_EQ_U(x.p.n_tg, 1);
	if (x.p.n_fs == 2)
		CHECK_EQ_U(x.p.fs[1]->end_line, 9);
	parsed_free(&x);
}

/* FFSB 5's names: read as the FFSB 6 key with one warning each; errors with --strict-ffsb. */
static const char ffsb5_names[] = "time=1\n"
                                  "[filesystem0]\n"
                                  "location=/a\n"
                                  "size_weight 4k 1\n"
                                  "[end0]\n"
                                  "[threadgroup0]\n"
                                  "num_threads=1\n"
                                  "meta_weight=3\n"
                                  "[stats]\n"
                                  "enable_stats=1\n"
                                  "enable_range=1\n"
                                  "bucket 0.0 0.5\n"
                                  "bucket 0.5 2.0\n"
                                  "[end]\n"
                                  "[end0]\n";

static void test_ffsb5_names(void)
{
	static struct parsed x;
	parse_and_plan_opts(&x, ffsb5_names, false);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.warnings, 2);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 8, "FFSB 5 name of metaop_weight"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 12, "(2 lines from line 12)"), 1);
	if (!x.plan_rc) {
		CHECK_EQ_U(x.pl.groups[0].weight[OP_metaop], 3);
		CHECK_EQ_U(x.pl.groups[0].n_ranges, 2);
		if (x.pl.groups[0].n_ranges == 2)
			CHECK_NEAR(x.pl.groups[0].ranges[1].hi_ms, 2.0, 1e-12);
	}
	parsed_free(&x);
	parse_and_plan_opts(&x, ffsb5_names, true);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(x.d.errors, 2);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 8, "write metaop_weight"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 12, "write msec_range"), 1);
	parsed_free(&x);
}

/* An FFSB 4 profile: one error naming the format, not one per unknown key. */
static void test_ffsb4_refused(void)
{
	static struct parsed x;
	diag_init(&x.d);
	x.parse_rc = parse(&x.p,
	                   "# web server\n"
	                   "numconfigs=1\n"
	                   "numfiles=100\n"
	                   "location=/mnt\n"
	                   "[config0]\n"
	                   "threads=4\n",
	                   &x.d);
	CHECK_EQ_I(x.parse_rc, -1);
	CHECK_EQ_U(x.d.n, 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "FFSB 4 profile"), 1);
	profile_free(&x.p);
	diag_free(&x.d);
}

/* No file sizes but reads or overwrites: the files start empty; a warning names the
 * filesystem and the first operation (only groups that use that filesystem count). */
static void test_no_file_sizes_warning(void)
{
	static struct parsed x;
	parse_and_plan(&x, "time=1\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "min_filesize=4k\n"
	                   "max_filesize=4k\n"
	                   "[end0]\n"
	                   "[filesystem1]\n"
	                   "location=/b\n"
	                   "[end1]\n"
	                   "[threadgroup0]\n"
	                   "num_threads=1\n"
	                   "bindfs=/b\n"
	                   "append_weight=1\n"
	                   "write_weight=2\n"
	                   "write_size=4k\n"
	                   "write_blocksize=4k\n"
	                   "[end0]\n");
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.warnings, 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 7, "write_weight of [threadgroup0] (line 14)"),
	           1);
	parsed_free(&x);
	/* Appends and stats only: nothing reads or overwrites data, no warning. */
	parse_and_plan(&x, "time=1\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "[end0]\n"
	                   "[threadgroup0]\n"
	                   "num_threads=1\n"
	                   "append_weight=1\n"
	                   "stat_weight=1\n"
	                   "write_size=4k\n"
	                   "write_blocksize=4k\n"
	                   "[end0]\n");
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.n, 0);
	parsed_free(&x);
}

static void test_bufferedio_alias(void)
{
	static struct parsed x;
	parse_and_plan(&x, "bufferedio=1\n"
	                   "time=0\n"
	                   "[filesystem0]\n"
	                   "location=/a\n"
	                   "[end0]\n");
	CHECK_EQ_I(x.parse_rc, 0);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK(x.p.global.set[KEY_bufferio].set);
	CHECK_EQ_U(x.p.global.set[KEY_bufferio].loc.line, 1);
	if (!x.plan_rc)
		CHECK(x.pl.bufferio);
	parsed_free(&x);
}

static void test_default_profile_plans(void)
{
	/* Every shipped profile parses and plans without error. */
	size_t len;
	char *text = read_profile("default.ffsb", &len);
	if (!text)
		return;
	static struct parsed x;
	parse_and_plan(&x, text);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	parsed_free(&x);
	free(text);
}

/* ---- diagnostic codes ---- */

/* The code, section and key of the first diagnostic at `line`, checked against the text. */
static void check_code(const struct diag *d, uint32_t line, enum diag_code code,
                       const char *section, const char *key)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_entry *e = &d->v[i];
		if (e->loc.line != line)
			continue;
		CHECK_EQ_I(e->code, code);
		CHECK_STR(e->section ? e->section : "(none)", section ? section : "(none)");
		CHECK_STR(e->key ? e->key : "(none)", key ? key : "(none)");
		return;
	}
	TEST_FAIL("no diagnostic at line %u", line);
}

static void test_diag_codes(void)
{
	static struct parsed x;
	parse_and_plan_opts(&x,
	                    "time=1\n"
	                    "[filesystem0]\n"
	                    "location=/a\n"
	                    "Num_files=3\n"
	                    "num_threads=2\n"
	                    "num_dirs=x\n"
	                    "num_dirs=2\n"
	                    "create_method=fast\n"
	                    "[end0]\n"
	                    "[threadgroup0]\n"
	                    "num_threads=1\n"
	                    "read_weight=1\n"
	                    "[end0]\n"
	                    "[bogus]\n",
	                    false);
	check_code(&x.d, 4, DIAG_UNKNOWN_KEY, "filesystem0", "Num_files");
	check_code(&x.d, 5, DIAG_MISPLACED_KEY, "filesystem0", "num_threads");
	check_code(&x.d, 6, DIAG_BAD_VALUE, "filesystem0", "num_dirs");
	check_code(&x.d, 8, DIAG_BAD_VALUE, "filesystem0", "create_method");
	check_code(&x.d, 12, DIAG_MISSING, "threadgroup0", "read_blocksize");
	check_code(&x.d, 14, DIAG_SECTION, NULL, NULL);
	/* The key of an unknown key is recorded as written, but only quoted in the text. */
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 4,
	                      "[filesystem0] unknown key 'Num_files' (keys are case-sensitive)"),
	           1);
	CHECK(diag_find(&x.d, DIAG_ERROR, DIAG_UNKNOWN_KEY, "filesystem0", "num_FILES") != NULL);
	CHECK(diag_find(&x.d, DIAG_ERROR, DIAG_UNKNOWN_KEY, "threadgroup0", NULL) == NULL);
	CHECK(diag_find(&x.d, DIAG_WARNING, DIAG_ANY, NULL, "num_files") == NULL);
	parsed_free(&x);

	parse_and_plan_opts(&x, "num_filesystems=1\n[filesystem0]\nlocation=/a\n", false);
	check_code(&x.d, 1, DIAG_COMPAT, "global", "num_filesystems");
	parsed_free(&x);
}

/* Every message the bad-profile corpus (tests/bad) produces has a code, and its section and
 * key are the ones the text starts with. */
static void test_every_bad_profile_message_coded(void)
{
	const char *srcdir = getenv("FSMIX_SOURCE_DIR");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/bad", srcdir ? srcdir : ".");
	DIR *dp = opendir(dir);
	if (!dp) {
		TEST_FAIL("cannot open %s (set FSMIX_SOURCE_DIR)", dir);
		return;
	}
	size_t files = 0, messages = 0;
	for (struct dirent *de; (de = readdir(dp));) {
		size_t n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".ffsb"))
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		for (int strict = 0; strict < 2; strict++) {
			struct profile p;
			struct plan pl;
			struct diag d;
			struct plan_opts po = {.strict_ffsb = strict};
			diag_init(&d);
			(void)profile_parse_file(&p, path, &d);
			if (p.file && plan_build(&pl, &p, &po, &d) == 0)
				plan_free(&pl);
			for (size_t i = 0; i < d.n; i++) {
				const struct diag_entry *e = &d.v[i];
				char prefix[256];
				messages++;
				if (e->code == DIAG_OTHER)
					TEST_FAIL("%s: no code: %s", de->d_name, e->text);
				if (e->section && e->key && e->code != DIAG_UNKNOWN_KEY)
					snprintf(prefix, sizeof(prefix), "[%s] %s: ", e->section,
					         e->key);
				else if (e->section)
					snprintf(prefix, sizeof(prefix), "[%s] ", e->section);
				else
					snprintf(prefix, sizeof(prefix), "%s",
					         e->key ? e->key : "");
				if (strncmp(e->text, prefix, strlen(prefix)))
					TEST_FAIL("%s: text does not start with '%s': %s",
					          de->d_name, prefix, e->text);
			}
			profile_free(&p);
			diag_free(&d);
		}
		files++;
	}
	closedir(dp);
	CHECK(files >= 50);
	CHECK(messages >= files);
}

/* A rule that stays quiet after an earlier error decides by code, section and key: an earlier
 * message with the right code silences it whatever its text says, and one with the wrong code
 * does not, whatever its text says. */
static void test_rules_ask_codes_not_text(void)
{
	static const char no_weight[] = "[filesystem0]\n"
	                                "location=/a\n"
	                                "[end0]\n"
	                                "[threadgroup0]\n"
	                                "num_threads=1\n"
	                                "[end0]\n";
	static const struct {
		enum diag_code code;
		const char *section, *key, *text;
		size_t no_weight_errors; /* "no weighted operation" */
		size_t time_warnings;    /* "time: not set" */
	} cases[] = {
	    {DIAG_UNKNOWN_KEY, "threadgroup0", "readall_wieght", "x", 0, 1},
	    {DIAG_UNKNOWN_KEY, "threadgroup0", "zzz", "unknown key 'weight'", 1, 1},
	    {DIAG_UNKNOWN_KEY, "threadgroup1", "read_weight", "x", 1, 1},
	    {DIAG_SYNTAX, "threadgroup0", "read_weight", "unknown key 'weight'", 1, 1},
	    {DIAG_UNKNOWN_KEY, "global", "TIME", "y", 1, 0},
	    {DIAG_MISPLACED_KEY, "filesystem0", "time", "y", 1, 0},
	    {DIAG_OTHER, "global", NULL, "unknown key 'time' ] time: ", 1, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct profile p;
		struct plan pl;
		struct diag d;
		diag_init(&d);
		CHECK_EQ_I(profile_parse_buffer(&p, "t.ffsb", no_weight, strlen(no_weight), &d), 0);
		diag_error(&d, cases[i].code, ((struct src_loc){"t.ffsb", 9}), cases[i].section,
		           cases[i].key, "%s", cases[i].text);
		if (plan_build(&pl, &p, NULL, &d) == 0)
			plan_free(&pl);
		CHECK_EQ_U(count_diag(&d, DIAG_ERROR, 4, "no weighted operation"),
		           cases[i].no_weight_errors);
		CHECK_EQ_U(count_diag(&d, DIAG_WARNING, 0, "time: not set"),
		           cases[i].time_warnings);
		profile_free(&p);
		diag_free(&d);
	}
}

/* ramp_time and fidelity (issue 22): a counted group refuses ramp_time at its line; time=0
 * makes it a warning; fidelity=ffsb6 passes --strict-ffsb, ramp_time does not; FFSB's 32-bit
 * sum of weights bounds fidelity=ffsb6. */
static void test_ramp_and_fidelity(void)
{
	static struct parsed x;
	static const char counted[] = "time=5\n"
	                              "ramp_time=2\n"
	                              "[filesystem0]\nlocation=/a\n[end0]\n"
	                              "[threadgroup0]\nnum_threads=1\nstat_weight=1\n"
	                              "num_ops=10\n[end0]\n";
	parse_and_plan_opts(&x, counted, false);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "cannot be combined with num_ops"), 1);
	parsed_free(&x);

	static const char timed[] = "time=5\n"
	                            "ramp_time=2\n"
	                            "fidelity=ffsb6\n"
	                            "[filesystem0]\nlocation=/a\n[end0]\n"
	                            "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	parse_and_plan_opts(&x, timed, false);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(x.d.errors, 0);
	if (x.plan_rc == 0) {
		CHECK_EQ_U(x.pl.ramp_s, 2);
		CHECK_EQ_I(x.pl.fidelity, FIDELITY_FFSB6);
	}
	parsed_free(&x);
	parse_and_plan_opts(&x, timed, true);
	CHECK_EQ_U(x.d.errors, 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "rejected by --strict-ffsb"), 1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 3, ""), 0);
	parsed_free(&x);

	static const char build_only[] = "ramp_time=2\n"
	                                 "[filesystem0]\nlocation=/a\n[end0]\n";
	parse_and_plan_opts(&x, build_only, false);
	CHECK_EQ_I(x.plan_rc, 0);
	CHECK_EQ_U(count_diag(&x.d, DIAG_WARNING, 1, "has no effect"), 1);
	parsed_free(&x);

	static const char wide[] = "time=1\n"
	                           "fidelity=ffsb6\n"
	                           "[filesystem0]\nlocation=/a\n[end0]\n"
	                           "[threadgroup0]\nnum_threads=1\nstat_weight=1000000000\n"
	                           "open_close_weight=1000000000\nreadall_weight=1000000000\n"
	                           "read_weight=1000000000\nmetaop_weight=1000000000\n"
	                           "read_blocksize=4k\n[end0]\n";
	parse_and_plan_opts(&x, wide, false);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "beyond FFSB 6.0's 32-bit sum"), 1);
	parsed_free(&x);
}

/* content (issue 21): the mode goes to every filesystem; a bad value is an error at its line;
 * an fsmix extension, refused by --strict-ffsb. Unset (auto): header when the run checks content
 * (verify=1, a durability log), else fixed; fixed itself is an error at its line in such a run. */
static void test_content(void)
{
	static struct parsed x;
	static const char two[] = "time=1\n"
	                          "content=compressible:40\n"
	                          "[filesystem0]\nlocation=/a\n[end0]\n"
	                          "[filesystem1]\nlocation=/b\n[end1]\n"
	                          "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	parse_and_plan_opts(&x, two, false);
	CHECK_EQ_I(x.plan_rc, 0);
	if (x.plan_rc == 0) {
		CHECK_EQ_U(x.pl.content_mode, CONTENT_MODE_COMPRESS);
		CHECK_EQ_U(x.pl.fs[0].content_mode, CONTENT_MODE_COMPRESS);
		CHECK_EQ_U(x.pl.fs[1].content_mode, CONTENT_MODE_COMPRESS);
		CHECK_EQ_U(x.pl.fs[1].content_pct, 40);
	}
	parsed_free(&x);
	parse_and_plan_opts(&x, two, true);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "rejected by --strict-ffsb"), 1);
	parsed_free(&x);
	static const char bad[] = "time=1\n"
	                          "content=dedupe:120\n"
	                          "[filesystem0]\nlocation=/a\n[end0]\n"
	                          "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	parse_and_plan_opts(&x, bad, false);
	CHECK_EQ_I(x.plan_rc, -1);
	CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, "percentage 0..100"), 1);
	parsed_free(&x);
	static const char unset[] = "time=1\n"
	                            "[filesystem0]\nlocation=/a\n[end0]\n"
	                            "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	static const char unset_verify[] = "time=1\nverify=1\n"
	                                   "[filesystem0]\nlocation=/a\n[end0]\n"
	                                   "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	static const char fixed[] = "time=1\ncontent=fixed\n"
	                            "[filesystem0]\nlocation=/a\n[end0]\n"
	                            "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	static const char fixed_verify[] = "time=1\ncontent=fixed\nverify=1\n"
	                                   "[filesystem0]\nlocation=/a\n[end0]\n"
	                                   "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	static const char auto_given[] = "time=1\ncontent=auto\n"
	                                 "[filesystem0]\nlocation=/a\n[end0]\n"
	                                 "[threadgroup0]\nnum_threads=1\nstat_weight=1\n[end0]\n";
	const struct plan_opts plain = {0}, logged = {.content_checked = true};
	const struct {
		const char *text;
		const struct plan_opts *po;
		int mode; /* -1: an error naming content at line 2 */
		const char *why;
	} cases[] = {
	    {unset, &plain, CONTENT_MODE_FIXED, NULL},
	    {auto_given, &plain, CONTENT_MODE_FIXED, NULL},
	    {unset_verify, &plain, CONTENT_MODE_HEADER, NULL},
	    {unset, &logged, CONTENT_MODE_HEADER, NULL},
	    {auto_given, &logged, CONTENT_MODE_HEADER, NULL},
	    {fixed, &plain, CONTENT_MODE_FIXED, NULL},
	    {fixed_verify, &plain, -1, "so verify=1 has nothing to check"},
	    {fixed, &logged, -1, "so a durability log has nothing to check"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_and_plan_po(&x, cases[i].text, cases[i].po);
		if (cases[i].mode < 0) {
			CHECK_EQ_I(x.plan_rc, -1);
			CHECK_EQ_U(count_diag(&x.d, DIAG_ERROR, 2, cases[i].why), 1);
		} else {
			CHECK_EQ_I(x.plan_rc, 0);
			if (x.plan_rc == 0)
				CHECK_EQ_U(x.pl.fs[0].content_mode, (unsigned)cases[i].mode);
		}
		parsed_free(&x);
	}
}

int main(void)
{
	RUN(test_content);
	RUN(test_plans_equal_covers_every_field);
	RUN(test_twins_give_identical_plans);
	RUN(test_2010_plan);
	RUN(test_sections_numbered_by_order);
	RUN(test_aging_group);
	RUN(test_clone_and_bindfs);
	RUN(test_duplicate_key);
	RUN(test_deprecated_key);
	RUN(test_aging_group_switched_off);
	RUN(test_missing_end_not_from_agefs);
	RUN(test_end_number_differs);
	RUN(test_ffsb5_names);
	RUN(test_ffsb4_refused);
	RUN(test_no_file_sizes_warning);
	RUN(test_bufferedio_alias);
	RUN(test_default_profile_plans);
	RUN(test_diag_codes);
	RUN(test_every_bad_profile_message_coded);
	RUN(test_rules_ask_codes_not_text);
	RUN(test_ramp_and_fidelity);
	return test_summary();
}
