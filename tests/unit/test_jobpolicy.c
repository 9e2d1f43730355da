/* test_jobpolicy.c - the MPI layer's policy for one rank of a job (jobpolicy.h), without MPI: a
 * struct dist says which rank this is, explicitly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobpolicy.h"
#include "test.h"

static struct dist rank_of(int rank, int size)
{
	struct dist d;
	dist_single(&d);
	d.on = true;
	d.rank = rank;
	d.size = size;
	return d;
}

static void test_outputs(void)
{
	char err[256];
	struct dist single;
	dist_single(&single);
	struct jobpolicy_outputs o = {.run = true, .lat_log = "lat", .json = "r.json", .csv = "-"};
	CHECK_EQ_I(jobpolicy_outputs(&single, &o, err, sizeof(err)), FAIL_NONE);
	CHECK_STR(o.lat_log, "lat");
	CHECK_STR(o.json, "r.json");

	struct dist r0 = rank_of(0, 3), r2 = rank_of(2, 3);
	o = (struct jobpolicy_outputs){
	    .run = true, .lat_log = "lat", .json = "r.json", .plot = "p"};
	CHECK_EQ_I(jobpolicy_outputs(&r0, &o, err, sizeof(err)), FAIL_NONE);
	CHECK_STR(o.lat_log, "lat.r0");
	CHECK_STR(o.json, "r.json");
	CHECK_STR(o.plot, "p");
	o = (struct jobpolicy_outputs){.run = true, .lat_log = "lat", .json = "r.json", .csv = "c"};
	CHECK_EQ_I(jobpolicy_outputs(&r2, &o, err, sizeof(err)), FAIL_NONE);
	CHECK_STR(o.lat_log, "lat.r2");
	CHECK(!o.json && !o.csv && !o.plot); /* rank 0 writes the job's documents */

	o = (struct jobpolicy_outputs){.run = true, .lat_log = "-"};
	CHECK_EQ_I(jobpolicy_outputs(&r2, &o, err, sizeof(err)), FAIL_INPUT);
	CHECK_CONTAINS(err, "rank R writes FILE.rR");
	o = (struct jobpolicy_outputs){.interval_s = 1};
	CHECK_EQ_I(jobpolicy_outputs(&r0, &o, err, sizeof(err)), FAIL_INPUT);
	CHECK_CONTAINS(err, "--interval");
	o = (struct jobpolicy_outputs){.crash_after = true};
	CHECK_EQ_I(jobpolicy_outputs(&r0, &o, err, sizeof(err)), FAIL_INPUT);
	CHECK_CONTAINS(err, "--crash-after");
	o = (struct jobpolicy_outputs){.durability = "d.log"};
	CHECK_EQ_I(jobpolicy_outputs(&r0, &o, err, sizeof(err)), FAIL_INPUT);
	CHECK_CONTAINS(err, "--durability-log");
}

/* 65 filesystems: 64 in locations of their own, the 65th in the first's again (one handle), then
 * one more distinct location than the lock table holds (an error, never a location skipped). */
static void test_locks(void)
{
	char base[] = "/tmp/fsmix-test-jobpolicy.XXXXXX", err[512];
	CHECK(mkdtemp(base) != NULL);
	enum { N = TREE_MAX_LOCKS + 1 };
	char loc[N][64];
	struct plan_fs fs[N + 1];
	memset(fs, 0, sizeof(fs));
	for (int i = 0; i < N; i++) {
		snprintf(loc[i], sizeof(loc[i]), "%s/l%d", base, i);
		CHECK_EQ_I(mkdir(loc[i], 0700), 0);
		fs[i].location = loc[i];
	}
	struct plan pl = {0};
	pl.fs = fs;
	pl.n_fs = N;
	fs[N - 1].location = loc[0];
	struct dist r0 = rank_of(0, 2), r1 = rank_of(1, 2);
	struct jobpolicy_locks l = {0};
	CHECK_EQ_I(jobpolicy_lock(&r1, &l, &pl, err, sizeof(err)), FAIL_NONE);
	CHECK_EQ_U(l.n, 0); /* the other ranks take none */
	CHECK_EQ_I(jobpolicy_lock(&r0, &l, &pl, err, sizeof(err)), FAIL_NONE);
	CHECK_EQ_U(l.n, TREE_MAX_LOCKS); /* the 65th filesystem shares l0's handle */
	jobpolicy_unlock(&l);
	CHECK_EQ_U(l.n, 0);

	fs[N - 1].location = loc[N - 1];
	err[0] = '\0';
	CHECK_EQ_I(jobpolicy_lock(&r0, &l, &pl, err, sizeof(err)), FAIL_IO);
	CHECK_CONTAINS(err, "more than 64 locations");
	CHECK_CONTAINS(err, loc[N - 1]);
	CHECK_EQ_U(l.n, TREE_MAX_LOCKS);
	jobpolicy_unlock(&l);
	/* every lock was dropped: a location can be locked again */
	int h = tree_lock_location(loc[0], err, sizeof(err));
	CHECK(h > 0);
	tree_unlock_location(h);
	for (int i = 0; i < N; i++)
		rmdir(loc[i]);
	rmdir(base);
}

int main(void)
{
	RUN(test_outputs);
	RUN(test_locks);
	return test_summary();
}
