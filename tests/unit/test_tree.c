/* test_tree.c - fsmix's own tree: it touches nothing it did not create (canaries, foreign roots,
 * symlinks, planted files), location errors, naming, and the reuse manifest. Every case runs in
 * a fresh mkdtemp directory under /tmp and under /dev/shm, removed afterwards. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failure.h"
#include "hash.h"
#include "instance.h"
#include "pool.h"
#include "tree.h"
#include "test.h"

static char base[PATH_MAX]; /* current temp location */

/* snprintf into a path buffer, failing the test on truncation (and using the result, which
 * also keeps -Wformat-truncation quiet). */
#define PATHF(buf, ...)                                                                            \
	do {                                                                                       \
		int n_ = snprintf(buf, sizeof(buf), __VA_ARGS__);                                  \
		if (n_ < 0 || (size_t)n_ >= sizeof(buf))                                           \
			TEST_FAIL("path too long");                                                \
	} while (0)

/* --- helpers (test-only; product code never uses nftw) ------------------------------------- */

/* fsync, interposed for the whole test program (the tree's calls bind to this definition): it
 * counts the syncs of the directory base names, so a test sees that a rename there was made
 * durable (a power cut would show it otherwise), and then syncs. */
static long base_syncs;

int fsync(int fd)
{
	struct stat a, b;
	if (fstat(fd, &a) == 0 && stat(base, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		base_syncs++;
	return (int)syscall(SYS_fsync, fd);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

static void rm_rf(const char *path)
{
	/* FTW_PHYS: never follow symlinks; FTW_MOUNT: never cross into a mount. */
	(void)nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void make_base(const char *parent)
{
	PATHF(base, "%s/fsmix-test-tree.XXXXXX", parent);
	if (!mkdtemp(base)) {
		TEST_FAIL("mkdtemp %s: %s", base, strerror(errno));
		base[0] = 0;
	}
}

static void drop_base(void)
{
	if (base[0])
		rm_rf(base);
	base[0] = 0;
}

static void put_file(const char *rel, const char *content)
{
	char p[PATH_MAX];
	PATHF(p, "%s/%s", base, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		TEST_FAIL("fopen %s: %s", p, strerror(errno));
		return;
	}
	fputs(content, f);
	fclose(f);
}

static void put_dir(const char *rel)
{
	char p[PATH_MAX];
	PATHF(p, "%s/%s", base, rel);
	if (mkdir(p, 0700))
		TEST_FAIL("mkdir %s: %s", p, strerror(errno));
}

static int exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	PATHF(p, "%s/%s", base, rel);
	return lstat(p, &st) == 0;
}

/* Snapshot of everything under base except fsmix.fs0: path, type, size, contents (FNV hash),
 * symlink target, mode. Compared as a string before and after. */
static char snap[65536];
static size_t snap_len;
static size_t base_len;

static int snap_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag, (void)ftw;
	const char *rel = path + base_len;
	if (!strncmp(rel, "/fsmix.fs0", 10) && (rel[10] == 0 || rel[10] == '/'))
		return 0;
	uint64_t h = 0xcbf29ce484222325ull;
	char link[PATH_MAX] = "";
	if (S_ISREG(st->st_mode)) {
		FILE *f = fopen(path, "rb");
		int c;
		while (f && (c = fgetc(f)) != EOF)
			h = (h ^ (unsigned char)c) * 0x100000001b3ull;
		if (f)
			fclose(f);
	} else if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
	}
	int n =
	    snprintf(snap + snap_len, sizeof(snap) - snap_len, "%s %o %lld %016llx %s\n", rel,
	             (unsigned)st->st_mode, (long long)st->st_size, (unsigned long long)h, link);
	if (n > 0 && (size_t)n < sizeof(snap) - snap_len)
		snap_len += (size_t)n;
	return 0;
}

static char *snapshot(void)
{
	snap_len = 0;
	snap[0] = 0;
	base_len = strlen(base);
	(void)nftw(base, snap_entry, 16, FTW_PHYS);
	return strdup(snap);
}

/* Create file f<id> of `size` bytes in directory `dir` of the tree, as the engine would. */
static int make_file(struct tree *t, uint32_t dir, uint32_t id, uint64_t size)
{
	char name[TREE_NAME_MAX];
	int dfd = tree_file_at(t, dir, id, name, sizeof(name));
	if (dfd < 0)
		return dfd;
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = ftruncate(fd, (off_t)size) ? -errno : 0;
	close(fd);
	return rc;
}

/* --- cases ---------------------------------------------------------------------------------- */

static void test_names(void)
{
	char b[TREE_NAME_MAX];
	CHECK_EQ_I(tree_file_name(0, b, sizeof(b)), 2);
	CHECK_STR(b, "f0");
	CHECK_EQ_I(tree_file_name(UINT32_MAX - 1, b, sizeof(b)), 11);
	CHECK_EQ_I(tree_dir_name(7, b, sizeof(b)), 4);
	CHECK_STR(b, "d007");
	CHECK_EQ_I(tree_dir_name(1234, b, sizeof(b)), 5);
	CHECK_STR(b, "d1234");
	CHECK_EQ_I(tree_meta_name(5, 0, b, sizeof(b)), 2);
	CHECK_STR(b, "m5");
	CHECK_EQ_I(tree_meta_name(5, 3, b, sizeof(b)), 4);
	CHECK_STR(b, "m5.3");
	CHECK_EQ_I(tree_file_name(123456, b, 4), -ENAMETOOLONG);
}

/* Canaries in location (including data/ and meta/, which FFSB would rm -rf), a foreign
 * fsmix.fs1 without a marker, and a symlink fsmix.fs2 -> target/: all untouched byte for byte
 * after open/build/remove of fsmix.fs0 and refused opens of fs1 and fs2. */
static void case_canaries(void)
{
	char err[512], p[PATH_MAX];
	struct tree t;
	put_file("canary.txt", "do not touch\n");
	put_dir("data");
	put_file("data/important.txt", "user data\n");
	put_dir("meta");
	put_file("meta/notes.txt", "user notes\n");
	put_dir("fsmix.fs1");
	put_file("fsmix.fs1/f1", "looks like ours, is not\n");
	put_dir("fsmix.fs1/data");
	put_dir("target");
	put_file("target/canary", "behind a symlink\n");
	PATHF(p, "%s/target", base);
	char l[PATH_MAX];
	PATHF(l, "%s/fsmix.fs2", base);
	CHECK_EQ_I(symlink(p, l), 0);
	char *before = snapshot();

	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK(t.created);
	CHECK(exists("fsmix.fs0/.fsmix-tree"));
	CHECK(exists("fsmix.fs0/data"));
	CHECK(exists("fsmix.fs0/meta"));
	CHECK_EQ_I(tree_set_dirs(&t, 5, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < 100; id++)
		CHECK_EQ_I(make_file(&t, id % 6 == 5 ? TREE_DIR_TOP : id % 6, id, id), 0);
	char mname[TREE_NAME_MAX];
	(void)tree_meta_name(3, 2, mname, sizeof(mname));
	CHECK_EQ_I(mkdirat(tree_meta_dirfd(&t), mname, 0700), 0);
	CHECK(exists("fsmix.fs0/data/d004/f4"));
	CHECK(exists("fsmix.fs0/data/f5"));
	CHECK(exists("fsmix.fs0/meta/m3.2"));
	tree_close(&t);

	/* Reopen: the marker is recognised, the id is stable. */
	struct tree t2;
	CHECK_EQ_I(tree_open(&t2, base, 0, 0, err, sizeof(err)), 0);
	CHECK(!t2.created);
	struct tree_purge sw;
	CHECK_EQ_I(tree_remove(&t2, &sw, err, sizeof(err)), 0);
	CHECK_EQ_U(sw.unknown, 0);
	CHECK_EQ_U(sw.removed, 100 + 5 + 1 + 2 + 2); /* files, dNNN, m3.2, data+meta, marker+root */
	CHECK(!exists("fsmix.fs0"));

	/* The foreign root and the symlink are refused, not adopted. */
	CHECK_EQ_I(tree_open(&t, base, 1, TREE_CREATE, err, sizeof(err)), -EEXIST);
	CHECK_CONTAINS(err, "fsmix.fs1' exists but has no valid .fsmix-tree marker");
	CHECK_EQ_I(tree_open(&t, base, 2, TREE_CREATE, err, sizeof(err)), -ELOOP);
	CHECK_CONTAINS(err, "fsmix.fs2' is a symbolic link");
	tree_close(&t);

	char *after = snapshot();
	CHECK_STR(after, before);
	free(before);
	free(after);
}

/* Entries fsmix did not generate, planted inside its tree, survive removal and are reported. */
static void case_unknown_inside(void)
{
	char err[512], p[PATH_MAX], l[PATH_MAX];
	struct tree t;
	struct tree_purge sw;
	put_file("outside", "canary\n");
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 3, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < 30; id++)
		CHECK_EQ_I(make_file(&t, id % 3, id, 10), 0);
	put_file("fsmix.fs0/data/d001/notes.txt", "planted\n");
	put_file("fsmix.fs0/data/f12x", "planted\n");
	/* a bare letter is no name of fsmix's: a number follows it (tree_is_numbered) */
	put_file("fsmix.fs0/data/f", "planted\n");
	put_dir("fsmix.fs0/data/d");
	put_file("fsmix.fs0/data/d/f1", "planted\n");
	PATHF(p, "%s/outside", base);
	PATHF(l, "%s/fsmix.fs0/data/f999", base);
	CHECK_EQ_I(symlink(p, l), 0); /* a symlink with one of our names */
	PATHF(l, "%s/fsmix.fs0/data/d000/f998", base);
	CHECK_EQ_I(symlink(base, l), 0);
	put_dir("fsmix.fs0/meta/m7");
	put_file("fsmix.fs0/meta/m7/secret", "planted\n");
	char *before = snapshot();
	/* replace_fsync's temporary file, left by a crash: fsmix's, removed (not unknown) */
	put_file("fsmix.fs0/data/d000/f31.tmp", "tmp\n");

	/* Rebuild-style emptying keeps the unknown entries and reports them. */
	CHECK_EQ_I(tree_remove_contents(&t, &sw, err, sizeof(err)), -ENOTEMPTY);
	CHECK_EQ_U(sw.unknown, 7);
	CHECK_CONTAINS(err, "left 7 unknown entries");
	CHECK_EQ_U(t.num_dirs, 0);
	CHECK(!exists("fsmix.fs0/data/d000/f0"));
	CHECK(!exists("fsmix.fs0/data/d002")); /* emptied and removed */
	CHECK(!exists("fsmix.fs0/data/d000/f31.tmp"));
	CHECK(exists("fsmix.fs0/data/d001/notes.txt"));

	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), -ENOTEMPTY);
	CHECK_EQ_U(sw.unknown, 7);
	CHECK(sw.first_unknown[0] != 0);
	CHECK_CONTAINS(err, "unknown entries");
	CHECK_CONTAINS(err, sw.first_unknown);
	CHECK(exists("fsmix.fs0/.fsmix-tree"));
	CHECK(exists("fsmix.fs0/data/f12x"));
	CHECK(exists("fsmix.fs0/data/f"));
	CHECK(exists("fsmix.fs0/data/d/f1"));
	CHECK(exists("fsmix.fs0/data/f999"));
	CHECK(exists("fsmix.fs0/data/d000/f998"));
	CHECK(exists("fsmix.fs0/meta/m7/secret"));
	CHECK(!exists("fsmix.fs0/data/d000/f3"));
	char *after = snapshot();
	CHECK_STR(after, before);
	free(before);
	free(after);

	/* Once the user takes their files away, removal completes. */
	PATHF(p, "%s/fsmix.fs0/data/d001/notes.txt", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/data/f12x", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/data/f", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/data/d/f1", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/data/d", base);
	(void)rmdir(p);
	PATHF(p, "%s/fsmix.fs0/data/f999", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/data/d000/f998", base);
	(void)unlink(p);
	PATHF(p, "%s/fsmix.fs0/meta/m7/secret", base);
	(void)unlink(p);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), 0);
	CHECK(!exists("fsmix.fs0"));
	CHECK(exists("outside"));
}

static void case_errors(void)
{
	char err[512], p[PATH_MAX], want[PATH_MAX + 64];
	struct tree t;
	PATHF(p, "%s/missing", base);
	CHECK_EQ_I(tree_open(&t, p, 0, TREE_CREATE, err, sizeof(err)), -ENOENT);
	PATHF(want, "location '%s': No such file or directory", p);
	CHECK_STR(err, want);
	tree_close(&t);

	put_file("plain", "x");
	PATHF(p, "%s/plain", base);
	CHECK_EQ_I(tree_open(&t, p, 0, TREE_CREATE, err, sizeof(err)), -ENOTDIR);
	PATHF(want, "location '%s' is not a directory", p);
	CHECK_STR(err, want);

	CHECK_EQ_I(tree_open(&t, "", 0, TREE_CREATE, err, sizeof(err)), -EINVAL);

	/* Without TREE_CREATE a missing root is an error, not created. */
	CHECK_EQ_I(tree_open(&t, base, 3, 0, err, sizeof(err)), -ENOENT);
	CHECK(!exists("fsmix.fs3"));

	/* A marker with the wrong content or a regular file in place of the root: refused. */
	put_dir("fsmix.fs4");
	put_file("fsmix.fs4/.fsmix-tree", "fsmix-tree\nversion 9\nid 0\n");
	CHECK_EQ_I(tree_open(&t, base, 4, TREE_CREATE, err, sizeof(err)), -EEXIST);
	put_file("fsmix.fs5", "a file\n");
	CHECK_EQ_I(tree_open(&t, base, 5, TREE_CREATE, err, sizeof(err)), -EEXIST);
	CHECK_CONTAINS(err, "not a directory created by fsmix");
	/* An empty directory without a marker is not adopted either. */
	put_dir("fsmix.fs6");
	CHECK_EQ_I(tree_open(&t, base, 6, TREE_CREATE, err, sizeof(err)), -EEXIST);
	CHECK(exists("fsmix.fs6"));

	/* Trailing slashes do not leak into the root path. */
	PATHF(p, "%s//", base);
	CHECK_EQ_I(tree_open(&t, p, 7, TREE_CREATE, err, sizeof(err)), 0);
	PATHF(want, "%s/fsmix.fs7", base);
	CHECK_STR(t.root, want);
	struct tree_usage u;
	CHECK_EQ_I(tree_usage(&t, &u), 0);
	CHECK(u.total_bytes > 0 && u.used_bytes <= u.total_bytes);
	CHECK(u.util >= 0.0 && u.util <= 1.0);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
}

/* A read-only location: a tiny read-only tmpfs (root only; chmod does not stop root). */
static void case_readonly(void)
{
	char err[512], p[PATH_MAX], want[PATH_MAX + 64];
	struct tree t;
	put_dir("ro");
	PATHF(p, "%s/ro", base);
	if (mount("fsmix-test", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=1m")) {
		printf("skip case_readonly: cannot mount a read-only tmpfs on %s: %s\n", p,
		       strerror(errno));
		return;
	}
	CHECK_EQ_I(tree_open(&t, p, 0, TREE_CREATE, err, sizeof(err)), -EROFS);
	PATHF(want, "location '%s' is read-only (Read-only file system)", p);
	CHECK_STR(err, want);
	if (umount2(p, MNT_DETACH))
		TEST_FAIL("umount %s: %s", p, strerror(errno));
}

/* tree_probe_open creates and removes its own probe file, also over a stale one, and reports
 * the flags' refusal as -errno. */
static void case_probe(void)
{
	char err[512], p[PATH_MAX];
	struct tree t;
	put_dir("probe");
	PATHF(p, "%s/probe", base);
	CHECK_EQ_I(tree_open(&t, p, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_probe_open(&t, 0), 0);
	CHECK(!exists("probe/fsmix.fs0/.fsmix-probe"));
	put_file("probe/fsmix.fs0/.fsmix-probe", "left by a crash");
	CHECK_EQ_I(tree_probe_open(&t, O_APPEND), 0);
	CHECK(!exists("probe/fsmix.fs0/.fsmix-probe"));
	/* O_DIRECTORY with O_CREAT is refused by the kernel: a refusal comes back as -errno. */
	CHECK(tree_probe_open(&t, O_DIRECTORY) < 0);
	CHECK(!exists("probe/fsmix.fs0/.fsmix-probe"));
	CHECK(exists("probe/fsmix.fs0/data"));
	tree_close(&t);
}

struct expect {
	uint32_t n;
	uint32_t id[256], dir[256];
	uint64_t size[256];
	int bad;
};

static int expect_visit(uint32_t id, uint32_t dir, uint64_t size, void *arg)
{
	struct expect *e = arg;
	for (uint32_t i = 0; i < e->n; i++)
		if (e->id[i] == id)
			return e->dir[i] == dir && e->size[i] == size ? 0 : (e->bad = 1);
	e->bad = 1;
	return 1;
}

static void case_manifest(void)
{
	char err[512], p[PATH_MAX];
	struct tree t;
	struct pool pool, loaded;
	static struct expect e;
	const uint64_t hash = 0x1234abcd5678ef00ull;
	memset(&e, 0, sizeof(e));
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 4, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&pool, 1 << 16), 0);
	/* 50 files, ids 0..59 with holes at multiples of 6. */
	for (uint32_t i = 0; i < 60; i++) {
		uint32_t id;
		CHECK_EQ_I(pool_reserve(&pool, &id), 0);
		uint32_t dir = i % 5 == 4 ? TREE_DIR_TOP : i % 5;
		if (i % 6 == 0) {
			pool_unreserve(&pool, id);
			uint32_t again;
			CHECK_EQ_I(pool_reserve(&pool, &again), 0); /* takes the same slot back */
			CHECK_EQ_U(again, id);
			pool_publish(&pool, id, dir, 0);
			continue;
		}
		CHECK_EQ_I(make_file(&t, dir, id, 100 + i), 0);
		pool_publish(&pool, id, dir, 100 + i);
		e.id[e.n] = id;
		e.dir[e.n] = dir;
		e.size[e.n++] = 100 + i;
	}
	/* Remove the size-0 placeholders, leaving holes. */
	struct rng r;
	rng_seed(&r, 9, 0);
	for (uint32_t i = 0; i < 60; i += 6) {
		CHECK_EQ_I(pool_try_acquire(&pool, i, POOL_WRITE), 0);
		pool_remove(&pool, i);
	}
	CHECK_EQ_U(pool_live(&pool), 50);
	/* A hard link planted at the manifest's temp name is never written through. */
	snprintf(p, sizeof(p), "%s/victim", base);
	FILE *v = fopen(p, "w");
	CHECK(v != NULL);
	if (v) {
		fputs("keep me\n", v);
		fclose(v);
	}
	char tmpname[PATH_MAX];
	snprintf(tmpname, sizeof(tmpname), "%s/fsmix.fs0/.fsmix-manifest.tmp", base);
	CHECK_EQ_I(link(p, tmpname), 0);
	CHECK_EQ_I(tree_write_manifest(&t, hash, &pool, err, sizeof(err)), 0);
	struct stat vst;
	CHECK_EQ_I(stat(p, &vst), 0);
	CHECK_EQ_I((int)vst.st_size, 8); /* "keep me\n", not a manifest */
	CHECK_EQ_I((int)vst.st_nlink, 1);
	CHECK_EQ_I(unlink(p), 0);
	CHECK(exists("fsmix.fs0/.fsmix-manifest"));
	CHECK(!exists("fsmix.fs0/.fsmix-manifest.tmp"));
	tree_close(&t);

	/* Round trip into a fresh pool, from a freshly opened tree. */
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&loaded, 1 << 16), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	CHECK_EQ_U(t.num_dirs, 4);
	CHECK_EQ_U(pool_live(&loaded), 50);
	CHECK_EQ_I(pool_foreach_live(&loaded, expect_visit, &e), 0);
	CHECK(!e.bad);
	uint32_t hole;
	CHECK_EQ_I(pool_reserve(&loaded, &hole), 0);
	CHECK_EQ_U(hole, 0); /* holes are on the free stack, lowest first */
	pool_destroy(&loaded);

	/* Wrong spec hash. */
	CHECK_EQ_I(pool_init(&loaded, 1 << 16), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash + 1, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_CONTAINS(err, "different filesystem spec");
	CHECK_EQ_U(pool_live(&loaded), 0);
	/* A pool too small for the ids. */
	struct pool small;
	CHECK_EQ_I(pool_init(&small, 40), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &small, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ENOSPC);
	pool_destroy(&small);

	/* A deleted file is caught (every listed file is checked). */
	PATHF(p, "%s/fsmix.fs0/data/d001/f31", base);
	CHECK_EQ_I(unlink(p), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_CONTAINS(err, "data/d001/f31' listed in the manifest: No such file or directory");
	CHECK_EQ_U(pool_live(&loaded), 0);
	CHECK_EQ_U(pool_high_water(&loaded), 0);
	/* A file with another size, too. */
	tree_close(&t);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 4, err, sizeof(err)), 0);
	CHECK_EQ_I(make_file(&t, 1, 31, 131), 0);
	PATHF(p, "%s/fsmix.fs0/data/f9", base);
	CHECK_EQ_I(truncate(p, 5), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_CONTAINS(err, "data/f9' is 5 bytes, the manifest says 109");
	CHECK_EQ_I(truncate(p, 109), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	pool_destroy(&loaded);

	/* An extra directory changes the layout. */
	put_dir("fsmix.fs0/data/d004");
	tree_close(&t);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&loaded, 1 << 16), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_CONTAINS(err, "data/d004 exists");
	PATHF(p, "%s/fsmix.fs0/data/d004", base);
	CHECK_EQ_I(rmdir(p), 0);

	/* One flipped byte: corrupt. */
	PATHF(p, "%s/fsmix.fs0/.fsmix-manifest", base);
	int fd = open(p, O_RDWR);
	unsigned char c = 0;
	CHECK_EQ_I(pread(fd, &c, 1, 60), 1);
	c ^= 1;
	CHECK_EQ_I(pwrite(fd, &c, 1, 60), 1);
	close(fd);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -EBADMSG);
	CHECK_CONTAINS(err, "corrupt");

	/* Invalidate: gone, and loading says so. */
	CHECK_EQ_I(tree_invalidate_manifest(&t, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_invalidate_manifest(&t, err, sizeof(err)), 0);
	CHECK(!exists("fsmix.fs0/.fsmix-manifest"));
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ENOENT);
	CHECK_CONTAINS(err, "no manifest");

	/* 1000 files, half deleted: caught. */
	CHECK_EQ_I(tree_remove_contents(&t, NULL, err, sizeof(err)), 0);
	/* A low descriptor limit (400: an eighth, 50 held directories) leaves d150 to the path
	 * fallback. */
	struct rlimit rl_old, rl_low;
	CHECK_EQ_I(getrlimit(RLIMIT_NOFILE, &rl_old), 0);
	rl_low = rl_old;
	rl_low.rlim_cur = 400;
	CHECK_EQ_I(setrlimit(RLIMIT_NOFILE, &rl_low), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 200, err, sizeof(err)), 0);
	CHECK_EQ_I(setrlimit(RLIMIT_NOFILE, &rl_old), 0);
	CHECK_EQ_U(t.num_dirfds, 50);
	CHECK_EQ_I(tree_data_dirfd(&t, 150), -1);
	char name[TREE_NAME_MAX];
	CHECK_EQ_I(tree_file_at(&t, 150, 7, name, sizeof(name)), t.datafd);
	CHECK_STR(name, "d150/f7");
	CHECK_EQ_I(tree_file_at(&t, 200, 7, name, sizeof(name)), -EINVAL);
	CHECK_EQ_I(tree_file_at(&t, 5, 7, name, sizeof(name)), tree_data_dirfd(&t, 5));
	CHECK_STR(name, "f7");
	pool_destroy(&pool);
	CHECK_EQ_I(pool_init(&pool, 1 << 16), 0);
	for (uint32_t id = 0; id < 1000; id++) {
		CHECK_EQ_I(make_file(&t, id % 200, id, 1), 0);
		CHECK_EQ_I(pool_add_initial(&pool, id, id % 200, 1), 0);
	}
	CHECK_EQ_I(tree_write_manifest(&t, hash, &pool, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < 1000; id += 2) {
		int dfd = tree_file_at(&t, id % 200, id, name, sizeof(name));
		CHECK_EQ_I(unlinkat(dfd, name, 0), 0);
	}
	pool_destroy(&loaded);
	CHECK_EQ_I(pool_init(&loaded, 1 << 16), 0);
	tree_close(&t);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_CONTAINS(err, "No such file or directory");

	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
	CHECK(!exists("fsmix.fs0"));
	pool_destroy(&loaded);
	pool_destroy(&pool);
}

/* Leftovers of a crash during creation (fsmix.fs0.new) or removal (fsmix.fs0.del), in every
 * state the steps can leave, are finished by the next tree_open; a .new that is not
 * recognisably fsmix's (a user's file inside) stays, and so does everything beside it. */
static void case_leftovers(void)
{
	char err[512];
	struct tree t;
	put_file("canary", "keep\n");
	/* Creation killed right after mkdir, after the marker's temp file, with data/ made. */
	static const char *const news[][3] = {
	    {NULL, NULL, NULL},
	    {".fsmix-tree.tmp", NULL, NULL},
	    {".fsmix-tree.tmp", "data", "meta"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(news); i++) {
		put_dir("fsmix.fs0.new");
		if (news[i][0])
			put_file("fsmix.fs0.new/.fsmix-tree.tmp", "fsmix-tree\nversion 1\n");
		if (news[i][1]) {
			put_dir("fsmix.fs0.new/data");
			put_dir("fsmix.fs0.new/meta");
		}
		base_syncs = 0;
		CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
		CHECK_EQ_U(t.leftovers, 1);
		CHECK(!exists("fsmix.fs0.new"));
		CHECK(base_syncs >= 2); /* the leftover's removal, then the new tree's rename */
		CHECK(exists("fsmix.fs0/.fsmix-tree"));
		/* Removal killed after the rename aside (the whole tree is there) and after the
		 * marker's unlink (an empty .del). */
		CHECK_EQ_I(tree_set_dirs(&t, 2, err, sizeof(err)), 0);
		CHECK_EQ_I(make_file(&t, 1, 3, 10), 0);
		tree_close(&t);
		char from[PATH_MAX], to[PATH_MAX];
		PATHF(from, "%s/fsmix.fs0", base);
		PATHF(to, "%s/fsmix.fs0.del", base);
		CHECK_EQ_I(rename(from, to), 0);
		base_syncs = 0;
		CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), -ENOENT);
		CHECK_EQ_U(t.leftovers, 1);
		CHECK(!exists("fsmix.fs0.del"));
		CHECK_EQ_I(base_syncs, 1); /* the removal made durable */
		put_dir("fsmix.fs0.del");
		CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), -ENOENT);
		CHECK_EQ_U(t.leftovers, 1);
		CHECK(!exists("fsmix.fs0.del"));
	}
	/* A .new without a marker holding anything but the creation's own first steps is not
	 * fsmix's: nothing in it is removed (the marker's temp file neither). */
	put_dir("fsmix.fs0.new");
	put_file("fsmix.fs0.new/.fsmix-tree.tmp", "fsmix-tree\nversion 1\n");
	put_dir("fsmix.fs0.new/data");
	put_file("fsmix.fs0.new/data/users-file", "mine\n");
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), -ENOENT);
	CHECK_EQ_U(t.leftovers, 0);
	CHECK(exists("fsmix.fs0.new/.fsmix-tree.tmp"));
	CHECK(exists("fsmix.fs0.new/data/users-file"));
	put_dir("fsmix.fs0.new/notes");
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), -ENOENT);
	CHECK(exists("fsmix.fs0.new/notes"));
	CHECK(exists("fsmix.fs0.new/.fsmix-tree.tmp"));
	{
		char p[PATH_MAX];
		PATHF(p, "%s/fsmix.fs0.new/data/users-file", base);
		CHECK_EQ_I(unlink(p), 0);
		PATHF(p, "%s/fsmix.fs0.new/data", base);
		CHECK_EQ_I(rmdir(p), 0);
		PATHF(p, "%s/fsmix.fs0.new/notes", base);
		CHECK_EQ_I(rmdir(p), 0);
		PATHF(p, "%s/fsmix.fs0.new/.fsmix-tree.tmp", base);
		CHECK_EQ_I(unlink(p), 0);
		PATHF(p, "%s/fsmix.fs0.new", base);
		CHECK_EQ_I(rmdir(p), 0);
	}
	/* A marked tree with a user's file, aside as .del: put back under its own name, kept. */
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	tree_close(&t);
	put_file("fsmix.fs0/data/users-file", "mine\n");
	char from[PATH_MAX], to[PATH_MAX];
	PATHF(from, "%s/fsmix.fs0", base);
	PATHF(to, "%s/fsmix.fs0.del", base);
	CHECK_EQ_I(rename(from, to), 0);
	base_syncs = 0;
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK(exists("fsmix.fs0/data/users-file"));
	CHECK(!exists("fsmix.fs0.del"));
	CHECK_EQ_I(base_syncs, 1); /* the rename back made durable */
	struct tree_purge sw;
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), -ENOTEMPTY);
	CHECK(exists("fsmix.fs0/data/users-file")); /* kept under its own name */
	CHECK(exists("fsmix.fs0/.fsmix-tree"));
	CHECK(!exists("fsmix.fs0.del"));
	PATHF(from, "%s/fsmix.fs0/data/users-file", base);
	CHECK_EQ_I(unlink(from), 0);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), 0);
	CHECK(!exists("fsmix.fs0"));
	/* Not recognisably ours: a user's file in a .new without a marker stays, and creation
	 * says so instead of using or deleting it. */
	put_dir("fsmix.fs0.new");
	put_file("fsmix.fs0.new/thesis.tex", "years of work\n");
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), -EEXIST);
	CHECK_CONTAINS(err, "fsmix.fs0.new' exists and is not recognisably fsmix's");
	CHECK(exists("fsmix.fs0.new/thesis.tex"));
	CHECK(!exists("fsmix.fs0"));
	CHECK(exists("canary"));
}

/* The location lock: counted within the process, refused to another process with our PID
 * named, released with the last reference (and by the process's death). */
static void case_lock(void)
{
	char err[512];
	struct tree t;
	int h1 = tree_lock_location(base, err, sizeof(err));
	CHECK(h1 > 0);
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0); /* same process */
	int fds[2];
	CHECK_EQ_I(pipe(fds), 0);
	pid_t child = fork();
	if (child == 0) {
		/* Another process: refused, with the holder's PID and name; the holder (this
		 * test, not a program named fsmix) is not called an fsmix. */
		char e2[512] = "";
		struct tree t2;
		int rc = tree_open(&t2, base, 0, 0, e2, sizeof(e2));
		char want[64];
		(void)snprintf(want, sizeof(want), "locked by another process (PID %ld, '",
		               (long)getppid());
		char ok = rc == -EBUSY && strstr(e2, want) && strstr(e2, "not fsmix") &&
		                  !strstr(e2, "fsmix runs")
		              ? 'y'
		              : 'n';
		if (write(fds[1], &ok, 1) != 1)
			_exit(2);
		_exit(0);
	}
	char got = 0;
	CHECK_EQ_I(read(fds[0], &got, 1), 1);
	CHECK(got == 'y');
	waitpid(child, NULL, 0);
	tree_close(&t);
	/* Still held through h1; then released: another process gets it. */
	child = fork();
	if (child == 0)
		_exit(tree_lock_location(base, NULL, 0) == -EBUSY ? 0 : 1);
	int st = 0;
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	tree_unlock_location(h1);
	child = fork();
	if (child == 0)
		_exit(tree_lock_location(base, NULL, 0) > 0 ? 0 : 1);
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	close(fds[1]);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
	tree_unlock_location(0); /* harmless */
}

/* The lock held by its PID namespace's PID 1 (as a container's init can hold it): the holder is
 * named as PID 1 with its name, not as one that cannot be told. A PID 1 holds it in a new PID
 * namespace with its own /proc (root; skipped where namespaces cannot be made), and its child
 * asks for the lock. */
static int lock_as_pid1(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", 0, NULL))
		return 77;
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX) || getpid() != 1)
		return 2;
	pid_t probe = fork();
	if (probe == 0) {
		char e[512] = "";
		int rc = tree_lock_location(base, e, sizeof(e));
		if (rc == -EBUSY && strstr(e, "locked by another process (PID 1, 'test_tree')"))
			_exit(0);
		fprintf(stderr, "case_lock_pid1: %d, %s\n", rc, e);
		_exit(1);
	}
	int st = 0;
	return waitpid(probe, &st, 0) == probe && WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

static void case_lock_pid1(void)
{
	pid_t outer = fork();
	if (outer == 0) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(77);
		pid_t init = fork();
		if (init == 0)
			_exit(lock_as_pid1());
		int st = 0;
		_exit(waitpid(init, &st, 0) == init && WIFEXITED(st) ? WEXITSTATUS(st) : 3);
	}
	int st = 0;
	CHECK(waitpid(outer, &st, 0) == outer && WIFEXITED(st));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		printf("skip case_lock_pid1: cannot make a PID namespace with its own /proc\n");
		return;
	}
	CHECK_EQ_I(WEXITSTATUS(st), 0);
}

/* An I/O error while reading the marker (here EMFILE, at every descriptor limit that lets
 * tree_open get some way) is reported as such, never as "not created by fsmix". */
static void case_marker_io(void)
{
	char err[512];
	struct tree t;
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	tree_close(&t);
	int lowest = dup(0);
	close(lowest);
	struct rlimit old, low;
	CHECK_EQ_I(getrlimit(RLIMIT_NOFILE, &old), 0);
	int opened = 0;
	for (int extra = 0; extra < 10; extra++) {
		low = old;
		low.rlim_cur = (rlim_t)(lowest + extra);
		CHECK_EQ_I(setrlimit(RLIMIT_NOFILE, &low), 0);
		int rc = tree_open(&t, base, 0, 0, err, sizeof(err));
		CHECK_EQ_I(setrlimit(RLIMIT_NOFILE, &old), 0);
		if (rc == 0) {
			opened = 1;
			tree_close(&t);
			continue;
		}
		CHECK_EQ_I(rc, -EMFILE);
		CHECK_EQ_I(tree_failure(rc), FAIL_IO);
		CHECK(!strstr(err, "not created by fsmix"));
	}
	CHECK(opened);
	CHECK(exists("fsmix.fs0/.fsmix-tree"));
	CHECK_EQ_I(tree_failure(-EEXIST), FAIL_INPUT);
	CHECK_EQ_I(tree_failure(-EBUSY), FAIL_INPUT);
	CHECK_EQ_I(tree_failure(-EIO), FAIL_IO);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
}

/* The run id in the marker (tree_mark_run): none in a new tree; recorded, kept on reopening and
 * read by tree_peek with the tree id unchanged; replaced by a later run's; a marker with a run
 * line is still valid, and one of fsmix before run ids (no run line) reads as run 0. */
static void case_marker_run(void)
{
	char err[512];
	struct tree t;
	uint64_t id = 0, run = 1;
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_U(t.run_id, 0);
	uint64_t tid = t.tree_id;
	CHECK_EQ_I(tree_mark_run(&t, 0x1234abcd5678ef00ull, err, sizeof(err)), 0);
	CHECK_EQ_U(t.run_id, 0x1234abcd5678ef00ull);
	tree_close(&t);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_U(t.tree_id, tid);
	CHECK_EQ_U(t.run_id, 0x1234abcd5678ef00ull);
	CHECK_EQ_I(tree_mark_run(&t, 0xfeed, err, sizeof(err)), 0);
	int fd = tree_peek(base, 0, &id, &run, err, sizeof(err));
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_U(id, tid);
	CHECK_EQ_U(run, 0xfeed);
	CHECK(!exists("fsmix.fs0/.fsmix-tree.tmp"));
	/* the marker fsmix before run ids wrote */
	char m[128];
	snprintf(m, sizeof(m), "fsmix-tree\nversion 1\nid %016llx\n", (unsigned long long)tid);
	put_file("fsmix.fs0/.fsmix-tree", m);
	fd = tree_peek(base, 0, &id, &run, err, sizeof(err));
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_U(id, tid);
	CHECK_EQ_U(run, 0);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
}

/* A reused tree must not lead outside: a listed file with another hard link refuses the reuse
 * (-EMLINK, file named); a directory mounted over data/d001 (root only) refuses it (-EXDEV), is
 * not entered by removal, and is refused by tree_set_dirs. */
static void case_links_mounts(void)
{
	char err[512], p[PATH_MAX], q[PATH_MAX];
	struct tree t;
	struct pool pool;
	const uint64_t hash = 42;
	put_dir("victim");
	put_file("victim/f", "0123456789");
	char *before = snapshot();
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 2, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&pool, 64), 0);
	for (uint32_t id = 0; id < 6; id++) {
		CHECK_EQ_I(make_file(&t, id % 2, id, 10), 0);
		CHECK_EQ_I(pool_add_initial(&pool, id, id % 2, 10), 0);
	}
	CHECK_EQ_I(tree_write_manifest(&t, hash, &pool, err, sizeof(err)), 0);
	pool_destroy(&pool);
	tree_close(&t);
	PATHF(p, "%s/fsmix.fs0/data/d001/f3", base);
	PATHF(q, "%s/victim/f", base);
	CHECK_EQ_I(unlink(p), 0);
	CHECK_EQ_I(link(q, p), 0);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&pool, 64), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &pool, TREE_VERIFY_ALL, err, sizeof(err)), -EMLINK);
	CHECK_CONTAINS(err, "data/d001/f3' has 2 hard links");
	CHECK_EQ_U(pool_live(&pool), 0);
	CHECK_EQ_I(unlink(p), 0);
	CHECK_EQ_I(make_file(&t, 1, 3, 10), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &pool, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	pool_destroy(&pool);
	tree_close(&t);

	PATHF(p, "%s/fsmix.fs0/data/d001", base);
	PATHF(q, "%s/victim", base);
	if (mount(q, p, NULL, MS_BIND, NULL)) {
		printf("skip case_links_mounts (mounts): bind mount: %s\n", strerror(errno));
	} else {
		CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
		CHECK_EQ_I(pool_init(&pool, 64), 0);
		CHECK_EQ_I(tree_load_manifest(&t, hash, &pool, TREE_VERIFY_ALL, err, sizeof(err)),
		           -EXDEV);
		CHECK_CONTAINS(err, "data/d001' is a mount point");
		pool_destroy(&pool);
		CHECK_EQ_I(tree_set_dirs(&t, 2, err, sizeof(err)), -EXDEV);
		struct tree_purge sw;
		CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), -ENOTEMPTY);
		CHECK_CONTAINS(err, "first: data/d001");
		CHECK(exists("victim/f"));
		CHECK(exists("fsmix.fs0/.fsmix-tree"));
		CHECK(!exists("fsmix.fs0.del"));
		CHECK_EQ_I(umount2(p, MNT_DETACH), 0);
	}
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
	char *after = snapshot();
	CHECK_STR(after, before);
	free(before);
	free(after);
}

/* Whose the tree is (issue 19, item 1): the root, its marker, data/ and every dNNN, and a
 * leftover .del, must be the running user's and writable by nobody else; a marker alone does
 * not make a directory fsmix's. Root changes owners with chown; as another user, mode only. */
static void case_owners(void)
{
	char err[MSG_MAX], p[PATH_MAX];
	struct tree t;
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 2, err, sizeof(err)), 0);
	CHECK_EQ_I(make_file(&t, 1, 7, 10), 0);
	tree_close(&t);
	static const char *const parts[] = {"fsmix.fs0", "fsmix.fs0/.fsmix-tree", "fsmix.fs0/data",
	                                    "fsmix.fs0/data/d001"};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		struct stat st;
		PATHF(p, "%s/%s", base, parts[i]);
		CHECK_EQ_I(stat(p, &st), 0);
		CHECK_EQ_I(chmod(p, (st.st_mode & 07777) | S_IWGRP), 0);
		int rc = tree_open(&t, base, 0, 0, err, sizeof(err));
		if (rc == 0)
			rc = tree_set_dirs(&t, 2, err, sizeof(err));
		CHECK_EQ_I(rc, -EPERM);
		CHECK_CONTAINS(err, p);
		CHECK_CONTAINS(err, "is writable by its group");
		CHECK_EQ_I(tree_failure(rc), FAIL_INPUT);
		tree_close(&t);
		if (geteuid() == 0) { /* another owner, and the removal stops there */
			CHECK_EQ_I(chmod(p, st.st_mode & 07777), 0);
			CHECK_EQ_I(chown(p, 65534, 65534), 0);
			rc = tree_open(&t, base, 0, 0, err, sizeof(err));
			if (rc == 0)
				rc = tree_remove(&t, NULL, err, sizeof(err));
			CHECK_EQ_I(rc, -EPERM);
			CHECK_CONTAINS(err, "(uid 65534), not to ");
			CHECK_CONTAINS(err, p);
			CHECK(exists("fsmix.fs0/data/d001/f7"));
			CHECK(exists("fsmix.fs0/.fsmix-tree"));
			CHECK_EQ_I(chown(p, 0, 0), 0);
		}
		CHECK_EQ_I(chmod(p, st.st_mode & 07777), 0);
	}
	/* A leftover .del of another user is refused, not swept. */
	PATHF(p, "%s/fsmix.fs0.del", base);
	CHECK_EQ_I(mkdir(p, 0775), 0);
	put_file("fsmix.fs0.del/.fsmix-tree", "fsmix-tree\nversion 1\nid 0123456789abcdef\n");
	CHECK_EQ_I(chmod(p, 0775), 0);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), -EPERM);
	CHECK_CONTAINS(err, "fsmix.fs0.del' (owner ");
	CHECK(exists("fsmix.fs0.del/.fsmix-tree"));
	CHECK_EQ_I(chmod(p, 0700), 0);
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0); /* now ours: swept */
	CHECK_EQ_U(t.leftovers, 1);
	CHECK(!exists("fsmix.fs0.del"));
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
	CHECK(!exists("fsmix.fs0"));
}

static void on_each_base(void (*fn)(void), const char *name)
{
	static const char *const parents[] = {"/tmp", "/dev/shm"};
	for (size_t i = 0; i < ARRAY_SIZE(parents); i++) {
		struct stat st;
		if (stat(parents[i], &st) || !S_ISDIR(st.st_mode)) {
			printf("skip %s on %s: not available\n", name, parents[i]);
			continue;
		}
		int before = test_failed_checks;
		make_base(parents[i]);
		if (base[0])
			fn();
		drop_base();
		fprintf(stderr, "%s %s on %s\n", test_failed_checks == before ? "ok  " : "FAIL",
		        name, parents[i]);
	}
}

#define ON_EACH_BASE(fn) on_each_base(fn, #fn)

/* The manifest keeps every file's content generation and its write time (version 2); with
 * TREE_KEEP_SIZES a file of another size loads with the listed size (verify=1 reports it); a
 * version 1 manifest (16-byte records) still loads, its generations unknown. */
static void case_manifest_generations(void)
{
	char err[512], p[PATH_MAX];
	struct tree t;
	struct pool pool, loaded;
	const uint64_t hash = 0x77ull;
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 1, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&pool, 64), 0);
	for (uint32_t id = 0; id < 5; id++) {
		CHECK_EQ_I(make_file(&t, 0, id, 1000 + id), 0);
		CHECK_EQ_I(pool_add_initial(&pool, id, 0, 1000 + id), 0);
		CHECK_EQ_U(pool_gen(&pool, id), POOL_GEN_UNKNOWN);
		pool_set_gen(&pool, id, 1, 0);
	}
	pool_set_gen(&pool, 3, 4000000000u, 1700000000u); /* held: a writer's bump */
	CHECK_EQ_U(pool_gen(&pool, 3), 4000000000u);
	CHECK_EQ_U(pool_gen_time(&pool, 3), 1700000000u);
	CHECK_EQ_I(tree_write_manifest(&t, hash, &pool, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&loaded, 64), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	CHECK_EQ_U(pool_gen(&loaded, 0), 1);
	CHECK_EQ_U(pool_gen(&loaded, 3), 4000000000u);
	CHECK_EQ_U(pool_gen_time(&loaded, 3), 1700000000u);
	CHECK_EQ_U(pool_gen_time(&loaded, 4), 0);
	pool_destroy(&loaded);
	/* a truncated file: rebuild without TREE_KEEP_SIZES, the listed size with it */
	PATHF(p, "%s/fsmix.fs0/data/d000/f2", base);
	CHECK_EQ_I(truncate(p, 10), 0);
	CHECK_EQ_I(pool_init(&loaded, 64), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -ESTALE);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL | TREE_KEEP_SIZES, err,
	                              sizeof(err)),
	           0);
	CHECK_EQ_U(pool_size(&loaded, 2), 1002);
	pool_destroy(&loaded);
	CHECK_EQ_I(truncate(p, 1002), 0);
	/* a version 1 manifest: the same files, generations unknown */
	unsigned char buf[48 + 5 * 16 + 8] = {0};
	uint32_t u32;
	uint64_t u64;
	memcpy(buf, "FSMIXMAN", 8);
	u32 = 1;
	memcpy(buf + 8, &u32, 4);
	u32 = 0x01020304u;
	memcpy(buf + 12, &u32, 4);
	memcpy(buf + 16, &hash, 8);
	memcpy(buf + 24, &t.tree_id, 8);
	u32 = 1;
	memcpy(buf + 32, &u32, 4);
	u64 = 5;
	memcpy(buf + 40, &u64, 8);
	for (uint32_t id = 0; id < 5; id++) {
		unsigned char *rec = buf + 48 + id * 16;
		memcpy(rec, &id, 4);
		u32 = 0;
		memcpy(rec + 4, &u32, 4);
		u64 = 1000 + id;
		memcpy(rec + 8, &u64, 8);
	}
	u64 = hash_fnv1a(HASH_FNV1A_SEED, buf, sizeof(buf) - 8);
	memcpy(buf + sizeof(buf) - 8, &u64, 8);
	PATHF(p, "%s/fsmix.fs0/.fsmix-manifest", base);
	FILE *f = fopen(p, "w");
	CHECK(f && fwrite(buf, 1, sizeof(buf), f) == sizeof(buf));
	if (f)
		fclose(f);
	CHECK_EQ_I(pool_init(&loaded, 64), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	CHECK_EQ_U(pool_live(&loaded), 5);
	CHECK_EQ_U(pool_size(&loaded, 4), 1004);
	CHECK_EQ_U(pool_gen(&loaded, 3), POOL_GEN_UNKNOWN);
	pool_destroy(&loaded);
	/* its first record in a directory the tree does not have (a sound checksum): corrupt */
	u32 = 7;
	memcpy(buf + 48 + 4, &u32, 4);
	u64 = hash_fnv1a(HASH_FNV1A_SEED, buf, sizeof(buf) - 8);
	memcpy(buf + sizeof(buf) - 8, &u64, 8);
	f = fopen(p, "w");
	CHECK(f && fwrite(buf, 1, sizeof(buf), f) == sizeof(buf));
	if (f)
		fclose(f);
	CHECK_EQ_I(pool_init(&loaded, 64), 0);
	CHECK_EQ_I(tree_load_manifest(&t, hash, &loaded, TREE_VERIFY_ALL, err, sizeof(err)),
	           -EBADMSG);
	CHECK_CONTAINS(err, "corrupt (record 0)");
	pool_destroy(&loaded);
	pool_destroy(&pool);
	CHECK_EQ_I(tree_remove(&t, NULL, err, sizeof(err)), 0);
}

/* A second name l<id> (op link) is of the tree's naming scheme, as f<id> is: the tree does not
 * record which ops its runs used (a tree a links run left may be rebuilt by a run without
 * links, which must empty it), so a regular file l<id> in a data directory of a marked tree
 * that is the user's and writable by nobody else (tree_owner.c: no other user can have put it
 * there) is removed by name and type, like f<id> beyond the tree's file count. What does not
 * match the scheme's name and type stays: a symlink or a directory named l<id>, "l", "l5x",
 * "L5". (A review asked whether purge proves l<id> fsmix's: the proof is the one f<id> has.) */
static void case_second_names(void)
{
	char err[512], p[PATH_MAX], l[PATH_MAX];
	struct tree t;
	struct tree_purge sw;
	put_file("outside", "canary\n");
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 2, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < 4; id++) /* a tree built without links */
		CHECK_EQ_I(make_file(&t, id % 2, id, 10), 0);
	put_file("fsmix.fs0/data/d001/l0", "left by a links run\n");
	put_file("fsmix.fs0/data/l3", "left by a links run\n");
	put_file("fsmix.fs0/data/d000/l77", "an id beyond the tree's files\n");
	put_file("fsmix.fs0/data/d000/l", "planted\n");
	put_file("fsmix.fs0/data/d000/l5x", "planted\n");
	put_file("fsmix.fs0/data/d000/L5", "planted\n");
	put_dir("fsmix.fs0/data/d001/l2");
	PATHF(p, "%s/outside", base);
	PATHF(l, "%s/fsmix.fs0/data/d001/l1", base);
	CHECK_EQ_I(symlink(p, l), 0);
	CHECK_EQ_I(tree_remove_contents(&t, &sw, err, sizeof(err)), -ENOTEMPTY);
	CHECK_EQ_U(sw.unknown, 5);
	CHECK(!exists("fsmix.fs0/data/d001/l0"));
	CHECK(!exists("fsmix.fs0/data/l3"));
	CHECK(!exists("fsmix.fs0/data/d000/l77"));
	CHECK(exists("fsmix.fs0/data/d000/l"));
	CHECK(exists("fsmix.fs0/data/d000/l5x"));
	CHECK(exists("fsmix.fs0/data/d000/L5"));
	CHECK(exists("fsmix.fs0/data/d001/l2"));
	CHECK(exists("fsmix.fs0/data/d001/l1"));
	CHECK(exists("outside"));
	tree_close(&t);
}

/* tree.purge_stop: asked before each entry; true stops the removal there (-EINTR), leaving
 * fsmix.fs0.del, which the next tree_open finishes. */
static unsigned stop_calls;
static bool stop_after_10(void *arg)
{
	(void)arg;
	return ++stop_calls > 10;
}

static void case_purge_stop(void)
{
	char err[512];
	struct tree t;
	struct tree_purge sw;
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK(t.purge_stop == NULL);
	CHECK_EQ_I(tree_set_dirs(&t, 3, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < 30; id++)
		CHECK_EQ_I(make_file(&t, id % 3, id, 10), 0);
	stop_calls = 0;
	t.purge_stop = stop_after_10;
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), -EINTR);
	CHECK_CONTAINS(err, "stopped after");
	CHECK_CONTAINS(err, "'fsmix clean' removes the rest");
	CHECK_CONTAINS(err, "kept as");
	CHECK(sw.removed > 0 && sw.removed < 30);
	CHECK(!exists("fsmix.fs0"));
	CHECK(exists("fsmix.fs0.del/.fsmix-tree"));
	struct tree t2;
	CHECK_EQ_I(tree_open(&t2, base, 0, 0, err, sizeof(err)), -ENOENT);
	CHECK_EQ_U(t2.leftovers, 1);
	CHECK(!exists("fsmix.fs0.del"));
	tree_close(&t2);
}

/* tree_instance_find: every rank of the filesystem's trees once (a tree and its interrupted
 * .new or .del alike), in order; other filesystems' trees and the rankless tree are not ranks. */
static void case_instances(void)
{
	static const char *const dirs[] = {"fsmix.fs0.r2",      "fsmix.fs0.r0", "fsmix.fs0.r2.new",
	                                   "fsmix.fs0.r10.del", "fsmix.fs1.r5", "fsmix.fs0"};
	char p[PATH_MAX];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		PATHF(p, "%s/%s", base, dirs[i]);
		CHECK_EQ_I(mkdir(p, 0755), 0);
	}
	int *ranks = NULL;
	CHECK_EQ_I(tree_instance_find(base, 0, &ranks), 3);
	CHECK(ranks && ranks[0] == 0 && ranks[1] == 2 && ranks[2] == 10);
	free(ranks);
	CHECK_EQ_I(tree_instance_find(base, 1, &ranks), 1);
	CHECK(ranks && ranks[0] == 5);
	free(ranks);
}

/* A tree of several levels (dir_depth): every directory made, files in the leaves, a leaf
 * reached by its path when its descriptor is not held, the layout kept by the manifest (version
 * 3; a flat tree's stays version 2) and checked against the tree's, and removal of it all. */
static void case_deep(void)
{
	char err[512], name[TREE_NAME_MAX], p[PATH_MAX];
	struct tree t;
	struct pool pool, loaded;
	struct dirlayout l = {.top = 2, .depth = 3, .fanout = 4}; /* 2 + 8 + 32 directories */
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_layout(&t, &l, err, sizeof(err)), 0);
	CHECK_EQ_U(t.num_dirs, 32);
	CHECK(exists("fsmix.fs0/data/d000/d000/d000"));
	CHECK(exists("fsmix.fs0/data/d001/d003/d003"));
	CHECK(!exists("fsmix.fs0/data/d002"));
	CHECK(!exists("fsmix.fs0/data/d000/d004"));
	CHECK_EQ_I(pool_init(&pool, 1 << 10), 0);
	for (uint32_t id = 0; id < 64; id++) {
		uint32_t got;
		CHECK_EQ_I(pool_reserve(&pool, &got), 0);
		CHECK_EQ_I(make_file(&t, id % 32, got, 10), 0);
		pool_publish(&pool, got, id % 32, 10);
	}
	CHECK(exists("fsmix.fs0/data/d000/d001/d001/f5"));
	CHECK(exists("fsmix.fs0/data/d001/d003/d003/f63"));
	CHECK(tree_file_path(&t, 31, 63, p, sizeof(p)) > 0);
	CHECK_CONTAINS(p, "fsmix.fs0/data/d001/d003/d003/f63");
	/* Without the leaf's descriptor: its path relative to data/. */
	uint32_t held = t.num_dirfds;
	t.num_dirfds = 0;
	CHECK_EQ_I(tree_file_at(&t, 5, 7, name, sizeof(name)), tree_data_dirfd(&t, TREE_DIR_TOP));
	CHECK_STR(name, "d000/d001/d001/f7");
	t.num_dirfds = held;
	CHECK_EQ_I(tree_dir_path(&t.layout, 33, name, sizeof(name)), 4); /* createdir's */
	CHECK_STR(name, "d033");
	CHECK_EQ_I(tree_write_manifest(&t, 77, &pool, err, sizeof(err)), 0);
	tree_close(&t);
	PATHF(p, "%s/fsmix.fs0/.fsmix-manifest", base);
	FILE *f = fopen(p, "rb");
	unsigned char hdr[48] = {0};
	CHECK(f && fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr));
	if (f)
		fclose(f);
	uint32_t version;
	memcpy(&version, hdr + 8, 4);
	CHECK_EQ_U(version, 3);

	/* Loaded back: the layout comes from the manifest. */
	CHECK_EQ_I(tree_open(&t, base, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&loaded, 1 << 10), 0);
	CHECK_EQ_I(tree_load_manifest(&t, 77, &loaded, TREE_VERIFY_ALL, err, sizeof(err)), 0);
	CHECK_EQ_U(pool_live(&loaded), 64);
	CHECK_EQ_U(t.layout.depth, 3);
	CHECK_EQ_U(t.layout.fanout, 4);
	CHECK_EQ_U(t.num_dirs, 32);
	pool_destroy(&loaded);
	/* A tree set to another layout refuses it (rebuild). */
	struct dirlayout other = {.top = 2, .depth = 3, .fanout = 3};
	CHECK_EQ_I(tree_set_layout(&t, &other, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&loaded, 1 << 10), 0);
	CHECK_EQ_I(tree_load_manifest(&t, 77, &loaded, 0, err, sizeof(err)), -ESTALE);
	CHECK_CONTAINS(err, "expected 2 of 3 levels (fanout 3)");
	pool_destroy(&loaded);
	/* Too many directories are refused, with the limit. */
	struct dirlayout big = {.top = 1024, .depth = 3, .fanout = 1024};
	CHECK_EQ_I(tree_set_layout(&t, &big, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "1048576 directories");
	struct tree_purge sw;
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), 0);
	CHECK_EQ_U(sw.unknown, 0);
	CHECK(!exists("fsmix.fs0"));
	pool_destroy(&pool);

	/* A flat tree's manifest stays version 2 (older fsmix reads it). */
	CHECK_EQ_I(tree_open(&t, base, 0, TREE_CREATE, err, sizeof(err)), 0);
	CHECK_EQ_I(tree_set_dirs(&t, 3, err, sizeof(err)), 0);
	CHECK_EQ_I(pool_init(&pool, 1 << 10), 0);
	CHECK_EQ_I(tree_write_manifest(&t, 77, &pool, err, sizeof(err)), 0);
	f = fopen(p, "rb");
	CHECK(f && fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr));
	if (f)
		fclose(f);
	memcpy(&version, hdr + 8, 4);
	CHECK_EQ_U(version, 2);
	CHECK_EQ_I(tree_remove(&t, &sw, err, sizeof(err)), 0);
	pool_destroy(&pool);
}

int main(void)
{
	RUN(test_names);
	ON_EACH_BASE(case_instances);
	ON_EACH_BASE(case_canaries);
	ON_EACH_BASE(case_unknown_inside);
	ON_EACH_BASE(case_second_names);
	ON_EACH_BASE(case_errors);
	ON_EACH_BASE(case_readonly);
	ON_EACH_BASE(case_probe);
	ON_EACH_BASE(case_manifest);
	ON_EACH_BASE(case_manifest_generations);
	ON_EACH_BASE(case_leftovers);
	ON_EACH_BASE(case_lock);
	ON_EACH_BASE(case_lock_pid1);
	ON_EACH_BASE(case_marker_io);
	ON_EACH_BASE(case_marker_run);
	ON_EACH_BASE(case_links_mounts);
	ON_EACH_BASE(case_owners);
	ON_EACH_BASE(case_purge_stop);
	ON_EACH_BASE(case_deep);
	return test_summary();
}
