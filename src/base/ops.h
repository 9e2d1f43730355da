/* ops.h - operation and syscall identities, expanded from ops.def and sys.def. */
#ifndef FSMIX_OPS_H
#define FSMIX_OPS_H

#include <stdbool.h>

enum op_flags {
	OPF_READ = 1u << 0,      /* reads with read_blocksize: the group needs it set */
	OPF_WRITE = 1u << 1,     /* writes with write_blocksize: the group needs it set */
	OPF_FILE = 1u << 2,      /* works on an existing file of the pool */
	OPF_CREATES = 1u << 3,   /* adds a file to the pool */
	OPF_DELETES = 1u << 4,   /* removes a file from the pool */
	OPF_META = 1u << 5,      /* works on directories, not on pool files */
	OPF_FSYNC = 1u << 6,     /* fsync() after the writes, before close() */
	OPF_FDATASYNC = 1u << 7, /* fdatasync() after the writes, before close() */
	OPF_TWICE = 1u << 8,     /* the writes and their sync call are done twice (append_fsync2) */
	OPF_APPENDS = 1u << 9,   /* appends to an existing file (allowed in aging groups) */
	OPF_WSIZE = 1u << 10,    /* writes write_size bytes: the group needs write_size set */
	OPF_EXT = 1u << 11,      /* fsmix extension: its weight key is rejected by --strict-ffsb */
	OPF_RENAMES = 1u << 12,  /* moves a pool file's name, or puts a new inode under it
	                          * (rename, replace_fsync): the pool cannot be frozen, and a lost
	                          * log tail may hide where a file went */
	OPF_RESIZES = 1u << 13,  /* sets a pool file's length or blocks (truncate, fallocate,
	                          * punch_hole, zero_range): the pool cannot be frozen, a reused
	                          * tree is checked file by file, and a lost log tail may hide a
	                          * shorter file or a range of zeroes */
	OPF_HOLES = 1u << 14,    /* leaves bytes of zeroes that no generation describes (truncate
	                          * longer, punch_hole, zero_range): verify=1 refuses its weight */
	OPF_LINKS = 1u << 15,    /* adds or removes a pool file's second name l<id> (link, unlink):
	                          * the pool cannot be frozen, the pool keeps second names, and the
	                          * tree keeps no reuse manifest (a file of two names is refused) */
	OPF_STEP = 1u << 16,     /* a step of a sequence (sequence=): no weight key; its row details
	                          * its sequence, so totals leave it out (results_sums) */
	OPF_SEQ = 1u << 17, /* the sequence itself: no weight key, picked when sequence= is set */
};

/* op_sync_calls - how many fsync()/fdatasync() one op issues after its writes (a table fact:
 * reports use it to count sync calls of groups that do not time them): replace_fsync
 * (OPF_RENAMES | OPF_FSYNC) two, its file's and its directory's. The sync and syncfs ops are
 * not counted here: 0 for them. */
unsigned op_sync_calls(unsigned flags);

enum op_id {
#define OP(name, flags, body, help) OP_##name,
#include "ops.def"
#undef OP
	OP_COUNT
};

struct op_desc {
	const char *name;
	unsigned flags; /* enum op_flags */
	const char *help;
};

extern const struct op_desc op_table[OP_COUNT];

enum sys_flags {
	SYSF_FFSB = 1u << 0, /* one of FFSB 6.0's eight timed calls */
	SYSF_SYNC = 1u << 1, /* flushes data to stable storage (the "Sync latency" section) */
};

enum sys_id {
#define SYS(name, flags) SYS_##name,
#include "sys.def"
#undef SYS
	SYS_COUNT
};

struct sys_desc {
	const char *name;
	unsigned flags; /* enum sys_flags */
};

extern const struct sys_desc sys_table[SYS_COUNT];

#endif
