/* test_report_data.c - the JSON and CSV reports of hand-made results: values, nulls with
 * reasons, msec_range counts, quoting, atomic writing and errors. */
#include "results_fixture.h"
#include "report_data.h"
#include "report_job.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- small JSON helpers ---- */

static json_t *by_name(json_t *arr, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		const char *n = json_string_value(json_object_get(v, "name"));
		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

static json_int_t geti(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v)) {
		TEST_FAIL("%s is not an integer", k);
		return -1;
	}
	return json_integer_value(v);
}

static double getr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_number(v)) {
		TEST_FAIL("%s is not a number", k);
		return -1;
	}
	return json_number_value(v);
}

static const char *gets(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* the exact order statistic of rank ceil(p/100 * n) of the sorted samples */
static uint64_t exact_pct(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)hist_rank(n, p);
	return v[rank - 1];
}

static void test_json_values(void)
{
	static struct fake f;
	fake_setup(&f);
	json_t *root = report_json_build(&f.r, &f.run);
	CHECK(root != NULL);
	if (!root)
		return;
	/* it serialises and parses back to the same document */
	char *text = json_dumps(root, JSON_INDENT(2));
	json_error_t jerr;
	json_t *back = text ? json_loads(text, 0, &jerr) : NULL;
	CHECK(back != NULL);
	CHECK(json_equal(root, back));
	free(text);
	json_decref(root);
	root = back;
	if (!root)
		return;

	CHECK_STR(gets(root, "schema"), "fsmix-report");
	CHECK_EQ_I(geti(root, "schema_version"), REPORT_JSON_SCHEMA_VERSION);
	CHECK_STR(gets(root, "fsmix_version"), FSMIX_VERSION);
	CHECK_EQ_I(geti(root, "exit_status"), 130);
	CHECK(json_is_true(json_object_get(root, "interrupted")));
	CHECK_STR(gets(root, "stop_reason"), "signal");
	CHECK_STR(gets(root, "signal"), "SIGINT");
	CHECK_STR(gets(root, "seed"), "18446744073709551610");
	CHECK_EQ_I(geti(root, "time_s"), 10);
	CHECK_NEAR(getr(root, "runtime_s"), 10.0, 1e-12);
	CHECK_EQ_U(json_array_size(json_object_get(root, "command_line")), 3);
	CHECK_STR(gets(root, "profile_path"), "t.ffsb");

	/* environment */
	json_t *env = json_object_get(root, "environment");
	CHECK(json_is_string(json_object_get(json_object_get(env, "kernel"), "release")));
	CHECK_EQ_I(geti(env, "cpus_online"), sysconf(_SC_NPROCESSORS_ONLN));
	json_t *efs = json_object_get(env, "filesystems");
	CHECK_EQ_U(json_array_size(efs), 2);
	json_t *e0 = json_array_get(efs, 0), *e1 = json_array_get(efs, 1);
	CHECK_STR(gets(e0, "fstype"), "ext4");
	CHECK_STR(gets(e0, "mount_options"), "rw,relatime,barrier=1");
	CHECK_STR(gets(e0, "device"), "loop7");
	CHECK_STR(gets(e0, "device_number"), "7:7");
	CHECK(json_is_null(json_object_get(e0, "device_reason")));
	CHECK_STR(gets(e1, "fstype"), "tmpfs");
	CHECK(json_is_null(json_object_get(e1, "device")));
	CHECK_STR(gets(e1, "device_reason"), "tmpfs has no block device");

	/* the profile, as `fsmix check --json` shows it */
	json_t *prof = json_object_get(root, "profile");
	CHECK_STR(gets(prof, "file"), "t.ffsb");
	json_t *tg0 = json_array_get(json_object_get(prof, "threadgroups"), 0);
	CHECK_EQ_I(geti(json_object_get(json_object_get(tg0, "keys"), "read_weight"), "value"), 1);

	/* CPU */
	json_t *cpu = json_object_get(root, "cpu");
	CHECK_NEAR(getr(cpu, "user_s"), 1.5, 1e-12);
	CHECK_NEAR(getr(cpu, "percent_of_one_cpu"), 40.0, 1e-9);
	CHECK_NEAR(getr(cpu, "percent_of_all_cpus"), 40.0 / (double)sysconf(_SC_NPROCESSORS_ONLN),
	           1e-9);

	/* groups */
	json_t *groups = json_object_get(root, "groups");
	CHECK_EQ_U(json_array_size(groups), 2);
	json_t *g0 = json_array_get(groups, 0), *g1 = json_array_get(groups, 1);
	CHECK_STR(gets(g0, "name"), "threadgroup0");
	CHECK_STR(gets(g0, "bindfs"), "filesystem0");
	CHECK_EQ_I(geti(g0, "threads"), 2);
	CHECK_EQ_I(geti(g0, "operations"), 1020);
	CHECK_EQ_I(geti(g0, "transactions"), 1020);
	CHECK_NEAR(getr(g0, "trans_per_s"), 102.0, 1e-9);
	CHECK_EQ_I(geti(g0, "bytes_read"), 1000 * 4096);
	CHECK_EQ_I(geti(g0, "skipped"), 7);
	json_t *ops0 = json_object_get(g0, "ops");
	CHECK_EQ_U(json_array_size(ops0), 3); /* read, stat (weighted), write_fsync */
	json_t *rd = by_name(ops0, "read");
	CHECK_EQ_I(geti(rd, "count"), 1000);
	CHECK_EQ_I(geti(rd, "weight"), 3);
	CHECK_EQ_I(geti(rd, "skipped"), 7);
	CHECK_NEAR(getr(rd, "mb_per_s"), 1000 * 4096 / 1048576.0 / 10, 1e-9);
	CHECK_EQ_I(geti(json_object_get(rd, "latency"), "count"), 1000);
	json_t *st = by_name(ops0, "stat");
	CHECK(st && json_is_null(json_object_get(st, "latency")));
	CHECK_EQ_I(geti(st, "count"), 0);

	/* the read syscall: summary, percentiles within the histogram's error, msec ranges */
	json_t *sys0 = json_object_get(g0, "syscalls");
	CHECK_EQ_U(json_array_size(sys0), 3); /* read, write, fsync */
	json_t *sr = by_name(sys0, "read");
	json_t *lat = json_object_get(sr, "latency");
	CHECK_EQ_I(geti(lat, "count"), 1000);
	CHECK_EQ_I(geti(lat, "min_ns"), 200000);
	CHECK_EQ_I(geti(lat, "max_ns"), 25000000);
	double sum = 0;
	for (size_t i = 0; i < f.n_read; i++)
		sum += (double)f.read_ns[i];
	CHECK_NEAR(geti(lat, "avg_ns"), sum / 1000, 0.5);
	CHECK_NEAR(getr(lat, "avg_ms"), sum / 1000 / 1e6, 1e-9);
	static const struct {
		const char *key;
		double p;
	} pk[] = {{"p50_ns", 50},
	          {"p90_ns", 90},
	          {"p99_ns", 99},
	          {"p99_9_ns", 99.9},
	          {"p99_99_ns", 99.99}};
	for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++) {
		double want = (double)exact_pct(f.read_ns, f.n_read, pk[i].p);
		CHECK_NEAR(geti(lat, pk[i].key), want, want / 128 + 1);
	}
	CHECK_NEAR(getr(lat, "p99_ms"), (double)geti(lat, "p99_ns") / 1e6, 1e-12);
	CHECK(getr(lat, "stddev_ms") > 0);
	json_t *mr = json_object_get(sr, "msec_ranges");
	CHECK_EQ_U(json_array_size(mr), 3);
	json_int_t in_ranges = 0;
	for (size_t k = 0; k < 3; k++) {
		json_t *r = json_array_get(mr, k);
		CHECK_EQ_I(geti(r, "count"), f.expect_ranges[k]);
		in_ranges += geti(r, "count");
	}
	CHECK_NEAR(getr(json_array_get(mr, 0), "lo_ms"), 1.0, 1e-12); /* declaration order */
	CHECK_NEAR(getr(json_array_get(mr, 2), "hi_ms"), 10.0, 1e-12);
	CHECK_EQ_I(geti(sr, "outside"), f.expect_outside);
	CHECK_EQ_I(in_ranges + geti(sr, "outside"), geti(lat, "count"));
	CHECK_EQ_I(f.expect_outside, 6);
	json_t *sf = by_name(sys0, "fsync");
	CHECK(json_is_true(json_object_get(sf, "sync")));
	json_int_t fin = 0;
	for (size_t k = 0; k < 3; k++)
		fin += geti(json_array_get(json_object_get(sf, "msec_ranges"), k), "count");
	CHECK_EQ_I(fin + geti(sf, "outside"), 20);

	/* group 1: not timed; the name with a comma survives */
	CHECK_STR(gets(g1, "name"), "group, with \"quote\"");
	json_t *cr = by_name(json_object_get(g1, "ops"), "create");
	CHECK_EQ_I(geti(cr, "count"), 40);
	CHECK_EQ_I(geti(cr, "transactions"), 80);
	CHECK_EQ_I(geti(cr, "errors"), 1);
	CHECK(json_is_null(json_object_get(cr, "latency")));
	CHECK_EQ_U(json_array_size(json_object_get(g1, "syscalls")), 0);

	/* total */
	json_t *tot = json_object_get(root, "total");
	CHECK_STR(gets(tot, "name"), "total");
	CHECK(json_is_null(json_object_get(tot, "index")));
	CHECK_EQ_I(geti(tot, "threads"), 3);
	CHECK_EQ_I(geti(tot, "operations"), 1060);
	CHECK_EQ_I(geti(tot, "transactions"), 1100);
	CHECK_EQ_I(geti(tot, "errors"), 1);
	CHECK_EQ_I(geti(tot, "skipped"), 7);
	CHECK_EQ_U(json_array_size(json_object_get(tot, "ops")), 4);
	json_t *tr = by_name(json_object_get(tot, "syscalls"), "read");
	CHECK(json_is_null(json_object_get(tr, "msec_ranges")));
	CHECK(json_is_null(json_object_get(tr, "outside")));
	CHECK_EQ_I(geti(json_object_get(tr, "latency"), "count"), 1000);

	/* device counters */
	json_t *fsa = json_object_get(root, "filesystems");
	CHECK_EQ_U(json_array_size(fsa), 2);
	json_t *c0 = json_object_get(json_array_get(fsa, 0), "device_counters");
	json_t *c1 = json_object_get(json_array_get(fsa, 1), "device_counters");
	CHECK(json_is_true(json_object_get(json_array_get(fsa, 0), "reused")));
	CHECK(json_is_true(json_object_get(c0, "available")));
	CHECK(json_is_null(json_object_get(c0, "reason")));
	CHECK_EQ_I(geti(c0, "write_requests"), 300);
	CHECK_EQ_I(geti(c0, "write_sectors"), 2400);
	CHECK_EQ_I(geti(c0, "read_requests"), 11);
	CHECK_EQ_I(geti(c0, "flush_requests"), 50);
	CHECK_NEAR(getr(c0, "flushes_per_s"), 5.0, 1e-12);
	CHECK_EQ_I(geti(c0, "fsync_calls"), 20);
	CHECK_NEAR(getr(c0, "flushes_per_fsync"), 2.5, 1e-12);
	CHECK(json_is_null(json_object_get(c0, "flushes_per_fsync_reason")));
	CHECK(json_is_false(json_object_get(c1, "available")));
	CHECK_STR(gets(c1, "reason"), "tmpfs has no block device");
	CHECK(json_is_null(json_object_get(c1, "flush_requests")));
	CHECK(json_is_null(json_object_get(c1, "write_requests")));
	CHECK(json_is_null(json_object_get(c1, "flushes_per_s")));
	CHECK(json_is_null(json_object_get(c1, "flushes_per_fsync")));
	CHECK(json_is_string(json_object_get(c1, "flush_reason")));
	CHECK(json_is_string(json_object_get(c1, "flushes_per_fsync_reason")));

	/* errors */
	json_t *errs = json_object_get(root, "errors");
	CHECK_EQ_U(json_array_size(errs), 1);
	json_t *er = json_array_get(errs, 0);
	CHECK_EQ_I(geti(er, "worker"), 2);
	CHECK_STR(gets(er, "group"), "group, with \"quote\"");
	CHECK_STR(gets(er, "op"), "create");
	CHECK_STR(gets(er, "syscall"), "write");
	CHECK_STR(gets(er, "path"), "/dev/shm/b/fsmix.fs1/data/d0/f7");
	CHECK_EQ_I(geti(er, "errno"), ENOSPC);
	CHECK_STR(gets(er, "errno_name"), "ENOSPC");
	CHECK_STR(gets(er, "message"), strerror(ENOSPC));
	CHECK_NEAR(getr(er, "at_s"), 1.5, 1e-12);

	/* intervals */
	json_t *iv = json_object_get(root, "intervals");
	CHECK_EQ_U(json_array_size(iv), 2);
	CHECK_EQ_I(geti(json_array_get(iv, 0), "transactions"), 110);
	CHECK_NEAR(getr(json_array_get(iv, 0), "mb_per_s"), 1.0, 1e-12);
	CHECK_EQ_I(geti(json_array_get(iv, 0), "p99_op_ns"), 2500000);
	CHECK(json_is_null(json_object_get(json_array_get(iv, 1), "p99_op_ns")));
	json_decref(root);
	fake_free(&f);
}

/* flushes per fsync cannot be attributed when a group with fsyncs is not bound */
static void test_json_unattributed_fsync(void)
{
	static struct fake f;
	fake_setup(&f);
	f.r.groups[0].bindfs = -1;
	f.r.fs[0].dev_delta.has_flush = false;
	f.run.exit_status = 0;
	json_t *root = report_json_build(&f.r, &f.run);
	json_t *c0 = json_object_get(json_array_get(json_object_get(root, "filesystems"), 0),
	                             "device_counters");
	CHECK(json_is_true(json_object_get(c0, "available")));
	CHECK_EQ_I(geti(c0, "write_requests"), 300);
	CHECK(json_is_null(json_object_get(c0, "flush_requests")));
	CHECK_CONTAINS(gets(c0, "flush_reason"), "5.5");
	CHECK(json_is_null(json_object_get(c0, "flushes_per_fsync")));
	f.r.fs[0].dev_delta.has_flush = true;
	json_decref(root);
	root = report_json_build(&f.r, &f.run);
	c0 = json_object_get(json_array_get(json_object_get(root, "filesystems"), 0),
	                     "device_counters");
	CHECK_EQ_I(geti(c0, "flush_requests"), 50);
	CHECK(json_is_null(json_object_get(c0, "fsync_calls")));
	CHECK(json_is_null(json_object_get(c0, "flushes_per_fsync")));
	CHECK_CONTAINS(gets(c0, "flushes_per_fsync_reason"), "bindfs");
	json_decref(root);
	/* a run of no time: rates are null, not 0 or infinity */
	f.r.runtime_s = 0;
	root = report_json_build(&f.r, &f.run);
	CHECK(json_is_null(json_object_get(json_object_get(root, "total"), "trans_per_s")));
	CHECK(json_is_null(json_object_get(json_object_get(root, "cpu"), "percent_of_one_cpu")));
	CHECK_STR(gets(root, "signal"), "SIGINT");
	json_decref(root);
	fake_free(&f);
}

/* ---- CSV ---- */

struct csv {
	size_t n_rows;
	char *cell[64][32]; /* [row][col] */
	size_t n_cols[64];
};

/* an RFC 4180 reader for the test (LF or CRLF records) */
static int csv_parse(const char *s, struct csv *c)
{
	memset(c, 0, sizeof(*c));
	while (*s) {
		if (c->n_rows >= 64)
			return -1;
		size_t r = c->n_rows++;
		for (;;) {
			char buf[512];
			size_t n = 0;
			if (*s == '"') {
				s++;
				for (;;) {
					if (!*s)
						return -1;
					if (*s == '"' && s[1] == '"') {
						buf[n++] = '"';
						s += 2;
					} else if (*s == '"') {
						s++;
						break;
					} else {
						buf[n++] = *s++;
					}
					if (n >= sizeof(buf) - 1)
						return -1;
				}
			} else {
				while (*s && *s != ',' && *s != '\n' && *s != '\r' &&
				       n < sizeof(buf) - 1)
					buf[n++] = *s++;
			}
			buf[n] = '\0';
			if (c->n_cols[r] >= 32)
				return -1;
			c->cell[r][c->n_cols[r]++] = strdup(buf);
			if (*s == ',') {
				s++;
				continue;
			}
			if (*s == '\r')
				s++;
			if (*s == '\n')
				s++;
			break;
		}
	}
	return 0;
}

static void csv_free(struct csv *c)
{
	for (size_t r = 0; r < c->n_rows; r++)
		for (size_t k = 0; k < c->n_cols[r]; k++)
			free(c->cell[r][k]);
}

static int col_of(const struct csv *c, const char *name)
{
	for (size_t k = 0; k < c->n_cols[0]; k++)
		if (!strcmp(c->cell[0][k], name))
			return (int)k;
	TEST_FAIL("no column %s", name);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* A distributed run's devices: each names its host and filesystem; one with a name (of any
 * length) and counters read before and after gets them, one without a name or with counters
 * that could not be read gets none. */
static void test_job_devices(void)
{
	static struct fake f;
	fake_setup(&f);
	char hosts[1][JOBSUM_HOST_MAX] = {"node1"};
	struct jobsum_device dev[3] = {
	    {.devname = "x", .fstype = "ext4", .delta = {.valid = true, .write_ios = 7}},
	    {.devname = "", .fstype = "tmpfs", .delta = {.valid = true, .write_ios = 7}},
	    {.devname = "sdb", .fstype = "xfs"}};
	struct jobsum j = {.n_hosts = 1, .host_names = hosts, .devices = dev, .n_devices = 3};
	json_t *o = report_job_json(&j, &f.r), *d = json_object_get(o, "devices");
	CHECK_EQ_U(json_array_size(d), 3);
	json_t *named = json_array_get(d, 0), *none = json_array_get(d, 1),
	       *unread = json_array_get(d, 2);
	CHECK_STR(gets(named, "host"), "node1");
	CHECK_STR(gets(named, "device"), "x");
	CHECK_EQ_I(geti(json_object_get(named, "counters"), "write_ios"), 7);
	CHECK(json_is_null(json_object_get(none, "device")) && !json_object_get(none, "counters"));
	CHECK(json_object_get(unread, "device") && !json_object_get(unread, "counters"));
	json_decref(o);
	fake_free(&f);
}

/* Allocation failures for test_job_oom: the allocation numbered fail_at (from 1) fails, and
 * live counts the blocks jansson holds. */
static long fail_at, n_allocs, live;

static void *counting_malloc(size_t n)
{
	if (++n_allocs == fail_at)
		return NULL;
	void *p = malloc(n);
	live += p != NULL;
	return p;
}

static void counting_free(void *p)
{
	live -= p != NULL;
	free(p);
}

/* report_job_json out of memory at each of its allocations in turn: NULL or a whole object, and
 * nothing of what it had built left allocated (the arrays it made before the failure are
 * released). */
static void test_job_oom(void)
{
	static struct fake f;
	fake_setup(&f);
	char hosts[2][JOBSUM_HOST_MAX] = {"node1", "node2"};
	struct jobsum_rank ranks[2] = {{.rank = 0, .host = 0, .ops = 5}, {.rank = 1, .host = 1}};
	struct jobsum_device dev[1] = {
	    {.devname = "x", .fstype = "ext4", .delta = {.valid = true, .write_ios = 7}}};
	struct jobsum j = {.n_hosts = 2,
	                   .host_names = hosts,
	                   .n_ranks = 2,
	                   .ranks = ranks,
	                   .devices = dev,
	                   .n_devices = 1};
	json_set_alloc_funcs(counting_malloc, counting_free);
	long failed = 0;
	for (fail_at = 1; fail_at < 1000; fail_at++) {
		n_allocs = live = 0;
		json_t *o = report_job_json(&j, &f.r);
		bool whole = o && json_array_size(json_object_get(o, "per_rank")) == 2 &&
		             json_array_size(json_object_get(o, "hosts")) == 2;
		json_decref(o);
		if (live)
			fprintf(stderr, "allocation %ld failing: %ld blocks left\n", fail_at, live);
		CHECK_EQ_I(live, 0);
		if (n_allocs < fail_at) { /* no allocation failed: the whole object */
			CHECK(whole);
			break;
		}
		failed += !o;
	}
	json_set_alloc_funcs(malloc, free);
	CHECK(fail_at > 10 && fail_at < 1000); /* it got to the end */
	CHECK(failed > 0);
	fake_free(&f);
}

/* A distributed run's CSV: a row per rank (its host, totals and own rates) and the stonewall. */
static void test_csv_ranks(void)
{
	static struct fake f;
	fake_setup(&f);
	char dir[] = "/tmp/fsmix-report-XXXXXX", path[64], err[512] = "";
	if (!mkdtemp(dir)) {
		TEST_FAIL("mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	char hosts[1][JOBSUM_HOST_MAX] = {"node1"};
	struct jobsum_rank rk[1] = {{.rank = 0,
	                             .host = 0,
	                             .runtime_s = 2,
	                             .ops = 5,
	                             .trans = 7,
	                             .bytes_read = 100,
	                             .bytes_written = 200,
	                             .errors = 1}};
	struct jobsum saved = f.r.job;
	f.r.job = (struct jobsum){.n_hosts = 1,
	                          .host_names = hosts,
	                          .n_ranks = 1,
	                          .ranks = rk,
	                          .stonewall_ops = 4,
	                          .stonewall_trans = 6,
	                          .stonewall_s = 1.5};
	CHECK_EQ_I(report_csv_write(&f.r, path, err, sizeof(err)), 0);
	f.r.job = saved;
	char *text = slurp(path);
	CHECK(text != NULL);
	if (text) {
		CHECK_CONTAINS(text, "\nrank,rank0,node1,5,7,3.500,2.500,100,200,0.000143,1,");
		CHECK_CONTAINS(text, "\nstonewall,job,,4,6,");
	}
	free(text);
	unlink(path);
	rmdir(dir);
	fake_free(&f);
}

static void test_files(void)
{
	static struct fake f;
	fake_setup(&f);
	char dir[] = "/tmp/fsmix-report-XXXXXX";
	if (!mkdtemp(dir)) {
		TEST_FAIL("mkdtemp: %s", strerror(errno));
		return;
	}
	char jpath[64], cpath[64], err[512];
	snprintf(jpath, sizeof(jpath), "%s/out.json", dir);
	snprintf(cpath, sizeof(cpath), "%s/out.csv", dir);
	/* an older file is replaced */
	FILE *old = fopen(jpath, "w");
	if (old) {
		fputs("garbage", old);
		fclose(old);
	}
	err[0] = '\0';
	CHECK_EQ_I(report_json_write(&f.r, &f.run, jpath, err, sizeof(err)), 0);
	CHECK_EQ_I(report_csv_write(&f.r, cpath, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_EQ_U(dir_entries(dir), 2); /* no temporary file left behind */

	json_error_t jerr;
	json_t *root = json_load_file(jpath, 0, &jerr);
	CHECK(root != NULL);
	if (!root)
		TEST_FAIL("%s:%d: %s", jpath, jerr.line, jerr.text);
	CHECK_EQ_I(json_integer_value(json_object_get(root, "schema_version")),
	           REPORT_JSON_SCHEMA_VERSION);

	char *text = slurp(cpath);
	struct csv c;
	CHECK(text != NULL);
	CHECK_EQ_I(text ? csv_parse(text, &c) : -1, 0);
	static const char header[] =
	    "kind,group,name,count,transactions,trans_per_s,ops_per_s,bytes_read,bytes_written,"
	    "mb_per_s,errors,skipped,lat_count,lat_min_ms,lat_avg_ms,lat_stddev_ms,lat_p50_ms,"
	    "lat_p90_ms,lat_p99_ms,lat_p999_ms,lat_p9999_ms,lat_max_ms,t_s,length_s,busy\n";
	CHECK(text && !strncmp(text, header, strlen(header)));
	CHECK_CONTAINS(text, ",\"group, with \"\"quote\"\"\",create,40,80,");
	/* one row per (group, op) and (group, syscall) of the JSON, the total, the intervals */
	size_t want = 1;
	json_t *groups = json_object_get(root, "groups");
	for (size_t gi = 0; gi <= json_array_size(groups); gi++) {
		json_t *g = gi < json_array_size(groups) ? json_array_get(groups, gi)
		                                         : json_object_get(root, "total");
		want += json_array_size(json_object_get(g, "ops")) +
		        json_array_size(json_object_get(g, "syscalls"));
	}
	want += json_array_size(json_object_get(root, "intervals"));
	CHECK_EQ_U(want, 1 + (3 + 3) + (1 + 0) + (4 + 3) + 2);
	CHECK_EQ_U(c.n_rows, want);
	for (size_t r = 0; r < c.n_rows; r++)
		CHECK_EQ_U(c.n_cols[r], 25);
	/* values agree with the JSON */
	int ck = col_of(&c, "kind"), cg = col_of(&c, "group"), cn = col_of(&c, "name");
	int cc = col_of(&c, "count"), ct = col_of(&c, "transactions");
	int cp99 = col_of(&c, "lat_p99_ms"), cavg = col_of(&c, "lat_avg_ms");
	int cerr = col_of(&c, "errors"), cmb = col_of(&c, "mb_per_s");
	size_t seen_sys = 0, seen_quoted = 0, seen_iv = 0;
	for (size_t r = 1; r < c.n_rows; r++) {
		char **row = c.cell[r];
		if (!strcmp(row[ck], "interval")) {
			seen_iv++;
			continue;
		}
		json_t *g = !strcmp(row[cg], "total") ? json_object_get(root, "total")
		                                      : by_name(groups, row[cg]);
		CHECK(g != NULL);
		if (!g)
			continue;
		seen_quoted += !strcmp(row[cg], "group, with \"quote\"");
		bool is_op = !strcmp(row[ck], "op");
		json_t *item = by_name(json_object_get(g, is_op ? "ops" : "syscalls"), row[cn]);
		CHECK(item != NULL);
		if (!item)
			continue;
		json_t *lat = json_object_get(item, "latency");
		if (is_op) {
			CHECK_EQ_I(strtoll(row[cc], NULL, 10), geti(item, "count"));
			CHECK_EQ_I(strtoll(row[ct], NULL, 10), geti(item, "transactions"));
			CHECK_EQ_I(strtoll(row[cerr], NULL, 10), geti(item, "errors"));
			CHECK_NEAR(strtod(row[cmb], NULL), getr(item, "mb_per_s"), 1e-6);
		} else {
			seen_sys++;
			CHECK_EQ_I(strtoll(row[cc], NULL, 10), geti(lat, "count"));
			CHECK_STR(row[ct], "");
		}
		if (json_is_null(lat)) {
			CHECK_STR(row[cp99], "");
		} else {
			CHECK_NEAR(strtod(row[cp99], NULL), getr(lat, "p99_ms"), 1e-6);
			CHECK_NEAR(strtod(row[cavg], NULL), getr(lat, "avg_ms"), 1e-6);
		}
	}
	CHECK_EQ_U(seen_sys, 6);
	CHECK_EQ_U(seen_quoted, 1);
	CHECK_EQ_U(seen_iv, 2);
	if (text)
		csv_free(&c);
	free(text);
	json_decref(root);

	/* an unwritable place: -errno (report_data.h) and an error naming the path, nothing
	 * created */
	char bad[96];
	snprintf(bad, sizeof(bad), "%s/no/such/dir/out.json", dir);
	err[0] = '\0';
	CHECK_EQ_I(report_json_write(&f.r, &f.run, bad, err, sizeof(err)), -ENOENT);
	CHECK_CONTAINS(err, bad);
	err[0] = '\0';
	CHECK_EQ_I(report_csv_write(&f.r, bad, err, sizeof(err)), -ENOENT);
	CHECK_CONTAINS(err, bad);
	/* a directory in the way: the rename fails, the temporary file is removed */
	char isdir[96];
	snprintf(isdir, sizeof(isdir), "%s/sub", dir);
	CHECK_EQ_I(mkdir(isdir, 0755), 0);
	err[0] = '\0';
	CHECK_EQ_I(report_csv_write(&f.r, isdir, err, sizeof(err)), -EISDIR);
	CHECK_CONTAINS(err, isdir);
	CHECK_EQ_U(dir_entries(dir), 3);
	rmdir(isdir);
	unlink(jpath);
	unlink(cpath);
	CHECK_EQ_I(rmdir(dir), 0);
	fake_free(&f);
}

int main(void)
{
	RUN(test_json_values);
	RUN(test_json_unattributed_fsync);
	RUN(test_job_devices);
	RUN(test_job_oom);
	RUN(test_csv_ranks);
	RUN(test_files);
	return test_summary();
}
