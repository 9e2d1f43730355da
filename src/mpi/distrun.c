/* distrun.c - one engine run as one rank of a job (distrun.h). */
#include "distrun.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "statpack.h"

#define RESULTS_MAGIC UINT64_C(0x6673726573756c74) /* "fsresult" */

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static enum failure hook_agree(void *ctx, enum failure f, char *err, size_t errlen)
{
	struct distrun *r = ctx;
	return dist_agree(r->d, f, err, err, errlen);
}

/* This rank's message for its outcome f: the results' failure, else the first worker's error
 * (as the engine prints it), else the signal. */
static void own_message(const struct results *res, enum failure f, char *msg, size_t len)
{
	if (res->failure[0]) {
		snprintf(msg, len, "%s", res->failure);
	} else if (res->n_errors) {
		const struct results_error *e = &res->errors[0];
		snprintf(msg, len, "worker %u (%s): %s: %s(%s): %s after %.3f s", e->worker,
		         e->group < res->n_groups ? res->groups[e->group].name : "?",
		         op_table[e->op].name, sys_table[e->sys].name, e->path, strerror(e->err),
		         (double)e->at_ns / 1e9);
	} else if (f == FAIL_INTERRUPTED) {
		const char *sig = res->signal ? sigabbrev_np(res->signal) : NULL;
		snprintf(msg, len, "interrupted by SIG%s", sig ? sig : "?");
	} else {
		snprintf(msg, len, "failed");
	}
}

/* This rank's totals for the job summary. */
static struct jobsum_rank own_totals(const struct distrun *r, const struct results *res,
                                     enum failure f)
{
	struct results_sums s;
	results_sums(&res->total, NULL, &s);
	/* The stonewall snapshot: taken on hearing the first end, or this rank's own end (its run
	 * time, which is measured from its workers' first start to their last end). */
	const struct distrun_snap *sn = &r->snap;
	double wall_s = sn->heard && sn->c.at_s < res->runtime_s ? sn->c.at_s : res->runtime_s;
	return (struct jobsum_rank){.rank = r->d->rank,
	                            .stonewall_ops = sn->taken ? sn->c.ops : 0,
	                            .stonewall_trans = sn->taken ? sn->c.trans : 0,
	                            .stonewall_s = sn->taken ? wall_s : 0,
	                            .host = r->d->host_index,
	                            .runtime_s = res->runtime_s,
	                            .ops = s.ops,
	                            .trans = s.trans,
	                            .bytes_read = s.bytes_read,
	                            .bytes_written = s.bytes_written,
	                            .errors = s.errors,
	                            .status = (int)f,
	                            .seed = res->seed};
}

/* This rank's results: its totals; the device counters its host's lowest rank read (the other
 * ranks of a host send none); each filesystem's setup; every group's statistics and skips, the
 * total's; CPU; the workers' first errors. */
static void pack_results(const struct distrun *r, const struct results *res, enum failure f,
                         struct packbuf *b)
{
	struct jobsum_rank k = own_totals(r, res, f);
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
	pack_u64(b, k.stonewall_ops);
	pack_u64(b, k.stonewall_trans);
	pack_f64(b, k.stonewall_s);
	pack_f64(b, res->user_s);
	pack_f64(b, res->sys_s);
	pack_f64(b, res->sqpoll_s);
	pack_u64(b, res->has_sqpoll);
	pack_u64(b, res->interrupted);
	pack_u64(b, res->measured);
	bool reads_device = r->d->host_first_rank == r->d->rank;
	pack_u64(b, res->n_fs);
	for (size_t i = 0; i < res->n_fs; i++) {
		const struct results_fs *fs = &res->fs[i];
		pack_u64(b, reads_device);
		pack_str(b, reads_device && fs->dev.has_device ? fs->dev.devname : "");
		pack_str(b, fs->dev.fstype);
		pack_bytes(b, &fs->dev_delta, sizeof(fs->dev_delta));
		pack_f64(b, fs->setup_s);
		pack_u64(b, fs->reused);
		pack_u64(b, fs->built_files);
		pack_u64(b, fs->built_bytes);
	}
	pack_u64(b, res->n_groups);
	for (size_t gi = 0; gi < res->n_groups; gi++) {
		statpack_put(b, &res->groups[gi].st);
		pack_bytes(b, res->groups[gi].skipped, sizeof(res->groups[gi].skipped));
	}
	statpack_put(b, &res->total);
	pack_bytes(b, res->total_skipped, sizeof(res->total_skipped));
	pack_u64(b, res->n_errors);
	for (size_t i = 0; i < res->n_errors; i++)
		pack_bytes(b, &res->errors[i], sizeof(res->errors[i]));
	pack_u64(b, res->verify_mismatches);
}

/* The device counters of a host (its lowest rank's), for the job summary. */
static int add_device(struct jobsum *j, int host, unsigned fs, const char *devname,
                      const char *fstype, const struct devstat_sample *delta)
{
	struct jobsum_device *v = realloc(j->devices, (j->n_devices + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	j->devices = v;
	struct jobsum_device *d = &v[j->n_devices++];
	memset(d, 0, sizeof(*d));
	d->host = host;
	d->fs = fs;
	snprintf(d->devname, sizeof(d->devname), "%s", devname);
	snprintf(d->fstype, sizeof(d->fstype), "%s", fstype);
	d->delta = *delta;
	return 0;
}

/* The filesystems of rank k's record into its results tmp and, from a host's lowest rank, the
 * summary. A rank that is not its host's lowest adds zero device counters (valid where rank
 * 0's are), so that results_merge counts each host's device once. */
static int read_fs(struct jobsum *j, int host, struct unpack *u, struct results *tmp,
                   const struct results *own)
{
	if (unpack_u64(u) != tmp->n_fs)
		return -EBADMSG;
	for (size_t i = 0; i < tmp->n_fs && !u->bad; i++) {
		struct results_fs *fs = &tmp->fs[i];
		char devname[64], fstype[64];
		bool reads_device = unpack_u64(u) != 0;
		unpack_str(u, devname, sizeof(devname));
		unpack_str(u, fstype, sizeof(fstype));
		unpack_bytes(u, &fs->dev_delta, sizeof(fs->dev_delta));
		fs->setup_s = unpack_f64(u);
		fs->reused = unpack_u64(u) != 0;
		fs->built_files = unpack_u64(u);
		fs->built_bytes = unpack_u64(u);
		if (reads_device &&
		    add_device(j, host, (unsigned)i, devname, fstype, &fs->dev_delta))
			return -ENOMEM;
		if (!reads_device) {
			memset(&fs->dev_delta, 0, sizeof(fs->dev_delta));
			fs->dev_delta.valid = own->fs[i].dev_delta.valid;
			fs->dev_delta.has_flush = own->fs[i].dev_delta.has_flush;
			fs->dev_delta.has_discard = own->fs[i].dev_delta.has_discard;
		}
	}
	return u->bad ? -EBADMSG : 0;
}

/* Rank `rank`'s record (u) into the summary and, but for rank 0's own (already in res), into
 * res through a results of the same plan (results_merge). */
static int merge_rank(struct jobsum *j, const struct plan *pl, struct results *res, int rank,
                      struct unpack *u)
{
	struct jobsum_rank *k = &j->ranks[rank];
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
	k->stonewall_ops = unpack_u64(u);
	k->stonewall_trans = unpack_u64(u);
	k->stonewall_s = unpack_f64(u);
	if (u->bad || k->host < 0 || k->host >= j->n_hosts)
		return -EBADMSG;
	struct results *tmp = calloc(1, sizeof(*tmp));
	int rc = tmp ? results_init(tmp, pl) : -ENOMEM;
	if (!rc) {
		tmp->user_s = unpack_f64(u);
		tmp->sys_s = unpack_f64(u);
		tmp->sqpoll_s = unpack_f64(u);
		tmp->has_sqpoll = unpack_u64(u) != 0;
		tmp->interrupted = unpack_u64(u) != 0;
		tmp->runtime_s = k->runtime_s;
		tmp->measured = unpack_u64(u) != 0;
		tmp->seed = k->seed;
		rc = read_fs(j, k->host, u, tmp, res);
	}
	if (!rc && rank != 0 && unpack_u64(u) != tmp->n_groups)
		rc = -EBADMSG;
	for (size_t gi = 0; !rc && rank != 0 && gi < tmp->n_groups; gi++) {
		rc = statpack_merge(u, &tmp->groups[gi].st);
		unpack_bytes(u, tmp->groups[gi].skipped, sizeof(tmp->groups[gi].skipped));
	}
	if (!rc && rank != 0) {
		rc = statpack_merge(u, &tmp->total);
		unpack_bytes(u, tmp->total_skipped, sizeof(tmp->total_skipped));
		uint64_t n = unpack_u64(u);
		for (uint64_t i = 0; !rc && !u->bad && i < n; i++) {
			struct results_error e;
			unpack_bytes(u, &e, sizeof(e));
			e.path[sizeof(e.path) - 1] = '\0';
			rc = u->bad ? -EBADMSG : results_add_error(tmp, &e);
		}
		tmp->verify_mismatches = unpack_u64(u);
		/* a rank whose run phase never ran (its threads could not be made) has no
		 * figures: its line in the summary says so, the job's figures are the others' */
		rc = rc ? rc : u->bad ? -EBADMSG : tmp->measured ? results_merge(res, tmp) : 0;
	}
	if (tmp)
		results_free(tmp);
	free(tmp);
	return rc;
}

/* Rank 0: every rank's results into res and its summary (res->job). 0 or -errno (res may then
 * hold part of them: the caller reports no merged figures). */
static int merge_all(struct distrun *r, const struct plan *pl, struct results *res, const char *all,
                     const size_t *lens)
{
	struct jobsum *j = &res->job;
	jobsum_free(j);
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
		int rc = merge_rank(j, pl, res, rank, &u);
		if (rc)
			return rc;
		at += lens[rank];
	}
	jobsum_finish(j);
	return 0;
}

/* Every rank sends its results to rank 0, which merges them (0: merged, or -errno there; the
 * other ranks 0). */
static int gather_results(struct distrun *r, const struct plan *pl, struct results *res,
                          enum failure f)
{
	struct packbuf b = {0};
	pack_results(r, res, f, &b);
	char *all = NULL;
	size_t *lens = NULL;
	/* an incomplete buffer still goes (every rank must take part); rank 0 refuses it */
	int rc = dist_gather(r->d, b.p ? b.p : "", b.failed ? 0 : b.len, &all, &lens);
	packbuf_free(&b);
	if (r->d->rank == 0 && !rc)
		rc = merge_all(r, pl, res, all, lens);
	free(all);
	free(lens);
	return rc;
}

static enum failure hook_done(void *ctx, const struct plan *pl, struct results *res, enum failure f)
{
	struct distrun *r = ctx;
	char mine[MSG_MAX], job[MSG_MAX];
	own_message(res, f, mine, sizeof(mine));
	enum failure jf = dist_agree(r->d, f, mine, job, sizeof(job));
	/* Every rank sends what it has; one whose run phase never ran sends no figures. */
	int mrc = gather_results(r, pl, res, f);
	memset(&r->snap, 0, sizeof(r->snap)); /* the next point's run phase takes its own */
	if (r->d->rank == 0 && mrc) {
		snprintf(job, sizeof(job), "rank 0: cannot merge the ranks' results: %s",
		         strerror(-mrc));
		jf = failure_first(jf, FAIL_IO);
		res->measured = false;
		jobsum_free(&res->job);
	}
	if (jf == FAIL_NONE || jf == FAIL_INTERRUPTED) /* interrupted: no error, as alone */
		return jf;
	/* Rank 0 has printed its own failure; another rank's is printed here, once. */
	if (f == FAIL_NONE)
		fprintf(stderr, "fsmix: %s\n", job);
	snprintf(res->failure, sizeof(res->failure), "%s", job);
	return jf;
}

/* Every 100 ms while this rank's run phase waits: a stop from another rank, and the first end
 * heard, at which this rank snapshots its workers' progress (unless it is stopping itself: its
 * own end is then its snapshot). */
static bool hook_poll(void *ctx, const struct engine *e)
{
	struct distrun *r = ctx;
	bool ended = false, stop = dist_watch_poll(r->d, &ended);
	if (ended && !r->snap.taken && !engine_is_stopping(e))
		r->snap = (struct distrun_snap){
		    .taken = true, .heard = true, .c = engine_progress(e, monotonic_ns())};
	return stop;
}

static void hook_run_end(void *ctx, const struct engine *e, bool failed)
{
	struct distrun *r = ctx;
	if (!r->snap.taken) /* ended before hearing of another's end: its final count */
		r->snap =
		    (struct distrun_snap){.taken = true, .c = engine_progress(e, monotonic_ns())};
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
	r->hooks = (struct engine_hooks){.rank = d->rank,
	                                 .ranks = d->size,
	                                 .takes_locks = d->rank == 0, /* instance.h */
	                                 .ctx = r,
	                                 .agree = hook_agree,
	                                 .done = hook_done,
	                                 .poll = hook_poll,
	                                 .run_end = hook_run_end};
}

void distrun_free(struct distrun *r)
{
	(void)r;
}
