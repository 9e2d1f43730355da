/* shared.c - a job's shared tree (see shared.h). */
#include "shared.h"

#include <stdio.h>
#include <string.h>

enum failure shared_refusal(const struct engine *e, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	const char *what =
	    pl->verify ? "verify=1 (another rank's writes change the content)" : NULL;
	for (size_t i = 0; i < e->n_fs && !what; i++)
		if (e->fs[i].pf->age)
			what = "agefs=1";
		else if (e->fs[i].pf->dir_per_thread)
			what = "dir_per_thread=1 (each rank counts its threads from 0: they would "
			       "share directories)";
	for (size_t gi = 0; gi < pl->n_groups && !what; gi++)
		if (pl->groups[gi].weight[OP_createdir])
			what = "createdir (the ranks' new directories would collide)";
		else if (pl->groups[gi].weight[OP_mkdir] || pl->groups[gi].weight[OP_rmdir])
			what = "mkdir and rmdir (the ranks' directories in meta/ would collide)";
	if (!what)
		return FAIL_NONE;
	snprintf(err, errlen, "--shared-tree does not support %s", what);
	return FAIL_UNSUPPORTED;
}

enum failure shared_agree(struct engine *e, enum failure f, char *err, size_t errlen)
{
	const struct engine_hooks *h = e->opts->hooks;
	char msg[MSG_MAX];
	snprintf(msg, sizeof(msg), "%s", f && err[0] ? err : "failed");
	enum failure jf = h->agree(h->ctx, f, msg, sizeof(msg));
	if (jf && !f)
		snprintf(err, errlen, "%s", msg);
	return jf;
}

enum failure shared_attach(struct engine *e, struct engine_fs *fs, unsigned flags, char *err,
                           size_t errlen)
{
	char why[MSG_MAX] = "";
	int rc = tree_load_manifest(&fs->tree, fs->spec_hash, &fs->files, flags, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "%s: rank %d cannot attach to the shared tree %s: %s",
		         fs->pf->name, e->opts->hooks->rank, fs->tree.root,
		         why[0] ? why : strerror(-rc));
		return FAIL_INPUT;
	}
	fs->reused = true; /* built nothing: the job's setup counts rank 0's files once */
	return FAIL_NONE;
}

uint64_t shared_capacity(const struct engine *e, uint64_t initial, uint64_t n)
{
	if (!engine_shares(e->opts) || n <= initial)
		return n;
	uint64_t grow = n - initial, k = (uint64_t)e->opts->hooks->ranks;
	if (grow > (UINT64_MAX - initial - k) / k)
		return UINT64_MAX; /* unbounded */
	return initial + grow * k + k;
}

void shared_partition(const struct engine *e, struct engine_fs *fs)
{
	const struct engine_hooks *h = e->opts->hooks;
	if (!engine_shares(e->opts))
		return;
	pool_partition(&fs->files, (uint32_t)h->ranks, (uint32_t)h->rank);
	pool_partition(&fs->meta, (uint32_t)h->ranks, (uint32_t)h->rank);
}
