/* fake_engine.h - a complete, deterministic `struct engine` built by hand for the report tests
 * (test_report_data.c, test_report_golden.c): two thread groups (the first timed with three
 * msec_range buckets, bound to a filesystem with device and flush counters; the second untimed,
 * with a comma and quotes in its name, bound to a filesystem without a device), a worker's first
 * error, skipped operations, two interval rows, a fixed seed, runtime and CPU times.
 *
 * Changing what fake_setup() builds changes the golden files of test_report_golden.c: regenerate
 * them (see there) and review the difference.
 */
#ifndef FSMIX_TEST_FAKE_ENGINE_H
#define FSMIX_TEST_FAKE_ENGINE_H

#include <errno.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "engine.h"
#include "hist.h"
#include "profile.h"
#include "stats.h"

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

/* The fake run: a plan with two groups and two filesystems, everything filled by hand. */
struct fake {
	struct plan plan;
	struct plan_group groups[2];
	struct plan_fs fs[2];
	struct engine e;
	struct engine_opts o;
	struct engine_fs *efs;
	struct range_table *rt0;
	struct range_table *granges[2];
	struct thread_stats gs[2];
	struct thread_stats *gsp[2]; /* engine.group_stats: &gs[0], &gs[1] */
	uint64_t gskip[2][OP_COUNT];
	struct worker *w[2];
	struct worker *wp[2];
	struct interval_row iv[2];
	struct profile prof;
	struct diag d;
	char *argv[4];
	/* what was recorded, for the checks */
	uint64_t read_ns[1000];
	size_t n_read;
	uint64_t expect_ranges[3]; /* in declaration order */
	uint64_t expect_outside;
};

static void *zalloc_aligned(size_t size)
{
	size_t a = 64, n = (size + a - 1) / a * a;
	void *p = aligned_alloc(a, n);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	memset(p, 0, n);
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void fake_setup(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	/* plan */
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
	                        .fs = f->fs,
	                        .n_fs = 2,
	                        .groups = f->groups,
	                        .n_groups = 2,
	                        .total_threads = 3};

	/* statistics */
	double lohi[6] = {1, 2, 0, 1, 5, 10};
	if (range_table_new(&f->rt0, lohi, 3) || thread_stats_init(&f->gs[0], f->rt0) ||
	    thread_stats_init(&f->gs[1], NULL) || thread_stats_init(&f->e.total, NULL)) {
		fprintf(stderr, "setup failed\n");
		exit(2);
	}
	struct thread_stats *s0 = &f->gs[0], *s1 = &f->gs[1];
	/* group 0: 1000 reads: 0.2..1.19 ms (in ranges 0-1 and 1-2), 3 ms (a gap: outside),
	 * 7 ms (5-10), 10 ms exactly (top range, inclusive), 25 ms (above: outside) */
	for (size_t i = 0; i < 1000; i++) {
		uint64_t ns;
		if (i < 990)
			ns = 200000 + (uint64_t)i * 1000;
		else if (i < 994)
			ns = 3000000;
		else if (i < 997)
			ns = 7000000;
		else if (i < 998)
			ns = 10000000;
		else
			ns = 25000000;
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
	f->gskip[0][OP_read] = 7;
	/* group 1: creates, not timed (enable_stats off), one failed */
	s1->ops[OP_create] = 40;
	s1->trans[OP_create] = 80;
	s1->bytes_written[OP_create] = 80 * 65536;
	s1->errors[OP_create] = 1;
	for (int gi = 0; gi < 2; gi++) {
		struct thread_stats tmp = f->gs[gi];
		tmp.ranges = NULL;
		tmp.range_cols = 0;
		tmp.range_counts = NULL;
		thread_stats_merge(&f->e.total, &tmp);
		for (int op = 0; op < OP_COUNT; op++)
			f->e.total_skipped[op] += f->gskip[gi][op];
	}

	/* filesystems: one on a device with flush counters, one without a device */
	f->efs = zalloc_aligned(2 * sizeof(struct engine_fs));
	for (int i = 0; i < 2; i++)
		f->efs[i].pf = &f->fs[i];
	struct devstat_dev *d0 = &f->efs[0].dev, *d1 = &f->efs[1].dev;
	snprintf(d0->fstype, sizeof(d0->fstype), "ext4");
	snprintf(d0->mount_point, sizeof(d0->mount_point), "/mnt/a");
	snprintf(d0->mount_source, sizeof(d0->mount_source), "/dev/loop7");
	snprintf(d0->mount_options, sizeof(d0->mount_options), "rw,relatime,barrier=1");
	snprintf(d0->devname, sizeof(d0->devname), "loop7");
	d0->major = 7;
	d0->minor = 7;
	d0->has_device = true;
	f->efs[0].dev_delta = (struct devstat_sample){.valid = true,
	                                              .has_flush = true,
	                                              .read_ios = 11,
	                                              .read_sectors = 88,
	                                              .write_ios = 300,
	                                              .write_sectors = 2400,
	                                              .flush_ios = 50};
	f->efs[0].reused = true;
	f->efs[0].setup_s = 0.25;
	snprintf(d1->fstype, sizeof(d1->fstype), "tmpfs");
	snprintf(d1->mount_options, sizeof(d1->mount_options), "rw,nosuid");
	snprintf(d1->why, sizeof(d1->why), "tmpfs has no block device");
	d1->major = 0;
	d1->minor = 25;

	/* workers: one clean, one with its first error */
	for (int i = 0; i < 2; i++) {
		f->w[i] = zalloc_aligned(sizeof(struct worker));
		f->wp[i] = f->w[i];
	}
	f->w[0]->index = 0;
	f->w[0]->group = 0;
	f->w[0]->g = g0;
	f->w[1]->index = 2;
	f->w[1]->group = 1;
	f->w[1]->g = g1;
	f->w[1]->err = (struct worker_error){
	    .set = true, .err = ENOSPC, .op = OP_create, .sys = SYS_write, .at_ns = 1500000000};
	snprintf(f->w[1]->err.path, sizeof(f->w[1]->err.path), "/dev/shm/b/fsmix.fs1/data/d0/f7");

	f->iv[0] = (struct interval_row){1.0, 1.0, 100, 110, 1048576, 2500000};
	f->iv[1] = (struct interval_row){2.0, 1.0, 90, 95, 524288, 0};

	diag_init(&f->d);
	if (profile_parse_buffer(&f->prof, "t.ffsb", profile_text, strlen(profile_text), &f->d)) {
		diag_print(&f->d, stderr);
		exit(2);
	}
	f->argv[0] = "fsmix";
	f->argv[1] = "run";
	f->argv[2] = "t.ffsb";
	f->o = (struct engine_opts){
	    .profile = &f->prof, .profile_path = "t.ffsb", .argc = 3, .argv = f->argv};

	struct engine *e = &f->e;
	e->plan = &f->plan;
	e->opts = &f->o;
	e->fs = f->efs;
	e->n_fs = 2;
	f->granges[0] = f->rt0;
	f->granges[1] = NULL;
	e->group_ranges = f->granges;
	f->gsp[0] = &f->gs[0];
	f->gsp[1] = &f->gs[1];
	e->group_stats = f->gsp;
	e->group_skipped = f->gskip;
	e->workers = f->wp;
	e->n_workers = 2;
	e->seed = UINT64_MAX - 5;
	e->runtime_s = 10.0;
	e->user_s = 1.5;
	e->sys_s = 2.5;
	e->signal = SIGINT;
	e->interrupted = true;
	e->measured = true;
	atomic_init(&e->stop, STOP_SIGNAL);
	e->intervals = f->iv;
	e->n_intervals = 2;
	qsort(f->read_ns, f->n_read, sizeof(f->read_ns[0]), cmp_u64);
}

static void fake_free(struct fake *f)
{
	thread_stats_free(&f->gs[0]);
	thread_stats_free(&f->gs[1]);
	thread_stats_free(&f->e.total);
	range_table_free(f->rt0);
	free(f->efs);
	free(f->w[0]);
	free(f->w[1]);
	profile_free(&f->prof);
	diag_free(&f->d);
}

#endif
