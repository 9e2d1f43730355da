/* tree_location.c - the user's directory that holds fsmix's trees: the rules it must meet, the
 * process's lock on it (tree.h, Exclusion), closing a tree (its descriptors, then the lock), and
 * the renames and fsync fsmix makes in it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "instance.h"
#include "tree_impl.h"

int tree_check_location(const char *location, char *err, size_t errlen)
{
	struct stat st;
	struct statvfs sv;
	if (!location || !*location) {
		tree_seterr(err, errlen, "location is empty");
		return -EINVAL;
	}
	if (stat(location, &st)) {
		int e = errno;
		tree_seterr(err, errlen, "location '%s': %s", location, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		tree_seterr(err, errlen, "location '%s' is not a directory", location);
		return -ENOTDIR;
	}
	if ((statvfs(location, &sv) == 0 && (sv.f_flag & ST_RDONLY)) ||
	    (access(location, W_OK) && errno == EROFS)) {
		tree_seterr(err, errlen, "location '%s' is read-only (%s)", location,
		            strerror(EROFS));
		return -EROFS;
	}
	if (access(location, W_OK | X_OK)) {
		int e = errno;
		tree_seterr(err, errlen, "location '%s' is not writable (%s)", location,
		            strerror(e));
		return -e;
	}
	/* The lock (below) is a flock on a descriptor of the location, which open() gives only
	 * for reading: a location fsmix may write but not read could not be locked, and two
	 * runs would build one tree under each other. */
	if (access(location, R_OK)) {
		int e = errno;
		tree_seterr(err, errlen,
		            "location '%s' is not readable (%s): fsmix locks a location through "
		            "a descriptor open for reading, and uses none it cannot lock",
		            location, strerror(e));
		return -e;
	}
	return 0;
}

/* --- the lock ------------------------------------------------------------------------------ */

/* Locations this process holds, by (device, inode) of the directory: a profile may put several
 * trees in one location, and a sweep holds its locations across runs, so the lock is counted,
 * not taken twice (a second flock on another open file would conflict with the first). */
#define MAX_HELD_LOCKS TREE_MAX_LOCKS
static struct held_lock {
	dev_t dev;
	ino_t ino;
	int fd; /* the locked directory (or unlocked, where flock is unsupported) */
	unsigned refs;
} held_locks[MAX_HELD_LOCKS];
static pthread_mutex_t held_locks_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t held_locks_pid; /* the process the table belongs to (a forked child starts empty) */

/* The PID holding a flock on (dev, ino), from /proc/locks ("1: FLOCK ADVISORY WRITE 1234
 * 00:2d:5678 0 EOF"), or 0 when it cannot be told (no /proc, another PID namespace). */
static long lock_holder(dev_t dev, ino_t ino)
{
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	char line[256];
	long pid = 0, any = 0;
	while (fgets(line, sizeof(line), f)) {
		char type[16];
		long p;
		unsigned maj, min;
		unsigned long long i;
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", type, &p, &maj, &min, &i) !=
		        5 ||
		    strcmp(type, "FLOCK") || i != (unsigned long long)ino)
			continue;
		if (maj == major(dev) && min == minor(dev))
			pid = p;
		else
			any = p; /* btrfs subvolumes: st_dev is not the superblock's device */
	}
	fclose(f);
	return pid ? pid : any;
}

/* The message for a location locked by pid (0: unknown): fsmix's own lock (another fsmix runs
 * there) is said so only when the holder is fsmix by its name (/proc/PID/comm); a neighbour's
 * flock is named as such, with its program's name where it can be read. */
static void locked_by(const char *location, long pid, char *err, size_t errlen)
{
	char comm[32] = "", path[48];
	(void)snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	FILE *f = pid > 0 ? fopen(path, "re") : NULL;
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (!strcmp(comm, "fsmix"))
		tree_seterr(err, errlen,
		            "location '%s' is in use by another process (PID %ld) of fsmix: fsmix "
		            "runs, cleans and sweeps one location at a time",
		            location, pid);
	else if (pid > 0)
		tree_seterr(err, errlen,
		            "location '%s' is locked by another process (PID %ld%s%s%s), not "
		            "fsmix: fsmix uses a location only when it holds its lock (flock); "
		            "wait until that process releases it",
		            location, pid, comm[0] ? ", '" : "", comm, comm[0] ? "'" : "");
	else
		tree_seterr(err, errlen,
		            "location '%s' is locked by another process (which one cannot be "
		            "told: it is not in /proc/locks): fsmix uses a location only when it "
		            "holds its lock (flock)",
		            location);
}

int tree_lock_location(const char *location, char *err, size_t errlen)
{
	int fd = open(location, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		if (fd >= 0)
			(void)close(fd);
		if (e == EACCES || e == EPERM) /* also refused by tree_check_location */
			tree_seterr(err, errlen, "location '%s' cannot be locked: %s", location,
			            strerror(e));
		else
			tree_seterr(err, errlen, "location '%s': %s", location, strerror(e));
		return -e;
	}
	pthread_mutex_lock(&held_locks_mu);
	if (held_locks_pid != getpid()) {
		/* A forked child shares its parent's locked open files, not its locks: it must
		 * take its own, which conflict with the parent's. */
		for (int i = 0; i < MAX_HELD_LOCKS; i++)
			if (held_locks[i].refs)
				(void)close(held_locks[i].fd);
		memset(held_locks, 0, sizeof(held_locks));
		held_locks_pid = getpid();
	}
	int slot = -1;
	for (int i = 0; i < MAX_HELD_LOCKS; i++) {
		struct held_lock *h = &held_locks[i];
		if (h->refs && h->dev == st.st_dev && h->ino == st.st_ino) {
			h->refs++;
			pthread_mutex_unlock(&held_locks_mu);
			(void)close(fd);
			return i + 1;
		}
		if (!h->refs && slot < 0)
			slot = i;
	}
	int rc = 0;
	if (slot < 0) {
		tree_seterr(err, errlen, "location '%s': more than %d locations at once", location,
		            MAX_HELD_LOCKS);
		rc = -EMFILE;
	} else if (flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		locked_by(location, lock_holder(st.st_dev, st.st_ino), err, errlen);
		rc = -EBUSY;
	}
	/* Other flock errors (ENOLCK, EBADF on NFS directories, EOPNOTSUPP): no lock can be
	 * had here; the location is used without one, as before locking existed. */
	if (rc) {
		pthread_mutex_unlock(&held_locks_mu);
		(void)close(fd);
		return rc;
	}
	held_locks[slot] =
	    (struct held_lock){.dev = st.st_dev, .ino = st.st_ino, .fd = fd, .refs = 1};
	pthread_mutex_unlock(&held_locks_mu);
	return slot + 1;
}

void tree_unlock_location(int handle)
{
	if (handle <= 0 || handle > MAX_HELD_LOCKS)
		return;
	pthread_mutex_lock(&held_locks_mu);
	struct held_lock *h = &held_locks[handle - 1];
	if (h->refs && --h->refs == 0) {
		(void)close(h->fd); /* releases the flock */
		h->fd = -1;
	}
	pthread_mutex_unlock(&held_locks_mu);
}

/* The locked directory's descriptor (readable, for fsync of the location), or -1. */
static int lock_fd(int handle)
{
	if (handle <= 0 || handle > MAX_HELD_LOCKS)
		return -1;
	pthread_mutex_lock(&held_locks_mu);
	int fd = held_locks[handle - 1].refs ? held_locks[handle - 1].fd : -1;
	pthread_mutex_unlock(&held_locks_mu);
	return fd;
}

/* --- closing a tree ----------------------------------------------------------------------- */

void tree_close_fd(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

void tree_close_dirfds(struct tree *t)
{
	for (uint32_t i = 0; i < t->num_dirfds; i++)
		tree_close_fd(&t->dirfds[i]);
	free(t->dirfds);
	t->dirfds = NULL;
	t->num_dirfds = 0;
	t->num_dirs = 0;
	t->layout = (struct dirlayout){0};
}

void tree_close(struct tree *t)
{
	tree_close_dirfds(t);
	tree_close_fd(&t->datafd);
	tree_close_fd(&t->metafd);
	tree_close_fd(&t->rootfd);
	tree_close_fd(&t->locfd);
	tree_unlock_location(t->lock);
	t->lock = 0;
}

/* --- renames ------------------------------------------------------------------------------- */

/* "fsmix.fs<index>" + suffix into buf (sizeof t->name). */
void tree_aside_name(const struct tree *t, const char *suffix, char *buf, size_t len)
{
	(void)tree_fmt(buf, len, "%s%s", t->name, suffix);
}

/* fsync the location's directory, so a rename there survives a power cut. Only possible with
 * a readable descriptor (the lock's); best effort: the rename itself is already atomic. */
void tree_sync_location(const struct tree *t)
{
	int fd = lock_fd(t->lock);
	if (fd >= 0)
		(void)fsync(fd);
}

/* renameat2(RENAME_NOREPLACE) within the location, with a fallback where the filesystem has
 * no RENAME_NOREPLACE (EINVAL: some FUSE and network filesystems): a plain rename, only when the
 * new name is still free (fsmix holds the location's lock, so only a process other than fsmix
 * could take it meanwhile; a plain rename would replace an empty directory). 0 or -errno. */
int tree_rename_noreplace(int locfd, const char *from, const char *to)
{
	if (renameat2(locfd, from, locfd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	struct stat st;
	if (fstatat(locfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	return renameat(locfd, from, locfd, to) ? -errno : 0;
}
