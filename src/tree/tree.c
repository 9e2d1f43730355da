/* tree.c - opening a tree (finishing leftovers, creating a new root complete or checking an
 * existing one's marker and mounts), its data/dNNN directories, and the space left on its
 * filesystem (closing it is tree_location.c's, below the removal that closes it too). The other
 * jobs are in the files tree_impl.h lists. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "instance.h"
#include "rng.h"
#include "tree_impl.h"

enum failure tree_failure(int rc)
{
	switch (-rc) {
	case ENOENT:
	case ENOTDIR:
	case EINVAL:
	case ENAMETOOLONG:
	case EROFS:
	case EACCES:
	case EPERM:
	case ELOOP:
	case EEXIST:
	case EBUSY:
	case EXDEV:
	case EMLINK:
		return FAIL_INPUT;
	default:
		return FAIL_IO;
	}
}

/* Create (if missing) and open a subdirectory `name` of dirfd, refusing symlinks and non-dirs. */
static int open_subdir(int dirfd, const char *name, int create)
{
	if (create && mkdirat(dirfd, name, 0700) && errno != EEXIST)
		return -errno;
	int fd = openat(dirfd, name, DIR_FLAGS);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	return fd;
}

int tree_probe_open(const struct tree *t, int flags)
{
	/* A leftover probe from a crash is ours (it is inside our marked root): drop it first so
	 * O_EXCL tests a fresh create. Some filesystems create the file and only then refuse the
	 * flags, so it is removed either way. */
	(void)unlinkat(t->rootfd, PROBE_NAME, 0);
	int fd = openat(t->rootfd, PROBE_NAME,
	                O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
	int rc = fd < 0 ? -errno : 0;
	if (fd >= 0)
		(void)close(fd);
	(void)unlinkat(t->rootfd, PROBE_NAME, 0);
	return rc;
}

/* Undo a failed creation of fsmix.fs<index>.new (held as fd): only what create_root made. */
static void drop_new(struct tree *t, int fd, const char *name)
{
	(void)unlinkat(fd, "data", AT_REMOVEDIR);
	(void)unlinkat(fd, "meta", AT_REMOVEDIR);
	(void)unlinkat(fd, MARKER_TMP_NAME, 0);
	(void)unlinkat(fd, MARKER_NAME, 0);
	(void)close(fd);
	(void)unlinkat(t->locfd, name, AT_REMOVEDIR);
}

/* Makes a complete empty tree (marker, data/, meta/) as fsmix.fs<index>.new and renames it to
 * fsmix.fs<index>, so the root's name never refers to a directory without a marker. Returns
 * the root's descriptor or -errno (err set). */
static int create_root(struct tree *t, const char *location, char *err, size_t errlen)
{
	char name[sizeof(t->name) + 8];
	tree_aside_name(t, NEW_SUFFIX, name, sizeof(name));
	if (mkdirat(t->locfd, name, 0700)) {
		int e = errno;
		if (e == EEXIST)
			tree_seterr(
			    err, errlen,
			    "'%s%s' exists and is not recognisably fsmix's; fsmix will neither "
			    "use nor delete it (move it away)",
			    t->root, NEW_SUFFIX);
		else if (e == EROFS)
			tree_seterr(err, errlen, "location '%s' is read-only (%s)", location,
			            strerror(e));
		else
			tree_seterr(err, errlen,
			            "location '%s' is not writable: cannot create '%s%s' (%s)",
			            location, t->root, NEW_SUFFIX, strerror(e));
		return -e;
	}
	int fd = openat(t->locfd, name, DIR_FLAGS);
	if (fd < 0) {
		int e = errno;
		(void)unlinkat(t->locfd, name, AT_REMOVEDIR);
		tree_seterr(err, errlen, "'%s%s': %s", t->root, NEW_SUFFIX, strerror(e));
		return -e;
	}
	uint64_t id = 0;
	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		id = splitmix64(&(uint64_t){now_ns() ^ (uint64_t)getpid()});
	const char *step = MARKER_NAME;
	int rc = tree_write_marker(fd, id);
	if (rc == 0 && (mkdirat(fd, "data", 0700) || mkdirat(fd, "meta", 0700))) {
		rc = -errno;
		step = "data and meta";
	}
	if (rc == 0 && fsync(fd)) {
		rc = -errno;
		step = "fsync";
	}
	if (rc) {
		tree_seterr(err, errlen, "cannot create '%s' (%s): %s", t->root, step,
		            strerror(-rc));
		drop_new(t, fd, name);
		return rc;
	}
	rc = tree_rename_noreplace(t->locfd, name, t->name);
	if (rc) {
		tree_seterr(err, errlen, "cannot create '%s': %s", t->root, strerror(-rc));
		drop_new(t, fd, name);
		return rc;
	}
	tree_sync_location(t);
	t->tree_id = id;
	t->created = 1;
	return fd;
}

/* t->name "fsmix.fs<index>" (rank R of a job: "fsmix.fs<index>.r<R>", instance.h) and t->root
 * "<location>/<name>", trailing slashes of location dropped so messages read "/x/fsmix.fs0"
 * (keeping "/" itself). */
static int set_names(struct tree *t, const char *location, unsigned fs_index, int rank, char *err,
                     size_t errlen)
{
	if (!location || !*location) {
		tree_seterr(err, errlen, "location is empty");
		return -EINVAL;
	}
	size_t loclen = strlen(location);
	while (loclen > 1 && location[loclen - 1] == '/')
		loclen--;
	(void)tree_instance_name(t->name, sizeof(t->name), fs_index, rank);
	if (tree_fmt(t->root, sizeof(t->root), "%.*s%s%s", (int)loclen, location,
	             location[loclen - 1] == '/' ? "" : "/", t->name) < 0) {
		tree_seterr(err, errlen, "location '%s': %s", location, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Checks and opens the location, takes its lock and finishes leftover .del/.new roots. */
static int open_location(struct tree *t, const char *location, unsigned flags, char *err,
                         size_t errlen)
{
	/* The location itself is the user's: follow a symlink there, but check it thoroughly. */
	int rc = tree_check_location(location, err, errlen);
	if (rc)
		return rc;
	t->locfd = open(location, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->locfd < 0) {
		int e = errno;
		tree_seterr(err, errlen, "location '%s': %s", location, strerror(e));
		return -e;
	}
	/* Nothing below is looked at or changed without the location's lock. */
	rc = flags & TREE_NO_LOCK ? 0 : tree_lock_location(location, err, errlen);
	if (rc < 0)
		return rc;
	t->lock = rc;
	rc = tree_note_root_mount(t, t->locfd); /* until the root is open: the location's */
	tree_note_owners(t, t->locfd);
	if (rc)
		tree_seterr(err, errlen, "location '%s': %s", location, strerror(-rc));
	if (rc == 0)
		rc = tree_finish_leftover(t, DEL_SUFFIX, err, errlen);
	if (rc == 0)
		rc = tree_finish_leftover(t, NEW_SUFFIX, err, errlen);
	return rc;
}

/* Opens an existing root (never through a symlink) and reads its marker into t->tree_id. */
static int open_existing_root(struct tree *t, char *err, size_t errlen)
{
	t->rootfd = openat(t->locfd, t->name, DIR_FLAGS);
	if (t->rootfd < 0) {
		int rc = -errno;
		if (rc == -ELOOP || rc == -ENOTDIR)
			tree_seterr(err, errlen,
			            "'%s' is not a directory created by fsmix (it is a symbolic "
			            "link or another file); fsmix does not follow or remove it",
			            t->root);
		else
			tree_seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
		return rc;
	}
	/* Whose it is first: a marker anyone can write proves nothing about that. */
	int rc = tree_check_owner_fd(t, t->rootfd, t->root, err, errlen);
	if (rc)
		return rc;
	struct stat st;
	rc = tree_read_marker_run(t->rootfd, &t->tree_id, &t->run_id, &st);
	if (rc == 0) {
		char path[PATH_MAX + 16];
		(void)tree_fmt(path, sizeof(path), "%s/%s", t->root, MARKER_NAME);
		return tree_owner_problem(t, &st, path, err, errlen);
	}
	if (rc == -ENOENT || rc == -EBADMSG) {
		tree_seterr(err, errlen,
		            "'%s' exists but has no valid %s marker: it was not created by "
		            "fsmix, so fsmix will neither use nor delete it (move it away or "
		            "choose another location)",
		            t->root, MARKER_NAME);
		return -EEXIST;
	}
	if (rc) /* EIO, EMFILE, ...: an I/O error, not a verdict on the tree */
		tree_seterr(err, errlen, "cannot read '%s/%s': %s", t->root, MARKER_NAME,
		            strerror(-rc));
	return rc;
}

/* Opens the root (lstat first, never following it), creating it with TREE_CREATE when it is
 * missing, and records its mount. */
static int open_root(struct tree *t, const char *location, unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	int rc = 0;
	if (fstatat(t->locfd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			tree_seterr(
			    err, errlen,
			    "'%s' is a symbolic link; fsmix does not follow it (remove it or "
			    "choose another location)",
			    t->root);
			return -ELOOP;
		}
		if (!S_ISDIR(st.st_mode)) {
			tree_seterr(err, errlen,
			            "'%s' exists and is not a directory created by fsmix (move it "
			            "away or choose another location)",
			            t->root);
			return -EEXIST;
		}
		rc = open_existing_root(t, err, errlen);
	} else if (errno != ENOENT) {
		rc = -errno;
		tree_seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
	} else if (!(flags & TREE_CREATE)) {
		tree_seterr(err, errlen, "'%s': no fsmix tree (%s)", t->root, strerror(ENOENT));
		rc = -ENOENT;
	} else {
		t->rootfd = create_root(t, location, err, errlen);
		rc = t->rootfd < 0 ? t->rootfd : 0;
	}
	if (rc)
		return rc;
	rc = tree_note_root_mount(t, t->rootfd);
	if (rc)
		tree_seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
	return rc;
}

/* data/ and meta/: made with the root; an older fsmix may have left a root without them after
 * a crash, which a run completes. A removal creates nothing (it may run on a full filesystem)
 * and does without a missing one. Neither may be another mount. */
static int open_data_meta(struct tree *t, unsigned flags, char *err, size_t errlen)
{
	static const char *const subs[] = {"data", "meta"};
	int *fds[] = {&t->datafd, &t->metafd};
	for (int i = 0; i < 2; i++) {
		*fds[i] = open_subdir(t->rootfd, subs[i], (flags & TREE_CREATE) != 0);
		int rc = *fds[i] < 0 ? *fds[i] : tree_check_mount_fd(t, *fds[i]);
		if (rc == -ENOENT && !(flags & TREE_CREATE))
			continue;
		char path[PATH_MAX + 8];
		(void)tree_fmt(path, sizeof(path), "%s/%s", t->root, subs[i]);
		if (rc == 0)
			rc = tree_check_owner_fd(t, *fds[i], path, err, errlen);
		if (rc == -EPERM)
			return rc;
		if (rc == -EXDEV)
			tree_seterr(err, errlen,
			            "'%s/%s' is a mount point: fsmix writes only on its tree's own "
			            "filesystem (unmount it)",
			            t->root, subs[i]);
		else if (rc)
			tree_seterr(err, errlen, "'%s/%s': %s", t->root, subs[i], strerror(-rc));
		if (rc)
			return rc;
	}
	return 0;
}

int tree_open(struct tree *t, const char *location, unsigned fs_index, unsigned flags, char *err,
              size_t errlen)
{
	return tree_open_rank(t, location, fs_index, TREE_NO_RANK, flags, err, errlen);
}

int tree_open_rank(struct tree *t, const char *location, unsigned fs_index, int rank,
                   unsigned flags, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->locfd = t->rootfd = t->datafd = t->metafd = -1;
	int rc = set_names(t, location, fs_index, rank, err, errlen);
	if (rc == 0)
		rc = open_location(t, location, flags, err, errlen);
	if (rc == 0)
		rc = open_root(t, location, flags, err, errlen);
	if (rc == 0)
		rc = open_data_meta(t, flags, err, errlen);
	if (rc)
		tree_close(t);
	return rc;
}

/* The descriptors tree_set_layout keeps open: TREE_MAX_DIRFDS, fewer under a low limit. */
static uint32_t dirfd_budget(uint64_t leaves)
{
	uint32_t keep = leaves < TREE_MAX_DIRFDS ? (uint32_t)leaves : TREE_MAX_DIRFDS;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		/* A quarter of what is left after 256 for workers and outputs; an eighth of a
		 * small limit. Every tree of a profile may take this much: five or more trees
		 * with many directories can still run out under a small limit. */
		uint64_t budget = rl.rlim_cur > 512 ? (rl.rlim_cur - 256) / 4 : rl.rlim_cur / 8;
		if (keep > budget)
			keep = (uint32_t)budget;
	}
	return keep;
}

/* Makes (if missing) and opens data/<rel>, which must be a real directory of the running
 * user's on the root's mount. The descriptor, or -errno with err set. */
static int make_data_dir(struct tree *t, const char *rel, char *err, size_t errlen)
{
	int fd = open_subdir(t->datafd, rel, 1);
	int rc = fd < 0 ? fd : tree_check_mount_fd(t, fd);
	char path[PATH_MAX + TREE_NAME_MAX];
	(void)tree_fmt(path, sizeof(path), "%s/data/%s", t->root, rel);
	if (rc == 0) /* one fstat per directory, at setup: another user's is never filled */
		rc = tree_check_owner_fd(t, fd, path, err, errlen);
	if (rc == 0)
		return fd;
	if (rc == -EPERM)
		; /* err says whose it is */
	else if (rc == -EXDEV)
		tree_seterr(err, errlen,
		            "'%s' is a mount point: fsmix writes only on its tree's own "
		            "filesystem (unmount it)",
		            path);
	else if (rc == -ENOTDIR) /* open_subdir: a symlink is ENOTDIR too */
		tree_seterr(err, errlen,
		            "'%s' is not a directory of fsmix's (a symbolic link or another "
		            "file): fsmix writes only in directories it made and removes nothing "
		            "it did not; remove it or use another location",
		            path);
	else
		tree_seterr(err, errlen, "'%s': %s", path, strerror(-rc));
	if (fd >= 0)
		(void)close(fd);
	return rc;
}

int tree_set_dirs(struct tree *t, uint32_t num_dirs, char *err, size_t errlen)
{
	struct dirlayout l = dirlayout_flat(num_dirs);
	return tree_set_layout(t, &l, err, errlen);
}

int tree_set_layout(struct tree *t, const struct dirlayout *l, char *err, size_t errlen)
{
	tree_close_dirfds(t);
	uint64_t total = dirlayout_total(l);
	if (l->depth < 1 || l->depth > DIRLAYOUT_MAX_DEPTH || total > DIRLAYOUT_MAX_DIRS ||
	    (l->depth > 1 && l->fanout == 0)) {
		tree_seterr(err, errlen,
		            "a tree of %u levels of %u, then %u directories each (%llu in all): "
		            "at most %u levels and %u directories",
		            l->depth, l->top, l->fanout, (unsigned long long)total,
		            DIRLAYOUT_MAX_DEPTH, DIRLAYOUT_MAX_DIRS);
		return -EINVAL;
	}
	uint64_t leaves = dirlayout_leaves(l);
	uint32_t keep = dirfd_budget(leaves);
	if (keep) {
		t->dirfds = malloc(keep * sizeof(int));
		if (!t->dirfds) {
			tree_seterr(err, errlen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	/* Level by level, so every parent exists before its children: one mkdir and one open per
	 * directory, each a path relative to data/ of at most depth components. */
	char rel[TREE_NAME_MAX];
	for (uint32_t level = 1; level <= l->depth; level++) {
		uint64_t n = dirlayout_level_count(l, level);
		for (uint64_t j = 0; j < n; j++) {
			(void)dirlayout_path(l, level, j, rel, sizeof(rel));
			int fd = make_data_dir(t, rel, err, errlen);
			if (fd < 0) {
				tree_close_dirfds(t);
				return fd;
			}
			if (level == l->depth && j < keep)
				t->dirfds[t->num_dirfds++] = fd;
			else
				(void)close(fd);
		}
	}
	t->layout = *l;
	t->num_dirs = (uint32_t)leaves;
	return 0;
}

int tree_usage(const struct tree *t, struct tree_usage *u)
{
	struct statvfs sv;
	if (fstatvfs(t->locfd, &sv))
		return -errno;
	uint64_t frsize = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	u->total_bytes = (uint64_t)sv.f_blocks * frsize;
	u->used_bytes = (uint64_t)(sv.f_blocks - sv.f_bfree) * frsize;
	u->avail_bytes = (uint64_t)sv.f_bavail * frsize;
	u->util = sv.f_blocks ? (double)(sv.f_blocks - sv.f_bfree) / (double)sv.f_blocks : 0.0;
	u->total_files = sv.f_files;
	return 0;
}
