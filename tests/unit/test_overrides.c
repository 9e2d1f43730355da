/* test_overrides.c - command-line overrides on a parsed profile: --time, --location, --threads,
 * --set (every kind of section, [stats] keys, list keys), their error messages (which name the
 * option), and bindfs still finding a filesystem whose location --location replaced. */
#include <stdarg.h>
#include <stdbool.h>

#include "diag.h"
#include "overrides.h"
#include "plan.h"
#include "profile.h"
#include "test.h"

static const char base[] = "time=100\n"
                           "[filesystem0]\n"
                           "\tlocation=/a\n"
                           "\tnum_files=10\n"
                           "\tsize_weight 4k 1\n"
                           "\tsize_weight 8k 1\n"
                           "[end0]\n"
                           "[filesystem1]\n"
                           "\tlocation=/b\n"
                           "[end1]\n"
                           "[threadgroup0]\n"
                           "\tnum_threads=2\n"
                           "\tbindfs=/b\n"
                           "\tstat_weight=1\n"
                           "\t[stats]\n"
                           "\t\tenable_stats=1\n"
                           "\t\tenable_range=1\n"
                           "\t\tmsec_range 0 1\n"
                           "\t[end]\n"
                           "[end0]\n"
                           "[threadgroup1]\n"
                           "\tnum_threads=4\n"
                           "\tstat_weight=1\n"
                           "[end1]\n"; /* 23 */

#define MAX_OVR 8

struct fixture {
	struct profile p;
	struct diag d;
	struct override ov[MAX_OVR];
	size_t n_ov;
	struct plan pl;
	int apply_rc, plan_rc;
};

/* Parses `base`, applies the overrides (kind, arg pairs, ended by -1) and builds the plan. */
static struct fixture *run(int first_kind, ...)
{
	struct fixture *x = calloc(1, sizeof(*x));
	va_list ap;
	if (!x)
		exit(1);
	diag_init(&x->d);
	if (profile_parse_buffer(&x->p, "t.ffsb", base, strlen(base), &x->d))
		TEST_FAIL("the base profile does not parse");
	va_start(ap, first_kind);
	for (int kind = first_kind; kind >= 0 && x->n_ov < MAX_OVR; kind = va_arg(ap, int)) {
		const char *arg = va_arg(ap, const char *);
		override_init(&x->ov[x->n_ov++], (enum override_kind)kind, arg);
	}
	va_end(ap);
	x->apply_rc = overrides_apply(&x->p, x->ov, x->n_ov, &x->d);
	x->plan_rc = plan_build(&x->pl, &x->p, NULL, &x->d);
	return x;
}

static void done(struct fixture *x)
{
	if (x->plan_rc == 0)
		plan_free(&x->pl);
	profile_free(&x->p);
	diag_free(&x->d);
	free(x);
}

/* The run succeeded without any diagnostic. */
static bool clean(const struct fixture *x)
{
	char buf[2048];
	if (x->apply_rc == 0 && x->plan_rc == 0 && x->d.n == 0) {
		test_passed_checks++;
		return true;
	}
	TEST_FAIL("apply rc %d, plan rc %d, %zu diagnostics:", x->apply_rc, x->plan_rc, x->d.n);
	for (size_t i = 0; i < x->d.n; i++) {
		diag_format(&x->d.v[i], buf, sizeof(buf));
		fprintf(stderr, "    %s\n", buf);
	}
	return false;
}

/* Exactly one diagnostic, an error, printed exactly as `want`; the overrides failed. */
static void check_one_error(const struct fixture *x, const char *want)
{
	char buf[2048] = "";
	CHECK_EQ_I(x->apply_rc, -1);
	CHECK_EQ_U(x->d.errors, 1);
	CHECK_EQ_U(x->d.warnings, 0);
	for (size_t i = 0; i < x->d.n; i++) {
		if (x->d.v[i].level != DIAG_ERROR)
			continue;
		diag_format(&x->d.v[i], buf, sizeof(buf));
		break;
	}
	CHECK_STR(buf, want);
}

#define END -1

static void test_time(void)
{
	struct fixture *x = run(OVR_TIME, "30", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.time_s, 30);
		/* The setting remembers the option as its source. */
		const struct setting *st = setting_get(&x->p.global, KEY_time);
		CHECK_STR(st->loc.file, "--time 30");
		CHECK_EQ_U(st->loc.line, 0);
	}
	done(x);

	x = run(OVR_TIME, "0", OVR_TIME, "7", END);
	if (clean(x))
		CHECK_EQ_U(x->pl.time_s, 7); /* later options win, silently */
	done(x);

	x = run(OVR_TIME, "abc", END);
	check_one_error(x, "--time abc: error: [global] time: 'abc' is not a whole number");
	done(x);
}

static void test_location(void)
{
	/* No section: every filesystem. */
	struct fixture *x = run(OVR_LOCATION, "/x", END);
	if (clean(x)) {
		CHECK_STR(x->pl.fs[0].location, "/x");
		CHECK_STR(x->pl.fs[1].location, "/x");
		CHECK_STR(x->p.fs[1]->set[KEY_location].loc.file, "--location /x");
	}
	done(x);

	static const char *const one[] = {"1=/y", "filesystem1=/y"};
	for (size_t i = 0; i < 2; i++) {
		x = run(OVR_LOCATION, one[i], END);
		if (clean(x)) {
			CHECK_STR(x->pl.fs[0].location, "/a");
			CHECK_STR(x->pl.fs[1].location, "/y");
		}
		done(x);
	}

	/* A directory with '=' in it is a directory, not SECTION=DIR. */
	x = run(OVR_LOCATION, "/data/a=b", END);
	if (clean(x)) {
		CHECK_STR(x->pl.fs[0].location, "/data/a=b");
		CHECK_STR(x->pl.fs[1].location, "/data/a=b");
	}
	done(x);
	x = run(OVR_LOCATION, "0=/data/a=b", END);
	if (clean(x)) {
		CHECK_STR(x->pl.fs[0].location, "/data/a=b");
		CHECK_STR(x->pl.fs[1].location, "/b");
	}
	done(x);
	x = run(OVR_LOCATION, "filesystem0x=/d", END); /* not a section name: a directory */
	if (clean(x))
		CHECK_STR(x->pl.fs[0].location, "filesystem0x=/d");
	done(x);

	x = run(OVR_LOCATION, "5=/x", END);
	check_one_error(x, "--location 5=/x: error: no filesystem '5' (the profile has "
	                   "[filesystem0] to [filesystem1])");
	done(x);
	x = run(OVR_LOCATION, "threadgroup0=/x", END);
	check_one_error(x, "--location threadgroup0=/x: error: no filesystem 'threadgroup0' (the "
	                   "profile has [filesystem0] to [filesystem1])");
	done(x);
}

static void test_bindfs_after_location(void)
{
	/* threadgroup0 has bindfs=/b: it still means filesystem1 after --location moved it. */
	static const char *const moves[] = {"/x", "1=/y", "filesystem1=/z"};
	for (size_t i = 0; i < 3; i++) {
		struct fixture *x = run(OVR_LOCATION, moves[i], END);
		if (clean(x)) {
			CHECK_EQ_I(x->pl.groups[0].bindfs, 1);
			CHECK_EQ_I(x->pl.groups[1].bindfs, -1);
		}
		done(x);
	}
	/* Moved twice: still the file's name. */
	struct fixture *x = run(OVR_LOCATION, "1=/p", OVR_LOCATION, "1=/q", END);
	if (clean(x)) {
		CHECK_STR(x->pl.fs[1].location, "/q");
		CHECK_EQ_I(x->pl.groups[0].bindfs, 1);
	}
	done(x);
	/* And bindfs given on the command line may use the new location. */
	x = run(OVR_LOCATION, "1=/y", OVR_SET, "threadgroup1.bindfs=/y", END);
	if (clean(x)) {
		CHECK_EQ_I(x->pl.groups[0].bindfs, 1);
		CHECK_EQ_I(x->pl.groups[1].bindfs, 1);
	}
	done(x);
}

static void test_threads(void)
{
	struct fixture *x = run(OVR_THREADS, "8", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.groups[0].num_threads, 8);
		CHECK_EQ_U(x->pl.groups[1].num_threads, 8);
		CHECK_EQ_U(x->pl.total_threads, 16);
	}
	done(x);

	static const char *const one[] = {"threadgroup1=8", "1=8"};
	for (size_t i = 0; i < 2; i++) {
		x = run(OVR_THREADS, one[i], END);
		if (clean(x)) {
			CHECK_EQ_U(x->pl.groups[0].num_threads, 2);
			CHECK_EQ_U(x->pl.groups[1].num_threads, 8);
			CHECK_EQ_U(x->pl.total_threads, 10);
		}
		done(x);
	}

	x = run(OVR_THREADS, "0", END);
	CHECK_EQ_I(x->apply_rc, -1);
	CHECK_EQ_U(x->d.errors, 2); /* one per group */
	if (x->d.n) {
		char buf[512];
		diag_format(&x->d.v[0], buf, sizeof(buf));
		CHECK_STR(
		    buf,
		    "--threads 0: error: [threadgroup0] num_threads: 0 is out of range (1..65536)");
	}
	done(x);
	x = run(OVR_THREADS, "threadgroup2=1", END);
	check_one_error(x, "--threads threadgroup2=1: error: no thread group 'threadgroup2' (the "
	                   "profile has [threadgroup0] to [threadgroup1])");
	done(x);
}

static void test_set_sections(void)
{
	struct fixture *x =
	    run(OVR_SET, "time=5", OVR_SET, "global.directio=1", OVR_SET, "filesystem0.num_files=7",
	        OVR_SET, "filesystem1.num_dirs=3", OVR_SET, "threadgroup1.num_threads=3", OVR_SET,
	        "threadgroup0.read_random=1", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.time_s, 5);
		CHECK(x->pl.directio);
		CHECK_EQ_U(x->pl.fs[0].num_files, 7);
		CHECK_EQ_U(x->pl.fs[1].num_files, 0);
		CHECK_EQ_U(x->pl.fs[1].num_dirs, 3);
		CHECK_EQ_U(x->pl.groups[0].num_threads, 2);
		CHECK_EQ_U(x->pl.groups[1].num_threads, 3);
		CHECK(x->pl.groups[0].read_random);
		CHECK(!x->pl.groups[1].read_random);
	}
	CHECK_STR(x->p.fs[0]->set[KEY_num_files].loc.file, "--set filesystem0.num_files=7");
	done(x);

	/* A value may contain '=' and '.'. */
	x = run(OVR_SET, "filesystem1.location=/m/a.b=c", END);
	if (clean(x))
		CHECK_STR(x->pl.fs[1].location, "/m/a.b=c");
	done(x);
}

static void test_set_stats(void)
{
	/* [stats] addressed as threadgroupN.stats, and [stats] keys addressed to threadgroupN
	 * (which creates the [stats] threadgroup1 does not have). */
	struct fixture *x =
	    run(OVR_SET, "threadgroup0.stats.ignore=write", OVR_SET, "threadgroup1.enable_stats=1",
	        OVR_SET, "threadgroup1.ignore=read", END);
	if (clean(x)) {
		CHECK(x->pl.groups[0].enable_stats);
		CHECK(x->pl.groups[0].enable_range);
		CHECK_EQ_U(x->pl.groups[0].n_ranges, 1);
		CHECK_EQ_U(x->pl.groups[0].ignore_mask, 1u << SYS_write);
		CHECK(x->pl.groups[1].enable_stats);
		CHECK(!x->pl.groups[1].enable_range);
		CHECK_EQ_U(x->pl.groups[1].ignore_mask, 1u << SYS_read);
	}
	CHECK(x->p.tg[1]->stats != NULL);
	if (x->p.tg[1]->stats)
		CHECK(x->p.tg[1]->stats->set[KEY_enable_stats].set);
	CHECK(!x->p.tg[1]->set[KEY_enable_stats].set);
	done(x);
}

static void test_set_lists(void)
{
	/* The first --set of a list key replaces the file's items; later ones append. */
	struct fixture *x = run(OVR_SET, "filesystem0.size_weight=16k 5", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.fs[0].n_sizes, 1);
		if (x->pl.fs[0].n_sizes == 1) {
			CHECK_EQ_U(x->pl.fs[0].sizes[0].size, 16384);
			CHECK_EQ_U(x->pl.fs[0].sizes[0].weight, 5);
		}
		CHECK_EQ_U(x->pl.fs[0].size_weight_total, 5);
	}
	done(x);

	x = run(OVR_SET, "filesystem0.size_weight=16k 5", OVR_SET, "filesystem0.size_weight=32k 2",
	        OVR_SET, "filesystem1.size_weight=1m 1", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.fs[0].n_sizes, 2);
		if (x->pl.fs[0].n_sizes == 2) {
			CHECK_EQ_U(x->pl.fs[0].sizes[0].size, 16384);
			CHECK_EQ_U(x->pl.fs[0].sizes[1].size, 32768);
			CHECK_EQ_U(x->pl.fs[0].sizes[1].weight, 2);
		}
		CHECK_EQ_U(x->pl.fs[1].n_sizes, 1);
	}
	done(x);

	/* msec_range through threadgroupN: replaces the file's "0 1", then appends. */
	x = run(OVR_SET, "threadgroup0.msec_range=1 2", OVR_SET,
	        "threadgroup0.stats.msec_range=2 5", END);
	if (clean(x)) {
		CHECK_EQ_U(x->pl.groups[0].n_ranges, 2);
		if (x->pl.groups[0].n_ranges == 2) {
			CHECK_NEAR(x->pl.groups[0].ranges[0].lo_ms, 1, 0);
			CHECK_NEAR(x->pl.groups[0].ranges[1].hi_ms, 5, 0);
		}
	}
	done(x);
}

static void test_set_errors(void)
{
	struct fixture *x = run(OVR_SET, "nosuch.time=1", END);
	check_one_error(x, "--set nosuch.time=1: error: no section 'nosuch' (use global, "
	                   "filesystemN, threadgroupN, filesystemN.threadgroup or "
	                   "threadgroupN.stats; the profile has [filesystem0] to [filesystem1]; "
	                   "the profile has [threadgroup0] to [threadgroup1])");
	done(x);

	x = run(OVR_SET, "threadgroup0.num_thread=1", END);
	check_one_error(x, "--set threadgroup0.num_thread=1: error: [threadgroup0] unknown key "
	                   "'num_thread'; did you mean 'num_threads'?");
	done(x);

	x = run(OVR_SET, "time=abc", END);
	check_one_error(x, "--set time=abc: error: [global] time: 'abc' is not a whole number");
	done(x);

	x = run(OVR_SET, "filesystem0.num_files=-1", END);
	check_one_error(x, "--set filesystem0.num_files=-1: error: [filesystem0] num_files: -1 is "
	                   "negative (the range is 0..67108864)");
	done(x);

	x = run(OVR_SET, "filesystem0.size_weight=4k", END);
	CHECK_EQ_I(x->apply_rc, -1);
	CHECK_EQ_U(x->d.errors, 1);
	if (x->d.n) {
		char buf[512];
		diag_format(&x->d.v[0], buf, sizeof(buf));
		CHECK_CONTAINS(buf, "--set filesystem0.size_weight=4k: error: [filesystem0] "
		                    "size_weight: ");
		CHECK_CONTAINS(buf, "size_weight 4KB 33");
	}
	done(x);

	x = run(OVR_SET, "time", END);
	check_one_error(x, "--set time: error: expected SECTION.KEY=VALUE, e.g. --set "
	                   "filesystem0.num_files=2000 or --set time=10");
	done(x);

	/* A key in the wrong kind of section. */
	x = run(OVR_SET, "filesystem0.num_threads=1", END);
	CHECK_EQ_I(x->apply_rc, -1);
	CHECK_EQ_U(x->d.errors, 1);
	if (x->d.n) {
		char buf[512];
		diag_format(&x->d.v[0], buf, sizeof(buf));
		CHECK_CONTAINS(buf, "--set filesystem0.num_threads=1: error: [filesystem0] "
		                    "num_threads: belongs in");
	}
	done(x);

	/* A bare number is no section for --set. */
	x = run(OVR_SET, "0.num_files=1", END);
	CHECK_EQ_I(x->apply_rc, -1);
	CHECK_EQ_U(x->d.errors, 1);
	done(x);
}

/* The code of each kind of override error (diag.h), and of a --set word that is not one of
 * the key's words (found by the plan, like the same line in the file). */
static void test_override_codes(void)
{
	static const struct {
		enum override_kind kind;
		const char *arg;
		enum diag_code code;
		const char *key;
	} cases[] = {
	    {OVR_SET, "nosuch.time=1", DIAG_OPTION, NULL},
	    {OVR_SET, "time", DIAG_OPTION, NULL},
	    {OVR_THREADS, "7=2", DIAG_OPTION, NULL},
	    {OVR_LOCATION, "filesystem9=/x", DIAG_OPTION, NULL},
	    {OVR_SET, "threadgroup0.num_thread=1", DIAG_UNKNOWN_KEY, "num_thread"},
	    {OVR_SET, "filesystem0.num_threads=1", DIAG_MISPLACED_KEY, "num_threads"},
	    {OVR_TIME, "abc", DIAG_BAD_VALUE, "time"},
	    {OVR_SET, "threadgroup0.open_sync=always", DIAG_BAD_VALUE, "open_sync"},
	    {OVR_SET, "filesystem1.create_method=Write", DIAG_BAD_VALUE, "create_method"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *x = run(cases[i].kind, cases[i].arg, END);
		CHECK_EQ_U(x->d.errors, 1);
		for (size_t j = 0; j < x->d.n; j++) {
			const struct diag_entry *e = &x->d.v[j];
			if (e->level != DIAG_ERROR)
				continue;
			CHECK_EQ_I(e->code, cases[i].code);
			CHECK_STR(e->key ? e->key : "(none)",
			          cases[i].key ? cases[i].key : "(none)");
			CHECK_STR(e->loc.file, x->ov[0].label);
		}
		done(x);
	}
}

int main(void)
{
	RUN(test_time);
	RUN(test_location);
	RUN(test_bindfs_after_location);
	RUN(test_threads);
	RUN(test_set_sections);
	RUN(test_set_stats);
	RUN(test_set_lists);
	RUN(test_set_errors);
	RUN(test_override_codes);
	return test_summary();
}
