/* results_fixture.h - deterministic results of a run, built by hand for the report tests
 * (test_report_data.c, test_report_golden.c) with the results API alone: two thread groups
 * (the first timed with three msec_range buckets, bound to a filesystem with device and flush
 * counters; the second untimed, with a comma and quotes in its name, bound to a filesystem
 * without a device), a worker's first error, skipped operations, two interval rows, a fixed
 * seed, runtime and CPU times.
 *
 * fake_plan() builds the plan (a test may change it), fake_fill() the results from it.
 * Changing what they build changes the golden files of test_report_golden.c: regenerate them
 * (see there) and review the difference.
 */
#ifndef FSMIX_TEST_RESULTS_FIXTURE_H
#define FSMIX_TEST_RESULTS_FIXTURE_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hist.h"
#include "plan.h"
#include "profile.h"
#include "report_data.h"
#include "results.h"

static const char profile_text[] = "time=10\n"
                                   "[filesystem0]\n"
                                   "\tlocation=/tmp\n"
                                   "\tnum_files=10\n"
                                   "\tmin_filesize=4KB\n"
                                   "\tmax_filesize=4KB\n"
                                   "[end0]\n"
                                   "[threadgroup0]\n"
                                   "\tnum_threads=1\n"
                                   "\tread_weight=1\n"
                                   "\tread_size=4KB\n"
                                   "\tread_blocksize=4KB\n"
                                   "[end0]\n";

struct fake {
	struct plan plan;
	struct plan_group groups[2];
	struct plan_fs fs[2];
	struct results r;
	struct report_run run; /* what the JSON echoes: exit status 130, the command line */
	struct profile prof;
	struct diag d;
	char *argv[4];
	/* what was recorded, for the checks */
	uint64_t read_ns[1000];
	size_t n_read;
	uint64_t expect_ranges[3]; /* in declaration order */
	uint64_t expect_outside;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void fake_plan(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->fs[0] = (struct plan_fs){.index = 0, .name = "filesystem0", .location = "/mnt/a"};
	f->fs[1] = (struct plan_fs){.index = 1, .name = "filesystem1", .location = "/dev/shm/b"};
	struct plan_group *g0 = &f->groups[0], *g1 = &f->groups[1];
	g0->index = 0;
	g0->name = "threadgroup0";
	g0->num_threads = 2;
	g0->weight[OP_read] = 3;
	g0->weight[OP_write_fsync] = 1;
	g0->weight[OP_stat] = 1; /* weighted but never run: still listed */
	g0->total_weight = 5;
	g0->bindfs = 0;
	g0->enable_stats = g0->enable_range = true;
	static struct plan_range ranges[3] = {{1, 2}, {0, 1}, {5, 10}};
	g0->ranges = ranges;
	g0->n_ranges = 3;
	g1->index = 1;
	g1->name = "group, with \"quote\"";
	g1->num_threads = 1;
	g1->weight[OP_create] = 1;
	g1->total_weight = 1;
	g1->bindfs = 1;
	f->plan = (struct plan){.time_s = 10,
	                        .seed = UINT64_MAX - 5,
	                        .fs = f->fs,
	                        .n_fs = 2,
	                        .groups = f->groups,
	                        .n_groups = 2,
	                        .total_threads = 3};
}

/* group 0: 1000 reads: 0.2..1.19 ms (in ranges 0-1 and 1-2), 3 ms (a gap: outside), 7 ms
 * (5-10), 10 ms exactly (top range, inclusive), 25 ms (above: outside); 20 write_fsync */
static void fake_group0(struct fake *f, struct thread_stats *s0)
{
	for (size_t i = 0; i < 1000; i++) {
		uint64_t ns = i < 990   ? 200000 + (uint64_t)i * 1000
		              : i < 994 ? 3000000
		              : i < 997 ? 7000000
		              : i < 998 ? 10000000
		                        : 25000000;
		f->read_ns[f->n_read++] = ns;
		stats_sys_record(s0, SYS_read, ns);
		stats_op_record(s0, OP_read, ns + 5000);
		if (ns < 1000000)
			f->expect_ranges[1]++;
		else if (ns < 2000000)
			f->expect_ranges[0]++;
		else if (ns >= 5000000 && ns <= 10000000)
			f->expect_ranges[2]++;
		else
			f->expect_outside++;
	}
	s0->ops[OP_read] = 1000;
	s0->trans[OP_read] = 1000;
	s0->bytes_read[OP_read] = 1000 * 4096;
	for (int i = 0; i < 20; i++) {
		stats_sys_record(s0, SYS_write, 100000);
		stats_sys_record(s0, SYS_fsync, 2000000 + (uint64_t)i * 10000);
		stats_op_record(s0, OP_write_fsync, 2200000 + (uint64_t)i * 10000);
	}
	s0->ops[OP_write_fsync] = 20;
	s0->trans[OP_write_fsync] = 20;
	s0->bytes_written[OP_write_fsync] = 20 * 4096;
}

/* filesystems: one on a device with flush counters, one without a device */
static void fake_filesystems(struct results *r)
{
	struct devstat_dev *d0 = &r->fs[0].dev, *d1 = &r->fs[1].dev;
	snprintf(d0->fstype, sizeof(d0->fstype), "ext4");
	snprintf(d0->mount_point, sizeof(d0->mount_point), "/mnt/a");
	snprintf(d0->mount_source, sizeof(d0->mount_source), "/dev/loop7");
	snprintf(d0->mount_options, sizeof(d0->mount_options), "rw,relatime,barrier=1");
	snprintf(d0->devname, sizeof(d0->devname), "loop7");
	d0->major = 7;
	d0->minor = 7;
	d0->has_device = true;
	r->fs[0].dev_delta = (struct devstat_sample){.valid = true,
	                                             .has_flush = true,
	                                             .read_ios = 11,
	                                             .read_sectors = 88,
	                                             .write_ios = 300,
	                                             .write_sectors = 2400,
	                                             .flush_ios = 50};
	r->fs[0].reused = true;
	r->fs[0].setup_s = 0.25;
	snprintf(d1->fstype, sizeof(d1->fstype), "tmpfs");
	snprintf(d1->mount_options, sizeof(d1->mount_options), "rw,nosuid");
	snprintf(d1->why, sizeof(d1->why), "tmpfs has no block device");
	d1->major = 0;
	d1->minor = 25;
}

static void fake_fill(struct fake *f)
{
	struct results *r = &f->r;
	if (results_init(r, &f->plan)) {
		fprintf(stderr, "results_init failed\n");
		exit(2);
	}
	results_env_probe(&r->env);
	fake_group0(f, &r->groups[0].st);
	r->groups[0].skipped[OP_read] = 7;
	/* group 1: creates, not timed (enable_stats off), one failed */
	struct thread_stats *s1 = &r->groups[1].st;
	s1->ops[OP_create] = 40;
	s1->trans[OP_create] = 80;
	s1->bytes_written[OP_create] = 80 * 65536;
	s1->errors[OP_create] = 1;
	if (results_total_of_groups(r)) /* as the engine makes it */
		exit(2);
	fake_filesystems(r);
	/* workers' first errors: one */
	struct results_error er = {.worker = 2,
	                           .group = 1,
	                           .err = ENOSPC,
	                           .op = OP_create,
	                           .sys = SYS_write,
	                           .at_ns = 1500000000};
	snprintf(er.path, sizeof(er.path), "/dev/shm/b/fsmix.fs1/data/d0/f7");
	const struct interval_row iv[2] = {{1.0, 1.0, 100, 110, 1048576, 2500000, false},
	                                   {2.0, 1.0, 90, 95, 524288, 0, false}};
	if (results_add_error(r, &er) || results_set_intervals(r, SIZE_MAX, iv, 2))
		exit(2);
	r->runtime_s = 10.0;
	r->user_s = 1.5;
	r->sys_s = 2.5;
	r->signal = SIGINT;
	r->interrupted = true;
	r->measured = true;
	r->stop = STOP_SIGNAL;
	qsort(f->read_ns, f->n_read, sizeof(f->read_ns[0]), cmp_u64);

	diag_init(&f->d);
	if (profile_parse_buffer(&f->prof, "t.ffsb", profile_text, strlen(profile_text), &f->d)) {
		diag_print(&f->d, stderr);
		exit(2);
	}
	f->argv[0] = "fsmix";
	f->argv[1] = "run";
	f->argv[2] = "t.ffsb";
	f->run = (struct report_run){.exit_status = 130,
	                             .argc = 3,
	                             .argv = f->argv,
	                             .profile_path = "t.ffsb",
	                             .profile = &f->prof};
}

static inline void fake_setup(struct fake *f)
{
	fake_plan(f);
	fake_fill(f);
}

static void fake_free(struct fake *f)
{
	results_free(&f->r);
	profile_free(&f->prof);
	diag_free(&f->d);
}

#endif
