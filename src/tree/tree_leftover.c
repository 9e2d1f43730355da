/* tree_leftover.c - finishing a root that a crash left as fsmix.fs<index>.new (being created)
 * or .del (being removed), removing only what fsmix generates (tree.h, Crash safety). */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tree_impl.h"

static bool dir_is_empty(int dirfd, const char *sub)
{
	int fd = sub ? openat(dirfd, sub, DIR_FLAGS) : dup(dirfd);
	if (fd < 0)
		return false;
	DIR *d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return false;
	}
	bool empty = true;
	struct dirent *de;
	while (empty && (de = readdir(d)) != NULL)
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	(void)closedir(d);
	return empty;
}

/* Does a directory without a marker hold only what the first steps of a creation make (the
 * marker's temp file, empty data/ and meta/) and nothing else? Only then is it fsmix's. */
static bool only_creation_steps(int fd)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			(void)close(dfd);
		return false;
	}
	bool ours = true;
	struct dirent *de;
	while (ours && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (!strcmp(n, MARKER_TMP_NAME)) {
			struct stat st;
			ours = fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
		} else {
			ours = (!strcmp(n, "data") || !strcmp(n, "meta")) && dir_is_empty(fd, n);
		}
	}
	(void)closedir(d);
	return ours;
}

/* Finish removing fsmix.fs<index><suffix>, left by a crash during creation (.new) or removal
 * (.del). It must be the running user's and writable by nobody else, and so must its marker
 * and every directory in it (tree_owner.c): a planted one is refused (-EPERM), not swept. With a
 * valid marker it is a tree: its generated entries are removed, then the marker and the
 * directory; when unknown entries keep it, a .del goes back to its own name (if free), so it is
 * kept where it was. Without a marker only the creation's own first steps can be left (a
 * marker's temp file, empty data/ and meta/): those are removed, and the directory if it is then
 * empty. Anything else is not recognisably fsmix's and stays. Returns 0 (also when nothing was
 * there or something stayed), -EPERM, or -errno for an I/O error, with err set. */
int tree_finish_leftover(struct tree *t, const char *suffix, char *err, size_t errlen)
{
	char name[sizeof(t->name) + 8];
	tree_aside_name(t, suffix, name, sizeof(name));
	int fd = openat(t->locfd, name, DIR_FLAGS);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 0 : -errno;
	/* shown: the tree as seen under its leftover name, for messages */
	struct tree shown = *t;
	(void)tree_fmt(shown.root, sizeof(shown.root), "%s%s", t->root, suffix);
	struct statx sx;
	struct stat a, b, mst;
	uint64_t id;
	int rc = tree_statx(fd, "", &sx);
	if (rc == 0 && !tree_on_root_mount(t, &sx)) {
		(void)close(fd); /* a mount point: not ours */
		return 0;
	}
	if (rc == 0)
		rc = tree_check_owner_fd(t, fd, shown.root, err, errlen);
	if (rc == -EPERM) {
		(void)close(fd);
		return rc;
	}
	rc = rc ? rc : tree_read_marker(fd, &id, &mst);
	if (rc == 0) {
		char path[PATH_MAX + 16];
		(void)tree_fmt(path, sizeof(path), "%s/%s", shown.root, MARKER_NAME);
		rc = tree_owner_problem(t, &mst, path, err, errlen);
		if (rc) {
			(void)close(fd);
			return rc;
		}
		struct tree_purge pg = {0};
		rc = tree_purge_root(&shown, fd, &pg);
		if (rc == -EPERM) {
			tree_seterr(err, errlen, "%s", pg.refused);
			(void)close(fd);
			return rc;
		}
		if (rc == 0 && pg.unknown) {
			if (!strcmp(suffix, DEL_SUFFIX) &&
			    tree_rename_noreplace(t->locfd, name, t->name) == 0)
				tree_sync_location(t);
			(void)close(fd);
			return 0;
		}
		if (rc == 0 && unlinkat(fd, MARKER_NAME, 0))
			rc = -errno;
	} else if (rc == -ENOENT || rc == -EBADMSG) {
		rc = 0;
		if (!only_creation_steps(fd)) { /* not recognisably fsmix's: it stays */
			(void)close(fd);
			return 0;
		}
		(void)unlinkat(fd, MARKER_TMP_NAME, 0);
		(void)unlinkat(fd, "data", AT_REMOVEDIR);
		(void)unlinkat(fd, "meta", AT_REMOVEDIR);
	}
	/* rmdir only the directory we examined (not a replacement), and only when empty. */
	if (rc == 0 && fstat(fd, &a) == 0 &&
	    fstatat(t->locfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && unlinkat(t->locfd, name, AT_REMOVEDIR) == 0) {
		t->leftovers++;
		tree_sync_location(t);
	}
	(void)close(fd);
	if (rc)
		tree_seterr(err, errlen, "finishing the interrupted tree '%s': %s", shown.root,
		            strerror(-rc));
	return rc;
}
