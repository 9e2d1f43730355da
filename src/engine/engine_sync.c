/* engine_sync.c - the sync I/O engine (engine=sync, the default): every call of an operation
 * is the plain system call, made by the worker's thread, one at a time, as FFSB makes them.
 * No state, no setup: the seam costs one indirect call per system call (docs/engines.md has
 * the measurement). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioengine.h"

static int sync_openat(struct worker *w, int dfd, const char *name, int flags, mode_t mode)
{
	(void)w;
	int fd = openat(dfd, name, flags, mode);
	return fd < 0 ? -errno : fd;
}

static ssize_t sync_read(struct worker *w, int fd, void *buf, size_t n)
{
	(void)w;
	ssize_t r = read(fd, buf, n);
	return r < 0 ? -errno : r;
}

static ssize_t sync_write(struct worker *w, int fd, const void *buf, size_t n)
{
	(void)w;
	ssize_t r = write(fd, buf, n);
	return r < 0 ? -errno : r;
}

static off_t sync_lseek(struct worker *w, int fd, off_t off, int whence)
{
	(void)w;
	off_t r = lseek(fd, off, whence);
	return r < 0 ? -errno : r;
}

static int sync_close(struct worker *w, int fd)
{
	(void)w;
	return close(fd) < 0 ? -errno : 0;
}

static int sync_stat(struct worker *w, int dfd, const char *name, struct stat *st)
{
	(void)w;
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int sync_unlinkat(struct worker *w, int dfd, const char *name, int flags)
{
	(void)w;
	return unlinkat(dfd, name, flags) < 0 ? -errno : 0;
}

static int sync_mkdirat(struct worker *w, int dfd, const char *name, mode_t mode)
{
	(void)w;
	return mkdirat(dfd, name, mode) < 0 ? -errno : 0;
}

static int sync_renameat(struct worker *w, int ofd, const char *from, int nfd, const char *to,
                         unsigned flags)
{
	(void)w;
	int r = flags ? renameat2(ofd, from, nfd, to, flags) : renameat(ofd, from, nfd, to);
	return r < 0 ? -errno : 0;
}

static int sync_linkat(struct worker *w, int ofd, const char *from, int nfd, const char *to)
{
	(void)w;
	return linkat(ofd, from, nfd, to, 0) < 0 ? -errno : 0;
}

static int sync_fsync(struct worker *w, int fd, bool datasync)
{
	(void)w;
	return (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? -errno : 0;
}

static int sync_syncfs(struct worker *w, int fd)
{
	(void)w;
	return syncfs(fd) < 0 ? -errno : 0;
}

static void sync_sync(struct worker *w)
{
	(void)w;
	sync();
}

static int sync_ftruncate(struct worker *w, int fd, off_t len)
{
	(void)w;
	return ftruncate(fd, len) < 0 ? -errno : 0;
}

static int sync_fallocate(struct worker *w, int fd, int mode, off_t off, off_t len)
{
	(void)w;
	return fallocate(fd, mode, off, len) < 0 ? -errno : 0;
}

const struct io_engine_ops io_engine_sync = {
    .name = "sync",
    .openat = sync_openat,
    .read = sync_read,
    .write = sync_write,
    .lseek = sync_lseek,
    .close = sync_close,
    .stat = sync_stat,
    .unlinkat = sync_unlinkat,
    .mkdirat = sync_mkdirat,
    .renameat = sync_renameat,
    .linkat = sync_linkat,
    .fsync = sync_fsync,
    .syncfs = sync_syncfs,
    .sync = sync_sync,
    .ftruncate = sync_ftruncate,
    .fallocate = sync_fallocate,
};
