/* populate.h - making one filesystem's tree ready before the run: its own directory on disk,
 * reused through the manifest or built anew by parallel builder threads, and its pools.
 *
 * It stays in the engine layer (not src/tree) because it works on the engine's per-filesystem
 * state (struct engine_fs: tree, pools, size table, directory flags), stops with the engine
 * (engine_stopping), probes O_DIRECT the way the workers open files (op_probe_directio), and
 * ages through the engine's own phase (populate_age_fn). */
#ifndef FSMIX_POPULATE_H
#define FSMIX_POPULATE_H

#include <stddef.h>

#include "engine_int.h"
#include "failure.h"

/* populate_age_fn - age fs's emptied tree (its directories made) before its files are built;
 * FAIL_NONE or the kind of failure, with the reason in err. */
typedef enum failure populate_age_fn(struct engine *e, struct engine_fs *fs, char *err,
                                     size_t errlen);

/* populate_fs - open <location>/fsmix.fsN, then reuse (reuse=1 and an intact manifest of the
 * same spec) or rebuild its files with `threads` builder threads, and syncfs it. Returns
 * FAIL_NONE, or with the reason in err: FAIL_INPUT for an unusable location or a tree fsmix
 * will not write into, FAIL_IO for I/O errors while building, FAIL_UNSUPPORTED when O_DIRECT
 * or fallocate is refused, FAIL_INTERRUPTED when the run was stopped. With agefs=1, `age` ages
 * the emptied tree (its directories made) before the files are built, as FFSB does, so the
 * benchmark's files are laid out on the aged filesystem; such a tree is never reused (FFSB
 * refused reuse with agefs). */
enum failure populate_fs(struct engine *e, struct engine_fs *fs, unsigned threads,
                         populate_age_fn *age, char *err, size_t errlen);

/* populate_lock - lock every filesystem's location (tree_lock_location) before anything is
 * built, so a location in use is found before another one's tree is. Returns FAIL_NONE, or
 * FAIL_INPUT with err naming the busy location and its holder. Other errors are left to
 * populate_fs, which reports them for its location. populate_release drops the lock. */
enum failure populate_lock(struct engine *e, char *err, size_t errlen);

/* populate_release - close the tree and free the pools of fs (the files stay on disk), and
 * drop its location lock. */
void populate_release(struct engine_fs *fs);

#endif
