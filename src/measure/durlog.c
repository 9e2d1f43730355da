/* durlog.c - the journal of promises: encoding, the workers' rings, the logger thread, the
 * same-device rule and reading a log back (durlog.h). */
#include "durlog.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "byteorder.h"
#include "check.h"
#include "devstat.h"
#include "fdio.h"
#include "hash.h"
#include "outfile.h"

static const char magic[8] = {'F', 'S', 'M', 'I', 'X', 'D', 'U', 'R'};

/* The check of a record: FNV-1a of its first 72 bytes, in its last 8. */
#define REC_CHECKED 72
_Static_assert(REC_CHECKED + 8 == DURLOG_REC_LEN, "a record ends with its check");

/* Bytes [0, 72) of r's record: everything but its check (seal_recs). */
static void encode_fields(const struct durlog_rec *r, unsigned char out[DURLOG_REC_LEN])
{
	out[0] = r->kind;
	out[1] = r->flags;
	le_put16(out + 2, r->fs);
	le_put32(out + 4, r->worker);
	le_put64(out + 8, r->seq);
	le_put64(out + 16, r->t_start);
	le_put64(out + 24, r->t_end);
	le_put32(out + 32, r->file);
	le_put32(out + 36, r->dir);
	le_put64(out + 40, r->off);
	le_put64(out + 48, r->len);
	le_put64(out + 56, r->size);
	le_put32(out + 64, r->gen);
	le_put32(out + 68, r->aux);
}

/* Writes the checks of the n records at out, whose fields encode_fields wrote: four at a time
 * (hash_fnv1a_4; the logger's checks took 68 ns a record one by one, 22 ns four at a time),
 * the rest one by one. */
static void seal_recs(unsigned char *out, size_t n)
{
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		unsigned char *p = out + i * DURLOG_REC_LEN;
		uint64_t h[4];
		hash_fnv1a_4(p, DURLOG_REC_LEN, REC_CHECKED, h);
		for (size_t k = 0; k < 4; k++)
			le_put64(p + k * DURLOG_REC_LEN + REC_CHECKED, h[k]);
	}
	for (; i < n; i++) {
		unsigned char *p = out + i * DURLOG_REC_LEN;
		le_put64(p + REC_CHECKED, hash_fnv1a(HASH_FNV1A_SEED, p, REC_CHECKED));
	}
}

void durlog_encode_rec(const struct durlog_rec *r, unsigned char out[DURLOG_REC_LEN])
{
	encode_fields(r, out);
	seal_recs(out, 1);
}

int durlog_decode_rec(const unsigned char in[DURLOG_REC_LEN], struct durlog_rec *r)
{
	/* (a kind without a name: a value no fsmix of this version writes) */
	if (le_get64(in + REC_CHECKED) != hash_fnv1a(HASH_FNV1A_SEED, in, REC_CHECKED) ||
	    in[0] == DL_NONE || !strcmp(durlog_kind_name((enum durlog_kind)in[0]), "?"))
		return -EBADMSG;
	r->kind = in[0];
	r->flags = in[1];
	r->fs = le_get16(in + 2);
	r->worker = le_get32(in + 4);
	r->seq = le_get64(in + 8);
	r->t_start = le_get64(in + 16);
	r->t_end = le_get64(in + 24);
	r->file = le_get32(in + 32);
	r->dir = le_get32(in + 36);
	r->off = le_get64(in + 40);
	r->len = le_get64(in + 48);
	r->size = le_get64(in + 56);
	r->gen = le_get32(in + 64);
	r->aux = le_get32(in + 68);
	return 0;
}

void durlog_encode_header(const struct durlog_header *h, unsigned char out[DURLOG_HEADER_LEN])
{
	memset(out, 0, DURLOG_HEADER_LEN);
	memcpy(out, magic, 8);
	le_put32(out + 8, DURLOG_VERSION);
	le_put32(out + 12, DURLOG_HEADER_LEN);
	le_put32(out + 16, DURLOG_REC_LEN);
	le_put32(out + 20, h->flags);
	le_put64(out + 24, h->mono_ns);
	le_put64(out + 32, h->real_ns);
	le_put32(out + 40, h->n_fs);
	le_put32(out + 44, h->n_workers);
	le_put64(out + 48, h->run_id); /* zero before run ids: bytes 48..63 were reserved */
	for (uint32_t i = 0; i < h->n_fs && i < DURLOG_MAX_FS; i++) {
		unsigned char *p = out + 64 + 32 * i;
		le_put32(
		    p, h->fs[i].index); /* then the content mode and percentage (docs/output.md) */
		p[4] = h->fs[i].content_mode; /* bytes 4..7 were zero before content modes */
		p[5] = h->fs[i].content_pct;
		le_put64(p + 8, h->fs[i].tree_id);
		le_put64(p + 16, h->fs[i].content_seed);
		le_put64(p + 24, h->fs[i].spec_hash);
	}
	le_put64(out + DURLOG_HEADER_LEN - 8,
	         hash_fnv1a(HASH_FNV1A_SEED, out, DURLOG_HEADER_LEN - 8));
}

int durlog_decode_header(const unsigned char in[DURLOG_HEADER_LEN], struct durlog_header *h,
                         char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (memcmp(in, magic, 8)) {
		snprintf(err, errlen, "not a durability log (no FSMIXDUR magic)");
		return -1;
	}
	h->version = le_get32(in + 8);
	if (h->version != DURLOG_VERSION || le_get32(in + 12) != DURLOG_HEADER_LEN ||
	    le_get32(in + 16) != DURLOG_REC_LEN) {
		snprintf(err, errlen,
		         "durability log version %u is not supported (this fsmix reads %d)",
		         h->version, DURLOG_VERSION);
		return -1;
	}
	if (le_get64(in + DURLOG_HEADER_LEN - 8) !=
	    hash_fnv1a(HASH_FNV1A_SEED, in, DURLOG_HEADER_LEN - 8)) {
		snprintf(err, errlen, "the durability log's header is corrupt (bad checksum)");
		return -1;
	}
	h->flags = le_get32(in + 20);
	h->mono_ns = le_get64(in + 24);
	h->real_ns = le_get64(in + 32);
	h->n_fs = le_get32(in + 40);
	h->n_workers = le_get32(in + 44);
	h->run_id = le_get64(in + 48);
	if (h->n_fs > DURLOG_MAX_FS) {
		snprintf(err, errlen, "the durability log's header is corrupt (%u filesystems)",
		         h->n_fs);
		return -1;
	}
	for (uint32_t i = 0; i < h->n_fs; i++) {
		const unsigned char *p = in + 64 + 32 * i;
		h->fs[i].index = le_get32(p);
		h->fs[i].content_mode = p[4];
		h->fs[i].content_pct = p[5];
		h->fs[i].tree_id = le_get64(p + 8);
		h->fs[i].content_seed = le_get64(p + 16);
		h->fs[i].spec_hash = le_get64(p + 24);
	}
	return 0;
}

const char *durlog_kind_name(enum durlog_kind k)
{
	static const char *const names[DL_KIND_COUNT] = {
	    [DL_NONE] = "none",           [DL_BASE] = "base",       [DL_WSTART] = "write-start",
	    [DL_WRITE] = "write",         [DL_FSYNC] = "fsync",     [DL_FDATASYNC] = "fdatasync",
	    [DL_CREATE] = "create",       [DL_DELETE] = "delete",   [DL_DIRSYNC] = "dirsync",
	    [DL_SYNCFS] = "syncfs",       [DL_SYNC] = "sync",       [DL_END] = "end",
	    [DL_RENAME] = "rename",       [DL_REPLACE] = "replace", [DL_TRUNCATE] = "truncate",
	    [DL_FALLOCATE] = "fallocate", [DL_LINK] = "link",       [DL_UNLINK] = "unlink",
	    [DL_MKDIR] = "mkdir",         [DL_RMDIR] = "rmdir",
	};
	return (unsigned)k < DL_KIND_COUNT && names[k] ? names[k] : "?";
}

/* ---- the same-device rule ---- */

/* The directory that holds path (path itself when it is a directory). */
static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

int durlog_check_place(const char *path, const char *const *locations, size_t n, char *err,
                       size_t errlen)
{
	char dir[PATH_MAX];
	struct stat ls, ds;
	/* where open(2) writes: symbolic links followed (realpath), a dangling one to the new
	 * file it names (open's O_CREAT makes it there: outfile_identify) */
	char real[PATH_MAX] = "";
	struct outfile_id id;
	bool exists = stat(path, &ls) == 0;
	if (exists && (S_ISCHR(ls.st_mode) || S_ISFIFO(ls.st_mode) || S_ISSOCK(ls.st_mode)))
		return 0; /* /dev/null, a pipe: what is written there is not on that filesystem */
	int e = exists ? (realpath(path, real) ? 0 : -errno) : outfile_identify(path, &id);
	if (!e && !exists)
		snprintf(real, sizeof(real), "%s", id.path);
	if (!e && exists && S_ISDIR(ls.st_mode))
		snprintf(dir, sizeof(dir), "%s", real);
	else if (!e)
		dir_of(real, dir, sizeof(dir));
	if (e || (!exists && stat(dir, &ls) < 0)) {
		snprintf(err, errlen, "--durability-log '%s': %s", path, strerror(e ? -e : errno));
		return -1;
	}
	char shown[PATH_MAX + 64] = "";
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		snprintf(shown, sizeof(shown), " (a symbolic link to %s)", real);
	struct devstat_dev *ld = calloc(2, sizeof(*ld));
	if (!ld) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bool ld_ok = devstat_probe(dir, &ld[0]) == 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (stat(locations[i], &ds) < 0)
			continue; /* the location's own check says what is wrong */
		bool same = ds.st_dev == ls.st_dev;
		/* another st_dev on the same device: a partition's two mounts have one st_dev, but
		 * a btrfs subvolume has an anonymous one; the block device (or the mount source,
		 * where devstat finds no device) tells */
		if (!same && ld_ok && devstat_probe(locations[i], &ld[1]) == 0) {
			if (ld[0].has_device && ld[1].has_device)
				same = !strcmp(ld[0].devname, ld[1].devname);
			else
				same = !strncmp(ld[0].mount_source, "/dev/", 5) &&
				       !strcmp(ld[0].mount_source, ld[1].mount_source);
		}
		if (same) {
			snprintf(
			    err, errlen,
			    "--durability-log '%s'%s is on the filesystem under test (location "
			    "'%s'): a crash would take the log with it; put it on another "
			    "filesystem",
			    path, shown, locations[i]);
			rc = -1;
		}
	}
	free(ld);
	return rc;
}

/* ---- writing ---- */

/* The refusal of a regular file that holds something (st). */
static int refuse_existing(const char *path, const struct stat *st, char *err, size_t errlen)
{
	snprintf(err, errlen,
	         "--durability-log '%s' exists (%lld bytes): fsmix does not overwrite a file it "
	         "did not create (it may be the log of a crash not verified yet); verify it, "
	         "then remove it, or name a new file",
	         path, (long long)st->st_size);
	return -EEXIST;
}

/* An existing regular file (st) must be the running user's own and writable by no one else:
 * another user, or anyone who may write it, could cut the log or change it while it is
 * written or before it is verified, and verify would then check less than the run promised.
 * 0, or -EPERM with the message. */
static int refuse_foreign(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (st->st_uid != geteuid()) {
		snprintf(err, errlen,
		         "--durability-log '%s' belongs to another user (uid %u): fsmix writes its "
		         "log only into a file of its own, which no one else can change (another "
		         "user could cut it, and verify would check less than the run promised); "
		         "name a new file",
		         path, (unsigned)st->st_uid);
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
		         "--durability-log '%s' is writable by other users (mode %04o): another "
		         "user could cut or change the log, and verify would check less than the "
		         "run promised; chmod go-w it, or name a new file",
		         path, (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int durlog_check_new(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size > 0)
		return refuse_existing(path, &st, err, errlen);
	return refuse_foreign(path, &st, err, errlen);
}

/* open(2) of the log. A FIFO without a reader fails with ENXIO (O_NONBLOCK): then its reader
 * is waited for, as for any output (-EINTR: a stop signal came first). Writes block. */
static int open_log(const char *path, char *err, size_t errlen)
{
	/* never O_TRUNC: a regular file that holds anything is refused once open (no window
	 * between a check and the open in which a file could be lost) */
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	/* 0644: a new log is writable by its owner alone, whatever the umask (refuse_foreign) */
	int fd = open(path, flags | O_CREAT, 0644), e = fd < 0 ? errno : 0;
	struct stat st;
	if (e == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
		if (outfile_wait_reader(path, flags, path, &fd)) {
			snprintf(
			    err, errlen,
			    "--durability-log '%s': interrupted while waiting for a reader of the "
			    "FIFO",
			    path);
			return -EINTR;
		}
		e = fd < 0 ? errno : 0;
	}
	if (fd >= 0 && fcntl(fd, F_SETFL, 0) < 0) { /* blocking writes from here on */
		e = errno;
		(void)close(fd);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "--durability-log '%s': %s", path, strerror(e));
		return -e;
	}
	return fd;
}

int durlog_open(struct durlog *l, const char *path, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->path = path;
	l->fd = open_log(path, err, errlen);
	if (l->fd < 0)
		return l->fd;
	struct stat st;
	int rc = fstat(l->fd, &st) ? -errno : 0;
	l->durable = !rc && S_ISREG(st.st_mode);
	if (rc)
		snprintf(err, errlen, "--durability-log '%s': %s", path, strerror(-rc));
	else if (S_ISREG(st.st_mode) && st.st_size > 0)
		rc = refuse_existing(path, &st, err, errlen);
	else if (S_ISREG(st.st_mode))
		rc = refuse_foreign(path, &st, err, errlen);
	else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		snprintf(err, errlen,
		         "--durability-log '%s' is not a regular file, character device or FIFO",
		         path);
		rc = -EINVAL;
	}
	if (rc) {
		(void)close(l->fd);
		l->fd = -1;
	}
	return rc;
}

static int write_all(struct durlog *l, const void *buf, size_t n)
{
	int rc = fd_write_all(l->fd, buf, n);
	if (rc < 0) {
		int zero = 0;
		atomic_compare_exchange_strong(&l->err, &zero, -rc);
	}
	return rc;
}

/* Seals and writes the k records waiting in l->out (their fields encoded, encode_fields). */
static void flush_out(struct durlog *l, size_t *k)
{
	FSMIX_ASSERT(*k <= DURLOG_RING); /* l->out holds DURLOG_RING records */
	if (*k) {
		seal_recs(l->out, *k);
		(void)write_all(l, l->out, *k * DURLOG_REC_LEN);
	}
	*k = 0;
}

/* Encodes what ring r holds after the *k records already in l->out, writing l->out out when it
 * fills; returns the records taken. The caller writes out the rest (flush_out): the records of
 * every ring of one pass go to the file in one write(), not one per ring. */
static size_t drain_ring(struct durlog *l, struct durlog_ring *r, size_t *k)
{
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t moved = (size_t)(h - t);
	while (t < h) {
		for (; t < h && *k < DURLOG_RING; t++, ++*k)
			encode_fields(&r->recs[t % DURLOG_RING], l->out + *k * DURLOG_REC_LEN);
		atomic_store_explicit(&r->tail, t, memory_order_release);
		if (*k == DURLOG_RING)
			flush_out(l, k);
	}
	l->written += moved;
	return moved;
}

static void sync_log(struct durlog *l)
{
	if (!l->durable)
		return; /* a character device or FIFO: nothing to sync (EINVAL) */
	if (fdatasync(l->fd) < 0) {
		int zero = 0, e = errno;
		atomic_compare_exchange_strong(&l->err, &zero, e);
	}
	l->syncs++;
}

/* The logger: a pass over every ring every DURLOG_DRAIN_MS, one write() a pass, an fdatasync at
 * least every DURLOG_SYNC_MS while records come. Passes far apart are what keep it cheap: a
 * pass's cost is mostly its wakeup and its system calls, whatever it moves (the scaled 2010
 * profile, 16 workers: 800 to 3,000 records a second per worker, 8 to 30 of a ring's 1024 every
 * 10 ms). The ring is small so that what a worker writes and the logger reads stays in the
 * caches: with 4096-record rings (320 KiB each, 5 MiB for 16 workers) the log cost 3-9 % more
 * CPU per transaction (tests/bench/bench_checks.sh).
 * A ring that held a sixteenth of its records or more (a worker logging above ~6,400 records
 * a second) gets the next pass after 1 ms, as every pass came before, and one half full at
 * once: a fast worker does not fill its ring and wait for the logger. */
static void *logger_main(void *arg)
{
	struct durlog *l = arg;
	uint64_t last_sync = now_ns(), dirty = 0;
	for (;;) {
		bool quit = atomic_load_explicit(&l->quit, memory_order_acquire);
		size_t moved = 0, most = 0, k = 0;
		for (size_t i = 0; i < l->n_rings; i++) {
			size_t m = drain_ring(l, l->rings[i], &k);
			moved += m;
			most = m > most ? m : most;
		}
		flush_out(l, &k);
		dirty += moved;
		uint64_t now = now_ns();
		if (dirty && now - last_sync >= DURLOG_SYNC_MS * 1000000ull) {
			sync_log(l);
			last_sync = now;
			dirty = 0;
		}
		if (quit)
			break; /* the last drain came after every worker's last record */
		if (most < DURLOG_RING / 2) {
			long ms = most < DURLOG_RING / 16 ? DURLOG_DRAIN_MS : 1;
			struct timespec ts = {0, ms * 1000000l};
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

void durlog_wait_room(struct durlog_ring *r)
{
	r->waits++;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	while (h - (r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire)) >=
	       DURLOG_RING) {
		struct timespec ts = {0, 100000}; /* 0.1 ms */
		nanosleep(&ts, NULL);
	}
}

int durlog_begin(struct durlog *l, const struct durlog_header *h, const struct durlog_rec *pre,
                 size_t n_pre, size_t n_rings, char *err, size_t errlen)
{
	unsigned char hb[DURLOG_HEADER_LEN];
	l->out = malloc((size_t)DURLOG_RING * DURLOG_REC_LEN);
	l->rings = calloc(n_rings ? n_rings : 1, sizeof(*l->rings));
	if (!l->out || !l->rings)
		goto nomem;
	for (size_t i = 0; i < n_rings; i++, l->n_rings++) {
		struct durlog_ring *r = aligned_alloc(CACHELINE, sizeof(*r));
		if (!r)
			goto nomem;
		memset(r, 0, sizeof(*r));
		r->worker = (uint32_t)i;
		r->recs = malloc((size_t)DURLOG_RING * sizeof(*r->recs));
		l->rings[i] = r;
		if (!r->recs) {
			l->n_rings++;
			goto nomem;
		}
	}
	struct durlog_header hd = *h;
	if (!l->durable)
		hd.flags |= DLH_STREAM;
	durlog_encode_header(&hd, hb);
	int rc = write_all(l, hb, sizeof(hb));
	for (size_t i = 0; !rc && i < n_pre; i += DURLOG_RING) {
		size_t k = 0;
		for (; i + k < n_pre && k < DURLOG_RING; k++)
			encode_fields(&pre[i + k], l->out + k * DURLOG_REC_LEN);
		seal_recs(l->out, k);
		rc = write_all(l, l->out, k * DURLOG_REC_LEN);
		l->written += k;
	}
	if (!rc && l->durable && fdatasync(l->fd) < 0)
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "--durability-log '%s': %s", l->path, strerror(-rc));
		return rc;
	}
	if ((rc = pthread_create(&l->thread, NULL, logger_main, l))) {
		snprintf(err, errlen, "cannot start the durability logger: %s", strerror(rc));
		return -rc;
	}
	l->running = true;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the durability log");
	return -ENOMEM;
}

int durlog_stop(struct durlog *l, struct durlog_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	if (l->fd < 0 && !l->running)
		return 0;
	if (l->running) {
		atomic_store_explicit(&l->quit, 1, memory_order_release);
		pthread_join(l->thread, NULL);
		l->running = false;
	}
	for (size_t i = 0; i < l->n_rings; i++)
		st->waits += l->rings[i]->waits;
	if (l->fd >= 0 && l->out) {
		struct durlog_rec end = {.kind = DL_END, .worker = DURLOG_WORKER_MAIN};
		end.seq = l->written;
		end.t_start = end.t_end = now_ns();
		durlog_encode_rec(&end, l->out);
		(void)write_all(l, l->out, DURLOG_REC_LEN);
		l->written++;
	}
	int rc = 0;
	if (l->fd >= 0) {
		sync_log(l);
		if (close(l->fd) < 0 && !atomic_load(&l->err))
			atomic_store(&l->err, errno);
		l->fd = -1;
	}
	st->records = l->written;
	st->syncs = l->syncs;
	int e = atomic_load(&l->err);
	if (e) {
		snprintf(err, errlen, "--durability-log '%s': %s", l->path, strerror(e));
		rc = -e;
	}
	return rc;
}

void durlog_free(struct durlog *l)
{
	for (size_t i = 0; l->rings && i < l->n_rings; i++) {
		if (l->rings[i])
			free(l->rings[i]->recs);
		free(l->rings[i]);
	}
	free(l->rings);
	free(l->out);
	l->rings = NULL;
	l->out = NULL;
	l->n_rings = 0;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* ---- reading ---- */

/* Opens the log for reading: a regular file, a FIFO or a character device (a pipe from zcat);
 * a directory or anything else is named as such. NULL with err. */
static FILE *open_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		snprintf(err, errlen, "--durability-log '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--durability-log '%s' is a %s, not a durability log", path,
		         S_ISDIR(st.st_mode)   ? "directory"
		         : S_ISBLK(st.st_mode) ? "block device"
		                               : "socket");
		fclose(f);
		return NULL;
	}
	return f;
}

/* The header: 0, or -1 with err (empty, too short, not a log). */
static int read_header(FILE *f, const char *path, struct durlog_header *h, char *err, size_t errlen)
{
	unsigned char hb[DURLOG_HEADER_LEN];
	char why[256];
	size_t hgot = fread(hb, 1, sizeof(hb), f);
	if (hgot == 0 && !ferror(f)) {
		snprintf(
		    err, errlen,
		    "--durability-log '%s' is empty: its run never reached the run phase (the "
		    "header is written after the tree's build and its syncfs: a crash during the "
		    "build leaves the log empty), so it holds no promise to check",
		    path);
		return -1;
	}
	if (hgot != sizeof(hb)) {
		snprintf(err, errlen, "--durability-log '%s': %s", path,
		         ferror(f) ? strerror(errno) : "too short for a durability log");
		return -1;
	}
	if (durlog_decode_header(hb, h, why, sizeof(why))) {
		snprintf(err, errlen, "--durability-log '%s': %s", path, why);
		return -1;
	}
	return 0;
}

static int keep_rec(struct durlog_read *out, size_t *cap, const struct durlog_rec *r)
{
	if (out->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 1024;
		struct durlog_rec *p = realloc(out->recs, nc * sizeof(*p));
		if (!p)
			return -1;
		out->recs = p;
		*cap = nc;
	}
	out->recs[out->n++] = *r;
	return 0;
}

/* A run of bad slots (at, count) with a good record after it: damage before the log's end,
 * kept for durlog_check. */
static int keep_span(struct durlog_read *out, size_t *cap, size_t at, size_t count)
{
	if (out->n_bad == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct durlog_span *p = realloc(out->bad, nc * sizeof(*p));
		if (!p)
			return -1;
		out->bad = p;
		*cap = nc;
	}
	out->bad[out->n_bad++] = (struct durlog_span){at, count};
	if (!out->corrupt)
		out->first_corrupt = at;
	out->corrupt += count;
	return 0;
}

int durlog_read_file(const char *path, struct durlog_read *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	FILE *f = open_read(path, err, errlen);
	if (!f)
		return -1;
	if (read_header(f, path, &out->h, err, errlen)) {
		fclose(f);
		return -1;
	}
	unsigned char rb[DURLOG_REC_LEN];
	size_t cap = 0, cap_bad = 0, got, bad_run = 0, at = 0;
	int nomem = 0;
	while (!nomem && (got = fread(rb, 1, sizeof(rb), f)) > 0) {
		struct durlog_rec r;
		at++; /* the slot: 1 for the first record after the header */
		if (got < sizeof(rb) || durlog_decode_rec(rb, &r)) {
			out->partial = got < sizeof(rb) ? got : 0;
			bad_run++;
			continue;
		}
		if (bad_run)
			nomem = keep_span(out, &cap_bad, at - bad_run, bad_run);
		bad_run = 0;
		if (out->complete) { /* anything after the end record: not the logger's */
			if (!out->after_end++)
				out->first_after_end = at;
		} else if (r.kind == DL_END) {
			out->complete = true;
			out->end_at = at;
			out->end_seq = r.seq;
		} else if (!nomem)
			nomem = keep_rec(out, &cap, &r);
	}
	out->torn = bad_run; /* the bad records at the end only: the log's own torn end */
	out->slots = at;
	bool bad = ferror(f);
	fclose(f);
	if (bad || nomem) {
		snprintf(err, errlen, "--durability-log '%s': %s", path,
		         nomem ? "out of memory" : "read error");
		durlog_read_free(out);
		return -1;
	}
	return 0;
}

void durlog_read_free(struct durlog_read *r)
{
	free(r->recs);
	free(r->bad);
	r->recs = NULL;
	r->bad = NULL;
	r->n = r->n_bad = 0;
}
