/* fsfault - a FUSE passthrough filesystem that fails chosen operations, for fsmix's fault tests.
 *
 *   fsfault [-f OP[:N[:ERRNO[:SUBSTR]]]]... [--arm-on-usr1] BACKING MOUNTPOINT
 *
 * Mounts BACKING at MOUNTPOINT and runs in the foreground until unmounted (fusermount3 -u) or
 * sent SIGTERM. Every -f rule fails the FUSE operation OP (getattr, mkdir, unlink, rmdir, rename,
 * create, open, read, write, flush, release, fsync, fsyncdir, readdir, truncate, fallocate) with
 * ERRNO (EIO, ENOSPC, EROFS, EDQUOT or a number; default EIO) on every call after the first N
 * matching ones (default 0: from the first), counting only calls whose path contains SUBSTR
 * when one is given. With --arm-on-usr1 nothing fails and nothing is counted until the process
 * gets SIGUSR1, so a test can let fsmix build its tree and fail its run phase only. ERRNO
 * PAUSE holds the first call after the N matching ones (only that one) until the process gets
 * SIGUSR2, then lets it succeed; "fsfault: OP(PATH): paused" on stderr says that it waits, so
 * a test can do something while fsmix is inside that call. Each such rule holds its call until
 * a SIGUSR2 sent after it paused (a test may hold one call per run, a rule each).
 *
 * Ordinary FUSE options (-o ...) may follow. Attributes and names are not cached (timeouts 0)
 * and files are opened with direct_io, so every stat, lookup, read and write reaches this
 * process and can fail. close(2) reaches it as flush; an error of release is never seen by the
 * caller (the kernel ignores it). Single-threaded: the rules' counters need no lock.
 */
#define FUSE_USE_VERSION 31
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_RULES 16

struct rule {
	char op[16];
	unsigned long after; /* matching calls that still succeed */
	unsigned long seen;  /* matching calls so far */
	int err;
	char substr[256];
};

static struct rule rules[MAX_RULES];
static int n_rules;
static int backing = -1;                /* the backing directory, opened once */
static volatile sig_atomic_t armed = 1; /* 0 until SIGUSR1 with --arm-on-usr1 */
static volatile sig_atomic_t resumed;   /* a paused call may go on (SIGUSR2) */

#define ERR_PAUSE (-1) /* a rule's err: hold the call until SIGUSR2 */

/* Holds the calling (the only) thread until SIGUSR2 (on_usr2 sets resumed). */
static void pause_call(const char *op, const char *path, unsigned long call)
{
	resumed = 0; /* each pause waits for a SIGUSR2 of its own (one rule per run of a test) */
	fprintf(stderr, "fsfault: %s(%s): paused (call %lu) until SIGUSR2\n", op, path ? path : "?",
	        call);
	fflush(stderr);
	sigset_t usr2, old;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, &old);
	sigdelset(&old, SIGUSR2);
	while (!resumed)
		sigsuspend(&old);
	sigprocmask(SIG_UNBLOCK, &usr2, NULL);
	fprintf(stderr, "fsfault: %s(%s): resumed\n", op, path ? path : "?");
}

/* -errno if a rule fails this call of OP on PATH, else 0. */
static int fault(const char *op, const char *path)
{
	if (!armed)
		return 0;
	for (int i = 0; i < n_rules; i++) {
		struct rule *r = &rules[i];
		if (strcmp(r->op, op) || (r->substr[0] && (!path || !strstr(path, r->substr))))
			continue;
		if (r->err == ERR_PAUSE) {
			if (++r->seen == r->after + 1)
				pause_call(op, path, r->seen);
			continue;
		}
		if (++r->seen > r->after) {
			fprintf(stderr, "fsfault: %s(%s): failing with errno %d (call %lu)\n", op,
			        path ? path : "?", r->err, r->seen);
			return -r->err;
		}
	}
	return 0;
}

#define FAULT(op, path)                                                                            \
	do {                                                                                       \
		int f_ = fault(op, path);                                                          \
		if (f_)                                                                            \
			return f_;                                                                 \
	} while (0)

/* A FUSE path ("/a/b", "/") as a path relative to the backing directory ("a/b", "."). */
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int neg(int r)
{
	return r < 0 ? -errno : r;
}

static void *ff_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->use_ino = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 1;
	return NULL;
}

static int ff_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	FAULT("getattr", path);
	if (fi)
		return neg(fstat((int)fi->fh, st));
	return neg(fstatat(backing, rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int ff_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(backing, rel(path), buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int ff_mkdir(const char *path, mode_t mode)
{
	FAULT("mkdir", path);
	return neg(mkdirat(backing, rel(path), mode));
}

static int ff_unlink(const char *path)
{
	FAULT("unlink", path);
	return neg(unlinkat(backing, rel(path), 0));
}

static int ff_rmdir(const char *path)
{
	FAULT("rmdir", path);
	return neg(unlinkat(backing, rel(path), AT_REMOVEDIR));
}

static int ff_rename(const char *from, const char *to, unsigned int flags)
{
	FAULT("rename", from);
	return neg(renameat2(backing, rel(from), backing, rel(to), flags));
}

static int ff_link(const char *from, const char *to)
{
	return neg(linkat(backing, rel(from), backing, rel(to), 0));
}

static int ff_symlink(const char *target, const char *path)
{
	return neg(symlinkat(target, backing, rel(path)));
}

static int ff_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (fi)
		return neg(fchmod((int)fi->fh, mode));
	return neg(fchmodat(backing, rel(path), mode, 0));
}

static int ff_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	FAULT("truncate", path);
	if (fi)
		return neg(ftruncate((int)fi->fh, size));
	int fd = openat(backing, rel(path), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	int r = neg(ftruncate(fd, size));
	close(fd);
	return r;
}

static int ff_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	if (fi)
		return neg(futimens((int)fi->fh, tv));
	return neg(utimensat(backing, rel(path), tv, AT_SYMLINK_NOFOLLOW));
}

/* O_DIRECT is dropped: direct_io already bypasses the page cache here, and the backing
 * filesystem (tmpfs) may refuse it. */
static int open_flags(int flags)
{
	return (flags & ~O_DIRECT) | O_CLOEXEC | O_NOFOLLOW;
}

static int ff_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	FAULT("create", path);
	int fd = openat(backing, rel(path), open_flags(fi->flags) | O_CREAT, mode);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	FAULT("open", path);
	int fd = openat(backing, rel(path), open_flags(fi->flags));
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int ff_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	FAULT("read", path);
	return neg((int)pread((int)fi->fh, buf, size, off));
}

static int ff_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	FAULT("write", path);
	return neg((int)pwrite((int)fi->fh, buf, size, off));
}

static int ff_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	return neg(fstatvfs(backing, sv));
}

static int ff_flush(const char *path, struct fuse_file_info *fi)
{
	(void)fi;
	FAULT("flush", path);
	return 0;
}

static int ff_release(const char *path, struct fuse_file_info *fi)
{
	int f = fault("release", path);
	close((int)fi->fh);
	return f;
}

static int ff_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	FAULT("fsync", path);
	return neg(datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh));
}

static int ff_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	FAULT("fallocate", path);
	return neg(fallocate((int)fi->fh, mode, off, len));
}

static int ff_opendir(const char *path, struct fuse_file_info *fi)
{
	int fd = openat(backing, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	fi->fh = (uint64_t)(uintptr_t)d;
	return 0;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)flags;
	FAULT("readdir", path);
	DIR *d = (DIR *)(uintptr_t)fi->fh;
	if (off == 0)
		rewinddir(d);
	else
		seekdir(d, off);
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12};
		if (fill(buf, de->d_name, &st, telldir(d), 0))
			return 0;
		errno = 0;
	}
	return -errno;
}

static int ff_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	closedir((DIR *)(uintptr_t)fi->fh);
	return 0;
}

static int ff_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
	FAULT("fsyncdir", path);
	int fd = dirfd((DIR *)(uintptr_t)fi->fh);
	return neg(datasync ? fdatasync(fd) : fsync(fd));
}

static int ff_access(const char *path, int mask)
{
	return neg(faccessat(backing, rel(path), mask, AT_SYMLINK_NOFOLLOW));
}

static const struct fuse_operations ops = {
    .init = ff_init,
    .getattr = ff_getattr,
    .readlink = ff_readlink,
    .mkdir = ff_mkdir,
    .unlink = ff_unlink,
    .rmdir = ff_rmdir,
    .rename = ff_rename,
    .link = ff_link,
    .symlink = ff_symlink,
    .chmod = ff_chmod,
    .truncate = ff_truncate,
    .utimens = ff_utimens,
    .create = ff_create,
    .open = ff_open,
    .read = ff_read,
    .write = ff_write,
    .statfs = ff_statfs,
    .flush = ff_flush,
    .release = ff_release,
    .fsync = ff_fsync,
    .fallocate = ff_fallocate,
    .opendir = ff_opendir,
    .readdir = ff_readdir,
    .releasedir = ff_releasedir,
    .fsyncdir = ff_fsyncdir,
    .access = ff_access,
};

static int parse_errno(const char *s)
{
	static const struct {
		const char *name;
		int err;
	} names[] = {{"EIO", EIO},
	             {"ENOSPC", ENOSPC},
	             {"EROFS", EROFS},
	             {"EDQUOT", EDQUOT},
	             {"PAUSE", ERR_PAUSE}};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].err;
	char *end;
	long v = strtol(s, &end, 10);
	return *s && !*end && v > 0 && v < 4096 ? (int)v : 0;
}

/* OP[:N[:ERRNO[:SUBSTR]]] */
static int parse_rule(const char *spec)
{
	if (n_rules == MAX_RULES)
		return -1;
	struct rule *r = &rules[n_rules];
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", spec);
	char *fields[4] = {0};
	char *p = buf;
	for (int i = 0; i < 4 && p; i++) {
		fields[i] = p;
		p = i < 3 ? strchr(p, ':') : NULL;
		if (p)
			*p++ = '\0';
	}
	if (!fields[0][0] || strlen(fields[0]) >= sizeof(r->op))
		return -1;
	snprintf(r->op, sizeof(r->op), "%s", fields[0]);
	r->err = EIO;
	if (fields[1] && fields[1][0]) {
		char *end;
		r->after = strtoul(fields[1], &end, 10);
		if (*end)
			return -1;
	}
	if (fields[2] && fields[2][0] && !(r->err = parse_errno(fields[2])))
		return -1;
	if (fields[3])
		snprintf(r->substr, sizeof(r->substr), "%s", fields[3]);
	n_rules++;
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
	armed = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	resumed = 1;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: fsfault [-f OP[:N[:ERRNO|PAUSE[:SUBSTR]]]]... [--arm-on-usr1] BACKING "
	        "MOUNTPOINT [-o FUSE-OPTIONS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	/* Our own options first; the rest (mount point, -o ...) go to FUSE. */
	char **fargv = calloc((size_t)argc + 4, sizeof(*fargv));
	int fargc = 0;
	const char *back = NULL;
	if (!fargv)
		return 1;
	fargv[fargc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			if (parse_rule(argv[++i])) {
				fprintf(stderr, "fsfault: bad rule '%s'\n", argv[i]);
				usage();
			}
		} else if (!strcmp(argv[i], "--arm-on-usr1")) {
			armed = 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			fargv[fargc++] = argv[i++];
			fargv[fargc++] = argv[i];
		} else if (argv[i][0] == '-') {
			usage();
		} else if (!back) {
			back = argv[i];
		} else {
			fargv[fargc++] = argv[i];
		}
	}
	if (!back || fargc < 2)
		usage();
	backing = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (backing < 0) {
		perror(back);
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_usr1};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	struct sigaction sa2 = {.sa_handler = on_usr2};
	sigemptyset(&sa2.sa_mask);
	sigaction(SIGUSR2, &sa2, NULL);
	/* Foreground, single-threaded; the kernel checks permissions (we run as root). */
	fargv[fargc++] = "-f";
	fargv[fargc++] = "-s";
	fargv[fargc++] = "-odefault_permissions";
	int rc = fuse_main(fargc, fargv, &ops, NULL);
	free(fargv);
	return rc;
}
