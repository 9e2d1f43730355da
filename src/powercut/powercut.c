/* powercut.c - fsmix-powercut, a disk with a volatile write cache for power-cut experiments
 * (docs/fsmix-powercut.1, docs/durability.md). A FUSE filesystem of three files:
 *
 *   disk.img  the disk, for `losetup`: writes land in a volatile cache (cache.c); an fsync of
 *             disk.img (what the loop driver makes of a flush or FUA request) makes every write
 *             completed before it durable in BACKING; cached writes also destage to BACKING in
 *             random order once older than the destage delay; after a power cut every request
 *             fails with EIO, as a dead disk;
 *   control   write "cut" (or "cut PCT": persist a random PCT % of the cache first) for the power
 *             cut, "flush" for a flush;
 *   stats     the counters, "name value" per line.
 *
 * Single-threaded FUSE loop plus one destage thread; one mutex over the cache. Files are
 * opened with direct_io and nothing is cached by the kernel, so after the cut nothing of the
 * cache survives anywhere but in BACKING. A program of its own, outside fsmix's layers
 * (docs/design.md); it shares no code with fsmix but its cache.
 */
#define FUSE_USE_VERSION 31
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "powercut_cli.h"
#include "record.h"

#ifndef FSMIX_VERSION
#define FSMIX_VERSION "unknown"
#endif

static struct pc_opts opt = {.cache_bytes = 64u << 20, .delay_ms = 1000};
static struct pc_cache cache;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t quit_cond = PTHREAD_COND_INITIALIZER;
static bool quitting;
static pthread_t destager;
static bool destager_started;
static int backing_fd = -1;
static uint64_t disk_size;
static struct pc_rec rec; /* --record: what the disk receives, in arrival order */
static int rec_fd = -1;   /* -1: not recording */
static uint64_t cut_ns;   /* CLOCK_MONOTONIC of the power cut (0: none yet), for fsmix verify
                           * --cut-at: what a program learns after it is no promise */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A record entry's result: the first failure stops the recording, said once (the record then
 * has no end entry, and readers refuse it as truncated); the disk serves on. Under the lock. */
static void rec_note(int rc)
{
	static bool said;
	if (rc && !said) {
		said = true;
		fprintf(stderr,
		        "fsmix-powercut: --record %s: %s; recording stopped, the record is "
		        "incomplete\n",
		        opt.record_path, strerror(-rc));
	}
}

/* ---- the backing image ---- */

static int store_read(void *ctx, uint64_t blk, void *buf)
{
	(void)ctx;
	ssize_t n = pread(backing_fd, buf, PC_BLOCK, (off_t)(blk * PC_BLOCK));
	if (n < 0)
		return -errno;
	if (n < (ssize_t)PC_BLOCK)
		memset((char *)buf + n, 0, PC_BLOCK - (size_t)n);
	return 0;
}

static int store_write(void *ctx, uint64_t blk, const void *buf)
{
	(void)ctx;
	ssize_t n = pwrite(backing_fd, buf, PC_BLOCK, (off_t)(blk * PC_BLOCK));
	return n < 0 ? -errno : n < (ssize_t)PC_BLOCK ? -EIO : 0;
}

static const struct pc_store store = {NULL, store_read, store_write};

/* ---- statistics ---- */

static int stats_text(char *buf, size_t len)
{
	const struct pc_stats *s = &cache.st;
	int n = snprintf(
	    buf, len,
	    "writes %" PRIu64 "\nwrite_bytes %" PRIu64 "\nreads %" PRIu64 "\nread_bytes %" PRIu64
	    "\nflushes %" PRIu64 "\nflushes_ignored %" PRIu64 "\nflushed_bytes %" PRIu64
	    "\ndestaged_bytes %" PRIu64 "\nevicted_bytes %" PRIu64 "\ncached_bytes %" PRIu64
	    "\nmax_cached_bytes %" PRIu64 "\ncut %" PRIu64 "\ncut_persisted_bytes %" PRIu64
	    "\ndropped_bytes %" PRIu64 "\ncut_mono_ns %" PRIu64 "\n",
	    s->writes, s->write_bytes, s->reads, s->read_bytes, s->flushes, s->flushes_ignored,
	    s->flushed_bytes, s->destaged_bytes, s->evicted_bytes, s->cached_bytes, s->max_cached,
	    s->cuts, s->cut_persisted_bytes, s->dropped_bytes, cut_ns);
	if (rec_fd >= 0 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
		              "record_entries %" PRIu64 "\nrecord_bytes %" PRIu64
		              "\nrecord_stall_ms %" PRIu64 "\nrecord_failed %d\n",
		              rec.entries, rec.bytes, rec.stall_ns / 1000000,
		              atomic_load(&rec.err) ? 1 : 0);
	return n;
}

/* ---- the FUSE filesystem ---- */

enum pc_file { F_ROOT, F_DISK, F_CONTROL, F_STATS, F_NONE };

static enum pc_file which(const char *path)
{
	if (!strcmp(path, "/"))
		return F_ROOT;
	if (!strcmp(path, "/disk.img"))
		return F_DISK;
	if (!strcmp(path, "/control"))
		return F_CONTROL;
	if (!strcmp(path, "/stats"))
		return F_STATS;
	return F_NONE;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_nlink = 1;
	switch (which(path)) {
	case F_ROOT:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	case F_DISK:
		st->st_mode = S_IFREG | 0600;
		st->st_size = (off_t)disk_size;
		st->st_blocks = (blkcnt_t)(disk_size / 512);
		return 0;
	case F_CONTROL:
		st->st_mode = S_IFREG | 0200;
		return 0;
	case F_STATS:
		st->st_mode = S_IFREG | 0444;
		st->st_size = 4096; /* direct_io: reads end where the text does */
		return 0;
	default:
		return -ENOENT;
	}
}

static int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (which(path) != F_ROOT)
		return -ENOTDIR;
	const char *names[] = {".", "..", "disk.img", "control", "stats"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fill(buf, names[i], NULL, 0, 0);
	return 0;
}

static int pc_open(const char *path, struct fuse_file_info *fi)
{
	enum pc_file f = which(path);
	if (f == F_NONE || f == F_ROOT)
		return f == F_NONE ? -ENOENT : -EISDIR;
	if (f == F_STATS && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	if (f == F_CONTROL && (fi->flags & O_ACCMODE) == O_RDONLY)
		return -EACCES;
	fi->direct_io = 1; /* no page cache: what the cache drops is gone */
	fi->keep_cache = 0;
	fi->fh = (uint64_t)f;
	if (f == F_STATS) {
		char *text = malloc(4096);
		if (!text)
			return -ENOMEM;
		pthread_mutex_lock(&lock);
		stats_text(text, 4096);
		pthread_mutex_unlock(&lock);
		fi->fh = (uint64_t)(uintptr_t)text;
	}
	return 0;
}

static int pc_release(const char *path, struct fuse_file_info *fi)
{
	if (which(path) == F_STATS)
		free((void *)(uintptr_t)fi->fh);
	return 0;
}

static int pc_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	enum pc_file f = which(path);
	if (f == F_STATS) {
		const char *text = (const char *)(uintptr_t)fi->fh;
		size_t n = strlen(text);
		if ((size_t)off >= n)
			return 0;
		n = n - (size_t)off < len ? n - (size_t)off : len;
		memcpy(buf, text + off, n);
		return (int)n;
	}
	if (f != F_DISK)
		return -EBADF;
	if ((uint64_t)off >= disk_size)
		return 0;
	if ((uint64_t)off + len > disk_size)
		len = (size_t)(disk_size - (uint64_t)off);
	pthread_mutex_lock(&lock);
	int rc = pc_cache_read(&cache, &store, (uint64_t)off, buf, len);
	pthread_mutex_unlock(&lock);
	return rc ? rc : (int)len;
}

/* "cut", "cut PCT" or "flush", written to the control file. */
static int control(const char *cmd, size_t len)
{
	char word[64] = "";
	unsigned pct = opt.persist_pct;
	memcpy(word, cmd, len < sizeof(word) - 1 ? len : sizeof(word) - 1);
	int rc = -EINVAL;
	pthread_mutex_lock(&lock);
	if (!strncmp(word, "cut", 3) && (word[3] == '\0' || word[3] == '\n' || word[3] == ' ')) {
		char *end;
		if (word[3] == ' ') {
			unsigned long v = strtoul(word + 4, &end, 10);
			if (end == word + 4 || (*end && *end != '\n') || v > 100)
				goto out;
			pct = (unsigned)v;
		}
		rc = cache.dead ? -EIO : pc_cache_cut(&cache, &store, pct);
		if (!cut_ns && cache.dead) /* from here on every request fails */
			cut_ns = mono_ns();
		if (!rc && rec_fd >= 0)
			rec_note(pc_rec_cut(&rec, mono_ns()));
		if (!rc)
			fprintf(stderr,
			        "fsmix-powercut: power cut: %" PRIu64 " bytes lost, %" PRIu64
			        " persisted\n",
			        cache.st.dropped_bytes, cache.st.cut_persisted_bytes);
	} else if (!strcmp(word, "flush") || !strcmp(word, "flush\n")) {
		rc = pc_cache_flush(&cache, &store, false);
		if (!rc && rec_fd >= 0)
			rec_note(pc_rec_flush(&rec, mono_ns()));
	}
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

static int pc_write(const char *path, const char *buf, size_t len, off_t off,
                    struct fuse_file_info *fi)
{
	(void)fi;
	enum pc_file f = which(path);
	if (f == F_CONTROL) {
		int rc = control(buf, len);
		return rc ? rc : (int)len;
	}
	if (f != F_DISK)
		return -EBADF;
	if ((uint64_t)off + len > disk_size)
		return -ENOSPC;
	pthread_mutex_lock(&lock);
	uint64_t now = mono_ns();
	int rc = pc_cache_write(&cache, &store, (uint64_t)off, buf, len, now);
	if (!rc && rec_fd >= 0) /* FUSE writes are at most max_write (128 KiB), far below 4 GiB */
		rec_note(pc_rec_write(&rec, (uint64_t)off, buf, (uint32_t)len, now));
	pthread_mutex_unlock(&lock);
	return rc ? rc : (int)len;
}

/* The loop driver's flush (REQ_PREFLUSH, and FUA, which it emulates) is an fsync of disk.img. */
static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync, (void)fi;
	if (which(path) != F_DISK)
		return 0;
	pthread_mutex_lock(&lock);
	int rc = pc_cache_flush(&cache, &store, opt.ignore_flush);
	if (!rc && rec_fd >= 0) /* recorded as it arrived, ignored or not */
		rec_note(pc_rec_flush(&rec, mono_ns()));
	pthread_mutex_unlock(&lock);
	if (!rc && opt.flush_us && !opt.ignore_flush) /* a drive's flush: the queue waits */
		usleep((useconds_t)opt.flush_us);
	return rc;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	enum pc_file f = which(path);
	if (f == F_CONTROL)
		return 0; /* `echo cut > control` truncates first */
	return f == F_DISK && (uint64_t)size == disk_size ? 0 : -EPERM;
}

/* Destages what has been cached longer than the delay, a few blocks per lock, until quit. */
static void *destage_main(void *arg)
{
	(void)arg;
	uint64_t delay = (uint64_t)opt.delay_ms * 1000000u;
	uint64_t tick = delay / 4 < 10000000u    ? 10000000u
	                : delay / 4 > 100000000u ? 100000000u
	                                         : delay / 4;
	pthread_mutex_lock(&lock);
	while (!quitting) {
		size_t done = 0;
		if (!cache.dead)
			(void)pc_cache_destage(&cache, &store, mono_ns(), delay, 16, &done);
		if (done == 16) { /* more to do: let requests in between */
			pthread_mutex_unlock(&lock);
			sched_yield();
			pthread_mutex_lock(&lock);
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t t = (uint64_t)ts.tv_nsec + tick;
		ts.tv_sec += (time_t)(t / 1000000000u);
		ts.tv_nsec = (long)(t % 1000000000u);
		pthread_cond_timedwait(&quit_cond, &lock, &ts);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	/* after fuse_main's fork (daemon mode): the thread is started here, in the daemon */
	if (rec_fd >= 0)
		pc_rec_start(&rec);
	if (opt.delay_ms >= 0 && !pthread_create(&destager, NULL, destage_main, NULL))
		destager_started = true;
	return NULL;
}

static void pc_destroy(void *private_data)
{
	(void)private_data;
	pthread_mutex_lock(&lock);
	quitting = true;
	pthread_cond_broadcast(&quit_cond);
	pthread_mutex_unlock(&lock);
	if (destager_started)
		pthread_join(destager, NULL);
	/* unmounted without a cut: a clean power-off writes the cache back, all of it */
	cache.reorder = 0;
	if (!cache.dead && pc_cache_flush(&cache, &store, false))
		fprintf(stderr, "fsmix-powercut: cannot write the cache back to %s\n", opt.backing);
	if (rec_fd >= 0) {
		int rc = pc_rec_close(&rec, mono_ns());
		if (rc)
			fprintf(stderr, "fsmix-powercut: --record %s is incomplete: %s\n",
			        opt.record_path, strerror(-rc));
		else
			fprintf(stderr,
			        "fsmix-powercut: recorded %" PRIu64 " entries, %" PRIu64
			        " bytes in %s\n",
			        rec.entries, rec.bytes, opt.record_path);
	}
	char text[4096];
	stats_text(text, sizeof(text));
	fprintf(stderr, "fsmix-powercut: %s", text);
	if (opt.stats_path) {
		FILE *f = fopen(opt.stats_path, "w");
		if (!f || fputs(text, f) == EOF || fclose(f))
			fprintf(stderr, "fsmix-powercut: cannot write %s\n", opt.stats_path);
	}
	if (fsync(backing_fd))
		fprintf(stderr, "fsmix-powercut: fsync %s failed\n", opt.backing);
}

static const struct fuse_operations pc_ops = {
    .init = pc_init,
    .destroy = pc_destroy,
    .getattr = pc_getattr,
    .readdir = pc_readdir,
    .open = pc_open,
    .release = pc_release,
    .read = pc_read,
    .write = pc_write,
    .fsync = pc_fsync,
    .truncate = pc_truncate,
};

int main(int argc, char **argv)
{
	char *fuse_argv[64];
	int fuse_argc = 0;
	int rc = pc_cli(argc, argv, &opt, fuse_argv, &fuse_argc);
	if (rc >= 0)
		return rc;
	bool created;
	backing_fd = pc_open_backing(&opt, &disk_size, &created, &rc);
	if (backing_fd < 0)
		return rc;
	if (opt.record_path) {
		rec_fd = pc_open_record(&opt, &rc);
		uint32_t flags = (created ? PC_RECF_ZERO_BASE : 0) |
		                 (opt.ignore_flush ? PC_RECF_IGNORE_FLUSH : 0);
		int err = rec_fd < 0 ? 0 : pc_rec_open(&rec, rec_fd, disk_size, flags, mono_ns());
		if (err)
			fprintf(stderr, "fsmix-powercut: --record %s: %s\n", opt.record_path,
			        strerror(-err));
		if (rec_fd < 0 || err) {
			pc_drop_record(&opt, rec_fd, true);
			pc_drop_backing(&opt, backing_fd, created);
			return rec_fd < 0 ? rc : 1;
		}
	}
	if (!opt.seed_given)
		opt.seed = mono_ns() ^ ((uint64_t)getpid() << 32);
	size_t blocks = (size_t)(opt.cache_bytes / PC_BLOCK);
	if (pc_cache_init(&cache, blocks ? blocks : 1, opt.seed)) {
		fprintf(stderr, "fsmix-powercut: out of memory for a %" PRIu64 "-byte cache\n",
		        opt.cache_bytes);
		pc_drop_record(&opt, rec_fd, true);
		pc_drop_backing(&opt, backing_fd, created);
		return 1;
	}
	cache.reorder = opt.reorder ? PC_REORDER_LAG : 0;
	fprintf(stderr,
	        "fsmix-powercut: %s/disk.img: %" PRIu64 " bytes on %s, cache %" PRIu64
	        " bytes, destage delay %s%" PRId64
	        " ms, persist on cut %u %%, flush latency %" PRIu64 " us, seed %" PRIu64 "%s%s\n",
	        opt.mountpoint, disk_size, opt.backing, opt.cache_bytes,
	        opt.delay_ms < 0 ? "off: " : "", opt.delay_ms < 0 ? 0 : opt.delay_ms,
	        opt.persist_pct, opt.flush_us, opt.seed,
	        opt.ignore_flush ? ", IGNORING FLUSHES" : "",
	        opt.reorder ? ", REORDERING ACROSS FLUSHES" : "");
	rc = fuse_main(fuse_argc, fuse_argv, &pc_ops, NULL);
	pc_cache_free(&cache);
	/* fuse_main's 1 to 6: its options, the mount point, the mount, daemonizing or the signal
	 * handlers failed; no request was served (7: the filesystem ran, BACKING holds its data) */
	pc_drop_record(&opt, rec_fd, rc >= 1 && rc <= 6);
	pc_drop_backing(&opt, backing_fd, created && rc >= 1 && rc <= 6);
	return rc ? 1 : 0;
}
