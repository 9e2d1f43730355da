/* record.c - fsmix-powercut's record of a disk's input: writing and reading (record.h). */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "byteorder.h"

#define FNV_SEED  0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

/* A little-endian 64-bit word at p: one load on a little-endian host. */
static inline uint64_t word(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

uint32_t pc_rec_sum(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0}, h = FNV_SEED;
	size_t i = 0;
	/* Fletcher-style sums of 64-bit words in four independent lanes (the compiler makes them
	 * vector adds): the data is most of what the daemon records, on its one request thread;
	 * FNV-1a's multiply chain took 14 % of that thread under bench_record.sh. b makes the sum
	 * depend on the order */
	for (; i + 32 <= len; i += 32)
		for (int l = 0; l < 4; l++) {
			a[l] += word(p + i + 8 * l);
			b[l] += a[l];
		}
	for (int l = 0; l < 4; l++)
		h = ((h ^ a[l]) * FNV_PRIME ^ b[l]) * FNV_PRIME;
	h = fnv(h, p + i, len - i);
	h = (h ^ len) * FNV_PRIME;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t head_sum(const unsigned char *h)
{
	uint64_t v = fnv(fnv(FNV_SEED, h, 24), h + 24, 4);
	return (uint32_t)v;
}

static void put_head(unsigned char *h, unsigned type, uint32_t len, uint64_t off, uint64_t ns,
                     uint32_t sum)
{
	memset(h, 0, PC_REC_ENTRY);
	h[0] = (unsigned char)type;
	le_put32(h + 4, len);
	le_put64(h + 8, off);
	le_put64(h + 16, ns);
	le_put32(h + 24, sum);
	le_put32(h + 28, head_sum(h));
}

/* Writes all of len bytes of p (a short write is continued); 0 or -errno. */
static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w, len -= (size_t)w;
	}
	return 0;
}

/* n bytes of p written at the end of the record: with O_DIRECT while it is on and n is whole
 * pages (every full buffer: the buffers start at page-aligned file offsets), else (the last,
 * partial buffer; a filesystem that refuses O_DIRECT writes) through the page cache. Only
 * one thread writes at a time (the writer, or the caller without one). */
static int write_out(struct pc_rec *r, const unsigned char *p, size_t n)
{
	if (r->direct && n % 4096 == 0) {
		int rc = write_all(r->fd, p, n);
		if (rc != -EINVAL)
			return rc;
	}
	if (r->direct) {
		int fl = fcntl(r->fd, F_GETFL);
		if (fl < 0 || fcntl(r->fd, F_SETFL, fl & ~O_DIRECT))
			return -errno;
		r->direct = false;
	}
	return write_all(r->fd, p, n);
}

static void fail(struct pc_rec *r, int rc)
{
	int none = 0;
	if (rc)
		atomic_compare_exchange_strong(&r->err, &none, -rc);
}

/* The writer thread: writes the full buffers, oldest first, while the daemon fills the next. */
static void *writer(void *arg)
{
	struct pc_rec *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->nfull && !r->quit)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->nfull)
			break;
		unsigned i = (r->cur + PC_REC_NBUF - r->nfull) % PC_REC_NBUF;
		size_t n = r->lens[i];
		pthread_mutex_unlock(&r->mu);
		if (!atomic_load(&r->err))
			fail(r, write_out(r, r->buf[i], n));
		pthread_mutex_lock(&r->mu);
		r->nfull--;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* The current buffer handed to the writer (waiting while the ring is full: the record's
 * bandwidth then bounds the disk's), or written here without a writer thread. */
static void handoff(struct pc_rec *r)
{
	if (!r->threaded) {
		if (!atomic_load(&r->err))
			fail(r, write_out(r, r->buf[r->cur], r->len));
		r->len = 0;
		return;
	}
	pthread_mutex_lock(&r->mu);
	if (r->nfull == PC_REC_NBUF - 1) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		while (r->nfull == PC_REC_NBUF - 1)
			pthread_cond_wait(&r->cv, &r->mu);
		clock_gettime(CLOCK_MONOTONIC, &b);
		r->stall_ns +=
		    (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec));
	}
	r->lens[r->cur] = r->len;
	r->nfull++;
	r->cur = (r->cur + 1) % PC_REC_NBUF;
	r->len = 0;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* len bytes of p appended to the buffers. */
static void put(struct pc_rec *r, const void *p, size_t len)
{
	const unsigned char *q = p;
	while (len) {
		size_t n = r->cap - r->len < len ? r->cap - r->len : len;
		memcpy(r->buf[r->cur] + r->len, q, n);
		r->len += n, q += n, len -= n;
		if (r->len == r->cap)
			handoff(r);
	}
}

int pc_rec_open(struct pc_rec *r, int fd, uint64_t disk_size, uint32_t flags, uint64_t now)
{
	struct timespec rt;
	unsigned char h[PC_REC_HEAD];
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = PC_REC_BUF;
	atomic_init(&r->err, 0);
	for (int i = 0; i < PC_REC_NBUF; i++) {
		void *b = NULL;
		if (posix_memalign(&b, 4096, r->cap)) {
			while (i--)
				free(r->buf[i]);
			return -ENOMEM;
		}
		r->buf[i] = b;
	}
	/* O_DIRECT where the filesystem takes it: the record is written once and read later, and
	 * through the page cache its copy and page allocation cost the daemon's CPU (on this
	 * 2-core test machine a buffered record of ~80 MB/s was seen at 0.6-0.75x the run's
	 * throughput, in partial runs beside other load: tests/bench/bench_record.sh) */
	int fl = fcntl(fd, F_GETFL);
	r->direct = fl >= 0 && fcntl(fd, F_SETFL, fl | O_DIRECT) == 0;
	clock_gettime(CLOCK_REALTIME, &rt);
	memset(h, 0, PC_REC_HEAD);
	memcpy(h, PC_REC_MAGIC, 8);
	le_put16(h + 8, PC_REC_VERSION);
	le_put16(h + 10, PC_REC_HEAD);
	le_put32(h + 12, flags);
	le_put64(h + 16, disk_size);
	le_put64(h + 24, now);
	le_put64(h + 32, (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
	le_put32(h + 40, PC_REC_SECTOR);
	le_put64(h + 56, fnv(FNV_SEED, h, 56));
	put(r, h, PC_REC_HEAD); /* buffered: every full buffer lands at a page-aligned offset */
	r->bytes = PC_REC_HEAD;
	return 0;
}

void pc_rec_start(struct pc_rec *r)
{
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->threaded = pthread_create(&r->thread, NULL, writer, r) == 0;
}

static int entry(struct pc_rec *r, unsigned type, uint64_t off, const void *data, uint32_t len,
                 uint64_t now)
{
	unsigned char h[PC_REC_ENTRY];
	int err = atomic_load(&r->err);
	if (err)
		return -err;
	put_head(h, type, len, off, now, len ? pc_rec_sum(data, len) : 0);
	put(r, h, PC_REC_ENTRY);
	put(r, data, len);
	r->entries++;
	r->bytes += PC_REC_ENTRY + (uint64_t)len;
	return -atomic_load(&r->err);
}

int pc_rec_write(struct pc_rec *r, uint64_t off, const void *data, uint32_t len, uint64_t now)
{
	return entry(r, PC_REC_WRITE, off, data, len, now);
}

int pc_rec_flush(struct pc_rec *r, uint64_t now)
{
	return entry(r, PC_REC_FLUSH, 0, NULL, 0, now);
}

int pc_rec_cut(struct pc_rec *r, uint64_t now)
{
	return entry(r, PC_REC_CUT, 0, NULL, 0, now);
}

int pc_rec_close(struct pc_rec *r, uint64_t now)
{
	int rc = entry(r, PC_REC_END, r->entries, NULL, 0, now);
	if (r->len)
		handoff(r);
	if (r->threaded) {
		pthread_mutex_lock(&r->mu);
		r->quit = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
		r->threaded = false;
	}
	rc = rc ? rc : -atomic_load(&r->err);
	if (!rc && fsync(r->fd))
		rc = -errno;
	for (int i = 0; i < PC_REC_NBUF; i++) {
		free(r->buf[i]);
		r->buf[i] = NULL;
	}
	return rc;
}

/* ---- reading ---- */

static int check_header(struct pc_record *rec, const char *path, char *why, size_t wl)
{
	const unsigned char *h = rec->map;
	if (rec->size < PC_REC_HEAD || memcmp(h, PC_REC_MAGIC, 8)) {
		snprintf(why, wl, "%s: not a record of fsmix-powercut (no %s header)", path,
		         PC_REC_MAGIC);
		return -1;
	}
	if (le_get64(h + 56) != fnv(FNV_SEED, h, 56)) {
		snprintf(why, wl, "%s: corrupt header (checksum)", path);
		return -1;
	}
	if (le_get16(h + 8) != PC_REC_VERSION || le_get16(h + 10) != PC_REC_HEAD) {
		snprintf(why, wl, "%s: record format version %u, this fsmix-powercut reads %u",
		         path, le_get16(h + 8), PC_REC_VERSION);
		return -1;
	}
	rec->flags = le_get32(h + 12);
	rec->disk_size = le_get64(h + 16);
	rec->start_ns = le_get64(h + 24);
	if (le_get32(h + 40) != PC_REC_SECTOR || !rec->disk_size ||
	    rec->disk_size % PC_REC_SECTOR) {
		snprintf(why, wl, "%s: corrupt header (sector size %u, disk size %" PRIu64 ")",
		         path, le_get32(h + 40), rec->disk_size);
		return -1;
	}
	return 0;
}

/* One entry head at pos: checked, kept (but the end); *next is where the next one starts.
 * 1 the end, 0 another, -1 bad (why). */
static int one_entry(struct pc_record *rec, size_t pos, size_t *next, uint64_t *last_ns,
                     const char *path, char *why, size_t wl)
{
	const unsigned char *h = rec->map + pos;
	if (rec->size - pos < PC_REC_ENTRY) {
		snprintf(why, wl,
		         "%s: truncated at byte %zu (no end entry: the recording daemon did "
		         "not finish)",
		         path, pos);
		return -1;
	}
	unsigned type = h[0];
	uint32_t len = le_get32(h + 4), sum = le_get32(h + 24);
	uint64_t off = le_get64(h + 8), ns = le_get64(h + 16);
	if (le_get32(h + 28) != head_sum(h) || type < PC_REC_WRITE || type > PC_REC_END || h[1] ||
	    h[2] || h[3] || (type != PC_REC_WRITE && (len || sum))) {
		snprintf(why, wl, "%s: corrupt entry %zu at byte %zu", path, rec->n, pos);
		return -1;
	}
	if (ns < *last_ns) {
		snprintf(why, wl, "%s: corrupt entry %zu at byte %zu: its time goes backwards",
		         path, rec->n, pos);
		return -1;
	}
	*last_ns = ns;
	if (type == PC_REC_WRITE && (!len || off > rec->disk_size || len > rec->disk_size - off)) {
		snprintf(why, wl,
		         "%s: corrupt entry %zu at byte %zu: a write of %" PRIu32
		         " bytes at %" PRIu64 " on a disk of %" PRIu64,
		         path, rec->n, pos, len, off, rec->disk_size);
		return -1;
	}
	if (rec->size - pos - PC_REC_ENTRY < len) {
		snprintf(why, wl, "%s: truncated at byte %zu (entry %zu's data cut short)", path,
		         rec->size, rec->n);
		return -1;
	}
	if (len && pc_rec_sum(h + PC_REC_ENTRY, len) != sum) {
		snprintf(why, wl, "%s: corrupt data of entry %zu at byte %zu (checksum)", path,
		         rec->n, pos);
		return -1;
	}
	*next = pos + PC_REC_ENTRY + len;
	if (type == PC_REC_END) {
		if (off != rec->n || *next != rec->size) {
			snprintf(why, wl,
			         "%s: corrupt end at byte %zu (%" PRIu64 " entries said, %zu "
			         "read; %zu bytes after it)",
			         path, pos, off, rec->n, rec->size - *next);
			return -1;
		}
		return 1;
	}
	if (rec->cut) {
		snprintf(why, wl, "%s: corrupt entry %zu at byte %zu: after the power cut", path,
		         rec->n, pos);
		return -1;
	}
	rec->e[rec->n++] = (struct pc_rec_entry){
	    .off = off, .data = pos + PC_REC_ENTRY, .ns = ns, .len = len, .type = (uint8_t)type};
	return 0;
}

static int check_entries(struct pc_record *rec, const char *path, char *why, size_t wl)
{
	size_t pos = PC_REC_HEAD, cap = 0;
	uint64_t last_ns = 0;
	for (;;) {
		if (rec->n == cap) {
			cap = cap ? 2 * cap : 1024;
			void *p = realloc(rec->e, cap * sizeof(*rec->e));
			if (!p) {
				snprintf(why, wl, "%s: out of memory", path);
				return -1;
			}
			rec->e = p;
		}
		int rc = one_entry(rec, pos, &pos, &last_ns, path, why, wl);
		if (rc)
			return rc < 0 ? -1 : 0;
		const struct pc_rec_entry *e = &rec->e[rec->n - 1];
		if (e->type == PC_REC_WRITE)
			rec->writes++, rec->write_bytes += e->len;
		else if (e->type == PC_REC_FLUSH)
			rec->nflush++;
		else
			rec->cut = true;
	}
}

int pc_record_load(struct pc_record *rec, const char *path, char *why, size_t wl)
{
	struct stat st;
	memset(rec, 0, sizeof(*rec));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, wl, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rec->size = (size_t)st.st_size;
	void *m = rec->size ? mmap(NULL, rec->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, wl, "%s: %s", path,
		         rec->size ? strerror(errno) : "empty: not a record of fsmix-powercut");
		rec->size = 0;
		return -1;
	}
	rec->map = m;
	madvise(m, rec->size, MADV_SEQUENTIAL);
	if (check_header(rec, path, why, wl) || check_entries(rec, path, why, wl)) {
		pc_record_free(rec);
		return -1;
	}
	madvise(m, rec->size, MADV_RANDOM);
	rec->flush = malloc((rec->nflush + 1) * sizeof(*rec->flush));
	if (!rec->flush) {
		snprintf(why, wl, "%s: out of memory", path);
		pc_record_free(rec);
		return -1;
	}
	for (size_t i = 0, k = 0; i < rec->n; i++)
		if (rec->e[i].type == PC_REC_FLUSH)
			rec->flush[k++] = i;
	return 0;
}

void pc_record_free(struct pc_record *rec)
{
	if (rec->map)
		munmap((void *)rec->map, rec->size);
	free(rec->e);
	free(rec->flush);
	memset(rec, 0, sizeof(*rec));
}

void pc_record_epoch(const struct pc_record *rec, size_t k, size_t *lo, size_t *hi)
{
	*lo = k == 0 ? 0 : rec->flush[k - 1] + 1;
	*hi = k < rec->nflush ? rec->flush[k] : rec->n;
}
