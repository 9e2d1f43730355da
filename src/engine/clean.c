/* clean.c - `fsmix clean` (engine_clean, engine.h): every tree a plan's filesystems would use
 * removed, only what fsmix made (tree_remove): each location locked first, then this process's
 * tree of each filesystem and, for a single process or rank 0 of a job, the other ranks' trees
 * it finds (instance.h). No engine is made: nothing is built, measured or aged. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "instance.h"

/* engine_clean's removal of one tree: filesystem i's of rank `rank` (instance.h). quiet_missing:
 * say nothing when it does not exist. */
static enum failure clean_tree(const struct plan *pl, size_t i, int rank, bool quiet_missing,
                               const struct engine_opts *o)
{
	struct tree t;
	struct tree_purge sw = {0};
	char why[MSG_MAX];
	/* Opening only (no TREE_CREATE): nothing is created, so a full filesystem can be
	 * cleaned. tree_open also finishes an interrupted creation or removal. */
	int r = tree_open_rank(&t, pl->fs[i].location, pl->fs[i].index, rank,
	                       engine_takes_locks(o) ? 0 : TREE_NO_LOCK, why, sizeof(why));
	if (t.leftovers)
		fprintf(o->log, "fsmix: %s: finished removing an interrupted tree in %s\n",
		        pl->fs[i].name, pl->fs[i].location);
	if (r == -ENOENT && access(pl->fs[i].location, F_OK) == 0) {
		if (!t.leftovers && !quiet_missing)
			fprintf(o->log, "fsmix: %s: nothing to remove in %s\n", pl->fs[i].name,
			        pl->fs[i].location);
		return FAIL_NONE;
	}
	if (r) {
		fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
		return tree_failure(r);
	}
	char root[sizeof(t.root)]; /* "/fsmix.fs0" for location "/", not "//fsmix.fs0" */
	memcpy(root, t.root, sizeof(root));
	if ((r = tree_remove(&t, &sw, why, sizeof(why)))) {
		fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
		return r == -EPERM ? FAIL_INPUT : FAIL_IO; /* -EPERM: another user's directory */
	}
	fprintf(o->log, "fsmix: %s: removed %s (%" PRIu64 " entries)\n", pl->fs[i].name, root,
	        sw.removed);
	return FAIL_NONE;
}

/* Every tree of filesystem i this process removes: its own (fsmix.fsN, or fsmix.fsN.rR for rank
 * R of a job); a single process also every rank's tree fsmix.fsN.r*, and rank 0 of a job those
 * of ranks its job does not have (a bigger job's), so that `fsmix clean` leaves none. Bad input
 * outweighs an I/O error. */
static enum failure clean_fs(const struct plan *pl, size_t i, const struct engine_opts *o)
{
	if (engine_attaches(o)) /* --shared-tree: rank 0 removes the shared tree, once */
		return FAIL_NONE;
	int self = engine_tree_rank(o), *ranks = NULL;
	int n = self == TREE_NO_RANK || self == 0
	            ? tree_instance_find(pl->fs[i].location, pl->fs[i].index, &ranks)
	            : 0;
	n = n < 0 ? 0 : n; /* an unreadable location: clean_tree says why */
	enum failure rc = clean_tree(pl, i, self, n > 0, o), st;
	for (int k = 0; k < n; k++) {
		if (ranks[k] == self || (self == 0 && ranks[k] < o->hooks->ranks))
			continue;
		st = clean_tree(pl, i, ranks[k], true, o);
		rc = rc > st ? rc : st;
	}
	free(ranks);
	return rc;
}

enum failure engine_clean(const struct plan *pl, const struct engine_opts *o)
{
	enum failure rc = FAIL_NONE;
	int locks[pl->n_fs ? pl->n_fs : 1];
	/* Every location is locked before anything is removed: one in use by another process
	 * refuses the whole clean-up. */
	for (size_t i = 0; i < pl->n_fs; i++) {
		char why[512];
		locks[i] = engine_takes_locks(o)
		               ? tree_lock_location(pl->fs[i].location, why, sizeof(why))
		               : 0; /* rank 0 holds them (engine_hooks) */
		if (locks[i] == -EBUSY) {
			fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			for (size_t k = 0; k < i; k++)
				tree_unlock_location(locks[k]);
			return FAIL_INPUT;
		}
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		enum failure st = clean_fs(pl, i, o);
		rc = rc > st ? rc : st;
	}
	for (size_t i = 0; i < pl->n_fs; i++)
		tree_unlock_location(locks[i]);
	return rc;
}
