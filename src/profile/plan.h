/* plan.h - the validated, typed and read-only description of a run, built from a profile
 * (after command-line overrides). Every cross-key rule lives in plan_build(); once built, the
 * plan is shared by all workers and never written again. Re-running with other thread counts
 * (sweeps) means building another plan from the same profile.
 */
#ifndef FSMIX_PLAN_H
#define FSMIX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "iodist.h"
#include "popdist.h"
#include "sizedist.h"
#include "ops.h"
#include "profile.h"

struct plan_size_weight {
	uint64_t size;   /* bytes */
	uint64_t weight; /* > 0 */
};

struct plan_range {
	double lo_ms, hi_ms; /* lo < hi; ranges of a group never overlap */
};

/* One step of a sequence (sequence=): its op (an OPF_STEP row of ops.def) done `times` times
 * in a row (write*4); an open step's `writes`: a later step before its close writes, so the
 * file is opened for writing and held exclusively. */
#define PLAN_SEQ_MAX 64
struct plan_step {
	uint8_t op; /* enum op_id */
	bool writes;
	uint32_t times;
};

struct plan_group {
	unsigned index;   /* threadgroupN; aging groups: index of their filesystem */
	const char *name; /* "threadgroup0" or "filesystem0.threadgroup" (borrowed from profile) */
	bool aging;
	uint32_t num_threads;
	uint32_t weight[OP_COUNT];
	uint64_t total_weight; /* > 0 */
	bool read_random, read_skip, write_random;
	bool dirsync; /* fsmix extension: fsync the parent directory after create, delete, rename */
	uint64_t read_size, read_blocksize, read_skipsize; /* bytes */
	uint64_t write_size, write_blocksize;              /* bytes */
	uint32_t op_delay_ms;
	/* fsmix extensions */
	uint64_t num_ops;        /* operations per thread, 0: until the run stops */
	uint32_t start_delay_ms; /* wait before the first operation */
	uint32_t phase;          /* phase: the phase it runs in (0 without phases) */
	uint32_t phase_time_s;   /* phase_time: its phase's time, 0: the global time */
	bool stonewall;          /* stonewall=1: its first thread done ends the phase */
	uint32_t op_period_ms;   /* one op every period (from the first), 0: back to back */
	uint64_t write_stride;   /* write: offset step per op of a thread, 0: random */
	int open_sync;           /* extra open flag of written files: 0, O_SYNC or O_DSYNC */
	int bindfs;              /* index into plan.fs, -1: every op picks a filesystem at random */
	/* fsmix extensions: realism (realism.c parses and checks them) */
	const char *file_popularity; /* the key's text */
	struct popdist pop;          /* POP_UNIFORM: pool_pick as before */
	int file_order;              /* ORDER_RANDOM (pop's draw) or ORDER_SEQUENTIAL */
	const char *op_rate;         /* the key's text, NULL: no op_rate */
	double rate_target;       /* op_rate: operations per second of the whole group, 0: none */
	uint64_t sched_period_ns; /* op_period or op_rate: mean gap between one thread's starts */
	int arrival;              /* ARRIVAL_FIXED or ARRIVAL_POISSON */
	/* fsmix extensions: sizes and offsets inside a file (iokeys.c parses and checks them) */
	const char *write_bssplit, *write_bsrange, *read_bssplit, *read_bsrange; /* as written */
	struct iosize wmix, rmix; /* the call size of write (and syncs) and read; unset: the keys */
	const char *random_distribution; /* as written */
	struct offdist offd;             /* OFF_RANDOM: uniform byte offsets, as before */
	uint32_t percentage_random;      /* share of offsets drawn (%); others sequential */
	int arrival_backlog;             /* BACKLOG_DROP or BACKLOG_QUEUE: a start that passed */
	uint32_t arrival_backlog_max; /* BACKLOG_QUEUE: most starts queued (periods late), >= 1 */
	int io_engine;                /* enum io_engine_kind: how the workers issue their calls */
	uint32_t iodepth;             /* operations a worker keeps in flight (> 1: io_uring only) */
	bool shared_writes; /* iodepth > 1: a worker's writes in flight share their file */
	/* fsmix extension: sequence= (seqkeys.c parses and checks it). A group with a sequence
	 * picks only OP_sequence (weight 1); weight[step op] is how many of its steps are that
	 * step, so every rule that reads weights (what the group may change, the calls it makes)
	 * sees the steps. */
	const char *sequence;               /* the key's text, NULL: none */
	struct plan_step seq[PLAN_SEQ_MAX]; /* the steps in order */
	uint32_t n_seq;
	bool sequence_hold; /* sequence_hold=1: its file stays open across loops (opseq.c) */
	bool sqpoll; /* io_uring: a kernel polling thread per worker's ring (IORING_SETUP_SQPOLL) */
	/* [stats] */
	bool enable_stats, enable_range;
	uint32_t ignore_mask; /* bit (1 << enum sys_id): not timed */
	struct plan_range *ranges;
	size_t n_ranges;
};

/* How op_period or op_rate spaces a thread's starts (arrival). */
enum arrival_kind { ARRIVAL_FIXED = 0, ARRIVAL_POISSON };

/* How a thread takes existing files (file_order): pop's random draw, or in turn by id. */
enum file_order_kind { ORDER_RANDOM = 0, ORDER_SEQUENTIAL };

/* What becomes of a scheduled start that passed while the thread was busy (arrival_backlog). */
enum arrival_backlog { BACKLOG_DROP = 0, BACKLOG_QUEUE };
/* How a group's workers issue their system calls (engine; src/engine/ioengine.h, docs/engines.md).
 */
enum io_engine_kind { IOENG_SYNC = 0, IOENG_URING, IOENG_COUNT };
/* The key's word for engine kind k (keys.def's WORDS), for messages and reports. */
static inline const char *io_engine_word(int k)
{
	return k == IOENG_URING ? "io_uring" : k == IOENG_SYNC ? "sync" : "?";
}

/* How build.c gives the initial files their size (create_method). */
enum create_method { CREATE_WRITE = 0, CREATE_FALLOCATE, CREATE_SPARSE };

struct plan_fs {
	unsigned index;
	const char *name;     /* "filesystem0" (borrowed) */
	const char *location; /* borrowed from the profile or the command line */
	uint32_t num_files, num_dirs;
	/* The directory tree (dirtree.c; dirlayout.h): dir_depth levels (1: FFSB's), dir_fanout
	 * subdirectories per directory above the last level, the files in the data_dirs
	 * directories of the last level, spread by dir_files (dir_gamma: the gamma shape of each
	 * directory's share, 0: uniform), created by their own threads only with dir_per_thread.
	 * top_files: files go in data/ itself too (FFSB's layout: one level, uniform, shared). */
	uint32_t dir_depth, dir_fanout, data_dirs;
	const char *dir_files_text; /* the key's text */
	double dir_gamma;
	bool dir_per_thread, top_files;
	bool reuse, agefs;
	uint64_t min_filesize, max_filesize; /* bytes; used when n_sizes == 0 */
	struct plan_size_weight *sizes;      /* in file order */
	size_t n_sizes;
	uint64_t size_weight_total;
	const char *size_dist_text; /* size_dist as written, NULL: none */
	struct sizedist size_dist;  /* SIZEDIST_NONE: size_weight or min/max_filesize */
	uint64_t create_blocksize, age_blocksize;
	enum create_method create_method;
	double desired_util, init_util;    /* fractions 0..1 */
	uint64_t init_size;                /* bytes */
	struct plan_group *age;            /* the aging group when agefs=1, else NULL */
	uint8_t content_mode, content_pct; /* the global key content, for this tree's files */
};

/* One phase of a profile with phases (phase=N; phases.c): its length and how it ends. */
#define PLAN_MAX_PHASES 64 /* phase=0 .. 63 (keys.def) */
struct plan_phase {
	uint32_t time_s;   /* phase_time of its groups, else the global time; 0: none */
	bool counted;      /* some group of it has num_ops: it ends when they are done */
	bool stonewall;    /* some group of it has stonewall=1 */
	uint32_t n_groups; /* its thread groups */
	uint64_t threads;  /* their threads */
};

/* What a run reproduces (fidelity): the profile as written, or FFSB 6.0's departures from it
 * (docs/profile.md, "Where FFSB 6.0's results differ from the profile"). */
enum fidelity { FIDELITY_EXACT = 0, FIDELITY_FFSB6 };

struct plan {
	uint32_t time_s;
	uint32_t ramp_s;        /* ramp_time: seconds before counting starts, 0: none */
	enum fidelity fidelity; /* the global key fidelity (--fidelity) */
	bool directio, alignio, bufferio, verbose;
	bool verify;         /* verify=1 or --verify: every read checks its content */
	const char *content; /* the key content as written, borrowed; NULL: the default */
	uint8_t content_mode, content_pct; /* ... parsed (content.h: enum content_mode) */
	const char *callout;               /* borrowed, NULL if none */
	bool seed_given;
	uint64_t seed;
	struct plan_fs *fs;
	size_t n_fs;
	struct plan_group
	    *groups; /* the [threadgroupN] sections in order (aging groups are in fs) */
	size_t n_groups;
	uint64_t total_threads;
	/* some group has num_ops: the run ends when those groups are done; or the profile has
	 * phases (each ends by its own count or time): the run ends by itself */
	bool counted;
	/* phases (phases.c): 0 without the key phase (one phase, as FFSB's), else phases[0 ..
	 * n_phases - 1], run in order */
	uint32_t n_phases;
	struct plan_phase phases[PLAN_MAX_PHASES];
};

struct plan_opts {
	bool strict_ffsb; /* reject fsmix extensions */
	/* a durability log will be written (run) or checked (verify) against the tree's content:
	 * content=auto is then header, and content=fixed an error */
	bool content_checked;
};

/* plan_build - validate the profile as a whole and build the plan. Every problem goes to d.
 * Returns 0 when d received no error, -1 otherwise (then pl holds nothing to free). The plan
 * borrows strings from the profile, which must outlive it. */
int plan_build(struct plan *pl, const struct profile *p, const struct plan_opts *o, struct diag *d);

void plan_free(struct plan *pl);

#endif
