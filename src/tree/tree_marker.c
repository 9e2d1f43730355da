/* tree_marker.c - the ownership marker .fsmix-tree in every root fsmix made: "fsmix-tree",
 * "version 1", "id <16 hex digits>", and "run <16 hex digits>" once a run wrote the tree (the
 * run id of the last one, tree_mark_run; a marker without it is still valid, and fsmix before
 * run ids ignores the line). A root without a valid marker is never used or removed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "tree_impl.h"

#define MARKER_MAGIC   "fsmix-tree\n"
#define MARKER_VERSION 1

/* Parse the marker of an open root. Returns 0 with *id, -ENOENT when absent, -EBADMSG when not a
 * regular file or not in the expected format. *st_out (if given): the marker's fstat. */
int tree_read_marker(int rootfd, uint64_t *id, struct stat *st_out)
{
	return tree_read_marker_run(rootfd, id, NULL, st_out);
}

int tree_read_marker_run(int rootfd, uint64_t *id, uint64_t *run, struct stat *st_out)
{
	int fd = openat(rootfd, MARKER_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EBADMSG : -errno;
	struct stat st;
	char buf[128];
	size_t got = 0;
	int rc = fstat(fd, &st) ? -errno : 0;
	if (rc == 0 && st_out)
		*st_out = st;
	if (rc == 0 && !S_ISREG(st.st_mode))
		rc = -EBADMSG;
	if (rc == 0)
		rc = fd_read_all(fd, buf, sizeof(buf) - 1, &got);
	(void)close(fd);
	if (rc)
		return rc;
	buf[got] = 0;
	size_t ml = strlen(MARKER_MAGIC);
	unsigned version;
	unsigned long long v;
	int consumed = 0;
	if (strncmp(buf, MARKER_MAGIC, ml) != 0 ||
	    sscanf(buf + ml, "version %u\nid %16llx\n%n", &version, &v, &consumed) != 2 ||
	    consumed == 0 || version != MARKER_VERSION)
		return -EBADMSG;
	*id = v;
	unsigned long long r = 0;
	int used = 0;
	if (run)
		*run =
		    sscanf(buf + ml + consumed, "run %16llx\n%n", &r, &used) == 1 && used ? r : 0;
	return 0;
}

/* The marker with its id and run (0: no run line): temp + fsync + rename + fsync. */
static int write_marker(int rootfd, uint64_t id, uint64_t run)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), MARKER_MAGIC "version %d\nid %016llx\n", MARKER_VERSION,
	                 (unsigned long long)id);
	if (run)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "run %016llx\n",
		              (unsigned long long)run);
	int fd = openat(rootfd, MARKER_TMP_NAME,
	                O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = fd_write_all(fd, buf, (size_t)n);
	if (rc == 0 && fsync(fd))
		rc = -errno;
	(void)close(fd);
	if (rc == 0 && renameat(rootfd, MARKER_TMP_NAME, rootfd, MARKER_NAME))
		rc = -errno;
	if (rc == 0 && fsync(rootfd))
		rc = -errno;
	if (rc)
		(void)unlinkat(rootfd, MARKER_TMP_NAME, 0);
	return rc;
}

int tree_write_marker(int rootfd, uint64_t id)
{
	return write_marker(rootfd, id, 0);
}

int tree_mark_run(struct tree *t, uint64_t run, char *err, size_t errlen)
{
	int rc = t->rootfd < 0 ? -EBADF : write_marker(t->rootfd, t->tree_id, run);
	if (rc)
		tree_seterr(err, errlen, "cannot record the run in '%s/%s': %s", t->root,
		            MARKER_NAME, strerror(-rc));
	else
		t->run_id = run;
	return rc;
}

int tree_peek(const char *location, unsigned fs_index, uint64_t *id, uint64_t *run, char *err,
              size_t errlen)
{
	char path[PATH_MAX];
	if (tree_fmt(path, sizeof(path), "%s/fsmix.fs%u", location, fs_index) < 0) {
		tree_seterr(err, errlen, "location '%s': name too long", location);
		return -ENAMETOOLONG;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		tree_seterr(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	int rc = tree_read_marker_run(fd, id, run, NULL); /* read only: no owner check */
	if (rc) {
		tree_seterr(err, errlen, "%s: %s", path,
		            rc == -EBADMSG || rc == -ENOENT ? "not fsmix's tree (no valid marker)"
		                                            : strerror(-rc));
		(void)close(fd);
		return rc;
	}
	return fd;
}
