/* test_stats_lazy.c - a worker's statistics in zero pages (thread_stats_init_zeroed): the same
 * figures, bucket by bucket, as statistics made by thread_stats_init, through recording, ramp
 * resets and merges; and no page written where no sample landed. */
#include "rng.h"
#include "stats.h"
#include "test.h"

#include <sys/mman.h>

/* the same figures: every counter, series (byte for byte) and range count */
static int stats_equal(const struct thread_stats *a, const struct thread_stats *b)
{
	if (memcmp(a->ops, b->ops, sizeof(a->ops)) ||
	    memcmp(a->op_lat, b->op_lat, sizeof(a->op_lat)) ||
	    memcmp(a->sys_lat, b->sys_lat, sizeof(a->sys_lat)) || a->range_cols != b->range_cols)
		return 0;
	if (!a->range_counts || !b->range_counts)
		return a->range_counts == b->range_counts;
	return memcmp(a->range_counts, b->range_counts,
	              (size_t)SYS_COUNT * a->range_cols * sizeof(uint64_t)) == 0;
}

static struct thread_stats *zeroed_new(const struct range_table *t)
{
	struct thread_stats *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
	                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st == MAP_FAILED || thread_stats_init_zeroed(st, t)) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return st;
}

static void zeroed_delete(struct thread_stats *st)
{
	thread_stats_free(st);
	munmap(st, sizeof(*st));
}

static struct thread_stats *dense_new(const struct range_table *t)
{
	struct thread_stats *st = malloc(sizeof(*st));
	if (!st || thread_stats_init(st, t)) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return st;
}

static void dense_delete(struct thread_stats *st)
{
	thread_stats_free(st);
	free(st);
}

/* n samples of a few series (as a stat-and-read worker would), the same into a and b */
static void record_both(struct thread_stats *a, struct thread_stats *b, uint64_t seed, int n)
{
	struct rng r;
	rng_seed(&r, seed, 1);
	for (int i = 0; i < n; i++) {
		uint64_t ns = 1 + rng_below(&r, (uint64_t)1 << (8 + rng_below(&r, 24)));
		enum sys_id s = rng_below(&r, 2) ? SYS_stat : SYS_read;
		enum op_id op = s == SYS_stat ? OP_stat : OP_read;
		stats_sys_record(a, s, ns);
		stats_sys_record(b, s, ns);
		stats_op_record(a, op, ns + 7);
		stats_op_record(b, op, ns + 7);
		a->ops[op]++;
		b->ops[op]++;
	}
}

/* Recorded into zero pages or into lat_init's form: the same merge, the same normalised copy. */
static void test_zeroed_same_figures(void)
{
	const double ms[] = {0, 0.01, 0.01, 1, 1, 1000};
	struct range_table *t;
	CHECK_EQ_I(range_table_new(&t, ms, 3), 0);
	struct thread_stats *z = zeroed_new(t), *d = dense_new(t);
	record_both(z, d, 42, 5000);
	/* merged into a total that already holds samples, and into an empty one */
	struct thread_stats *tz = dense_new(t), *td = dense_new(t);
	record_both(tz, td, 7, 300);
	CHECK_EQ_I(thread_stats_merge(tz, z), 0);
	CHECK_EQ_I(thread_stats_merge(td, d), 0);
	CHECK(stats_equal(tz, td));
	struct thread_stats *ez = dense_new(t), *ed = dense_new(t);
	CHECK_EQ_I(thread_stats_merge(ez, z), 0);
	CHECK_EQ_I(thread_stats_merge(ed, d), 0);
	CHECK(stats_equal(ez, ed));
	CHECK_EQ_U(ez->sys_lat[SYS_write].min_ns, UINT64_MAX); /* an empty series stays empty */
	/* an empty zeroed series merged into an empty dense one keeps lat_init's form */
	CHECK_EQ_U(ez->op_lat[OP_create].min_ns, UINT64_MAX);
	/* the one-thread group's move: a normalised copy is the dense one */
	thread_stats_normalize(z);
	CHECK(stats_equal(z, d));
	zeroed_delete(z);
	dense_delete(d);
	dense_delete(tz);
	dense_delete(td);
	dense_delete(ez);
	dense_delete(ed);
	range_table_free(t);
}

/* ramp_time's reset of a zeroed worker: what follows counts exactly as in a fresh one. */
static void test_zeroed_reset(void)
{
	struct thread_stats *z = zeroed_new(NULL), *d = dense_new(NULL), *fresh = dense_new(NULL);
	struct thread_stats *scratch = dense_new(NULL);
	record_both(z, scratch, 3, 2000);
	thread_stats_reset(z);
	CHECK_EQ_U(z->sys_lat[SYS_stat].n, 0);
	CHECK_EQ_U(lat_min_ns(&z->sys_lat[SYS_stat]), 0);
	record_both(z, d, 9, 1000);
	CHECK_EQ_I(thread_stats_merge(fresh, z), 0);
	struct thread_stats *want = dense_new(NULL);
	CHECK_EQ_I(thread_stats_merge(want, d), 0);
	CHECK(stats_equal(fresh, want));
	/* a single sample after the reset is its own min and max */
	thread_stats_reset(z);
	stats_sys_record(z, SYS_stat, 123456);
	CHECK_EQ_U(z->sys_lat[SYS_stat].min_ns, 123456);
	CHECK_EQ_U(z->sys_lat[SYS_stat].max_ns, 123456);
	CHECK_EQ_U(lat_percentile_ns(&z->sys_lat[SYS_stat], 50), 123456);
	zeroed_delete(z);
	dense_delete(d);
	dense_delete(fresh);
	dense_delete(scratch);
	dense_delete(want);
}

/* RssAnon of this process in KiB (/proc/self/status), -1 when unknown. */
static long rss_anon_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* A worker that times two series writes a few pages of its 724 KiB, not all of them (every
 * series in lat_init's form would write 37 pages of headers and, with memset, all 182). The
 * bound is loose: the kernel's RSS counters may lag by a few dozen pages. */
/* A sanitizer's shadow memory counts as anonymous memory too (TSan's grew RssAnon by 380 KiB
 * here), so the page count is checked only in builds without one. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED_BUILD 1
#endif
#endif

static void test_zeroed_pages(void)
{
#ifdef SANITIZED_BUILD
	printf("a sanitizer build: page count not checked\n");
	return;
#endif
	long before = rss_anon_kib();
	if (before < 0) {
		printf("no RssAnon in /proc/self/status: page count not checked\n");
		return;
	}
	struct thread_stats *z = zeroed_new(NULL);
	for (uint64_t i = 1; i <= 100000; i++) {
		stats_sys_record(z, SYS_stat, 1000 + i % 3000);
		stats_op_record(z, OP_stat, 1500 + i % 3000);
	}
	thread_stats_reset(z);
	stats_sys_record(z, SYS_stat, 2000);
	long after = rss_anon_kib();
	printf("RssAnon: %ld KiB before, %ld KiB after (%zu KiB of statistics)\n", before, after,
	       sizeof(*z) / 1024);
	/* (the struct is 1254 KiB: a bound well under it that the written pages, the two series
	 * and the arena, fit; the reset reads a page of every series, 4 KiB each of 64) */
	CHECK(after - before < 320);
	zeroed_delete(z);
}

int main(void)
{
	RUN(test_zeroed_same_figures);
	RUN(test_zeroed_reset);
	RUN(test_zeroed_pages);
	return test_summary();
}
