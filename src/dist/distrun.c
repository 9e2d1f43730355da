/* distrun.c - one engine run as one rank of a job (distrun.h). */
#include "distrun.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exitcode.h"
#include "statpack.h"

#define RESULTS_MAGIC UINT64_C(0x6673726573756c74) /* "fsresult" */

enum failure distrun_failure_of(int status)
{
	switch (status) {
	case EXIT_OK:
		return FAIL_NONE;
	case EXIT_BAD_INPUT:
		return FAIL_INPUT;
	case EXIT_UNSUPPORTED:
		return FAIL_UNSUPPORTED;
	case EXIT_INTERRUPTED:
		return FAIL_INTERRUPTED;
	default:
		return FAIL_IO;
	}
}

int distrun_status_of(enum failure f)
{
	static const int status[] = {[FAIL_NONE] = EXIT_OK,
	                             [FAIL_IO] = EXIT_RUN_FAILED,
	                             [FAIL_UNSUPPORTED] = EXIT_UNSUPPORTED,
	                             [FAIL_INPUT] = EXIT_BAD_INPUT,
	                             [FAIL_INTERRUPTED] = EXIT_INTERRUPTED};
	return status[f];
}

static int hook_agree(void *ctx, int rc, char *err, size_t errlen)
{
	struct distrun *r = ctx;
	return distrun_status_of(dist_agree(r->d, distrun_failure_of(rc), err, err, errlen));
}

static int hook_go(void *ctx, struct engine *e, int rc, char *err, size_t errlen)
{
	(void)e;
	return hook_agree(ctx, rc, err, errlen);
}

/* This rank's outcome of a run phase that every rank entered, as write_outputs will see it, with
 * its message (the first failed worker's, as run.c prints it). */
static int own_outcome(const struct engine *e, int rc, const char *err, char *msg, size_t len)
{
	snprintf(msg, len, "%s", err);
	if (rc)
		return rc;
	if (atomic_load(&e->stop) == STOP_SIGNAL) {
		const char *sig = sigabbrev_np(atomic_load(&e->signal_seen));
		snprintf(msg, len, "interrupted by SIG%s", sig ? sig : "?");
		return EXIT_INTERRUPTED;
	}
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct worker *w = e->workers[i];
		if (w->err.set) {
			snprintf(msg, len, "worker %u (%s): %s: %s(%s): %s after %.3f s", w->index,
			         w->g->name, op_table[w->err.op].name, sys_table[w->err.sys].name,
			         w->err.path, strerror(w->err.err), (double)w->err.at_ns / 1e9);
			return EXIT_RUN_FAILED;
		}
	}
	if (e->latlog_failed) {
		snprintf(msg, len, "writing the latency log failed");
		return EXIT_RUN_FAILED;
	}
	return 0;
}

static uint64_t sum_ops(const uint64_t *v)
{
	uint64_t s = 0;
	for (int op = 0; op < OP_COUNT; op++)
		s += v[op];
	return s;
}

/* This rank's line of the job summary, from its own engine. */
static struct jobsum_rank own_totals(const struct distrun *r, const struct engine *e, int status)
{
	const struct thread_stats *t = &e->total;
	return (struct jobsum_rank){.rank = r->d->rank,
	                            .host = r->d->host_index,
	                            .runtime_s = e->runtime_s,
	                            .ops = sum_ops(t->ops),
	                            .trans = sum_ops(t->trans),
	                            .bytes_read = sum_ops(t->bytes_read),
	                            .bytes_written = sum_ops(t->bytes_written),
	                            .errors = sum_ops(t->errors),
	                            .status = (int)distrun_failure_of(status),
	                            .seed = e->seed};
}

/* This rank's results: its totals, statistics per group and in total, skips, CPU, and the device
 * counters its host's lowest rank read. */
static void pack_results(const struct distrun *r, const struct engine *e, int status,
                         struct packbuf *b)
{
	const struct plan *pl = e->plan;
	struct jobsum_rank k = own_totals(r, e, status);
	pack_u64(b, RESULTS_MAGIC);
	pack_u64(b, (uint64_t)k.host);
	pack_u64(b, (uint64_t)k.status);
	pack_f64(b, k.runtime_s);
	pack_u64(b, k.ops);
	pack_u64(b, k.trans);
	pack_u64(b, k.bytes_read);
	pack_u64(b, k.bytes_written);
	pack_u64(b, k.errors);
	pack_u64(b, k.seed);
	pack_f64(b, e->user_s);
	pack_f64(b, e->sys_s);
	bool reads_device = r->d->host_first_rank == r->d->rank;
	pack_u64(b, reads_device ? e->n_fs : 0);
	for (size_t i = 0; reads_device && i < e->n_fs; i++) {
		const struct engine_fs *fs = &e->fs[i];
		pack_str(b, fs->dev.has_device ? fs->dev.devname : "");
		pack_str(b, fs->dev.fstype);
		pack_bytes(b, &fs->dev_delta, sizeof(fs->dev_delta));
	}
	pack_u64(b, pl->n_groups);
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		statpack_put(b, e->group_stats[gi]);
		pack_bytes(b, e->group_skipped[gi], sizeof(e->group_skipped[gi]));
	}
	statpack_put(b, &e->total);
	pack_bytes(b, e->total_skipped, sizeof(e->total_skipped));
}

/* A host's device counters, one entry per filesystem (from its lowest rank). */
static int add_devices(struct distrun *r, int host, struct unpack *u)
{
	uint64_t n = unpack_u64(u);
	if (u->bad || n > 4096)
		return -EBADMSG;
	struct jobsum *j = &r->job;
	struct jobsum_device *v = realloc(j->devices, (j->n_devices + n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	j->devices = v;
	for (uint64_t i = 0; i < n; i++) {
		struct jobsum_device *d = &j->devices[j->n_devices++];
		memset(d, 0, sizeof(*d));
		d->host = host;
		d->fs = (unsigned)i;
		unpack_str(u, d->devname, sizeof(d->devname));
		unpack_str(u, d->fstype, sizeof(d->fstype));
		unpack_bytes(u, &d->delta, sizeof(d->delta));
	}
	return u->bad ? -EBADMSG : 0;
}

/* Rank `rank`'s results (u) into the job summary and, but for rank 0's own (already there), into
 * e: counts and histograms added, CPU summed. 0 or -errno. */
static int merge_rank(struct distrun *r, struct engine *e, int rank, struct unpack *u)
{
	const struct plan *pl = e->plan;
	struct jobsum_rank *k = &r->job.ranks[rank];
	if (unpack_u64(u) != RESULTS_MAGIC)
		return -EBADMSG;
	k->rank = rank;
	k->host = (int)unpack_u64(u);
	k->status = (int)unpack_u64(u);
	k->runtime_s = unpack_f64(u);
	k->ops = unpack_u64(u);
	k->trans = unpack_u64(u);
	k->bytes_read = unpack_u64(u);
	k->bytes_written = unpack_u64(u);
	k->errors = unpack_u64(u);
	k->seed = unpack_u64(u);
	double user = unpack_f64(u), sys = unpack_f64(u);
	if (u->bad || k->host < 0 || k->host >= r->job.n_hosts)
		return -EBADMSG;
	int rc = add_devices(r, k->host, u);
	if (rc || rank == 0) /* e holds rank 0's statistics already */
		return rc;
	if (unpack_u64(u) != pl->n_groups)
		return -EBADMSG;
	e->user_s += user;
	e->sys_s += sys;
	for (size_t gi = 0; gi < pl->n_groups && !rc; gi++) {
		uint64_t skipped[OP_COUNT];
		rc = statpack_merge(u, e->group_stats[gi]);
		unpack_bytes(u, skipped, sizeof(skipped));
		for (int op = 0; op < OP_COUNT; op++)
			e->group_skipped[gi][op] += skipped[op];
	}
	uint64_t skipped[OP_COUNT];
	if (!rc)
		rc = statpack_merge(u, &e->total);
	unpack_bytes(u, skipped, sizeof(skipped));
	for (int op = 0; op < OP_COUNT; op++)
		e->total_skipped[op] += skipped[op];
	return rc ? rc : u->bad ? -EBADMSG : 0;
}

/* Rank 0: every rank's results into e and the job summary. 0 or -errno (e may then hold part of
 * them: the caller reports no merged figures). */
static int merge_all(struct distrun *r, struct engine *e, const char *all, const size_t *lens)
{
	struct jobsum *j = &r->job;
	j->n_ranks = r->d->size;
	j->n_hosts = r->d->n_hosts;
	j->ranks = calloc((size_t)j->n_ranks, sizeof(*j->ranks));
	j->host_names = calloc((size_t)j->n_hosts, sizeof(*j->host_names));
	if (!j->ranks || !j->host_names)
		return -ENOMEM;
	memcpy(j->host_names, r->d->hosts, (size_t)j->n_hosts * sizeof(*j->host_names));
	size_t at = 0;
	for (int rank = 0; rank < j->n_ranks; rank++) {
		struct unpack u = {.p = all + at, .len = lens[rank]};
		int rc = merge_rank(r, e, rank, &u);
		if (rc)
			return rc;
		at += lens[rank];
	}
	jobsum_finish(j);
	/* The job's run time is the longest rank's: the report's rates are the whole job's. */
	e->runtime_s = j->runtime_s;
	return 0;
}

/* Every rank sends its results to rank 0, which merges them (0: merged, or -errno there; the
 * other ranks 0). */
static int gather_results(struct distrun *r, struct engine *e, int status)
{
	struct packbuf b = {0};
	pack_results(r, e, status, &b);
	char *all = NULL;
	size_t *lens = NULL;
	/* an incomplete buffer still goes (every rank must take part); rank 0 refuses it */
	int rc = dist_gather(r->d, b.p ? b.p : "", b.failed ? 0 : b.len, &all, &lens);
	packbuf_free(&b);
	if (r->d->rank == 0 && !rc)
		rc = merge_all(r, e, all, lens);
	free(all);
	free(lens);
	return rc;
}

static int hook_done(void *ctx, struct engine *e, int rc, char *err, size_t errlen)
{
	struct distrun *r = ctx;
	char mine[MSG_MAX];
	int own = own_outcome(e, rc, err, mine, sizeof(mine));
	enum failure f =
	    dist_agree(r->d, distrun_failure_of(own), mine, r->failure, sizeof(r->failure));
	/* Figures only when every rank measured (a rank whose run phase failed has none). */
	bool all_measured = dist_min_double(r->d, e->measured ? 1 : 0) > 0;
	jobsum_free(&r->job);
	e->job = NULL;
	if (all_measured) {
		int mrc = gather_results(r, e, own);
		if (r->d->rank == 0 && mrc) {
			snprintf(r->failure, sizeof(r->failure),
			         "rank 0: cannot merge the ranks' results: %s", strerror(-mrc));
			f = failure_first(f, FAIL_IO);
			e->measured = false;
		} else if (r->d->rank == 0) {
			e->job = &r->job;
		}
	}
	if (f == FAIL_NONE)
		return 0;
	/* Rank 0 has printed its own failure; another rank's is printed here, once. An interrupted
	 * job is no error: its report says "interrupted", as a single process's does. */
	if (f != FAIL_INTERRUPTED && (!own || r->d->rank != 0))
		fprintf(e->opts->log, "fsmix: %s\n", r->failure);
	if (f != FAIL_INTERRUPTED && !e->failure)
		e->failure = r->failure;
	snprintf(err, errlen, "%s", r->failure);
	return distrun_status_of(f);
}

static bool hook_poll(void *ctx)
{
	struct distrun *r = ctx;
	return dist_watch_poll(r->d);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void hook_run_end(void *ctx, bool failed)
{
	struct distrun *r = ctx;
	dist_watch_end(r->d, failed); /* returns once every rank has got here */
	r->ended_ns = monotonic_ns();
}

double distrun_since_end(const struct distrun *r)
{
	return r->ended_ns ? (double)(monotonic_ns() - r->ended_ns) / 1e9 : -1;
}

void distrun_init(struct distrun *r, struct dist *d)
{
	memset(r, 0, sizeof(*r));
	r->d = d;
	r->hooks = (struct engine_hooks){.ctx = r,
	                                 .go = hook_go,
	                                 .done = hook_done,
	                                 .poll = hook_poll,
	                                 .run_end = hook_run_end,
	                                 .agree = hook_agree};
}

void distrun_free(struct distrun *r)
{
	jobsum_free(&r->job);
}
