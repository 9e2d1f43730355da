/* shared.h - a job's shared tree (--shared-tree, docs/distributed.md): rank 0 builds or reuses
 * the one tree fsmix.fs<N>, the other ranks attach to it after a barrier, and each rank
 * creates and deletes only its own ids (pool_partition). The setup's steps the engine takes
 * for it, kept apart from the single-process path (populate.c, run.c). */
#ifndef FSMIX_SHARED_H
#define FSMIX_SHARED_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_int.h"
#include "failure.h"

/* shared_gone - did a system call on file `id` of fs fail with err (0: a short read) because
 * the rank that owns it deleted or replaced it since the pick (ENOENT, or a shorter file)? Then
 * the op is a skipped pick, not an error. Always false when the tree is not shared. */
static inline bool shared_gone(const struct engine_fs *fs, int err, uint32_t id)
{
	return fs->files.part_n && (err == ENOENT || err == 0) && id != UINT32_MAX &&
	       !pool_owns(&fs->files, id);
}

/* shared_refusal - FAIL_UNSUPPORTED with err for what a shared tree cannot do (verify=1,
 * agefs=1, createdir), else FAIL_NONE. Every rank answers alike (the same plan). */
enum failure shared_refusal(const struct engine *e, char *err, size_t errlen);

/* shared_agree - one agreement of the job's ranks (engine_hooks.agree) on f: the job's failure,
 * with another rank's message put in err. */
enum failure shared_agree(struct engine *e, enum failure f, char *err, size_t errlen);

/* shared_attach - a rank other than 0: fill fs's pool from the manifest rank 0 wrote (load
 * flags as tree_load_manifest's); no valid one is FAIL_INPUT with err, never a build. */
enum failure shared_attach(struct engine *e, struct engine_fs *fs, unsigned flags, char *err,
                           size_t errlen);

/* shared_capacity - the pool capacity bound n (initial + growth) of a rank whose new ids are
 * every ranks-th one: initial + ranks x growth (+ ranks). n itself when the tree is not
 * shared. */
uint64_t shared_capacity(const struct engine *e, uint64_t initial, uint64_t n);

/* shared_partition - partition fs's pools by rank (pool_partition) when the tree is shared. */
void shared_partition(const struct engine *e, struct engine_fs *fs);

#endif
