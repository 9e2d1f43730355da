/* opseq.h - the steps of a sequence that work on the file it keeps open (opseq.c: create,
 * open, write, append, read, readall, fsync and fdatasync, close), for opexec.c's table of
 * bodies and its op_sequence. Each returns 0, OP_SKIPPED or OP_BUSY (open: no file), or -errno
 * with the failure latched; the step running is w->seq.step. */
#ifndef FSMIX_OPSEQ_H
#define FSMIX_OPSEQ_H

#include "engine_int.h"

int op_seq_create(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_open(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_sync(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_seq_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

/* seq_abort - after a step failed (rc -errno) or found no file (OP_SKIPPED, OP_BUSY): the open
 * file closed (untimed), a created file removed (when its open made it) and its slot given
 * back, an opened one released. sequence_hold=1 keeps the descriptor open when only the pick
 * missed (rc OP_SKIPPED or OP_BUSY): the next loop takes the same file back. */
void seq_abort(struct worker *w, struct engine_fs *fs, int rc);

/* seq_finish - the end of a worker's run (its phase's end): the descriptor sequence_hold kept
 * open between loops closed (untimed); nothing is held of the pool between loops. */
void seq_finish(struct worker *w);

#endif
