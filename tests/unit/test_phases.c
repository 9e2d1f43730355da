/* test_phases.c - the phase keys (phase, phase_time, stonewall; src/profile/phases.c): the
 * phases of the plan built from the groups, and every rule failing at the line of its key. */
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "plan.h"
#include "profile.h"
#include "report_data.h"
#include "results.h"
#include "test.h"

struct built {
	struct profile p;
	struct plan pl;
	struct diag d;
	int rc;
};

/* The profile head (a filesystem; `global` lines first), then the groups' text. */
static void build(struct built *b, const char *global, const char *groups, bool strict)
{
	char text[4096];
	snprintf(text, sizeof(text),
	         "%s[filesystem0]\nlocation=/nonexistent\nnum_files=10\n[end0]\n%s", global,
	         groups);
	diag_init(&b->d);
	memset(&b->pl, 0, sizeof(b->pl));
	b->rc = profile_parse_buffer(&b->p, "t.ffsb", text, strlen(text), &b->d);
	if (!b->rc) {
		struct plan_opts o = {.strict_ffsb = strict};
		b->rc = plan_build(&b->pl, &b->p, &o, &b->d);
	}
}

static void done(struct built *b)
{
	if (!b->rc)
		plan_free(&b->pl);
	profile_free(&b->p);
	diag_free(&b->d);
}

/* The error about key in section sec is at line `line`. */
static void check_error_at(const struct built *b, const char *sec, const char *key, int line)
{
	const struct diag_entry *e = diag_find(&b->d, DIAG_ERROR, DIAG_ANY, sec, key);
	if (!e) {
		TEST_FAIL("no error for [%s] %s", sec, key);
		for (size_t i = 0; i < b->d.n; i++)
			fprintf(stderr, "    %s\n", b->d.v[i].text);
		return;
	}
	CHECK_EQ_I(e->loc.line, line);
	CHECK(b->rc != 0);
}

#define G0 "[threadgroup0]\nnum_threads=2\nphase=0\nnum_ops=5\nstat_weight=1\n[end0]\n"
#define G1 "[threadgroup1]\nnum_threads=3\nphase=1\nnum_ops=5\nstat_weight=1\n[end1]\n"

static void test_phases_of_the_plan(void)
{
	struct built b;
	/* lines 1-4: the filesystem; threadgroup0 5-10, threadgroup1 11-16, threadgroup2 17-23 */
	build(&b, "",
	      G0 G1 "[threadgroup2]\nnum_threads=1\nphase=2\nphase_time=7\nstonewall=0\n"
	            "delete_weight=1\n[end2]\n",
	      false);
	CHECK_EQ_I(b.rc, 0);
	if (b.rc) {
		done(&b);
		return;
	}
	CHECK_EQ_U(b.pl.n_phases, 3);
	CHECK(b.pl.counted); /* a phased run ends by itself, also with time=0 */
	CHECK_EQ_U(b.pl.groups[1].phase, 1);
	CHECK_EQ_U(b.pl.groups[2].phase, 2);
	CHECK_EQ_U(b.pl.phases[0].threads, 2);
	CHECK_EQ_U(b.pl.phases[1].threads, 3);
	CHECK(b.pl.phases[0].counted && b.pl.phases[1].counted && !b.pl.phases[2].counted);
	CHECK_EQ_U(b.pl.phases[0].time_s, 0);
	CHECK_EQ_U(b.pl.phases[2].time_s, 7);
	CHECK(diag_find(&b.d, DIAG_WARNING, DIAG_ANY, NULL, "time") == NULL);
	done(&b);
	/* the global time is each phase's without phase_time; groups may be in any order */
	build(&b, "time=4\n", G1 G0, false);
	CHECK_EQ_I(b.rc, 0);
	CHECK_EQ_U(b.pl.n_phases, 2);
	CHECK_EQ_U(b.pl.phases[0].time_s, 4);
	CHECK_EQ_U(b.pl.phases[1].threads, 3);
	done(&b);
}

static void test_no_phases_is_as_before(void)
{
	struct built b;
	build(&b, "time=3\n", "[threadgroup0]\nnum_threads=2\nstat_weight=1\n[end0]\n", false);
	CHECK_EQ_I(b.rc, 0);
	CHECK_EQ_U(b.pl.n_phases, 0);
	CHECK(!b.pl.counted);
	done(&b);
	/* stonewall without phases: the run ends when the first thread is done */
	build(&b, "",
	      "[threadgroup0]\nnum_threads=2\nnum_ops=3\nstonewall=1\nstat_weight=1\n[end0]\n",
	      false);
	CHECK_EQ_I(b.rc, 0);
	CHECK_EQ_U(b.pl.n_phases, 0);
	CHECK(b.pl.groups[0].stonewall);
	done(&b);
}

static void test_bad_phases(void)
{
	struct built b;
	/* a gap: phase 1 has no group (said at the first group of a later phase, its phase line) */
	build(&b, "",
	      G0 "[threadgroup1]\nnum_threads=1\nnum_ops=2\nphase=2\nstat_weight=1\n[end1]\n",
	      false);
	check_error_at(&b, "threadgroup1", "phase", 14);
	done(&b);
	/* negative, too large, not a number */
	build(&b, "", "[threadgroup0]\nnum_threads=1\nnum_ops=1\nphase=-1\nstat_weight=1\n[end0]\n",
	      false);
	check_error_at(&b, "threadgroup0", "phase", 8);
	done(&b);
	build(&b, "", "[threadgroup0]\nnum_threads=1\nnum_ops=1\nphase=64\nstat_weight=1\n[end0]\n",
	      false);
	check_error_at(&b, "threadgroup0", "phase", 8);
	done(&b);
	/* a phase that would never end: no num_ops, no phase_time, no time */
	build(&b, "", G0 "[threadgroup1]\nnum_threads=1\nphase=1\nstat_weight=1\n[end1]\n", false);
	check_error_at(&b, "threadgroup1", "phase", 13);
	done(&b);
	/* stonewall without num_ops */
	build(&b, "time=2\n", "[threadgroup0]\nnum_threads=1\nstonewall=1\nstat_weight=1\n[end0]\n",
	      false);
	check_error_at(&b, "threadgroup0", "stonewall", 8);
	done(&b);
	/* phase_time without phases */
	build(&b, "", "[threadgroup0]\nnum_threads=1\nphase_time=3\nstat_weight=1\n[end0]\n",
	      false);
	check_error_at(&b, "threadgroup0", "phase_time", 7);
	done(&b);
	/* two phase_time values in one phase: at the second */
	build(&b, "",
	      "[threadgroup0]\nnum_threads=1\nphase=0\nphase_time=3\nstat_weight=1\n[end0]\n"
	      "[threadgroup1]\nnum_threads=1\nphase=0\nphase_time=4\nstat_weight=1\n[end1]\n",
	      false);
	check_error_at(&b, "threadgroup1", "phase_time", 14);
	done(&b);
	/* ramp_time cannot cut a phase */
	build(&b, "time=5\nramp_time=1\n",
	      "[threadgroup0]\nnum_threads=1\nphase=0\nstat_weight=1\n[end0]\n", false);
	check_error_at(&b, "global", "ramp_time", 2);
	done(&b);
}

static void test_strict_ffsb_refuses(void)
{
	struct built b;
	build(&b, "time=1\n", "[threadgroup0]\nnum_threads=1\nphase=0\nstat_weight=1\n[end0]\n",
	      true);
	check_error_at(&b, "threadgroup0", "phase", 8);
	done(&b);
	build(&b, "",
	      "[threadgroup0]\nnum_threads=1\nnum_ops=1\nstonewall=1\nstat_weight=1\n[end0]\n",
	      true);
	check_error_at(&b, "threadgroup0", "stonewall", 8);
	done(&b);
}

/* The results of a run in phases: a phase's sums are its groups', a group's rates are over its
 * phase's runtime, and the JSON has "phases" (and a group's "phase") only with phases. */
static void test_results_per_phase(void)
{
	struct built b;
	build(&b, "", G0 G1, false);
	CHECK_EQ_I(b.rc, 0);
	if (b.rc) {
		done(&b);
		return;
	}
	static struct results r;
	CHECK_EQ_I(results_init(&r, &b.pl), 0);
	CHECK_EQ_U(r.n_phases, 2);
	CHECK_EQ_U(r.phases[1].counted_ops, 15); /* 3 threads x num_ops 5 */
	r.measured = true;
	r.runtime_s = 3;
	r.phases[0].runtime_s = 1;
	r.phases[1].runtime_s = 2;
	r.phases[1].stop = STOP_STONEWALL;
	r.groups[0].st.ops[OP_stat] = 10;
	r.groups[1].st.ops[OP_stat] = 7;
	CHECK_EQ_I(results_total_of_groups(&r), 0);
	struct results_sums s;
	uint64_t by_op[OP_COUNT];
	results_phase_sums(&r, 1, &s, by_op);
	CHECK_EQ_U(s.ops, 7);
	CHECK_EQ_U(by_op[OP_stat], 7);
	CHECK_NEAR(results_group_runtime(&r, 0), 1, 0);
	CHECK_NEAR(results_group_runtime(&r, 1), 2, 0);
	struct report_run run = {0};
	json_t *root = report_json_build(&r, &run);
	json_t *ph = json_object_get(root, "phases");
	CHECK_EQ_U(json_array_size(ph), 2);
	json_t *p1 = json_array_get(ph, 1);
	CHECK_EQ_I(json_integer_value(json_object_get(p1, "operations")), 7);
	CHECK_NEAR(json_number_value(json_object_get(p1, "ops_per_s")), 3.5, 1e-9);
	CHECK_STR(json_string_value(json_object_get(p1, "stop_reason")), "stonewall");
	CHECK(json_is_true(json_object_get(p1, "stonewall")));
	CHECK_EQ_I(json_integer_value(json_object_get(p1, "counted_ops")), 15);
	json_t *g1 = json_array_get(json_object_get(root, "groups"), 1);
	CHECK_EQ_I(json_integer_value(json_object_get(g1, "phase")), 1);
	CHECK_NEAR(json_number_value(json_object_get(g1, "ops_per_s")), 3.5, 1e-9);
	CHECK_NEAR(json_number_value(json_object_get(json_object_get(root, "total"), "ops_per_s")),
	           17.0 / 3, 1e-9);
	json_decref(root);
	results_free(&r);
	done(&b);
	/* without phases: no "phases", no group "phase" */
	build(&b, "time=3\n", "[threadgroup0]\nnum_threads=2\nstat_weight=1\n[end0]\n", false);
	CHECK_EQ_I(results_init(&r, &b.pl), 0);
	r.measured = true;
	root = report_json_build(&r, &run);
	CHECK(json_object_get(root, "phases") == NULL);
	CHECK(json_object_get(json_array_get(json_object_get(root, "groups"), 0), "phase") == NULL);
	json_decref(root);
	results_free(&r);
	done(&b);
}

int main(void)
{
	RUN(test_phases_of_the_plan);
	RUN(test_no_phases_is_as_before);
	RUN(test_bad_phases);
	RUN(test_strict_ffsb_refuses);
	RUN(test_results_per_phase);
	return test_summary();
}
