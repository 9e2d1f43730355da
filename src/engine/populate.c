/* populate.c - a filesystem's tree made ready for the run: reused or built (see populate.h); its
 * pools sized and made; the build itself, by builder threads, is build.c's. */
#include "populate.h"
#include "shared.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "durcheck.h"
#include "hash.h"

/* Largest pool capacities: 2^26 data files (1 GiB of address space, 16 bytes a slot) and 2^22
 * metadata directories (64 MiB). A pool reserves only what its filesystem's profile can reach
 * (pool_capacity); these bounds apply when that is unbounded and the filesystem has no fixed
 * inode count. */
#define FILES_CAPACITY (1u << 26)
#define META_CAPACITY  (1u << 22)
_Static_assert(META_CAPACITY == DURLOG_META_MAX,
               "verify bounds meta/'s ids by the pool's capacity");
_Static_assert(ENGINE_AGED_ID_BASE >= FILES_CAPACITY, "aged names must not meet the benchmark's");
/* Directories createdir may add per filesystem (one byte each, reserved lazily). */
#define EXTRA_DIRS (1u << 20)
/* The settings that decide which files exist and what their bytes are (the content mode): a
 * reused tree must match all of them. */
uint64_t engine_fs_spec_hash(const struct plan_fs *f, enum fidelity fidelity)
{
	uint64_t h = hash_fnv1a(HASH_FNV1A_SEED, "fsmix-spec-1", 12);
	h = hash_fnv1a(h, &f->num_files, sizeof(f->num_files));
	h = hash_fnv1a(h, &f->num_dirs, sizeof(f->num_dirs));
	h = hash_fnv1a(h, &f->min_filesize, sizeof(f->min_filesize));
	h = hash_fnv1a(h, &f->max_filesize, sizeof(f->max_filesize));
	h = hash_fnv1a(h, &f->init_size, sizeof(f->init_size));
	h = hash_fnv1a(h, &f->init_util, sizeof(f->init_util));
	for (size_t i = 0; i < f->n_sizes; i++)
		h = hash_fnv1a(h, &f->sizes[i], sizeof(f->sizes[i]));
	if (f->size_dist.kind) /* trees built before size_dist keep their hash */
		h = hash_fnv1a(
		    hash_fnv1a(hash_fnv1a(hash_fnv1a(h, &f->size_dist.kind, 4), &f->size_dist.a, 8),
		               &f->size_dist.b, 8),
		    &f->size_dist.cap, 8);
	if (f->create_method != CREATE_WRITE) /* trees built before create_method keep their hash */
		h = hash_fnv1a(h, &f->create_method, sizeof(f->create_method));
	if (fidelity != FIDELITY_EXACT) /* FFSB's sizes are other files */
		h = hash_fnv1a(h, &fidelity, sizeof(fidelity));
	if (f->dir_depth > 1 || f->dir_gamma > 0 ||
	    f->dir_per_thread) { /* (flat trees keep theirs) */
		h = hash_fnv1a(h, &f->dir_depth, sizeof(f->dir_depth));
		h = hash_fnv1a(h, &f->dir_fanout, sizeof(f->dir_fanout));
		h = hash_fnv1a(h, &f->dir_gamma, sizeof(f->dir_gamma));
		h = hash_fnv1a(h, &f->top_files, sizeof(f->top_files));
	}
	if (f->content_mode) { /* other bytes (trees of the default mode keep their hash) */
		h = hash_fnv1a(h, &f->content_mode, sizeof(f->content_mode));
		h = hash_fnv1a(h, &f->content_pct, sizeof(f->content_pct));
	}
	return h;
}

struct dirlayout engine_fs_layout(const struct plan_fs *pf)
{
	if (pf->dir_depth <= 1)
		return dirlayout_flat(pf->num_dirs);
	return (struct dirlayout){
	    .top = pf->num_dirs, .depth = pf->dir_depth, .fanout = pf->dir_fanout};
}

/* Adds b to *sum, saturating at UINT64_MAX (which stands for "unbounded"). */
static void add_bound(uint64_t *sum, uint64_t b)
{
	*sum = b > UINT64_MAX - *sum ? UINT64_MAX : *sum + b;
}

/* Entries a group can add to filesystem fsi's pool: each op with `flag` adds up to `per_op` (a
 * create one file, a metaop two directories). A group with num_ops adds at most threads x
 * num_ops x per_op; one that runs until the time is up has no bound (UINT64_MAX). The aging
 * group's files live in a pool of their own (engine_fs.aged), sized where aging starts. */
static uint64_t group_growth(const struct plan_group *g, bool runs, unsigned flag, int op_only,
                             uint64_t per_op)
{
	bool adds = false;
	for (int op = 0; op < OP_COUNT; op++)
		if (g->weight[op] && (op_only >= 0 ? op == op_only : (op_table[op].flags & flag)))
			adds = true;
	if (!adds || !runs || !g->num_threads)
		return 0;
	if (!g->num_ops)
		return UINT64_MAX;
	if (g->n_seq && flag) /* a sequence: one op, with as many creates as its create steps */
		per_op *= g->weight[OP_seq_create] ? g->weight[OP_seq_create] : 1;
	uint64_t n = 0;
	add_bound(&n, g->num_ops > UINT64_MAX / g->num_threads ? UINT64_MAX
	                                                       : g->num_ops * g->num_threads);
	return n > UINT64_MAX / per_op ? UINT64_MAX : n * per_op;
}

/* The capacity of a pool of fs: `initial` entries plus what its groups can add, where
 * "unbounded" means as many as the filesystem has inodes (f_files; every file or directory
 * takes one), and never more than `max` (also where the count is unknown: btrfs reports 0).
 * Address space is reserved for the capacity (16 bytes a slot) when the pool is made. */
static uint32_t pool_capacity(const struct engine *e, const struct engine_fs *fs, uint64_t initial,
                              unsigned flag, int op_only, uint64_t per_op, uint32_t max)
{
	const struct plan *pl = e->plan;
	size_t fsi = (size_t)(fs - e->fs);
	bool runs = pl->time_s || pl->counted;
	uint64_t n = initial;
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		if (g->bindfs < 0 || (size_t)g->bindfs == fsi)
			add_bound(&n, group_growth(g, runs, flag, op_only, per_op));
	}
	n = shared_capacity(e, initial, n); /* --shared-tree: this rank's ids are every ranks-th */
	if (n == UINT64_MAX) {
		struct tree_usage u;
		if (tree_usage(&fs->tree, &u) == 0 && u.total_files)
			n = u.total_files;
	}
	return n < 1 ? 1 : n > max ? max : (uint32_t)n;
}

void engine_fs_bounds(const struct plan_fs *pf, uint64_t *files, uint64_t *dirs)
{
	*files = FILES_CAPACITY; /* no pool is larger, whatever the groups and the inode count */
	*dirs = (uint64_t)pf->data_dirs + EXTRA_DIRS; /* createdir fails beyond that */
}

/* Will a group write into fs's existing files (write, writeall, append; aging appends;
 * truncate)? Then a reused tree is checked file by file: a hard link from outside or a mount
 * over one of its files would let the run write someone else's data. Reads, stats and deletes
 * cannot. */
static bool writes_files(const struct engine *e, const struct engine_fs *fs)
{
	const struct plan *pl = e->plan;
	size_t fsi = (size_t)(fs - e->fs);
	const unsigned writes = OPF_WRITE | OPF_FILE;
	bool runs = pl->time_s || pl->counted; /* time=0 only builds (and ages) */
	for (size_t gi = 0; gi < pl->n_groups + 1; gi++) {
		const struct plan_group *g = gi < pl->n_groups ? &pl->groups[gi] : fs->pf->age;
		if (!g ||
		    (gi < pl->n_groups && (!runs || (g->bindfs >= 0 && (size_t)g->bindfs != fsi))))
			continue;
		for (int op = 0; op < OP_COUNT; op++)
			if (g->weight[op] && ((op_table[op].flags & writes) == writes ||
			                      (op_table[op].flags & OPF_RESIZES)))
				return true;
	}
	return false;
}

/* Will a group that may use fs give its files second names (link, unlink: OPF_LINKS)? */
static bool links_used(const struct engine *e, const struct engine_fs *fs)
{
	const struct plan *pl = e->plan;
	size_t fsi = (size_t)(fs - e->fs);
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		if (g->bindfs >= 0 && (size_t)g->bindfs != fsi)
			continue;
		for (int op = 0; op < OP_COUNT; op++)
			if (g->weight[op] && (op_table[op].flags & OPF_LINKS))
				return true;
	}
	return false;
}

/* Makes fs's pools, sized by pool_capacity. Returns 0 or -1 with err set. */
static int make_pools(struct engine *e, struct engine_fs *fs, char *err, size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	/* A tree grown to init_size/init_util may hold as many files as the filesystem has
	 * inodes: UINT64_MAX stands for that. */
	uint64_t initial = pf->num_files                        ? pf->num_files
	                   : pf->init_size || pf->init_util > 0 ? UINT64_MAX
	                                                        : 0;
	uint32_t files = pool_capacity(e, fs, initial, OPF_CREATES, -1, 1, FILES_CAPACITY);
	/* meta/: metaop's directories (two an op) and mkdir's (one) */
	uint64_t dirs = (uint64_t)pool_capacity(e, fs, 0, 0, OP_metaop, 2, META_CAPACITY) +
	                pool_capacity(e, fs, 0, 0, OP_mkdir, 1, META_CAPACITY);
	uint32_t meta = dirs > META_CAPACITY ? META_CAPACITY : (uint32_t)dirs;
	int rc = pool_init(&fs->files, files);
	if (rc == 0)
		rc = pool_init(&fs->meta, meta);
	if (rc == 0 && links_used(e, fs)) /* second names: kept beside the slots */
		rc = pool_links_init(&fs->files);
	if (rc == 0) /* --shared-tree: each rank creates and deletes its own ids */
		shared_partition(e, fs);
	if (rc) {
		snprintf(err, errlen,
		         "%s: cannot reserve memory for the file pools (%u files and %u "
		         "directories, %llu MiB of address space): %s",
		         pf->name, files, meta,
		         (unsigned long long)(((uint64_t)files + meta) *
		                                  (sizeof(struct pool_slot) + sizeof(uint64_t)) >>
		                              20),
		         strerror(-rc));
		return -1;
	}
	return 0;
}

/* dir_files gamma:SHAPE: each data directory's share of the files, drawn once from a gamma
 * distribution of that shape (mean 2^20, a share of at least 1, at most 2^40: the sum stays
 * below 2^63 for DIRLAYOUT_MAX_DIRS directories) from its own stream of the seed, so a
 * directory's share does not depend on how many there are. 0, or -ENOMEM. */
static int dir_shares(const struct engine *e, struct engine_fs *fs)
{
	const struct plan_fs *pf = fs->pf;
	if (!(pf->dir_gamma > 0) || !pf->data_dirs)
		return 0;
	uint64_t *w = malloc((size_t)pf->data_dirs * sizeof(*w));
	if (!w)
		return -ENOMEM;
	struct sizedist g = {
	    .kind = SIZEDIST_GAMMA, .a = 1048576.0, .b = pf->dir_gamma, .cap = 1ull << 40};
	for (uint32_t j = 0; j < pf->data_dirs; j++) {
		struct rng r;
		rng_seed(&r, e->seed ^ 0x6469725f73686172ull, ((uint64_t)pf->index << 32) | j);
		w[j] = sizedist_draw(&g, &r) + 1;
	}
	int rc = pick_build(&fs->dirs, w, pf->data_dirs);
	free(w);
	return rc;
}

/* Everything before the files: the size table, the directories' shares, the directory flags, the
 * spec hash, the open tree (created when missing), the pools, and O_DIRECT's probe. */
static enum failure prepare_fs(struct engine *e, struct engine_fs *fs, char *err, size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	char why[MSG_MAX] = "";
	if (pf->n_sizes) {
		uint64_t w[pf->n_sizes], eff[pf->n_sizes];
		for (size_t i = 0; i < pf->n_sizes; i++)
			w[i] = pf->sizes[i].weight;
		/* fidelity=ffsb6: FFSB's biased pick over its reversed list (parser.c:400) */
		if (e->plan->fidelity == FIDELITY_FFSB6 &&
		    pick_ffsb_weights(w, (uint32_t)pf->n_sizes, true, eff) == 0)
			memcpy(w, eff, sizeof(w));
		if (pick_build(&fs->sizes, w, (uint32_t)pf->n_sizes)) {
			snprintf(err, errlen, "%s: size_weight table too large", pf->name);
			return FAIL_INPUT;
		}
	}
	if (dir_shares(e, fs)) {
		snprintf(err, errlen, "%s: out of memory for the directories' shares", pf->name);
		return FAIL_IO;
	}
	fs->dir_ready = mmap(NULL, EXTRA_DIRS, PROT_READ | PROT_WRITE,
	                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fs->dir_ready == MAP_FAILED) {
		fs->dir_ready = NULL;
		snprintf(err, errlen, "cannot reserve memory for directories");
		return FAIL_IO;
	}
	fs->dir_ready_cap = EXTRA_DIRS;
	atomic_store(&fs->next_dir, pf->data_dirs);
	fs->spec_hash = engine_fs_spec_hash(pf, e->plan->fidelity);

	/* --shared-tree: a rank other than 0 only opens what rank 0 made (never creates it). */
	int rc = tree_open_rank(&fs->tree, pf->location, pf->index, engine_tree_rank(e->opts),
	                        (engine_attaches(e->opts) ? 0 : TREE_CREATE) |
	                            (engine_takes_locks(e->opts) ? 0 : TREE_NO_LOCK),
	                        why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "%s: %s", pf->name, why);
		return tree_failure(rc);
	}
	if (fs->tree.leftovers)
		fprintf(e->opts->log, "fsmix: %s: finished removing an interrupted tree in %s\n",
		        pf->name, pf->location);
	if (make_pools(e, fs, err, errlen))
		return FAIL_IO;
	/* O_DIRECT refused (tmpfs before Linux 6.6, ramfs, some FUSE and network filesystems):
	 * say so before anything is built (FFSB exited 0 in the middle of the run). */
	if (e->plan->directio && (e->plan->time_s || e->plan->counted) &&
	    op_probe_directio(fs, err, errlen))
		return FAIL_UNSUPPORTED;
	return FAIL_NONE;
}

/* reuse=1: fill the pool from an intact manifest of the same spec (*reused), or say why the
 * tree is built anew. FAIL_INPUT when the tree must be neither reused nor rebuilt. */
static enum failure reuse_tree(struct engine *e, struct engine_fs *fs, bool *reused, char *err,
                               size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	char why[MSG_MAX] = "";
	*reused = false;
	if (engine_attaches(e->opts)) {
		*reused = true; /* or an error: never a build */
		return shared_attach(e, fs, writes_files(e, fs) ? TREE_VERIFY_ALL : 0, err, errlen);
	}
	if (!pf->reuse)
		return FAIL_NONE;
	if (pf->age) {
		fprintf(e->opts->log, "fsmix: %s: agefs=1: the tree is aged and built anew\n",
		        pf->name);
		return FAIL_NONE;
	}
	if (fs->tree.created) {
		/* The first run of a reuse=1 profile: nothing to reuse, nothing went wrong. */
		fprintf(e->opts->log, "fsmix: %s: no tree yet in %s: building it\n", pf->name,
		        fs->tree.root);
		return FAIL_NONE;
	}
	int rc = tree_load_manifest(&fs->tree, fs->spec_hash, &fs->files,
	                            (writes_files(e, fs) ? TREE_VERIFY_ALL : 0) |
	                                (e->plan->verify ? TREE_KEEP_SIZES : 0),
	                            why, sizeof(why));
	if (rc == -EMLINK || rc == -EXDEV || rc == -EPERM) {
		/* Hard-linked, mounted over or another user's: neither reused nor rebuilt. */
		snprintf(err, errlen, "%s: cannot reuse %s: %s", pf->name, fs->tree.root, why);
		return FAIL_INPUT;
	}
	if (rc == 0) {
		fs->reused = *reused = true;
		fs->built_files = pool_live(&fs->files);
		return FAIL_NONE;
	}
	fprintf(e->opts->log, "fsmix: %s: cannot reuse %s (%s); rebuilding it\n", pf->name,
	        fs->tree.root, why[0] ? why : strerror(-rc));
	return FAIL_NONE;
}

/* Empties the tree (unless just created), makes its directories, ages it (agefs=1), creates
 * its files, syncs the filesystem and writes the manifest where a later run may reuse it. */
static enum failure make_new_tree(struct engine *e, struct engine_fs *fs, unsigned threads,
                                  populate_age_fn *age, char *err, size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	char why[MSG_MAX] = "";
	int rc;
	if (!fs->tree.created) {
		struct tree_purge removed = {0};
		rc = tree_remove_contents(&fs->tree, &removed, why, sizeof(why));
		if (rc == -ENOTEMPTY)
			fprintf(e->opts->log, "fsmix: %s: warning: %s\n", pf->name, why);
		else if (rc) {
			snprintf(err, errlen, "%s: cannot empty %s: %s", pf->name, fs->tree.root,
			         why);
			return rc == -EPERM ? FAIL_INPUT : FAIL_IO; /* another user's directory */
		}
	}
	struct dirlayout layout = engine_fs_layout(pf);
	rc = tree_set_layout(&fs->tree, &layout, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "%s: %s", pf->name, why);
		/* another mount, another user's, a symlink or file in its place: bad input */
		return rc == -EXDEV || rc == -EPERM || rc == -ENOTDIR ? FAIL_INPUT : FAIL_IO;
	}
	enum failure f;
	if (pf->age) {
		/* Aging changes the tree: the manifest goes first (it is gone already when the tree
		 * was emptied), so it can never describe an aged tree. */
		if (tree_invalidate_manifest(&fs->tree, why, sizeof(why)))
			fprintf(e->opts->log, "fsmix: %s: warning: %s\n", pf->name, why);
		if ((f = age(e, fs, err, errlen)))
			return f;
	}
	if ((f = build_files(e, fs, threads, err, errlen)))
		return f;
	if (syncfs(tree_data_dirfd(&fs->tree, TREE_DIR_TOP)) < 0) {
		snprintf(err, errlen, "%s: syncfs %s: %s", pf->name, fs->tree.root,
		         strerror(errno));
		return FAIL_IO;
	}
	/* reuse=1, or a sweep whose next points may reuse what this one built. */
	/* --shared-tree: the other ranks attach through it (attach_tree). */
	if ((pf->reuse || e->opts->keep_manifest || engine_shares(e->opts)) && !pf->age &&
	    tree_write_manifest(&fs->tree, fs->spec_hash, &fs->files, why, sizeof(why)))
		fprintf(e->opts->log, "fsmix: %s: warning: cannot write the reuse manifest: %s\n",
		        pf->name, why);
	return FAIL_NONE;
}

enum failure populate_fs(struct engine *e, struct engine_fs *fs, unsigned threads,
                         populate_age_fn *age, char *err, size_t errlen)
{
	uint64_t t0 = now_ns();
	bool reused = false;
	enum failure f = prepare_fs(e, fs, err, errlen);
	if (f == FAIL_NONE)
		f = reuse_tree(e, fs, &reused, err, errlen);
	if (f == FAIL_NONE && !reused && !engine_attaches(e->opts) && /* rank 0 builds, alone */
	    (f = engine_mark_tree(e, fs, true, err, errlen)) == FAIL_NONE) /* before any change */
		f = make_new_tree(e, fs, threads, age, err, errlen);
	if (f == FAIL_NONE)
		fs->setup_s = (double)(now_ns() - t0) / 1e9;
	return f;
}

enum failure populate_lock(struct engine *e, char *err, size_t errlen)
{
	for (size_t i = 0; i < e->n_fs && engine_takes_locks(e->opts); i++) {
		struct engine_fs *fs = &e->fs[i];
		char why[512];
		int h = tree_lock_location(fs->pf->location, why, sizeof(why));
		if (h == -EBUSY) {
			snprintf(err, errlen, "%s: %s", fs->pf->name, why);
			return FAIL_INPUT;
		}
		if (h > 0)
			fs->lock = h;
	}
	return FAIL_NONE;
}

void populate_release(struct engine_fs *fs)
{
	tree_close(&fs->tree);
	tree_unlock_location(fs->lock);
	fs->lock = 0;
	pool_destroy(&fs->files);
	pool_destroy(&fs->meta);
	pool_destroy(&fs->aged);
	pick_free(&fs->sizes);
	pick_free(&fs->dirs);
	if (fs->dir_ready)
		munmap((void *)fs->dir_ready, fs->dir_ready_cap);
	fs->dir_ready = NULL;
}
