/* test_dist.c - what a distributed run relies on without MPI: statistics packed to bytes and
 * merged on the other side exactly as a direct merge (statpack.h), malformed bytes refused, the
 * ranks' tree names and their discovery by clean (tree/instance.h), the job summary's derived
 * figures (jobsum.h), and the agreement of a job of one (dist.h). */
#include "dist.h"
#include "instance.h"
#include "jobsum.h"
#include "rng.h"
#include "statpack.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* n random samples into st: latencies of a few ops and syscalls, counters, range counts. */
static void fill(struct thread_stats *st, uint64_t seed, int n)
{
	struct rng r;
	rng_seed(&r, seed, 0);
	for (int i = 0; i < n; i++) {
		uint64_t v = rng_next(&r);
		enum op_id op = (enum op_id)(v % OP_COUNT);
		uint64_t ns = (v >> 8) % (v & 1 ? 1000u : 50000000u); /* up to 1 us or 50 ms */
		st->ops[op]++;
		st->trans[op] += 1 + v % 3;
		st->bytes_read[op] += v % 4096;
		st->bytes_written[op] += (v >> 4) % 8192;
		st->errors[op] += (v % 97) == 0;
		st->busy[op] += (v % 89) == 0;
		st->ffsb_written[op] += (v >> 3) % 1000;
		st->ffsb_read[op] += (v >> 5) % 3000;
		stats_op_record(st, op, ns);
		stats_sys_record(st, (enum sys_id)((v >> 16) % SYS_COUNT), ns / 2);
	}
	st->missed_starts += seed;
	st->late_starts += 2 * seed;
	st->backlog_full += 3 * seed;
}

/* Packing then merging on the other side equals merging directly, byte for byte (msec_range
 * counts and a response series included). */
static void test_pack_merge_exact(void)
{
	struct range_table *ranges;
	const double lohi[] = {0, 0.01, 0.01, 1, 1, 10};
	CHECK_EQ_I(range_table_new(&ranges, lohi, 3), 0);
	static struct thread_stats a, b, direct, via;
	CHECK_EQ_I(thread_stats_init(&a, ranges), 0);
	CHECK_EQ_I(thread_stats_init(&b, ranges), 0);
	CHECK_EQ_I(thread_stats_init(&direct, ranges), 0);
	CHECK_EQ_I(thread_stats_init(&via, ranges), 0);
	CHECK_EQ_I(thread_stats_track_response(&b), 0);
	fill(&a, 1, 5000);
	fill(&b, 2, 3000);
	stats_resp_record(&b, 123456, 2, 1000, 500);
	CHECK_EQ_I(thread_stats_merge(&direct, &a), 0);
	CHECK_EQ_I(thread_stats_merge(&direct, &b), 0);
	struct packbuf buf = {0};
	statpack_put(&buf, &a);
	statpack_put(&buf, &b);
	CHECK(!buf.failed);
	/* sparse: far less than two whole thread_stats */
	CHECK(buf.len < sizeof(struct thread_stats) / 4);
	struct unpack u = {.p = buf.p, .len = buf.len};
	CHECK_EQ_I(statpack_merge(&u, &via), 0);
	CHECK_EQ_I(statpack_merge(&u, &via), 0);
	CHECK_EQ_U(u.at, buf.len);
	CHECK(memcmp(via.ops, direct.ops, sizeof(via.ops)) == 0);
	CHECK(memcmp(via.busy, direct.busy, sizeof(via.busy)) == 0);
	CHECK(memcmp(via.ffsb_written, direct.ffsb_written, sizeof(via.ffsb_written)) == 0);
	CHECK(memcmp(via.ffsb_read, direct.ffsb_read, sizeof(via.ffsb_read)) == 0);
	CHECK(memcmp(via.op_lat, direct.op_lat, sizeof(via.op_lat)) == 0);
	CHECK(memcmp(via.sys_lat, direct.sys_lat, sizeof(via.sys_lat)) == 0);
	CHECK(via.resp_lat && direct.resp_lat &&
	      memcmp(via.resp_lat, direct.resp_lat, sizeof(*via.resp_lat)) == 0);
	CHECK_EQ_U(via.missed_starts, direct.missed_starts);
	CHECK_EQ_U(via.late_starts, direct.late_starts);
	CHECK_EQ_U(via.backlog_full, direct.backlog_full);
	CHECK(memcmp(via.range_counts, direct.range_counts,
	             (size_t)SYS_COUNT * direct.range_cols * sizeof(uint64_t)) == 0);
	CHECK_EQ_U(lat_percentile_ns(&via.op_lat[0], 99), lat_percentile_ns(&direct.op_lat[0], 99));

	/* Truncated anywhere, or with different range columns: refused, dst untouched. */
	static struct thread_stats other, none;
	CHECK_EQ_I(thread_stats_init(&other, ranges), 0);
	CHECK_EQ_I(thread_stats_init(&none, NULL), 0);
	int refused = 0;
	for (size_t cut = 0; cut < buf.len / 2; cut += buf.len / 97 + 1) {
		struct unpack t = {.p = buf.p, .len = cut};
		refused += statpack_merge(&t, &other) == -EBADMSG;
	}
	CHECK_EQ_I(refused, (int)((buf.len / 2 + buf.len / 97) / (buf.len / 97 + 1)));
	CHECK_EQ_U(other.ops[0] + other.op_lat[0].n, 0);
	struct unpack t = {.p = buf.p, .len = buf.len};
	CHECK_EQ_I(statpack_merge(&t, &none), -EBADMSG); /* no range columns there */
	char junk[64] = "not fsmix statistics";
	struct unpack j = {.p = junk, .len = sizeof(junk)};
	CHECK_EQ_I(statpack_merge(&j, &other), -EBADMSG);
	packbuf_free(&buf);
	thread_stats_free(&a);
	thread_stats_free(&b);
	thread_stats_free(&direct);
	thread_stats_free(&via);
	thread_stats_free(&other);
	thread_stats_free(&none);
	range_table_free(ranges);
}

static void test_strings(void)
{
	struct packbuf b = {0};
	pack_str(&b, "node-17.example");
	pack_f64(&b, 2.5);
	struct unpack u = {.p = b.p, .len = b.len};
	char host[8];
	unpack_str(&u, host, sizeof(host)); /* cut to the buffer */
	CHECK_STR(host, "node-17");
	CHECK_NEAR(unpack_f64(&u), 2.5, 0);
	CHECK(!u.bad);
	CHECK_EQ_U(unpack_u64(&u), 0); /* past the end */
	CHECK(u.bad);
	packbuf_free(&b);
}

/* Rank trees are named fsmix.fs<N>.r<R>; clean finds every rank's, and nothing else. */
static void test_instance_names(void)
{
	char name[48];
	CHECK_EQ_I(tree_instance_name(name, sizeof(name), 0, TREE_NO_RANK), 9);
	CHECK_STR(name, "fsmix.fs0");
	CHECK(tree_instance_name(name, sizeof(name), 3, 12) > 0);
	CHECK_STR(name, "fsmix.fs3.r12");
	CHECK_EQ_I(tree_instance_name(name, 10, 3, 12), -ENAMETOOLONG);

	char dir[] = "/tmp/fsmix-test-dist.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	static const char *const entries[] = {
	    "fsmix.fs0",        "fsmix.fs0.r0", "fsmix.fs0.r2",     "fsmix.fs0.r10.del",
	    "fsmix.fs0.r7.new", "fsmix.fs1.r3", "fsmix.fs0.r01",    "fsmix.fs0.rx",
	    "fsmix.fs0.r5.old", "fsmix.fs0.r",  "fsmix.fs0.r2.del", "fsmix.fs0.r99999999999",
	    "notes.fs0.r4"};
	char path[128];
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		CHECK_EQ_I(mkdir(path, 0700), 0);
	}
	int *ranks = NULL;
	int n = tree_instance_find(dir, 0, &ranks);
	CHECK_EQ_I(n, 4); /* 0, 2 (and its .del), 7 (.new), 10 (.del) */
	if (n == 4) {
		CHECK_EQ_I(ranks[0], 0);
		CHECK_EQ_I(ranks[1], 2);
		CHECK_EQ_I(ranks[2], 7);
		CHECK_EQ_I(ranks[3], 10);
	}
	free(ranks);
	n = tree_instance_find(dir, 1, &ranks);
	CHECK_EQ_I(n, 1);
	if (n == 1)
		CHECK_EQ_I(ranks[0], 3);
	free(ranks);
	CHECK_EQ_I(tree_instance_find("/nonexistent/fsmix", 0, &ranks), -ENOENT);
	/* any tree's name, what --crash-after lets a dedicated test filesystem hold */
	static const char *const trees[] = {"fsmix.fs0",         "fsmix.fs12.new",
	                                    "fsmix.fs1.del",     "fsmix.fs0.r0",
	                                    "fsmix.fs3.r12.del", "fsmix.fs4294967295"};
	static const char *const others[] = {
	    "fsmix.fs",  "fsmix.fs01",        "fsmix.fs0.old", "fsmix.fs0.r01",      "fsmix.fs0.r",
	    "fsmix.fsx", "fsmix.fs0.new.del", "notes.fs0",     "fsmix.fs4294967296", "fsmix.fs0."};
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		CHECK(tree_instance_is_name(trees[i]));
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		CHECK(!tree_instance_is_name(others[i]));
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		rmdir(path);
	}
	rmdir(dir);
}

/* The job's figures from its ranks' totals and stonewall snapshots: rank 2 ended first (1 s; its
 * snapshot is its end), ranks 0 and 1 snapshot what they had done when they heard of it; the
 * stonewall rate is the sum of snapshot ops over snapshot time, not of the ranks' whole-run rates
 * (100 + 200 + 300). */
static void test_jobsum(void)
{
	struct jobsum_rank r[3] = {{.rank = 0,
	                            .runtime_s = 2.0,
	                            .ops = 200,
	                            .trans = 100,
	                            .stonewall_s = 1.1,
	                            .stonewall_ops = 110,
	                            .stonewall_trans = 55},
	                           {.rank = 1,
	                            .runtime_s = 4.0,
	                            .ops = 800,
	                            .trans = 400,
	                            .stonewall_s = 1.0,
	                            .stonewall_ops = 250,
	                            .stonewall_trans = 125},
	                           {.rank = 2,
	                            .runtime_s = 1.0,
	                            .ops = 300,
	                            .trans = 150,
	                            .stonewall_s = 1.0,
	                            .stonewall_ops = 300,
	                            .stonewall_trans = 150}};
	struct jobsum j = {.n_ranks = 3, .ranks = r};
	jobsum_finish(&j);
	CHECK_NEAR(j.runtime_s, 4.0, 0);
	CHECK_NEAR(j.stonewall_s, 1.0, 0);
	CHECK_NEAR(r[1].ops_per_s, 200, 1e-9);
	CHECK_NEAR(j.stonewall_ops_per_s, 100 + 250 + 300, 1e-9);
	CHECK_NEAR(j.stonewall_trans_per_s, 50 + 125 + 150, 1e-9);
	CHECK_EQ_U(j.stonewall_ops, 110 + 250 + 300);
	CHECK_EQ_U(j.stonewall_trans, 55 + 125 + 150);
	/* a rank without a snapshot (its run phase never ran) adds nothing */
	r[0].stonewall_s = 0;
	jobsum_finish(&j);
	CHECK_NEAR(j.stonewall_ops_per_s, 250 + 300, 1e-9);
	CHECK_NEAR(j.ops_per_s.min, 100, 1e-9);
	CHECK_NEAR(j.ops_per_s.max, 300, 1e-9);
	CHECK_NEAR(j.ops_per_s.mean, 200, 1e-9);
	CHECK_NEAR(j.ops_per_s.stddev, 81.6496580927726, 1e-9); /* population: sqrt(20000/3) */
	struct jobsum_spread none = jobsum_spread_of(NULL, 0);
	CHECK_NEAR(none.mean + none.max + none.stddev, 0, 0);
}

/* A single process is a job of one: its own failure and message come back. */
static void test_agree_alone(void)
{
	struct dist d;
	dist_single(&d);
	CHECK(!d.on);
	CHECK_EQ_I(d.size, 1);
	char err[MSG_MAX] = "";
	CHECK_EQ_I(dist_agree(&d, FAIL_NONE, "fine", err, sizeof(err)), FAIL_NONE);
	CHECK_EQ_I(dist_agree(&d, FAIL_IO, "disk full", err, sizeof(err)), FAIL_IO);
	CHECK_STR(err, "disk full");
	char *all;
	size_t *lens;
	CHECK_EQ_I(dist_gather(&d, "abc", 3, &all, &lens), 0);
	CHECK(all && lens && lens[0] == 3 && memcmp(all, "abc", 3) == 0);
	free(all);
	free(lens);
	bool ended = true;
	CHECK(!dist_watch_poll(&d, &ended));
	CHECK(!ended);
	dist_watch_end(&d, true); /* nothing to tell */
}

int main(void)
{
	RUN(test_pack_merge_exact);
	RUN(test_strings);
	RUN(test_instance_names);
	RUN(test_jobsum);
	RUN(test_agree_alone);
	return test_summary();
}
