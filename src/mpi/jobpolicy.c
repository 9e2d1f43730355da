/* jobpolicy.c - a rank's outputs and rank 0's locks in a distributed run (jobpolicy.h). */
#include "jobpolicy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum failure jobpolicy_outputs(const struct dist *d, struct jobpolicy_outputs *o, char *err,
                               size_t errlen)
{
	if (!d->on)
		return FAIL_NONE;
	if (o->interval_s > 0) {
		snprintf(err, errlen, "--interval is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (o->crash_after) {
		snprintf(err, errlen, "--crash-after is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (o->durability) { /* verify checks one process's trees */
		snprintf(err, errlen,
		         "--durability-log is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (o->lat_log && !strcmp(o->lat_log, "-")) {
		snprintf(err, errlen,
		         "--lat-log - is not available in a distributed run: give a "
		         "FILE (rank R writes FILE.rR)");
		return FAIL_INPUT;
	}
	if (o->lat_log && o->run) {
		if (snprintf(o->lat_log_buf, sizeof(o->lat_log_buf), "%s.r%d", o->lat_log,
		             d->rank) >= (int)sizeof(o->lat_log_buf)) {
			snprintf(err, errlen, "--lat-log '%s': name too long", o->lat_log);
			return FAIL_INPUT;
		}
		o->lat_log = o->lat_log_buf;
	}
	if (d->rank != 0) /* rank 0 writes the job's results */
		o->json = o->csv = o->plot = NULL;
	return FAIL_NONE;
}

enum failure jobpolicy_lock(const struct dist *d, struct jobpolicy_locks *l, const struct plan *pl,
                            char *err, size_t errlen)
{
	if (!d->on || d->rank != 0)
		return FAIL_NONE;
	for (size_t i = 0; i < pl->n_fs; i++) {
		int h = tree_lock_location(pl->fs[i].location, err, errlen);
		if (h < 0)
			return h == -EBUSY ? FAIL_INPUT : tree_failure(h);
		bool held = h == 0; /* 0: a location that cannot be locked */
		for (size_t k = 0; k < l->n && !held; k++)
			held = l->h[k] == h;
		if (held) {
			tree_unlock_location(h); /* a reference more of a location held once */
			continue;
		}
		if (l->n == sizeof(l->h) / sizeof(l->h[0])) {
			tree_unlock_location(h);
			snprintf(err, errlen, "location '%s': more than %d locations at once",
			         pl->fs[i].location, TREE_MAX_LOCKS);
			return FAIL_IO;
		}
		l->h[l->n++] = h;
	}
	return FAIL_NONE;
}

void jobpolicy_unlock(struct jobpolicy_locks *l)
{
	for (size_t i = 0; i < l->n; i++)
		tree_unlock_location(l->h[i]);
	l->n = 0;
}
