/* build.h - setting up one filesystem before the run: its own tree, reused through the manifest
 * or rebuilt in parallel, and its pools. */
#ifndef FSMIX_BUILD_H
#define FSMIX_BUILD_H

#include <stddef.h>

#include "engine.h"

/* build_fs - open <location>/fsmix.fsN, then reuse (reuse=1 and an intact manifest of the same
 * spec) or rebuild its files with `threads` builder threads, and syncfs it. Returns 0, or an
 * exit status (exitcode.h) with the reason in err: EXIT_BAD_INPUT for an unusable location,
 * EXIT_RUN_FAILED for I/O errors while building, EXIT_INTERRUPTED when the run was stopped.
 * With agefs=1, `age` ages the emptied tree (its directories made) before the files are built,
 * as FFSB does, so the benchmark's files are laid out on the aged filesystem; such a tree is
 * never reused (FFSB refused reuse with agefs). */
typedef int build_age_fn(struct engine *e, struct engine_fs *fs, char *err, size_t errlen);
int build_fs(struct engine *e, struct engine_fs *fs, unsigned threads, build_age_fn *age, char *err,
             size_t errlen);

/* build_lock - lock every filesystem's location (tree_lock_location) before anything is built,
 * so a location in use is found before another one's tree is. Returns 0, or EXIT_BAD_INPUT
 * with err naming the busy location and its holder. Other errors are left to build_fs, which
 * reports them for its location. build_release drops the lock. */
int build_lock(struct engine *e, char *err, size_t errlen);

/* build_release - close the tree and free the pools of fs (the files stay on disk), and drop
 * its location lock. */
void build_release(struct engine_fs *fs);

#endif
