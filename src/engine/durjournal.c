/* durjournal.c - the main thread's side of --durability-log FILE (durlog.h): the log opened
 * before anything is built (refused on a tested filesystem), the tree as the run starts recorded
 * and made durable, the logger started with a ring per worker, stopped and drained after the
 * join. The records the workers add are durhook.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durhook.h"
#include "engine.h"
#include "engine_int.h"

enum failure engine_durlog_open(struct engine *e)
{
	const char *path = e->opts->durability_log_path;
	char err[MSG_MAX + 512];
	if (!path)
		return FAIL_NONE;
	const char **locs = calloc(e->n_fs ? e->n_fs : 1, sizeof(*locs));
	if (!locs) {
		fprintf(e->opts->log, "fsmix: out of memory\n");
		return FAIL_IO;
	}
	for (size_t i = 0; i < e->n_fs; i++)
		locs[i] = e->plan->fs[i].location;
	int rc = durlog_check_place(path, locs, e->n_fs, err, sizeof(err));
	free(locs);
	if (!rc)
		rc = durlog_open(&e->durlog, path, err, sizeof(err));
	if (rc) {
		fprintf(e->opts->log, "fsmix: %s\n", err);
		/* a stop signal ended the wait for a FIFO's reader: interrupted, not bad input */
		return rc == -EINTR ? FAIL_INTERRUPTED : FAIL_INPUT;
	}
	struct stat st;
	if (!e->durlog.durable && fstat(e->durlog.fd, &st) == 0)
		fprintf(e->opts->log,
		        "fsmix: warning: --durability-log '%s' is %s, not a regular file: its "
		        "records are written but cannot be made durable (no fdatasync), so fsmix "
		        "verify cannot use it after a crash\n",
		        path, S_ISFIFO(st.st_mode) ? "a FIFO (a pipe)" : "a character device");
	e->durlog_open = true;
	return FAIL_NONE;
}

/* The records of the tree as the run starts: every file of every filesystem (DL_BASE). */
struct base_walk {
	struct durlog_rec *recs;
	size_t n, cap;
	uint16_t fs;
	const struct pool *pool;
	uint64_t t;
};

static int base_visit(uint32_t id, uint32_t dir, uint64_t size, void *arg)
{
	struct base_walk *b = arg;
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 1024;
		struct durlog_rec *p = realloc(b->recs, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->recs = p;
		b->cap = nc;
	}
	b->recs[b->n] = (struct durlog_rec){.kind = DL_BASE,
	                                    .fs = b->fs,
	                                    .worker = DURLOG_WORKER_MAIN,
	                                    .seq = b->n,
	                                    .t_start = b->t,
	                                    .t_end = b->t,
	                                    .file = id,
	                                    .dir = dir,
	                                    .size = size,
	                                    .gen = DURHOOK_POOL_GEN(b->pool, id)};
	b->n++;
	return 0;
}

/* A main-thread record after the others. */
static int base_add(struct base_walk *b, struct durlog_rec r)
{
	if (base_visit(0, 0, 0, b))
		return -ENOMEM;
	r.worker = DURLOG_WORKER_MAIN;
	r.seq = b->n - 1;
	b->recs[b->n - 1] = r;
	return 0;
}

/* Header, the tree as it is (DL_BASE of every file), a syncfs of every filesystem (so what the
 * run starts from is durable, and recorded so), then the logger with a ring per worker. */
int durjournal_begin(struct engine *e, char *err, size_t errlen)
{
	if (!e->durlog_open)
		return 0;
	struct durlog_header h = {
	    .version = DURLOG_VERSION, .n_workers = (uint32_t)e->n_workers, .run_id = e->run_id};
	struct timespec mono, real;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	h.mono_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	h.real_ns = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
	if (e->n_fs > DURLOG_MAX_FS) {
		snprintf(err, errlen, "--durability-log: at most %d filesystems", DURLOG_MAX_FS);
		return -1;
	}
	h.n_fs = (uint32_t)e->n_fs;
	h.flags = DLH_NO_DELETES | DLH_NO_CREATES | DLH_NO_LINKS | DLH_NO_RMDIRS;
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		const struct plan_group *g = &e->plan->groups[gi];
		if (g->dirsync)
			h.flags |= DLH_DIRSYNC;
		for (int op = 0; op < OP_COUNT && !g->aging; op++) { /* (ageing: before the run) */
			unsigned fl = g->weight[op] ? op_table[op].flags : 0;
			/* f<id> gone from where it was; a link or unlink moves only l<id>: a lost
			 * tail of a run that only links cannot excuse a missing f<id> */
			if (fl & (OPF_DELETES | OPF_RENAMES))
				h.flags &= ~DLH_NO_DELETES;
			if (fl & OPF_LINKS)
				h.flags &= ~DLH_NO_LINKS;
			if (g->weight[op] && op == OP_rmdir) /* (metaop: refused with the log) */
				h.flags &= ~DLH_NO_RMDIRS;
			if (fl &
			    (OPF_CREATES | OPF_RESIZES)) /* (a file made shorter: as made anew) */
				h.flags &= ~DLH_NO_CREATES;
		}
	}
	struct base_walk b = {0};
	int rc = 0;
	for (size_t i = 0; i < e->n_fs && !rc; i++) {
		struct engine_fs *fs = &e->fs[i];
		h.fs[i] = (struct durlog_fs_id){.index = fs->pf->index,
		                                .tree_id = fs->tree.tree_id,
		                                .content_seed = DURHOOK_CONTENT_SEED(fs),
		                                .spec_hash = fs->spec_hash,
		                                .content_mode = fs->pf->content_mode,
		                                .content_pct = fs->pf->content_pct};
		b.fs = (uint16_t)i;
		b.pool = &fs->files;
		b.t = now_ns();
		rc = pool_foreach_live(&fs->files, base_visit, &b);
		int dfd = tree_data_dirfd(&fs->tree, TREE_DIR_TOP);
		uint64_t t0 = now_ns();
		if (!rc && syncfs(dfd) < 0) {
			snprintf(err, errlen, "%s: syncfs %s: %s", fs->pf->name, fs->tree.root,
			         strerror(errno));
			free(b.recs);
			return -1;
		}
		if (!rc)
			rc = base_add(&b, (struct durlog_rec){.kind = DL_SYNCFS,
			                                      .fs = (uint16_t)i,
			                                      .t_start = t0,
			                                      .t_end = now_ns()});
	}
	if (rc) {
		snprintf(err, errlen, "out of memory for the durability log");
		free(b.recs);
		return -1;
	}
	rc = durlog_begin(&e->durlog, &h, b.recs, b.n, e->n_workers, err, errlen);
	free(b.recs);
	if (rc)
		return -1;
	e->durlog_running = true;
	for (size_t i = 0; i < e->n_workers; i++)
		e->workers[i]->dl = durlog_ring_of(&e->durlog, i);
	return 0;
}

void durjournal_end(struct engine *e)
{
	if (!e->durlog_open)
		return;
	char err[MSG_MAX];
	struct durlog_stats st;
	e->durlog_open = false;
	if (durlog_stop(&e->durlog, &st, err, sizeof(err))) {
		engine_fail(e, err);
		e->durlog_failed = true;
	} else if (e->durlog_running) {
		fprintf(e->opts->log,
		        "fsmix: durability log %s: %" PRIu64 " records, %" PRIu64
		        " waits for the logger, %" PRIu64 " fdatasyncs; run %016" PRIx64 "\n",
		        e->opts->durability_log_path, st.records, st.waits, st.syncs, e->run_id);
	}
	e->durlog_running = false;
	for (size_t i = 0; e->workers && i < e->n_workers; i++)
		if (e->workers[i])
			e->workers[i]->dl = NULL;
	durlog_free(&e->durlog);
}
