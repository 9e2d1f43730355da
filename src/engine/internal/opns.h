/* opns.h - the namespace operations (opns.c: rename, replace_fsync; truncate, fallocate,
 * punch_hole, zero_range), for opexec.c's table of bodies. They never run in an aging group
 * (plan.c: aging groups only create, append and delete), so they work on the benchmark's file set,
 * fs->files, whose ids are the names on disk. */
#ifndef FSMIX_OPNS_H
#define FSMIX_OPNS_H

#include "engine_int.h"

int op_rename(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_replace_fsync(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_truncate(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_fallocate(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_punch_hole(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_zero_range(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_mkdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_rmdir(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
/* pick_dir (oplink.c) - a directory for a new file: dir_per_thread: one of the thread's own
 * (k, k+T, k+2T, ... for worker k of T); FFSB's layout: data/ itself with probability
 * 1/(dirs+1); otherwise a data directory by dir_files' shares; createdir's once they exist. */
uint32_t pick_dir(struct worker *w, struct engine_fs *fs);

/* other_dir (oplink.c) - where a renamed file or a second name goes: a create's directory
 * (pick_dir), but never from; TREE_DIR_TOP both ways in a tree without directories. */
uint32_t other_dir(struct worker *w, struct engine_fs *fs, uint32_t from);

/* oplink.c: a second name l<id> for a file, and its removal */
int op_link(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_unlink(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

/* oplink_drop - the second name of file id (held exclusively), if it has one, unlinked
 * (journaled as DL_UNLINK) before a delete or a replace_fsync: 0, or the op's failure
 * (latched, -errno). Files of an aged set never have one. */
int oplink_drop(struct worker *w, struct engine_fs *fs, enum op_id op, uint32_t id);

#endif
