/* durmodel_int.h - the durability model's state, shared by its replay (durmodel.c) and its check
 * (durmodel_check.c) alone. */
#ifndef FSMIX_DURMODEL_INT_H
#define FSMIX_DURMODEL_INT_H

#include "durmodel.h"
#include "durmodel_ns.h"
#include "durrange.h"

/* A completed write not yet covered by a promise. */
struct dm_pend {
	uint64_t off, end, t_end;
	uint64_t size; /* the file's length the write left (its record's size): promised with it */
	uint32_t gen;
};

/* One file id's current incarnation (and, once deleted, its absence). */
struct dm_file {
	uint32_t id;
	bool live, created, name_durable, gen_unknown;
	bool wrapped;            /* its generation counter passed UINT32_MAX (to 1) in the run */
	bool tail_touched;       /* a known tail's record may have removed or renewed it */
	bool gone, gone_durable; /* deleted (not created since); its unlink covered */
	bool in_dirty, in_unnamed, in_unlinked; /* on the lists of its filesystem */
	uint32_t dir, gen_max;
	uint64_t t_create, t_delete, min_len;
	struct dm_ref len_ref, name_ref, gone_ref;
	struct dm_pend *pend; /* pend[head..n_pend) pending, in t_end order */
	size_t head, n_pend, cap_pend;
	struct dm_rangeset rng; /* settled writes */
	struct dm_ns ns;        /* rename, replace_fsync, truncate (durmodel_ns.h) */
};

/* A list of files (indexes into dm_fs.files). */
struct dm_list {
	uint32_t *v;
	size_t n, cap;
};

struct dm_fs {
	struct dm_file *files; /* the ids the log names, in the order first named */
	uint32_t n_files, cap_files;
	uint32_t *slots; /* open addressing: id -> index + 1 (0: empty); a power of two */
	size_t n_slots;
	struct dm_list dirty;    /* files with pending writes */
	struct dm_list unnamed;  /* live files whose name (or its rename, replace) is not durable */
	struct dm_list unlinked; /* files whose unlink (or a rename's removal) is not durable */
};

struct durmodel {
	enum dm_model model;
	struct durlog_header h;
	struct dm_fs fs[DURLOG_MAX_FS];
	/* directories the run made or removed (DL_MKDIR, DL_RMDIR), as files are kept: live (made),
	 * name_durable (its entry), gone and gone_durable (removed), dir its parent; by parent:
	 * meta/ (mkdir, rmdir) and data/ (createdir) */
	struct dm_fs metas[DURLOG_MAX_FS], datadirs[DURLOG_MAX_FS];
	bool dir_names; /* the mkdir row's names column: a name promised in a directory promises the
	                 * directory's own entry (durpromise.def) */
	uint64_t records, acks[DL_KIND_COUNT], osync, created;
	bool oom, bad;
	bool tail_lost;  /* no end record: what the run did after the last record is unknown */
	bool tail_known; /* ... but the records after the cut are known (durmodel_known_tail) */
};

/* The entry of id in table d (a dm_fs of files or of directories), or NULL when the log never
 * named it. */
struct dm_file *dm_find(const struct dm_fs *d, uint32_t id);

#endif
