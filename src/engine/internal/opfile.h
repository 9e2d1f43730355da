/* opfile.h - the operations on an existing file's bytes (opfile.c: read, readall, write,
 * writeall, append, open_close), for opexec.c's table of bodies. Each returns 0, OP_SKIPPED
 * when the pool had no file for it, or -errno with the failure latched. */
#ifndef FSMIX_OPFILE_H
#define FSMIX_OPFILE_H

#include "engine_int.h"

int op_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_open_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

#endif
