/* opfile.h - the operations on an existing file's bytes (opfile.c: read, readall, write,
 * writeall, append, open_close), for opexec.c's table of bodies. Each returns 0, OP_SKIPPED
 * when the pool had no file for it, or -errno with the failure latched. */
#ifndef FSMIX_OPFILE_H
#define FSMIX_OPFILE_H

#include "engine_int.h"
#include "opcontent.h"

int op_read(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_readall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_write(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_writeall(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
int op_append(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);
/* The bodies and helpers a sequence's steps share with these ops (opseq.c), on a file f
 * already open and held: */
/* opfile_read_body / opfile_write_body - read's and write's I/O: read_size (write_size)
 * bytes from one offset (random_distribution), as the read and write ops; 0, or -errno latched. */
int opfile_read_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                     struct op_result *r);
int opfile_write_body(struct worker *w, struct engine_fs *fs, enum op_id op, struct held_file *f,
                      struct op_result *r);
/* opfile_begin_write - f (held exclusively) to its next generation, journaled; where its writes
 * go (the caller sets .off). fresh: f->gen holds the current generation (0 for a new file). */
struct wpos opfile_begin_write(struct worker *w, struct engine_fs *fs, struct held_file *f,
                               bool fresh);
/* opfile_verify_read - verify=1: the `got` bytes read into w->rbuf from offset off (`want`
 * asked for) checked against f's generations; 0, or -EBADMSG latched. */
int opfile_verify_read(struct worker *w, struct engine_fs *fs, enum op_id op,
                       const struct held_file *f, uint64_t off, int64_t got, uint64_t want);
int op_open_close(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

#endif
