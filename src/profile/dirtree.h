/* dirtree.h - the directory tree keys of a filesystem (fsmix extensions): dir_depth,
 * dir_fanout, dir_files and dir_per_thread. Their parser (also for tests) and the rules plan.c
 * applies to a filesystem (once its keys are filled) and to the threads that use it. */
#ifndef FSMIX_DIRTREE_H
#define FSMIX_DIRTREE_H

#include <stdio.h>

#include "plan.h"
#include "profile.h"
#include "value.h"

/* dirtree_parse_files - dir_files: "uniform" (*shape = 0) or "gamma:SHAPE" (0.01 <= SHAPE <=
 * 1000). NULL, or the message. */
const char *dirtree_parse_files(const char *text, double *shape, char err[VALUE_ERR_LEN]);

/* The settings of the tree keys of one filesystem (through clone), for their lines. */
struct dirtree_settings {
	const struct setting *num_dirs, *depth, *fanout, *files, *per_thread;
};

/* dirtree_fs - f's tree: dir_files parsed into dir_gamma, data_dirs and top_files set, and
 * the rules: dir_depth > 1 needs num_dirs and dir_fanout; at most DIRLAYOUT_MAX_DIRS
 * directories in all; dir_files and dir_per_thread need directories. */
void dirtree_fs(struct diag *d, const struct section *s, const struct dirtree_settings *st,
                struct plan_fs *f);

/* dirtree_threads - dir_per_thread=1 needs a file directory per thread (total_threads: those
 * that run at once, phases_threads_at_once; of
 * every group). */
void dirtree_threads(struct diag *d, const struct section *s, const struct dirtree_settings *st,
                     const struct plan_fs *f, uint64_t total_threads);

/* dirtree_print - `fsmix check`'s summary of a tree of several levels or of dir_files or
 * dir_per_thread (lines indented by 4); nothing for FFSB's layout. */
void dirtree_print(FILE *out, const struct plan_fs *f);

#endif
