/* build.c - a filesystem's files built before the run (populate.c's make_new_tree calls it,
 * once the tree is emptied, its directories made and, with agefs=1, aged): builder threads
 * claim pieces of work from a shared counter (whole directories of a fixed-count tree, or
 * chunks of ids for one that grows to init_size/init_util), each file's directory and size
 * drawn from its own random stream, its content generation 1 (content.h), its descriptor
 * closed in batches where that reports nothing (docs/design.md, "Building the tree"). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "threads.h"

/* Files a builder claims at once (keeps the shared counter off the per-file path). */
#define BUILD_CHUNK 64
/* Fixed-count trees of up to this many files are built directory by directory (8 bytes per
 * file while the order is made, 4 until the build ends: 128 MB at the limit); larger ones
 * in id order. */
#define BUILD_ORDER_MAX (1u << 24)
/* Most files a builder takes at once: whole directories, usually (small ones packed together,
 * big ones cut, and smaller pieces for a tree too small to keep every builder busy). Creating
 * a file holds its directory's lock, so two builders in one directory wait on each other, and
 * one builder's run of creates in one directory keeps that directory's dentries in cache
 * (about 3% faster than scattering the creates over all directories, on tmpfs). */
#define BUILD_PIECE 1024
/* Files a builder leaves open before closing them with one close_range() call (see
 * close_later). */
#define BUILD_CLOSE_BATCH 64

/* The order in which a fixed-count tree is built: file ids grouped by directory, cut into
 * pieces of at most BUILD_PIECE files; a piece spans several directories only when each of
 * them fits in it whole. */
struct file_order {
	uint32_t *ids;  /* every id below num_files, grouped by directory */
	uint32_t *cuts; /* piece k is ids[cuts[k]] .. ids[cuts[k + 1] - 1] */
	uint32_t n_pieces;
};

struct builder {
	struct engine *e;
	struct engine_fs *fs;
	unsigned index;
	_Atomic uint64_t *next; /* shared: next piece of `order`, or next file id (in chunks) */
	const struct file_order *order; /* NULL: build in id order */
	_Atomic uint64_t *bytes;        /* shared: bytes written (init_size/init_util growth) */
	uint64_t limit;       /* files to create (num_files), or UINT64_MAX when growing */
	uint64_t built_bytes; /* this builder's bytes; the shared `bytes` only when growing */
	uint64_t added;       /* files put into the pool, settled at the end */
	uint32_t high_water;  /* highest id put + 1 */
	bool batch_closes;    /* a local filesystem: batch the closes if the table is private */
	bool private_fds;     /* unshare(CLONE_FILES) worked: this thread's own table */
	unsigned n_open;      /* descriptors in open_fds, in the order they were opened */
	int open_fds[BUILD_CLOSE_BATCH];
	int err; /* first error (errno), 0 if none */
	char path[PATH_MAX];
	pthread_t thread;
};

/* Counts a built file's bytes. Only a tree that grows to init_size needs the running total
 * of all builders; otherwise a shared counter written per file would only bounce its cache
 * line between the builders' CPUs. */
static void count_bytes(struct builder *b, uint64_t size)
{
	b->built_bytes += size;
	if (b->limit == UINT64_MAX)
		atomic_fetch_add_explicit(b->bytes, size, memory_order_relaxed);
}

/* Growth target reached? Only for num_files=0 trees with init_size/init_util. */
static bool grown_enough(struct builder *b, uint64_t id)
{
	const struct plan_fs *pf = b->fs->pf;
	if (b->limit != UINT64_MAX)
		return id >= b->limit;
	if (pf->init_size && atomic_load(b->bytes) >= pf->init_size)
		return true;
	if (pf->init_util > 0 && id % 32 == 0) {
		struct tree_usage u;
		if (tree_usage(&b->fs->tree, &u) == 0 && u.util >= pf->init_util)
			return true;
	}
	return !pf->init_size && !(pf->init_util > 0);
}

/* draw_dir - the directory of an initial file (build.c, from the file's own stream r):
 * one of the data directories by dir_files' shares (fs->dirs) or uniformly, and with FFSB's
 * layout (top_files; or no directories) data/ itself as one more choice, as FFSB. */
static uint32_t draw_dir(const struct engine_fs *fs, struct rng *r)
{
	uint32_t n = fs->pf->data_dirs;
	if (fs->pf->top_files || !n) {
		uint64_t d = rng_below(r, (uint64_t)n + 1);
		return d == n ? TREE_DIR_TOP : (uint32_t)d;
	}
	return fs->dirs.n ? pick_one(&fs->dirs, r) : (uint32_t)rng_below(r, n);
}

/* Where file `id` of fs goes and how big it is. Each file's dir and size come from its own
 * random stream: the layout depends on the seed and the id only, not on which builder makes
 * the file or in which order. */
static void file_layout(const struct engine *e, const struct engine_fs *fs, uint32_t id,
                        uint32_t *dir, uint64_t *size)
{
	const struct plan_fs *pf = fs->pf;
	struct rng r;
	rng_seed(&r, e->seed ^ 0x7265655f62756c64ull, ((uint64_t)pf->index << 32) | id);
	*dir = draw_dir(fs, &r);
	if (pf->size_dist.kind)
		*size = sizedist_draw(&pf->size_dist, &r);
	else if (pf->n_sizes)
		*size = pf->sizes[pick_one(&fs->sizes, &r)].size;
	else if (e->plan->fidelity == FIDELITY_FFSB6)
		*size = engine_ffsb_size(pf, &r);
	else
		*size = pf->min_filesize + rng_below(&r, pf->max_filesize - pf->min_filesize + 1);
}

/* Marks a built file as existing; the shared counts are settled once per builder. Returns 0,
 * or -errno with the error recorded (an id beyond the pool or used twice: never, with ids
 * below the pool's capacity each built once). */
static int put_built(struct builder *b, uint32_t id, uint32_t dir, uint64_t size)
{
	int rc = pool_put_initial(&b->fs->files, id, dir, size);
	if (rc == 0) /* generation 1, written now (content.h) */
		pool_set_gen(&b->fs->files, id, 1, (uint32_t)time(NULL));
	if (rc) {
		b->err = -rc;
		tree_file_path(&b->fs->tree, dir, id, b->path, sizeof(b->path));
		return rc;
	}
	b->added++;
	if (id + 1 > b->high_water)
		b->high_water = id + 1;
	return 0;
}

/* Closes the batched descriptors: each run of consecutive numbers with one close_range(),
 * and never a number this builder did not open itself. Only on local filesystems (see
 * closes_can_wait), whose close() has no error to report for a new file. */
static void close_batch(struct builder *b)
{
	for (unsigned i = 0; i < b->n_open;) {
		unsigned j = i + 1;
		while (j < b->n_open && b->open_fds[j] == b->open_fds[j - 1] + 1)
			j++;
		if (j - i == 1 ||
		    close_range((unsigned)b->open_fds[i], (unsigned)b->open_fds[j - 1], 0))
			for (unsigned k = i; k < j; k++)
				close(b->open_fds[k]);
		i = j;
	}
	b->n_open = 0;
}

/* Does close() of a new, fully written file on fs have nothing to report? True on local
 * filesystems, which write back later and report errors then (syncfs() after the build does,
 * since Linux 5.8); false where close() flushes (NFS, CIFS, FUSE: ENOSPC, EDQUOT, EIO). */
static bool closes_can_wait(const struct engine_fs *fs)
{
	struct statfs sf;
	if (fstatfs(tree_data_dirfd(&fs->tree, TREE_DIR_TOP), &sf))
		return false;
	switch ((unsigned long)sf.f_type) {
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case EXT4_SUPER_MAGIC: /* ext2, ext3 and ext4 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case F2FS_SUPER_MAGIC:
		return true;
	default:
		return false;
	}
}

/* Closes a fully written file. A builder with a descriptor table of its own, on a local
 * filesystem, closes its files BUILD_CLOSE_BATCH at a time: a system call costs about 1 us in
 * a VM with page-table isolation, a third of the calls per small file. Elsewhere one close()
 * per file, whose error (NFS, FUSE: ENOSPC, EDQUOT, EIO at close) fails the build. */
static int close_later(struct builder *b, int fd)
{
	if (!b->private_fds || !b->batch_closes)
		return close(fd);
	b->open_fds[b->n_open++] = fd;
	if (b->n_open == BUILD_CLOSE_BATCH)
		close_batch(b);
	return 0;
}

static int create_file(struct builder *b, char *buf, uint32_t id)
{
	struct engine_fs *fs = b->fs;
	const struct plan_fs *pf = fs->pf;
	char name[TREE_NAME_MAX];
	uint32_t dir;
	uint64_t size;

	file_layout(b->e, fs, id, &dir, &size);
	int dfd = tree_file_at(&fs->tree, dir, id, name, sizeof(name));
	int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EMFILE && b->n_open) {
		/* The batch of files waiting to be closed filled a small descriptor limit. The
		 * failed open created nothing (EMFILE comes before the file is made). */
		close_batch(b);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0)
		goto fail;
	/* create_method: fallocate() allocates without writing (ext4: unwritten extents that
	 * read as zeros), ftruncate() leaves holes; both take the same time for 1 MB or 8 GB. */
	if (pf->create_method != CREATE_WRITE && size) {
		int rr = pf->create_method == CREATE_FALLOCATE ? fallocate(fd, 0, 0, (off_t)size)
		                                               : ftruncate(fd, (off_t)size);
		if (rr) {
			int saved = errno;
			close(fd);
			errno = saved;
			goto fail;
		}
		if (close_later(b, fd) < 0)
			goto fail;
		count_bytes(b, size);
		return put_built(b, id, dir, size);
	}
	struct content_key key = engine_content_key(fs, id);
	for (uint64_t left = size; left;) {
		size_t n =
		    left < pf->create_blocksize ? (size_t)left : (size_t)pf->create_blocksize;
		content_fill(buf, n, &key, 1, size - left); /* generation 1 (content.h) */
		ssize_t w = write(fd, buf, n);
		if (w != (ssize_t)n) {
			if (w >= 0)
				errno = ENOSPC;
			int saved = errno;
			close(fd);
			errno = saved;
			goto fail;
		}
		left -= n;
	}
	if (close_later(b, fd) < 0)
		goto fail;
	count_bytes(b, size);
	return put_built(b, id, dir, size);
fail:
	b->err = errno;
	tree_file_path(&fs->tree, dir, id, b->path, sizeof(b->path));
	return -b->err;
}

static void *builder_main(void *arg)
{
	struct builder *b = arg;
	char *buf = aligned_alloc(4096, (b->fs->pf->create_blocksize + 4095) & ~(uint64_t)4095);
	if (!buf) {
		b->err = ENOMEM;
		return NULL;
	}
	memset(buf, 0x5a, b->fs->pf->create_blocksize);
	/* A descriptor table of this thread's own (a copy; the tree's directory descriptors stay
	 * valid): opening and closing files no longer takes the table lock the other builders
	 * share, and closes can be batched (close_later). Without it, one close() per file. Not
	 * under ThreadSanitizer, which models one table per process: the same number opened and
	 * closed in two private tables would look like a race on one descriptor. */
	b->private_fds = !FSMIX_TSAN && unshare(CLONE_FILES) == 0;
	const struct file_order *o = b->order;
	if (o) {
		for (;;) {
			uint64_t k = atomic_fetch_add(b->next, 1);
			if (k >= o->n_pieces)
				goto done;
			for (uint32_t i = o->cuts[k]; i < o->cuts[k + 1]; i++) {
				/* In directory order the ids are far apart: fetch the next file's
				 * pool slot while this file's system calls run. */
				pool_prefetch(&b->fs->files,
				              o->ids[i + 1 < o->cuts[k + 1] ? i + 1 : i]);
				if (engine_stopping(b->e) || create_file(b, buf, o->ids[i]))
					goto done;
			}
		}
	}
	for (;;) {
		uint64_t first = atomic_fetch_add(b->next, BUILD_CHUNK);
		for (uint64_t id = first; id < first + BUILD_CHUNK; id++) {
			if (engine_stopping(b->e) || id >= b->fs->files.capacity ||
			    grown_enough(b, id))
				goto done;
			if (create_file(b, buf, (uint32_t)id))
				goto done;
		}
	}
done:
	close_batch(b);
	pool_settle_initial(&b->fs->files, b->added, b->high_water);
	free(buf);
	return NULL;
}

static void order_free(struct file_order *o)
{
	free(o->ids);
	free(o->cuts);
	*o = (struct file_order){0};
}

/* Groups the ids 0..n-1 of a fixed-count tree by directory (a counting sort on each file's
 * layout) and cuts them into pieces for `threads` builders. Returns 0, or -ENOMEM (the caller
 * then builds in id order). */
static int order_files(const struct engine *e, const struct engine_fs *fs, uint32_t n,
                       unsigned threads, struct file_order *o)
{
	uint32_t buckets = fs->pf->data_dirs + 1; /* the last one is data/ itself */
	uint32_t *bucket_of = malloc((size_t)n * sizeof(*bucket_of));
	uint32_t *start = calloc((size_t)buckets + 1, sizeof(*start));
	*o = (struct file_order){.ids = malloc((size_t)n * sizeof(*o->ids))};
	if (!bucket_of || !start || !o->ids)
		goto oom;
	for (uint32_t id = 0; id < n; id++) {
		uint32_t dir;
		uint64_t size;
		file_layout(e, fs, id, &dir, &size);
		bucket_of[id] = dir == TREE_DIR_TOP ? buckets - 1 : dir;
		start[bucket_of[id] + 1]++;
	}
	for (uint32_t k = 0; k < buckets; k++)
		start[k + 1] += start[k];
	/* At least 4 pieces per builder, so a small tree keeps them all busy; at least 16 files
	 * a piece, so claiming one stays rare next to making its files. */
	uint64_t piece = n / ((uint64_t)(threads ? threads : 1) * 4);
	piece = piece < 16 ? 16 : piece > BUILD_PIECE ? BUILD_PIECE : piece;
	/* Every piece but the last ends a directory or holds `piece` files: fewer than
	 * buckets + n / piece + 1 of them. */
	o->cuts = malloc(((size_t)buckets + n / piece + 2) * sizeof(*o->cuts));
	if (!o->cuts)
		goto oom;
	/* The open piece is ids[open_at .. open_at + open_len), and always ends where bucket k
	 * starts: whole directories join it while they fit; a directory that does not fit closes
	 * it, and one bigger than a piece is cut. */
	uint32_t open_at = 0, open_len = 0;
	for (uint32_t k = 0; k < buckets; k++) {
		uint32_t at = start[k], count = start[k + 1] - start[k];
		if (open_len + (uint64_t)count <= piece) {
			open_len += count;
			continue;
		}
		if (open_len)
			o->cuts[o->n_pieces++] = open_at;
		for (; count > piece; at += (uint32_t)piece, count -= (uint32_t)piece)
			o->cuts[o->n_pieces++] = at;
		open_at = at;
		open_len = count;
	}
	if (open_len)
		o->cuts[o->n_pieces++] = open_at;
	o->cuts[o->n_pieces] = n;
	/* Fill: start[k] walks bucket k's slots; ids stay ascending within a bucket. */
	for (uint32_t id = 0; id < n; id++)
		o->ids[start[bucket_of[id]]++] = id;
	free(bucket_of);
	free(start);
	return 0;
oom:
	free(bucket_of);
	free(start);
	order_free(o);
	return -ENOMEM;
}

/* The first builder error as a failure kind, with err set; the bytes built are counted. */
static enum failure builders_result(struct engine_fs *fs, const struct builder *b, unsigned started,
                                    char *err, size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	enum failure rc = FAIL_NONE;
	for (unsigned i = 0; i < started && !rc; i++)
		if (b[i].err == EOPNOTSUPP && pf->create_method == CREATE_FALLOCATE) {
			snprintf(err, errlen,
			         "building %s: %s: fallocate() is not supported here "
			         "(create_method=fallocate); use create_method=write or sparse",
			         pf->name, b[i].path);
			rc = FAIL_UNSUPPORTED;
		} else if (b[i].err) {
			snprintf(err, errlen, "building %s: %s: %s", pf->name, b[i].path,
			         strerror(b[i].err));
			rc = FAIL_IO;
		}
	fs->built_bytes = 0;
	for (unsigned i = 0; i < started; i++)
		fs->built_bytes += b[i].built_bytes;
	return rc;
}

enum failure build_files(struct engine *e, struct engine_fs *fs, unsigned threads, char *err,
                         size_t errlen)
{
	const struct plan_fs *pf = fs->pf;
	_Atomic uint64_t next = 0, bytes = 0;
	uint64_t limit = pf->num_files ? pf->num_files : UINT64_MAX;
	if (!pf->num_files && !pf->init_size && !(pf->init_util > 0))
		return FAIL_NONE;
	if (!threads)
		threads = 1;
	struct file_order order = {0};
	bool ordered = false;
	if (limit <= BUILD_ORDER_MAX) {
		ordered = order_files(e, fs, (uint32_t)limit, threads, &order) == 0;
		if (!ordered)
			fprintf(
			    e->opts->log,
			    "fsmix: %s: note: not enough memory to build directory by directory; "
			    "building in file id order\n",
			    pf->name);
	}
	/* No more builders than pieces of work. */
	uint64_t work = ordered               ? order.n_pieces
	                : limit == UINT64_MAX ? UINT64_MAX
	                                      : (limit + BUILD_CHUNK - 1) / BUILD_CHUNK;
	if (work < threads)
		threads = work ? (unsigned)work : 1;
	struct builder *b = calloc(threads, sizeof(*b));
	if (!b) {
		order_free(&order);
		snprintf(err, errlen, "out of memory");
		return FAIL_IO;
	}
	bool batch_closes = closes_can_wait(fs);
	unsigned started = 0;
	int create_err = 0;
	for (unsigned i = 0; i < threads; i++) {
		b[i] = (struct builder){.e = e,
		                        .fs = fs,
		                        .index = i,
		                        .next = &next,
		                        .order = ordered ? &order : NULL,
		                        .batch_closes = batch_closes,
		                        .bytes = &bytes,
		                        .limit = limit};
		if ((create_err = pthread_create(&b[i].thread, NULL, builder_main, &b[i])))
			break;
		started++;
	}
	char limit_why[512] = "";
	if (create_err) {
		thread_limit_describe(limit_why, sizeof(limit_why));
		/* The builders claim pieces of work from a shared counter: fewer of them build
		 * the same tree, only slower. */
		if (started)
			fprintf(e->opts->log,
			        "fsmix: %s: note: started only %u of %u builder threads (%s; %s)\n",
			        pf->name, started, threads, strerror(create_err), limit_why);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(b[i].thread, NULL);
	order_free(&order);
	enum failure rc = builders_result(fs, b, started, err, errlen);
	if (!started) {
		snprintf(err, errlen, "cannot start a builder thread: %s; %s", strerror(create_err),
		         limit_why);
		rc = FAIL_IO;
	}
	free(b);
	if (!rc && engine_stopping(e)) {
		snprintf(err, errlen, "interrupted while building %s", pf->name);
		rc = FAIL_INTERRUPTED;
	}
	/* Growing trees may leave unused ids below high_water (a builder's unfinished chunk). */
	pool_collect_holes(&fs->files);
	fs->built_files = pool_live(&fs->files);
	return rc;
}
