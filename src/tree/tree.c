/* tree.c - fsmix's own directory tree: ownership marker, naming, manifest, safe removal. */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "exitcode.h"
#include "fdio.h"
#include "instance.h"
#include "pool.h"
#include "rng.h"

#define MARKER_NAME        ".fsmix-tree"
#define MARKER_TMP_NAME    ".fsmix-tree.tmp"
#define MANIFEST_NAME      ".fsmix-manifest"
#define MANIFEST_TMP_NAME  ".fsmix-manifest.tmp"
#define PROBE_NAME         ".fsmix-probe"
#define NEW_SUFFIX         ".new" /* fsmix.fsN.new: a root being created */
#define DEL_SUFFIX         ".del" /* fsmix.fsN.del: a root being removed */
#define MARKER_MAGIC       "fsmix-tree\n"
#define MARKER_VERSION     1
#define MANIFEST_MAGIC     "FSMIXMAN"
#define MANIFEST_VERSION   1u
#define MANIFEST_BYTEORDER 0x01020304u
#define MANIFEST_HDR       48u /* bytes, see tree.h */
#define MANIFEST_REC       16u
#define MANIFEST_TRAILER   8u
/* Recursion limit inside meta/ (metadata-op directories are one level deep; a little slack). */
#define SWEEP_MAX_DEPTH 8
#define DIR_FLAGS       (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static void seterr(char *err, size_t len, const char *fmt, ...) ATTR_PRINTF(3, 4);
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	if (!err || len == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

static void close_dirfds(struct tree *t)
{
	for (uint32_t i = 0; i < t->num_dirfds; i++)
		close_fd(&t->dirfds[i]);
	free(t->dirfds);
	t->dirfds = NULL;
	t->num_dirfds = 0;
	t->num_dirs = 0;
}

void tree_close(struct tree *t)
{
	close_dirfds(t);
	close_fd(&t->datafd);
	close_fd(&t->metafd);
	close_fd(&t->rootfd);
	close_fd(&t->locfd);
	tree_unlock_location(t->lock);
	t->lock = 0;
}

int tree_status(int rc)
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
		return EXIT_BAD_INPUT;
	default:
		return EXIT_RUN_FAILED;
	}
}

/* --- the location lock ---------------------------------------------------------------------- */

/* Locations this process holds, by (device, inode) of the directory: a profile may put several
 * trees in one location, and a sweep holds its locations across runs, so the lock is counted,
 * not taken twice (a second flock on another open file would conflict with the first). */
#define MAX_HELD_LOCKS 64
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

int tree_lock_location(const char *location, char *err, size_t errlen)
{
	if (!tree_instance_takes_lock())
		return 0; /* another process of the job (MPI rank 0) holds it: instance.h */
	int fd = open(location, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		if (fd >= 0)
			(void)close(fd);
		if (e == EACCES || e == EPERM)
			return 0; /* a location we may write but not read: no lock can be had */
		seterr(err, errlen, "location '%s': %s", location, strerror(e));
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
		seterr(err, errlen, "location '%s': more than %d locations at once", location,
		       MAX_HELD_LOCKS);
		rc = -EMFILE;
	} else if (flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		long pid = lock_holder(st.st_dev, st.st_ino);
		char who[48] = "another process";
		if (pid > 0)
			(void)snprintf(who, sizeof(who), "another process (PID %ld)", pid);
		seterr(err, errlen,
		       "location '%s' is in use by %s: fsmix runs, cleans and sweeps one "
		       "location at a time",
		       location, who);
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

/* --- mounts --------------------------------------------------------------------------------- */

/* statx of name in dirfd (or of dirfd itself for ""), never following a symlink: type, size,
 * links, device and mount id (Linux >= 5.8; stx_mask says whether it came). */
static int statx_at(int dirfd, const char *name, struct statx *sx)
{
	int flags = AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH);
	if (statx(dirfd, name, flags, STATX_TYPE | STATX_NLINK | STATX_SIZE | STATX_MNT_ID, sx))
		return -errno;
	return 0;
}

/* Is the statx'ed entry on the root's mount? The mount id decides where the kernel gives one
 * (Linux >= 5.8): a bind mount of a directory of the same filesystem has the same device, and
 * overlayfs reports a file's device as that of its lower layer. Otherwise the device. */
static bool on_root_mount(const struct tree *t, const struct statx *sx)
{
	if (t->mnt_id && (sx->stx_mask & STATX_MNT_ID))
		return sx->stx_mnt_id == t->mnt_id;
	return makedev(sx->stx_dev_major, sx->stx_dev_minor) == t->dev;
}

/* Records the root's device and mount id from its open descriptor. */
static int note_root_mount(struct tree *t, int rootfd)
{
	struct statx sx;
	int rc = statx_at(rootfd, "", &sx);
	if (rc)
		return rc;
	t->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	t->mnt_id = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
	return 0;
}

/* Is the open directory fd on the root's mount? 0, -EXDEV, or -errno. */
static int check_mount_fd(const struct tree *t, int fd)
{
	struct statx sx;
	int rc = statx_at(fd, "", &sx);
	if (rc)
		return rc;
	return on_root_mount(t, &sx) ? 0 : -EXDEV;
}

/* --- names -------------------------------------------------------------------------------- */

static int fmt_name(char *buf, size_t len, const char *fmt, ...) ATTR_PRINTF(3, 4);
static int fmt_name(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

/* Writes letter + decimal v (at least min_digits, zero-padded) at p; returns the length.
 * This is on every operation's path: snprintf costs ~100 ns, this ~5 ns. */
static size_t put_number(char *p, char letter, uint32_t v, int min_digits)
{
	char tmp[10];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < min_digits)
		tmp[n++] = '0';
	p[0] = letter;
	for (int i = 0; i < n; i++)
		p[1 + i] = tmp[n - 1 - i];
	return (size_t)n + 1;
}

int tree_file_name(uint32_t id, char *buf, size_t len)
{
	if (len < 12) /* "f" + 10 digits + NUL */
		return fmt_name(buf, len, "f%u", id);
	size_t n = put_number(buf, 'f', id, 1);
	buf[n] = '\0';
	return (int)n;
}

int tree_dir_name(uint32_t dir, char *buf, size_t len)
{
	return fmt_name(buf, len, "d%03u", dir);
}

int tree_meta_name(uint32_t id, uint32_t gen, char *buf, size_t len)
{
	if (gen == 0)
		return fmt_name(buf, len, "m%u", id);
	return fmt_name(buf, len, "m%u.%u", id, gen);
}

int tree_data_dirfd(const struct tree *t, uint32_t dir)
{
	if (dir == TREE_DIR_TOP)
		return t->datafd;
	if (dir < t->num_dirfds)
		return t->dirfds[dir];
	return -1;
}

int tree_meta_dirfd(const struct tree *t)
{
	return t->metafd;
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

int tree_file_at(const struct tree *t, uint32_t dir, uint32_t id, char *name, size_t len)
{
	int rc;
	if (dir == TREE_DIR_TOP) {
		rc = tree_file_name(id, name, len);
		return rc < 0 ? rc : t->datafd;
	}
	if (dir >= t->num_dirs)
		return -EINVAL;
	if (dir < t->num_dirfds) {
		rc = tree_file_name(id, name, len);
		return rc < 0 ? rc : t->dirfds[dir];
	}
	if (len < TREE_NAME_MAX) {
		rc = fmt_name(name, len, "d%03u/f%u", dir, id);
		return rc < 0 ? rc : t->datafd;
	}
	size_t n = put_number(name, 'd', dir, 3);
	name[n++] = '/';
	n += put_number(name + n, 'f', id, 1);
	name[n] = '\0';
	return t->datafd;
}

int tree_file_path(const struct tree *t, uint32_t dir, uint32_t id, char *buf, size_t len)
{
	if (dir == TREE_DIR_TOP)
		return fmt_name(buf, len, "%s/data/f%u", t->root, id);
	return fmt_name(buf, len, "%s/data/d%03u/f%u", t->root, dir, id);
}

/* Name rules for removal: a fixed letter followed by 1..10 decimal digits ("f123", "d007"). */
static int is_prefixed_number(const char *s, char letter)
{
	if (s[0] != letter)
		return 0;
	size_t n = 0;
	for (s++; *s; s++, n++)
		if (*s < '0' || *s > '9' || n >= 10)
			return 0;
	return n > 0;
}

/* "m<digits>" optionally followed by ".<digits>" (tree_meta_name). */
static int is_meta_name(const char *s)
{
	if (s[0] != 'm' || s[1] < '0' || s[1] > '9')
		return 0;
	size_t n = 0;
	for (s++; *s >= '0' && *s <= '9'; s++)
		if (++n > 10)
			return 0;
	if (*s == 0)
		return 1;
	if (*s != '.' || s[1] == 0)
		return 0;
	n = 0;
	for (s++; *s; s++)
		if (*s < '0' || *s > '9' || ++n > 10)
			return 0;
	return 1;
}

/* --- marker ------------------------------------------------------------------------------- */

static int read_all(int fd, void *buf, size_t len, size_t *got)
{
	char *p = buf;
	size_t total = 0;
	while (total < len) {
		ssize_t n = read(fd, p + total, len - total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		total += (size_t)n;
	}
	*got = total;
	return 0;
}

/* Parse the marker of an open root. Returns 0 with *id, -ENOENT when absent, -EBADMSG when not a
 * regular file or not in the expected format. */
static int read_marker(int rootfd, uint64_t *id)
{
	int fd = openat(rootfd, MARKER_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EBADMSG : -errno;
	struct stat st;
	char buf[128];
	size_t got = 0;
	int rc = fstat(fd, &st) ? -errno : 0;
	if (rc == 0 && !S_ISREG(st.st_mode))
		rc = -EBADMSG;
	if (rc == 0)
		rc = read_all(fd, buf, sizeof(buf) - 1, &got);
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
	return 0;
}

/* Write the marker into a root this call has just created: temp + fsync + rename + fsync. */
static int write_marker(int rootfd, uint64_t id)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), MARKER_MAGIC "version %d\nid %016llx\n", MARKER_VERSION,
	                 (unsigned long long)id);
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

/* --- open --------------------------------------------------------------------------------- */

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

static int sweep_root(const struct tree *t, int rootfd, struct tree_sweep *sw);

/* "fsmix.fs<index>" + suffix into buf (sizeof t->name). */
static void aside_name(const struct tree *t, const char *suffix, char *buf, size_t len)
{
	(void)fmt_name(buf, len, "%s%s", t->name, suffix);
}

/* fsync the location's directory, so a rename there survives a power cut. Only possible with
 * a readable descriptor (the lock's); best effort: the rename itself is already atomic. */
static void sync_location(const struct tree *t)
{
	int fd = lock_fd(t->lock);
	if (fd >= 0)
		(void)fsync(fd);
}

/* renameat2(RENAME_NOREPLACE) within the location, with a fallback where the filesystem has
 * no RENAME_NOREPLACE (EINVAL: some FUSE and network filesystems): a plain rename, only when the
 * new name is still free (fsmix holds the location's lock, so only a process other than fsmix
 * could take it meanwhile; a plain rename would replace an empty directory). 0 or -errno. */
static int rename_noreplace(int locfd, const char *from, const char *to)
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

/* Is the directory at dirfd (or its subdirectory `sub`, when not NULL) empty? */
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
 * (.del). With a valid marker it is a tree: its generated entries are removed, then the marker
 * and the directory; when unknown entries keep it, a .del goes back to its own name (if free),
 * so it is kept where it was. Without a marker only the creation's own first steps can be
 * left (a marker's temp file, empty data/ and meta/): those are removed, and the directory if
 * it is then empty. Anything else is not recognisably fsmix's and stays. Returns 0 (also when
 * nothing was there or something stayed) or -errno for an I/O error. */
static int finish_leftover(struct tree *t, const char *suffix)
{
	char name[sizeof(t->name) + 8];
	aside_name(t, suffix, name, sizeof(name));
	int fd = openat(t->locfd, name, DIR_FLAGS);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 0 : -errno;
	struct statx sx;
	struct stat a, b;
	uint64_t id;
	int rc = statx_at(fd, "", &sx);
	if (rc == 0 && !on_root_mount(t, &sx)) {
		(void)close(fd); /* a mount point: not ours */
		return 0;
	}
	rc = rc ? rc : read_marker(fd, &id);
	if (rc == 0) {
		struct tree_sweep sw = {0};
		rc = sweep_root(t, fd, &sw);
		if (rc == 0 && sw.unknown) {
			if (!strcmp(suffix, DEL_SUFFIX) &&
			    rename_noreplace(t->locfd, name, t->name) == 0)
				sync_location(t);
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
		sync_location(t);
	}
	(void)close(fd);
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
	aside_name(t, NEW_SUFFIX, name, sizeof(name));
	if (mkdirat(t->locfd, name, 0700)) {
		int e = errno;
		if (e == EEXIST)
			seterr(err, errlen,
			       "'%s%s' exists and is not recognisably fsmix's; fsmix will neither "
			       "use nor delete it (move it away)",
			       t->root, NEW_SUFFIX);
		else if (e == EROFS)
			seterr(err, errlen, "location '%s' is read-only (%s)", location,
			       strerror(e));
		else
			seterr(err, errlen,
			       "location '%s' is not writable: cannot create '%s%s' (%s)", location,
			       t->root, NEW_SUFFIX, strerror(e));
		return -e;
	}
	int fd = openat(t->locfd, name, DIR_FLAGS);
	if (fd < 0) {
		int e = errno;
		(void)unlinkat(t->locfd, name, AT_REMOVEDIR);
		seterr(err, errlen, "'%s%s': %s", t->root, NEW_SUFFIX, strerror(e));
		return -e;
	}
	uint64_t id = 0;
	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
		id = splitmix64(&(uint64_t){now_ns() ^ (uint64_t)getpid()});
	const char *step = MARKER_NAME;
	int rc = write_marker(fd, id);
	if (rc == 0 && (mkdirat(fd, "data", 0700) || mkdirat(fd, "meta", 0700))) {
		rc = -errno;
		step = "data and meta";
	}
	if (rc == 0 && fsync(fd)) {
		rc = -errno;
		step = "fsync";
	}
	if (rc) {
		seterr(err, errlen, "cannot create '%s' (%s): %s", t->root, step, strerror(-rc));
		drop_new(t, fd, name);
		return rc;
	}
	rc = rename_noreplace(t->locfd, name, t->name);
	if (rc) {
		seterr(err, errlen, "cannot create '%s': %s", t->root, strerror(-rc));
		drop_new(t, fd, name);
		return rc;
	}
	sync_location(t);
	t->tree_id = id;
	t->created = 1;
	return fd;
}

int tree_check_location(const char *location, char *err, size_t errlen)
{
	struct stat st;
	struct statvfs sv;
	if (!location || !*location) {
		seterr(err, errlen, "location is empty");
		return -EINVAL;
	}
	if (stat(location, &st)) {
		int e = errno;
		seterr(err, errlen, "location '%s': %s", location, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "location '%s' is not a directory", location);
		return -ENOTDIR;
	}
	if ((statvfs(location, &sv) == 0 && (sv.f_flag & ST_RDONLY)) ||
	    (access(location, W_OK) && errno == EROFS)) {
		seterr(err, errlen, "location '%s' is read-only (%s)", location, strerror(EROFS));
		return -EROFS;
	}
	if (access(location, W_OK | X_OK)) {
		int e = errno;
		seterr(err, errlen, "location '%s' is not writable (%s)", location, strerror(e));
		return -e;
	}
	return 0;
}

int tree_open(struct tree *t, const char *location, unsigned fs_index, unsigned flags, char *err,
              size_t errlen)
{
	return tree_open_rank(t, location, fs_index, tree_instance_rank(), flags, err, errlen);
}

int tree_open_rank(struct tree *t, const char *location, unsigned fs_index, int rank,
                   unsigned flags, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->locfd = t->rootfd = t->datafd = t->metafd = -1;
	if (!location || !*location) {
		seterr(err, errlen, "location is empty");
		return -EINVAL;
	}
	/* Drop trailing slashes so messages read "/x/fsmix.fs0", keeping "/" itself. */
	size_t loclen = strlen(location);
	while (loclen > 1 && location[loclen - 1] == '/')
		loclen--;
	(void)tree_instance_name(t->name, sizeof(t->name), fs_index, rank);
	if (fmt_name(t->root, sizeof(t->root), "%.*s%s%s", (int)loclen, location,
	             location[loclen - 1] == '/' ? "" : "/", t->name) < 0) {
		seterr(err, errlen, "location '%s': %s", location, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}

	/* The location itself is the user's: follow a symlink there, but check it thoroughly. */
	int rc = tree_check_location(location, err, errlen);
	if (rc)
		return rc;
	t->locfd = open(location, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->locfd < 0) {
		int e = errno;
		seterr(err, errlen, "location '%s': %s", location, strerror(e));
		return -e;
	}
	/* Nothing below is looked at or changed without the location's lock. */
	rc = tree_lock_location(location, err, errlen);
	if (rc < 0) {
		tree_close(t);
		return rc;
	}
	t->lock = rc;
	rc = note_root_mount(t, t->locfd); /* until the root is open: the location's */
	if (rc == 0)
		rc = finish_leftover(t, DEL_SUFFIX);
	if (rc == 0)
		rc = finish_leftover(t, NEW_SUFFIX);
	if (rc) {
		seterr(err, errlen, "finishing an interrupted tree in '%s': %s", location,
		       strerror(-rc));
		tree_close(t);
		return rc;
	}

	/* Our root: lstat, never follow. */
	struct stat st;
	if (fstatat(t->locfd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			seterr(err, errlen,
			       "'%s' is a symbolic link; fsmix does not follow it (remove it or "
			       "choose another location)",
			       t->root);
			rc = -ELOOP;
		} else if (!S_ISDIR(st.st_mode)) {
			seterr(err, errlen,
			       "'%s' exists and is not a directory created by fsmix (move it "
			       "away or choose another location)",
			       t->root);
			rc = -EEXIST;
		}
	} else if (errno != ENOENT) {
		rc = -errno;
		seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
	} else if (!(flags & TREE_CREATE)) {
		seterr(err, errlen, "'%s': no fsmix tree (%s)", t->root, strerror(ENOENT));
		rc = -ENOENT;
	} else {
		t->rootfd = create_root(t, location, err, errlen);
		rc = t->rootfd < 0 ? t->rootfd : 0;
	}
	if (rc) {
		tree_close(t);
		return rc;
	}
	if (!t->created) {
		t->rootfd = openat(t->locfd, t->name, DIR_FLAGS);
		if (t->rootfd < 0) {
			rc = -errno;
			if (rc == -ELOOP || rc == -ENOTDIR)
				seterr(err, errlen,
				       "'%s' is not a directory created by fsmix (it is a symbolic "
				       "link or another file); fsmix does not follow or remove it",
				       t->root);
			else
				seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
			tree_close(t);
			return rc;
		}
		rc = read_marker(t->rootfd, &t->tree_id);
		if (rc == -ENOENT || rc == -EBADMSG) {
			seterr(err, errlen,
			       "'%s' exists but has no valid %s marker: it was not created by "
			       "fsmix, so fsmix will neither use nor delete it (move it away or "
			       "choose another location)",
			       t->root, MARKER_NAME);
			tree_close(t);
			return -EEXIST;
		}
		if (rc) { /* EIO, EMFILE, ...: an I/O error, not a verdict on the tree */
			seterr(err, errlen, "cannot read '%s/%s': %s", t->root, MARKER_NAME,
			       strerror(-rc));
			tree_close(t);
			return rc;
		}
	}
	rc = note_root_mount(t, t->rootfd);
	if (rc) {
		seterr(err, errlen, "'%s': %s", t->root, strerror(-rc));
		tree_close(t);
		return rc;
	}

	/* data/ and meta/: made with the root; an older fsmix may have left a root without them
	 * after a crash, which a run completes. A removal creates nothing (it may run on a full
	 * filesystem) and does without a missing one. Neither may be another mount. */
	static const char *const subs[] = {"data", "meta"};
	int *fds[] = {&t->datafd, &t->metafd};
	for (int i = 0; i < 2; i++) {
		*fds[i] = open_subdir(t->rootfd, subs[i], (flags & TREE_CREATE) != 0);
		rc = *fds[i] < 0 ? *fds[i] : check_mount_fd(t, *fds[i]);
		if (rc == -ENOENT && !(flags & TREE_CREATE))
			continue;
		if (rc == -EXDEV)
			seterr(err, errlen,
			       "'%s/%s' is a mount point: fsmix writes only on its tree's own "
			       "filesystem (unmount it)",
			       t->root, subs[i]);
		else if (rc)
			seterr(err, errlen, "'%s/%s': %s", t->root, subs[i], strerror(-rc));
		if (rc) {
			tree_close(t);
			return rc;
		}
	}
	return 0;
}

int tree_set_dirs(struct tree *t, uint32_t num_dirs, char *err, size_t errlen)
{
	close_dirfds(t);
	uint32_t keep = num_dirs < TREE_MAX_DIRFDS ? num_dirs : TREE_MAX_DIRFDS;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		/* A quarter of what is left after 256 for workers and outputs; an eighth of a
		 * small limit. Every tree of a profile may take this much: five or more trees
		 * with many directories can still run out under a small limit. */
		uint64_t budget = rl.rlim_cur > 512 ? (rl.rlim_cur - 256) / 4 : rl.rlim_cur / 8;
		if (keep > budget)
			keep = (uint32_t)budget;
	}
	if (keep) {
		t->dirfds = malloc(keep * sizeof(int));
		if (!t->dirfds) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	char name[TREE_NAME_MAX];
	for (uint32_t i = 0; i < num_dirs; i++) {
		(void)tree_dir_name(i, name, sizeof(name));
		int fd = open_subdir(t->datafd, name, 1);
		int rc = fd < 0 ? fd : check_mount_fd(t, fd);
		if (rc) {
			if (rc == -EXDEV)
				seterr(err, errlen,
				       "'%s/data/%s' is a mount point: fsmix writes only on its "
				       "tree's own filesystem (unmount it)",
				       t->root, name);
			else
				seterr(err, errlen, "'%s/data/%s': %s", t->root, name,
				       strerror(-rc));
			if (fd >= 0)
				(void)close(fd);
			close_dirfds(t);
			return rc;
		}
		if (i < keep)
			t->dirfds[t->num_dirfds++] = fd;
		else
			(void)close(fd);
	}
	t->num_dirs = num_dirs;
	return 0;
}

/* --- manifest ------------------------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
#define FNV_OFFSET 0xcbf29ce484222325ull

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static uint32_t get32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static uint64_t get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Buffered manifest writer (64 KiB), fed by pool_foreach_live. */
struct mwriter {
	int fd;
	uint64_t sum;
	uint64_t count;
	size_t used;
	unsigned char buf[65536];
};

static int mw_flush(struct mwriter *w)
{
	w->sum = fnv1a(w->sum, w->buf, w->used);
	int rc = fd_write_all(w->fd, w->buf, w->used);
	w->used = 0;
	return rc;
}

static int mw_put(struct mwriter *w, const void *data, size_t len)
{
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
	put32(rec, id);
	put32(rec + 4, dir);
	put64(rec + 8, size);
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
		seterr(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* O_EXCL: a name planted in a reused tree (a hard link to someone's file) is removed,
	 * never written through. */
	(void)unlinkat(t->rootfd, MANIFEST_TMP_NAME, 0);
	w->fd = openat(t->rootfd, MANIFEST_TMP_NAME,
	               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	w->sum = FNV_OFFSET;
	w->count = 0;
	w->used = 0;
	int rc = w->fd < 0 ? -errno : 0;
	if (rc == 0) {
		unsigned char hdr[MANIFEST_HDR] = {0};
		memcpy(hdr, MANIFEST_MAGIC, 8);
		put32(hdr + 8, MANIFEST_VERSION);
		put32(hdr + 12, MANIFEST_BYTEORDER);
		put64(hdr + 16, spec_hash);
		put64(hdr + 24, t->tree_id);
		put32(hdr + 32, t->num_dirs);
		put32(hdr + 36, 0);
		put64(hdr + 40, count);
		rc = mw_put(w, hdr, sizeof(hdr));
	}
	if (rc == 0)
		rc = pool_foreach_live(pool, record_visit, w);
	if (rc == 0 && w->count != count)
		rc = -EAGAIN; /* the pool changed under us: a caller bug */
	if (rc == 0)
		rc = mw_flush(w);
	if (rc == 0) {
		unsigned char tr[MANIFEST_TRAILER];
		put64(tr, w->sum);
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
		seterr(err, errlen, "cannot write '%s/%s': %s", t->root, MANIFEST_NAME,
		       strerror(-rc));
	}
	return rc;
}

int tree_invalidate_manifest(struct tree *t, char *err, size_t errlen)
{
	if (unlinkat(t->rootfd, MANIFEST_NAME, 0) && errno != ENOENT) {
		int e = errno;
		seterr(err, errlen, "cannot remove '%s/%s': %s", t->root, MANIFEST_NAME,
		       strerror(e));
		return -e;
	}
	/* Make the removal durable before the run starts changing files. */
	if (fsync(t->rootfd)) {
		int e = errno;
		seterr(err, errlen, "fsync '%s': %s", t->root, strerror(e));
		return -e;
	}
	return 0;
}

/* d000..d<n-1> must be directories on the root's mount and d<n> must not exist. */
static int check_dirs(struct tree *t, uint32_t n, char *err, size_t errlen)
{
	char name[TREE_NAME_MAX];
	struct statx sx;
	for (uint32_t i = 0; i <= n; i++) {
		(void)tree_dir_name(i, name, sizeof(name));
		int rc = statx_at(t->datafd, name, &sx);
		if (i < n && (rc || !S_ISDIR(sx.stx_mode))) {
			seterr(err, errlen, "manifest lists %u directories but data/%s is missing",
			       n, name);
			return -ESTALE;
		}
		if (i < n && !on_root_mount(t, &sx)) {
			seterr(err, errlen,
			       "'%s/data/%s' is a mount point: fsmix writes only on its tree's own "
			       "filesystem (unmount it, or remove the tree with fsmix clean)",
			       t->root, name);
			return -EXDEV;
		}
		if (i == n && rc != -ENOENT) {
			seterr(err, errlen, "manifest lists %u directories but data/%s exists", n,
			       name);
			return -ESTALE;
		}
	}
	return 0;
}

/* Is file `i` of the manifest what fsmix left: a regular file of the recorded size, with no
 * other name (a hard link from outside would let a run write someone else's file), on the
 * root's mount? One statx. Returns 0, -ESTALE (rebuild), -EMLINK or -EXDEV (refuse), or the
 * -errno of an I/O error; err says which file. */
static int check_file(struct tree *t, const unsigned char *rec, char *err, size_t errlen)
{
	uint32_t id = get32(rec), dir = get32(rec + 4);
	uint64_t size = get64(rec + 8);
	char name[TREE_NAME_MAX], path[PATH_MAX];
	struct statx sx;
	int dfd = tree_file_at(t, dir, id, name, sizeof(name));
	if (dfd < 0) {
		seterr(err, errlen, "file id %u: %s", id, strerror(-dfd));
		return dfd;
	}
	int rc = statx_at(dfd, name, &sx);
	if (rc == 0 && S_ISREG(sx.stx_mode) && sx.stx_size == size && sx.stx_nlink == 1 &&
	    on_root_mount(t, &sx))
		return 0;
	(void)tree_file_path(t, dir, id, path, sizeof(path));
	if (rc == -ENOENT || rc == -ENOTDIR) {
		seterr(err, errlen, "'%s' listed in the manifest: %s", path, strerror(-rc));
		return -ESTALE;
	}
	if (rc) {
		seterr(err, errlen, "'%s': %s", path, strerror(-rc));
		return rc;
	}
	if (!on_root_mount(t, &sx)) {
		seterr(err, errlen,
		       "'%s' is on another mount than its tree: fsmix will not write through it "
		       "(unmount it, or remove the tree with fsmix clean)",
		       path);
		return -EXDEV;
	}
	if (!S_ISREG(sx.stx_mode) || sx.stx_size != size) {
		seterr(err, errlen, "'%s' is %s%llu bytes, the manifest says %llu", path,
		       S_ISREG(sx.stx_mode) ? "" : "not a regular file, ",
		       (unsigned long long)sx.stx_size, (unsigned long long)size);
		return -ESTALE;
	}
	seterr(err, errlen,
	       "'%s' has %u hard links: another name refers to it, and fsmix will not write "
	       "through it (remove the other links, or the tree with fsmix clean)",
	       path, (unsigned)sx.stx_nlink);
	return -EMLINK;
}

/* Checks every listed file (TREE_VERIFY_ALL), or a random sample of TREE_SAMPLE records (with
 * replacement): a tree edited or truncated behind our back is caught with probability
 * 1 - (1-f)^64 when a fraction f of its files is wrong. */
static int check_files(struct tree *t, const unsigned char *recs, uint64_t count, unsigned flags,
                       char *err, size_t errlen)
{
	if ((flags & TREE_VERIFY_ALL) || count <= TREE_SAMPLE) {
		for (uint64_t i = 0; i < count; i++) {
			int rc = check_file(t, recs + i * MANIFEST_REC, err, errlen);
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
		int rc = check_file(t, recs + rng_below(&r, count) * MANIFEST_REC, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int tree_load_manifest(struct tree *t, uint64_t spec_hash, struct pool *pool, unsigned flags,
                       char *err, size_t errlen)
{
	if (pool_high_water(pool) != 0 || pool_live(pool) != 0) {
		seterr(err, errlen, "internal: manifest loaded into a non-empty pool");
		return -EINVAL;
	}
	int fd = openat(t->rootfd, MANIFEST_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			seterr(err, errlen,
			       "no manifest in '%s' (the tree was not left by a complete run)",
			       t->root);
		else
			seterr(err, errlen, "'%s/%s': %s", t->root, MANIFEST_NAME, strerror(e));
		return e == ELOOP ? -EBADMSG : -e;
	}
	struct stat st;
	unsigned char *buf = NULL;
	size_t got = 0;
	int rc = fstat(fd, &st) ? -errno : 0;
	uint64_t fsize = rc == 0 ? (uint64_t)st.st_size : 0;
	if (rc == 0 && (!S_ISREG(st.st_mode) || fsize < MANIFEST_HDR + MANIFEST_TRAILER ||
	                (fsize - MANIFEST_HDR - MANIFEST_TRAILER) % MANIFEST_REC))
		rc = -EBADMSG;
	else if (rc == 0 &&
	         (fsize - MANIFEST_HDR - MANIFEST_TRAILER) / MANIFEST_REC > pool->capacity)
		rc = -ENOSPC;
	if (rc == 0 && !(buf = malloc((size_t)st.st_size)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = read_all(fd, buf, (size_t)st.st_size, &got);
	(void)close(fd);
	if (rc == 0 && got != (size_t)st.st_size)
		rc = -EBADMSG;
	if (rc) {
		free(buf);
		if (rc == -ENOSPC)
			seterr(err, errlen, "manifest lists more files than the pool holds (%u)",
			       pool->capacity);
		else
			seterr(err, errlen, "'%s/%s': %s", t->root, MANIFEST_NAME,
			       rc == -EBADMSG ? "corrupt or truncated" : strerror(-rc));
		return rc;
	}

	size_t len = (size_t)st.st_size;
	uint64_t count = (len - MANIFEST_HDR - MANIFEST_TRAILER) / MANIFEST_REC;
	const unsigned char *recs = buf + MANIFEST_HDR;
	uint32_t num_dirs = get32(buf + 32);
	if (memcmp(buf, MANIFEST_MAGIC, 8) != 0 || get32(buf + 8) != MANIFEST_VERSION ||
	    get32(buf + 12) != MANIFEST_BYTEORDER || get64(buf + 40) != count ||
	    fnv1a(FNV_OFFSET, buf, len - MANIFEST_TRAILER) != get64(buf + len - 8)) {
		seterr(err, errlen, "'%s/%s': corrupt or truncated", t->root, MANIFEST_NAME);
		rc = -EBADMSG;
	} else if (get64(buf + 24) != t->tree_id) {
		seterr(err, errlen,
		       "manifest belongs to another tree (id %016llx, this is %016llx)",
		       (unsigned long long)get64(buf + 24), (unsigned long long)t->tree_id);
		rc = -ESTALE;
	} else if (get64(buf + 16) != spec_hash) {
		seterr(err, errlen,
		       "manifest was written for a different filesystem spec (hash %016llx, "
		       "expected %016llx)",
		       (unsigned long long)get64(buf + 16), (unsigned long long)spec_hash);
		rc = -ESTALE;
	} else if (t->num_dirs && t->num_dirs != num_dirs) {
		seterr(err, errlen, "manifest lists %u directories, expected %u", num_dirs,
		       t->num_dirs);
		rc = -ESTALE;
	}
	/* Records: ascending ids (so no duplicates), ids within capacity, known directories. */
	for (uint64_t i = 0; rc == 0 && i < count; i++) {
		uint32_t id = get32(recs + i * MANIFEST_REC);
		uint32_t dir = get32(recs + i * MANIFEST_REC + 4);
		if ((i && id <= get32(recs + (i - 1) * MANIFEST_REC)) ||
		    (dir != TREE_DIR_TOP && dir >= num_dirs)) {
			seterr(err, errlen, "'%s/%s': corrupt (record %llu)", t->root,
			       MANIFEST_NAME, (unsigned long long)i);
			rc = -EBADMSG;
		} else if (id >= pool->capacity) {
			seterr(err, errlen, "manifest file id %u is beyond the pool's capacity %u",
			       id, pool->capacity);
			rc = -ENOSPC;
		}
	}
	if (rc == 0)
		rc = check_dirs(t, num_dirs, err, errlen);
	if (rc == 0)
		rc = tree_set_dirs(t, num_dirs, err, errlen);

	if (rc == 0)
		rc = check_files(t, recs, count, flags, err, errlen);
	for (uint64_t i = 0; rc == 0 && i < count; i++) {
		const unsigned char *rec = recs + i * MANIFEST_REC;
		rc = pool_add_initial(pool, get32(rec), get32(rec + 4), get64(rec + 8));
		if (rc) /* cannot happen after the checks above; keep the contract anyway */
			seterr(err, errlen, "file id %u: %s", get32(rec), strerror(-rc));
	}
	if (rc == 0)
		(void)pool_collect_holes(pool);
	free(buf);
	return rc;
}

/* --- removal -------------------------------------------------------------------------------- */

enum level { LV_ROOT, LV_DATA, LV_DDIR, LV_META, LV_MDIR };
enum kind { K_UNKNOWN, K_FILE, K_DIR, K_FILE_OR_DIR, K_SKIP };

/* What fsmix may have generated under a directory of level lv, and the level of a subdir. */
static enum kind classify(enum level lv, const char *name, enum level *child)
{
	switch (lv) {
	case LV_ROOT:
		if (!strcmp(name, "data")) {
			*child = LV_DATA;
			return K_DIR;
		}
		if (!strcmp(name, "meta")) {
			*child = LV_META;
			return K_DIR;
		}
		if (!strcmp(name, MARKER_NAME))
			return K_SKIP; /* removed last, by tree_remove */
		if (!strcmp(name, MANIFEST_NAME) || !strcmp(name, MANIFEST_TMP_NAME) ||
		    !strcmp(name, MARKER_TMP_NAME) || !strcmp(name, PROBE_NAME))
			return K_FILE;
		return K_UNKNOWN;
	case LV_DATA:
		if (is_prefixed_number(name, 'd')) {
			*child = LV_DDIR;
			return K_DIR;
		}
		return is_prefixed_number(name, 'f') ? K_FILE : K_UNKNOWN;
	case LV_DDIR:
		return is_prefixed_number(name, 'f') ? K_FILE : K_UNKNOWN;
	case LV_META:
	case LV_MDIR:
		if (is_meta_name(name)) {
			*child = LV_MDIR;
			return K_FILE_OR_DIR;
		}
		if (lv == LV_MDIR && is_prefixed_number(name, 'f'))
			return K_FILE;
		return K_UNKNOWN;
	}
	return K_UNKNOWN;
}

static void note_unknown(struct tree_sweep *sw, const char *rel, const char *name)
{
	if (sw->unknown++ == 0)
		(void)fmt_name(sw->first_unknown, sizeof(sw->first_unknown), "%s%s%s", rel,
		               *rel ? "/" : "", name); /* truncation is fine in a report */
}

/* File type of entry `name` without following symlinks (d_type when the fs provides it). */
static int entry_type(int dirfd, const struct dirent *de, mode_t *type)
{
	switch (de->d_type) {
	case DT_REG:
		*type = S_IFREG;
		return 0;
	case DT_DIR:
		*type = S_IFDIR;
		return 0;
	case DT_UNKNOWN:
		break;
	default:
		*type = 0; /* symlink, fifo, socket, device: never generated by fsmix */
		return 0;
	}
	struct stat st;
	if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	*type = st.st_mode & S_IFMT;
	return 0;
}

/* readdir() that tells an error from the end of the directory: a failed read (EIO on a
 * dying disk or a FUSE filesystem) must not look like "empty", or the caller would go on to
 * remove the marker of a tree that still holds files. The first error is kept in *rc. */
static struct dirent *next_entry(DIR *d, int *rc)
{
	errno = 0;
	struct dirent *de = readdir(d);
	if (!de && errno && *rc == 0)
		*rc = -errno;
	return de;
}

/* Remove the generated entries of the directory open as dirfd (level lv, path rel relative to
 * the root, for reports). Passes repeat until one removes nothing, because readdir while
 * unlinking may skip entries on some filesystems; the last pass counts the unknown entries.
 * A directory on another mount than t's root (a bind mount over one of our names) is never
 * entered, and a mounted-over file (unlink: EBUSY) is left: both count as unknown.
 * Returns 0 or the first hard error (-errno); unknown entries are not errors. */
static int sweep_dir(const struct tree *t, int dirfd, enum level lv, const char *rel, int depth,
                     struct tree_sweep *sw)
{
	int dfd = dup(dirfd);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = errno;
		(void)close(dfd);
		return -e;
	}
	int rc = 0;
	uint64_t removed;
	do {
		removed = 0;
		uint64_t unknown_before = sw->unknown;
		char first_before[sizeof(sw->first_unknown)];
		memcpy(first_before, sw->first_unknown, sizeof(first_before));
		rewinddir(d);
		struct dirent *de;
		while ((de = next_entry(d, &rc)) != NULL) {
			const char *name = de->d_name;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			enum level child = lv;
			enum kind k = classify(lv, name, &child);
			if (k == K_SKIP)
				continue;
			mode_t type = 0;
			if (k != K_UNKNOWN) {
				int trc = entry_type(dirfd, de, &type);
				if (trc == -ENOENT)
					continue; /* vanished meanwhile */
				if (trc) {
					rc = rc ? rc : trc;
					continue;
				}
			}
			int is_file = type == S_IFREG && (k == K_FILE || k == K_FILE_OR_DIR);
			int is_dir = type == S_IFDIR && (k == K_DIR || k == K_FILE_OR_DIR) &&
			             depth < SWEEP_MAX_DEPTH;
			if (is_file) {
				if (unlinkat(dirfd, name, 0) == 0) {
					removed++;
					sw->removed++;
				} else if (errno == EBUSY) {
					note_unknown(sw, rel, name); /* a mount point */
				} else if (errno != ENOENT) {
					rc = rc ? rc : -errno;
				}
				continue;
			}
			if (!is_dir) {
				note_unknown(sw, rel, name);
				continue;
			}
			char sub[PATH_MAX];
			(void)fmt_name(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", name);
			int cfd = openat(dirfd, name, DIR_FLAGS);
			if (cfd < 0) {
				/* Replaced by a symlink or other file since readdir: not ours. */
				if (errno == ELOOP || errno == ENOTDIR)
					note_unknown(sw, rel, name);
				else if (errno != ENOENT)
					rc = rc ? rc : -errno;
				continue;
			}
			int mrc = check_mount_fd(t, cfd);
			if (mrc) {
				(void)close(cfd);
				if (mrc == -EXDEV)
					note_unknown(sw, rel,
					             name); /* a mount point: not entered */
				else
					rc = rc ? rc : mrc;
				continue;
			}
			uint64_t unk = sw->unknown;
			int crc = sweep_dir(t, cfd, child, sub, depth + 1, sw);
			(void)close(cfd);
			rc = rc ? rc : crc;
			if (sw->unknown != unk || crc)
				continue; /* keep the directory holding unknown entries */
			if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0) {
				removed++;
				sw->removed++;
			} else if (errno == ENOTEMPTY || errno == EEXIST || errno == EBUSY) {
				note_unknown(sw, rel, name); /* something appeared meanwhile */
			} else if (errno != ENOENT) {
				rc = rc ? rc : -errno;
			}
		}
		if (removed) {
			/* Not the last pass: the next one recounts what is left. */
			sw->unknown = unknown_before;
			memcpy(sw->first_unknown, first_before, sizeof(first_before));
		}
	} while (removed && rc == 0);
	(void)closedir(d);
	return rc;
}

static int sweep_report(const struct tree *t, const struct tree_sweep *sw, int rc, char *err,
                        size_t errlen)
{
	if (rc) {
		seterr(err, errlen, "removing '%s': %s", t->root, strerror(-rc));
		return rc;
	}
	if (sw->unknown) {
		seterr(err, errlen,
		       "left %llu unknown entr%s in '%s' (first: %s); fsmix removes only what it "
		       "created, so it kept the tree",
		       (unsigned long long)sw->unknown, sw->unknown == 1 ? "y" : "ies", t->root,
		       sw->first_unknown);
		return -ENOTEMPTY;
	}
	return 0;
}

int tree_remove_contents(struct tree *t, struct tree_sweep *sweep, char *err, size_t errlen)
{
	struct tree_sweep local;
	struct tree_sweep *sw = sweep ? sweep : &local;
	memset(sw, 0, sizeof(*sw));
	close_dirfds(t);
	int rc = 0;
	if (unlinkat(t->rootfd, MANIFEST_NAME, 0) == 0)
		sw->removed++;
	else if (errno != ENOENT)
		rc = -errno;
	(void)unlinkat(t->rootfd, MANIFEST_TMP_NAME, 0);
	int rc2 = sweep_dir(t, t->datafd, LV_DATA, "data", 1, sw);
	rc = rc ? rc : rc2;
	rc2 = sweep_dir(t, t->metafd, LV_META, "meta", 1, sw);
	rc = rc ? rc : rc2;
	return sweep_report(t, sw, rc, err, errlen);
}

static int sweep_root(const struct tree *t, int rootfd, struct tree_sweep *sw)
{
	return sweep_dir(t, rootfd, LV_ROOT, "", 0, sw);
}

/* Does `name` in the location still refer to the directory open as fd? */
static bool names_fd(const struct tree *t, const char *name, int fd)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(t->locfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int tree_remove(struct tree *t, struct tree_sweep *sweep, char *err, size_t errlen)
{
	struct tree_sweep local;
	struct tree_sweep *sw = sweep ? sweep : &local;
	memset(sw, 0, sizeof(*sw));
	uint64_t id;
	int rc = t->rootfd < 0 ? -ENOENT : read_marker(t->rootfd, &id);
	if (rc == 0 && id != t->tree_id)
		rc = -EBADMSG;
	if (rc == -ENOENT || rc == -EBADMSG) {
		seterr(err, errlen, "'%s' no longer has fsmix's %s marker; not removing it",
		       t->root, MARKER_NAME);
		tree_close(t);
		return -EEXIST;
	}
	if (rc) {
		seterr(err, errlen, "cannot read '%s/%s': %s", t->root, MARKER_NAME, strerror(-rc));
		tree_close(t);
		return rc;
	}
	close_dirfds(t);
	close_fd(&t->datafd);
	close_fd(&t->metafd);
	if (!names_fd(t, t->name, t->rootfd)) {
		seterr(err, errlen, "'%s' was replaced during removal; left in place", t->root);
		tree_close(t);
		return -ESTALE;
	}
	/* Aside first: from here a crash leaves fsmix.fsN.del, which the next tree_open finishes.
	 * Where the rename cannot be done (no space for the new entry, a mount point, a .del that
	 * could not be cleared), the tree is removed in place as before. */
	char del[sizeof(t->name) + 8];
	aside_name(t, DEL_SUFFIX, del, sizeof(del));
	const char *at = t->name;
	if (rename_noreplace(t->locfd, t->name, del) == 0) {
		at = del;
		sync_location(t);
	}
	rc = sweep_root(t, t->rootfd, sw);
	rc = sweep_report(t, sw, rc, err, errlen);
	if (rc == -ENOTEMPTY && at == del && rename_noreplace(t->locfd, del, t->name) == 0) {
		at = t->name; /* kept under its own name, as it was */
		sync_location(t);
	}
	if (rc == 0) {
		/* Everything else is gone: the marker goes last, then the root, but only if the
		 * name still refers to the directory we hold (not a replacement). */
		if (!names_fd(t, at, t->rootfd)) {
			seterr(err, errlen, "'%s' was replaced during removal; left in place",
			       t->root);
			rc = -ESTALE;
		} else if (unlinkat(t->rootfd, MARKER_NAME, 0)) {
			rc = -errno;
			seterr(err, errlen, "removing '%s/%s': %s", t->root, MARKER_NAME,
			       strerror(-rc));
		} else {
			sw->removed++;
			close_fd(&t->rootfd);
			if (unlinkat(t->locfd, at, AT_REMOVEDIR)) {
				rc = -errno;
				seterr(err, errlen, "removing '%s': %s", t->root, strerror(-rc));
			} else {
				sw->removed++;
				sync_location(t);
			}
		}
	} else if (at == del && err) {
		char kept[PATH_MAX + 64];
		(void)fmt_name(kept, sizeof(kept), "%s (kept as '%s%s')", err, t->root, DEL_SUFFIX);
		seterr(err, errlen, "%s", kept);
	}
	tree_close(t);
	return rc;
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
