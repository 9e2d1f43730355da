/* tree_manifest.c - the reuse manifest .fsmix-manifest (format in tree.h, tree_write_manifest):
 * written after a run from the pool, checked and loaded into the pool before the next one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "byteorder.h"
#include "check.h"
#include "fdio.h"
#include "hash.h"
#include "pool.h"
#include "rng.h"
#include "tree_impl.h"

#define MANIFEST_MAGIC   "FSMIXMAN"
#define MANIFEST_VERSION 2u /* 2: records carry the content generation; 1 is still read */
/* 3: version 2 with the layout word (below) nonzero: a tree of several levels (dir_depth).
 * A flat tree is still written as version 2, which older fsmix versions read; they take a
 * version 3 manifest for a corrupt one and rebuild the tree. */
#define MANIFEST_VERSION_DEEP 3u
#define MANIFEST_BYTEORDER    0x01020304u
#define MANIFEST_HDR          48u /* bytes, see tree.h */
#define MANIFEST_REC          24u /* version 2 */
#define MANIFEST_REC_V1       16u
#define MANIFEST_TRAILER      8u

/* The record size of a manifest version, 0 for an unknown one. */
static size_t rec_size(uint32_t version)
{
	return version == 2 || version == 3 ? MANIFEST_REC : version == 1 ? MANIFEST_REC_V1 : 0;
}

/* The header's word at 36 (0 before version 3): depth in the top 8 bits, fanout below. */
static uint32_t layout_word(const struct dirlayout *l)
{
	return l->depth > 1 ? l->depth << 24 | (l->fanout & 0xffffffu) : 0;
}

/* The layout a header describes: top at 32, the layout word at 36. */
static struct dirlayout header_layout(const unsigned char *hdr)
{
	uint32_t w = ne_get32(hdr + 36);
	struct dirlayout l = dirlayout_flat(ne_get32(hdr + 32));
	if (w >> 24 > 1) {
		l.depth = w >> 24;
		l.fanout = w & 0xffffffu;
	}
	return l;
}

/* Buffered manifest writer (64 KiB), fed by pool_foreach_live. */
struct mwriter {
	const struct pool *pool;
	int fd;
	uint64_t sum;
	uint64_t count;
	size_t used;
	unsigned char buf[65536];
};

static int mw_flush(struct mwriter *w)
{
	w->sum = hash_fnv1a(w->sum, w->buf, w->used);
	int rc = fd_write_all(w->fd, w->buf, w->used);
	w->used = 0;
	return rc;
}

static int mw_put(struct mwriter *w, const void *data, size_t len)
{
	FSMIX_ASSERT(len <= sizeof(w->buf)); /* a header or a record */
	if (w->used + len > sizeof(w->buf)) {
		int rc = mw_flush(w);
		if (rc)
			return rc;
	}
	memcpy(w->buf + w->used, data, len);
	w->used += len;
	return 0;
}

static int count_visit(uint32_t id, uint32_t dir, uint64_t size, void *arg)
{
	(void)id, (void)dir, (void)size;
	(*(uint64_t *)arg)++;
	return 0;
}

static int record_visit(uint32_t id, uint32_t dir, uint64_t size, void *arg)
{
	struct mwriter *w = arg;
	unsigned char rec[MANIFEST_REC];
	ne_put32(rec, id);
	ne_put32(rec + 4, dir);
	ne_put64(rec + 8, size);
	ne_put32(rec + 16, pool_gen(w->pool, id));
	ne_put32(rec + 20, pool_gen_time(w->pool, id));
	w->count++;
	return mw_put(w, rec, sizeof(rec));
}

int tree_write_manifest(struct tree *t, uint64_t spec_hash, const struct pool *pool, char *err,
                        size_t errlen)
{
	uint64_t count = 0;
	(void)pool_foreach_live(pool, count_visit, &count);
	struct mwriter *w = malloc(sizeof(*w));
	if (!w) {
		tree_seterr(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* O_EXCL: a name planted in a reused tree (a hard link to someone's file) is removed,
	 * never written through. */
	(void)unlinkat(t->rootfd, MANIFEST_TMP_NAME, 0);
	w->fd = openat(t->rootfd, MANIFEST_TMP_NAME,
	               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	w->pool = pool;
	w->sum = HASH_FNV1A_SEED;
	w->count = 0;
	w->used = 0;
	int rc = w->fd < 0 ? -errno : 0;
	if (rc == 0) {
		unsigned char hdr[MANIFEST_HDR] = {0};
		memcpy(hdr, MANIFEST_MAGIC, 8);
		ne_put32(hdr + 8,
		         layout_word(&t->layout) ? MANIFEST_VERSION_DEEP : MANIFEST_VERSION);
		ne_put32(hdr + 12, MANIFEST_BYTEORDER);
		ne_put64(hdr + 16, spec_hash);
		ne_put64(hdr + 24, t->tree_id);
		ne_put32(hdr + 32, t->layout.top);
		ne_put32(hdr + 36, layout_word(&t->layout));
		ne_put64(hdr + 40, count);
		rc = mw_put(w, hdr, sizeof(hdr));
	}
	if (rc == 0)
		rc = pool_foreach_live(pool, record_visit, w);
	/* the contract of pool_foreach_live: no picker runs, so the pool cannot change */
	FSMIX_ASSERT_MSG(rc != 0 || w->count == count,
	                 "the pool changed while its manifest was written: %llu files, then %llu",
	                 (unsigned long long)count, (unsigned long long)w->count);
	if (rc == 0)
		rc = mw_flush(w);
	if (rc == 0) {
		unsigned char tr[MANIFEST_TRAILER];
		ne_put64(tr, w->sum);
		rc = fd_write_all(w->fd, tr, sizeof(tr));
	}
	if (rc == 0 && fsync(w->fd))
		rc = -errno;
	if (w->fd >= 0)
		(void)close(w->fd);
	if (rc == 0 && renameat(t->rootfd, MANIFEST_TMP_NAME, t->rootfd, MANIFEST_NAME))
		rc = -errno;
	if (rc == 0 && fsync(t->rootfd))
		rc = -errno;
	free(w);
	if (rc) {
		(void)unlinkat(t->rootfd, MANIFEST_TMP_NAME, 0);
		tree_seterr(err, errlen, "cannot write '%s/%s': %s", t->root, MANIFEST_NAME,
		            strerror(-rc));
	}
	return rc;
}

int tree_invalidate_manifest(struct tree *t, char *err, size_t errlen)
{
	if (unlinkat(t->rootfd, MANIFEST_NAME, 0) && errno != ENOENT) {
		int e = errno;
		tree_seterr(err, errlen, "cannot remove '%s/%s': %s", t->root, MANIFEST_NAME,
		            strerror(e));
		return -e;
	}
	/* Make the removal durable before the run starts changing files. */
	if (fsync(t->rootfd)) {
		int e = errno;
		tree_seterr(err, errlen, "fsync '%s': %s", t->root, strerror(e));
		return -e;
	}
	return 0;
}

/* d000..d<top-1> must be directories on the root's mount and d<top> must not exist, nor (in a
 * deeper tree) createdir's first directory d<leaves>. The levels below are made or checked by
 * tree_set_layout. */
static int check_dirs(struct tree *t, const struct dirlayout *l, char *err, size_t errlen)
{
	char name[TREE_NAME_MAX];
	struct statx sx;
	uint32_t n = l->top;
	uint64_t leaves = dirlayout_leaves(l);
	for (uint32_t i = 0; i <= n + (leaves > n); i++) {
		uint32_t k = i <= n ? i : (uint32_t)leaves;
		(void)tree_dir_name(k, name, sizeof(name));
		int rc = tree_statx(t->datafd, name, &sx);
		if (i < n && (rc || !S_ISDIR(sx.stx_mode))) {
			tree_seterr(err, errlen,
			            "manifest lists %u directories but data/%s is missing", n,
			            name);
			return -ESTALE;
		}
		if (i < n && !tree_on_root_mount(t, &sx)) {
			tree_seterr(
			    err, errlen,
			    "'%s/data/%s' is a mount point: fsmix writes only on its tree's own "
			    "filesystem (unmount it, or remove the tree with fsmix clean)",
			    t->root, name);
			return -EXDEV;
		}
		if (i >= n && rc != -ENOENT) {
			tree_seterr(err, errlen, "manifest lists %u directories but data/%s exists",
			            n, name);
			return -ESTALE;
		}
	}
	return 0;
}

/* Is file `i` of the manifest what fsmix left: a regular file of the recorded size, with no
 * other name (a hard link from outside would let a run write someone else's file), on the
 * root's mount? One statx. Returns 0, -ESTALE (rebuild), -EMLINK or -EXDEV (refuse), or the
 * -errno of an I/O error; err says which file. */
static int check_file(struct tree *t, const unsigned char *rec, unsigned flags, char *err,
                      size_t errlen)
{
	uint32_t id = ne_get32(rec), dir = ne_get32(rec + 4);
	uint64_t size = ne_get64(rec + 8);
	char name[TREE_NAME_MAX], path[PATH_MAX];
	struct statx sx;
	int dfd = tree_file_at(t, dir, id, name, sizeof(name));
	if (dfd < 0) {
		tree_seterr(err, errlen, "file id %u: %s", id, strerror(-dfd));
		return dfd;
	}
	int rc = tree_statx(dfd, name, &sx);
	bool size_ok = sx.stx_size == size || (flags & TREE_KEEP_SIZES);
	if (rc == 0 && S_ISREG(sx.stx_mode) && size_ok && sx.stx_nlink == 1 &&
	    tree_on_root_mount(t, &sx))
		return 0;
	(void)tree_file_path(t, dir, id, path, sizeof(path));
	if (rc == -ENOENT || rc == -ENOTDIR) {
		tree_seterr(err, errlen, "'%s' listed in the manifest: %s", path, strerror(-rc));
		return -ESTALE;
	}
	if (rc) {
		tree_seterr(err, errlen, "'%s': %s", path, strerror(-rc));
		return rc;
	}
	if (!tree_on_root_mount(t, &sx)) {
		tree_seterr(
		    err, errlen,
		    "'%s' is on another mount than its tree: fsmix will not write through it "
		    "(unmount it, or remove the tree with fsmix clean)",
		    path);
		return -EXDEV;
	}
	if (!S_ISREG(sx.stx_mode) || !size_ok) {
		tree_seterr(err, errlen, "'%s' is %s%llu bytes, the manifest says %llu", path,
		            S_ISREG(sx.stx_mode) ? "" : "not a regular file, ",
		            (unsigned long long)sx.stx_size, (unsigned long long)size);
		return -ESTALE;
	}
	tree_seterr(err, errlen,
	            "'%s' has %u hard links: another name refers to it, and fsmix will not write "
	            "through it (remove the other links, or the tree with fsmix clean)",
	            path, (unsigned)sx.stx_nlink);
	return -EMLINK;
}

/* Checks every listed file (TREE_VERIFY_ALL), or a random sample of TREE_SAMPLE records (with
 * replacement): a tree edited or truncated behind our back is caught with probability
 * 1 - (1-f)^64 when a fraction f of its files is wrong. */
static int check_files(struct tree *t, const unsigned char *recs, uint64_t count, size_t rs,
                       unsigned flags, char *err, size_t errlen)
{
	if ((flags & TREE_VERIFY_ALL) || count <= TREE_SAMPLE) {
		for (uint64_t i = 0; i < count; i++) {
			int rc = check_file(t, recs + i * rs, flags, err, errlen);
			if (rc)
				return rc;
		}
		return 0;
	}
	struct rng r;
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = now_ns();
	rng_seed(&r, seed, t->tree_id);
	for (uint64_t k = 0; k < TREE_SAMPLE; k++) {
		int rc = check_file(t, recs + rng_below(&r, count) * rs, flags, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* Reads the whole manifest into *buf (malloc'ed; *len bytes) after checking its size: a
 * header, whole records of a known version (*rs bytes each, never 0), a trailer, and no more
 * records than the pool holds. 0 or -errno (-EBADMSG for a wrong size or type, -ENOSPC for too
 * many records) with err set. */
static int read_manifest(struct tree *t, const struct pool *pool, unsigned char **buf, size_t *len,
                         size_t *rs_out, char *err, size_t errlen)
{
	*buf = NULL;
	int fd = openat(t->rootfd, MANIFEST_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			tree_seterr(err, errlen,
			            "no manifest in '%s' (the tree was not left by a complete run)",
			            t->root);
		else
			tree_seterr(err, errlen, "'%s/%s': %s", t->root, MANIFEST_NAME,
			            strerror(e));
		return e == ELOOP ? -EBADMSG : -e;
	}
	struct stat st;
	size_t got = 0;
	int rc = fstat(fd, &st) ? -errno : 0;
	uint64_t fsize = rc == 0 ? (uint64_t)st.st_size : 0;
	if (rc == 0 && (!S_ISREG(st.st_mode) || fsize < MANIFEST_HDR + MANIFEST_TRAILER))
		rc = -EBADMSG;
	if (rc == 0 && !(*buf = malloc((size_t)st.st_size)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = fd_read_all(fd, *buf, (size_t)st.st_size, &got);
	(void)close(fd);
	if (rc == 0 && got != (size_t)st.st_size)
		rc = -EBADMSG;
	size_t rs = rc == 0 ? rec_size(ne_get32(*buf + 8)) : 0;
	if (rc == 0 && (!rs || (fsize - MANIFEST_HDR - MANIFEST_TRAILER) % rs))
		rc = -EBADMSG;
	else if (rc == 0 && (fsize - MANIFEST_HDR - MANIFEST_TRAILER) / rs > pool->capacity)
		rc = -ENOSPC;
	if (rc) {
		free(*buf);
		*buf = NULL;
		if (rc == -ENOSPC)
			tree_seterr(err, errlen,
			            "manifest lists more files than the pool holds (%u)",
			            pool->capacity);
		else
			tree_seterr(err, errlen, "'%s/%s': %s", t->root, MANIFEST_NAME,
			            rc == -EBADMSG ? "corrupt or truncated" : strerror(-rc));
		return rc;
	}
	*len = (size_t)st.st_size;
	*rs_out = rs;
	return 0;
}

/* The header and trailer of a manifest of `count` records: format, checksum, this tree, this
 * spec, and (when t's directories are set) their number. 0, -EBADMSG or -ESTALE, err set. */
static int check_header(const struct tree *t, const unsigned char *buf, size_t len, uint64_t count,
                        uint64_t spec_hash, char *err, size_t errlen)
{
	struct dirlayout l = header_layout(buf);
	if (memcmp(buf, MANIFEST_MAGIC, 8) != 0 || !rec_size(ne_get32(buf + 8)) ||
	    (ne_get32(buf + 8) == MANIFEST_VERSION_DEEP) != (l.depth > 1) ||
	    l.depth > DIRLAYOUT_MAX_DEPTH || (l.depth > 1 && !l.fanout) ||
	    dirlayout_total(&l) > DIRLAYOUT_MAX_DIRS || ne_get32(buf + 12) != MANIFEST_BYTEORDER ||
	    ne_get64(buf + 40) != count ||
	    hash_fnv1a(HASH_FNV1A_SEED, buf, len - MANIFEST_TRAILER) != ne_get64(buf + len - 8)) {
		tree_seterr(err, errlen, "'%s/%s': corrupt or truncated", t->root, MANIFEST_NAME);
		return -EBADMSG;
	}
	if (ne_get64(buf + 24) != t->tree_id) {
		tree_seterr(err, errlen,
		            "manifest belongs to another tree (id %016llx, this is %016llx)",
		            (unsigned long long)ne_get64(buf + 24), (unsigned long long)t->tree_id);
		return -ESTALE;
	}
	if (ne_get64(buf + 16) != spec_hash) {
		tree_seterr(err, errlen,
		            "manifest was written for a different filesystem spec (hash %016llx, "
		            "expected %016llx)",
		            (unsigned long long)ne_get64(buf + 16), (unsigned long long)spec_hash);
		return -ESTALE;
	}
	if (t->layout.depth &&
	    (t->layout.top != l.top || layout_word(&t->layout) != layout_word(&l))) {
		tree_seterr(err, errlen,
		            "manifest lists %u directories of %u levels (fanout %u), expected %u "
		            "of %u levels (fanout %u)",
		            l.top, l.depth, l.fanout, t->layout.top, t->layout.depth,
		            t->layout.fanout);
		return -ESTALE;
	}
	return 0;
}

/* Records: ascending ids (so no duplicates), ids within capacity, known directories. 0,
 * -EBADMSG or -ENOSPC, err set. */
static int check_records(const struct tree *t, const unsigned char *recs, uint64_t count, size_t rs,
                         uint64_t num_dirs, const struct pool *pool, char *err, size_t errlen)
{
	for (uint64_t i = 0; i < count; i++) {
		uint32_t id = ne_get32(recs + i * rs);
		uint32_t dir = ne_get32(recs + i * rs + 4);
		if ((i && id <= ne_get32(recs + (i - 1) * rs)) ||
		    (dir != TREE_DIR_TOP && dir >= num_dirs)) {
			tree_seterr(err, errlen, "'%s/%s': corrupt (record %llu)", t->root,
			            MANIFEST_NAME, (unsigned long long)i);
			return -EBADMSG;
		}
		if (id >= pool->capacity) {
			tree_seterr(err, errlen,
			            "manifest file id %u is beyond the pool's capacity %u", id,
			            pool->capacity);
			return -ENOSPC;
		}
	}
	return 0;
}

int tree_load_manifest(struct tree *t, uint64_t spec_hash, struct pool *pool, unsigned flags,
                       char *err, size_t errlen)
{
	if (pool_high_water(pool) != 0 || pool_live(pool) != 0) {
		tree_seterr(err, errlen, "internal: manifest loaded into a non-empty pool");
		return -EINVAL;
	}
	unsigned char *buf;
	size_t len = 0, rs = 0; /* set by read_manifest on success */
	int rc = read_manifest(t, pool, &buf, &len, &rs, err, errlen);
	if (rc)
		return rc;
	/* read_manifest's checks: a header, a trailer, whole records of a known size */
	FSMIX_ASSERT_MSG(rs > 0 && len >= MANIFEST_HDR + MANIFEST_TRAILER &&
	                     (len - MANIFEST_HDR - MANIFEST_TRAILER) % rs == 0,
	                 "manifest of %zu bytes, records of %zu", len, rs);
	uint64_t count = (len - MANIFEST_HDR - MANIFEST_TRAILER) / rs;
	const unsigned char *recs = buf + MANIFEST_HDR;
	struct dirlayout layout = header_layout(buf);
	rc = check_header(t, buf, len, count, spec_hash, err, errlen);
	if (rc == 0)
		rc =
		    check_records(t, recs, count, rs, dirlayout_leaves(&layout), pool, err, errlen);
	if (rc == 0)
		rc = check_dirs(t, &layout, err, errlen);
	if (rc == 0)
		rc = tree_set_layout(t, &layout, err, errlen);
	if (rc == 0)
		rc = check_files(t, recs, count, rs, flags, err, errlen);
	for (uint64_t i = 0; rc == 0 && i < count; i++) {
		const unsigned char *rec = recs + i * rs;
		rc = pool_add_initial(pool, ne_get32(rec), ne_get32(rec + 4), ne_get64(rec + 8));
		/* A version 1 manifest does not know the generations (POOL_GEN_UNKNOWN). */
		if (rc == 0 && rs == MANIFEST_REC)
			pool_set_gen(pool, ne_get32(rec), ne_get32(rec + 16), ne_get32(rec + 20));
		if (rc) /* cannot happen after the checks above; keep the contract anyway */
			tree_seterr(err, errlen, "file id %u: %s", ne_get32(rec), strerror(-rc));
	}
	if (rc == 0)
		(void)pool_collect_holes(pool);
	free(buf);
	return rc;
}
