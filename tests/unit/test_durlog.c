/* test_durlog.c - the journal of promises (durlog.c): records and the header encoded and decoded
 * (little-endian, checks that find a torn or foreign record), the workers' rings and the logger
 * (many writers at once: nothing lost, nothing reordered per worker, sequence numbers without
 * gaps, waits counted when a ring is full), the rule that the log is not on the tested
 * filesystem, and durlog_check: what a log fsmix can have written looks like (crafted logs). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durcheck.h"
#include "durlog.h"
#include "test.h"
#include "tree.h"

static struct durlog_rec sample(void)
{
	struct durlog_rec r = {.kind = DL_WRITE,
	                       .flags = DLF_SYNC,
	                       .fs = 3,
	                       .worker = 7,
	                       .seq = 0x0102030405060708ull,
	                       .t_start = 11,
	                       .t_end = 12,
	                       .file = 4242,
	                       .dir = 9,
	                       .off = 1ull << 40,
	                       .len = 8192,
	                       .size = (1ull << 40) + 8192,
	                       .gen = 17,
	                       .aux = 5};
	return r;
}

static void test_record_round_trip(void)
{
	struct durlog_rec r = sample(), back;
	unsigned char b[DURLOG_REC_LEN];
	durlog_encode_rec(&r, b);
	/* little-endian on every host: the sequence number's lowest byte first */
	CHECK_EQ_U(b[8], 0x08);
	CHECK_EQ_U(b[15], 0x01);
	CHECK_EQ_I(durlog_decode_rec(b, &back), 0);
	CHECK(memcmp(&r, &back, sizeof(r)) == 0);
	b[40] ^= 1; /* one flipped bit: the record's check fails */
	CHECK_EQ_I(durlog_decode_rec(b, &back), -EBADMSG);
	memset(b, 0, sizeof(b)); /* a zeroed record (a hole in the log) is not a record */
	CHECK_EQ_I(durlog_decode_rec(b, &back), -EBADMSG);
	CHECK(!strcmp(durlog_kind_name(DL_FSYNC), "fsync"));
	CHECK(!strcmp(durlog_kind_name(DL_DIRSYNC), "dirsync"));
	/* the directory kinds keep their numbers (docs/output.md); a kind without a name (16 and
	 * 17 in this version, reserved) is no record of this fsmix */
	CHECK_EQ_U(DL_MKDIR, 18);
	CHECK_EQ_U(DL_RMDIR, 19);
	CHECK(!strcmp(durlog_kind_name(DL_MKDIR), "mkdir"));
	CHECK(!strcmp(durlog_kind_name(DL_RMDIR), "rmdir"));
	r = sample();
	r.kind = DL_RMDIR;
	durlog_encode_rec(&r, b);
	CHECK_EQ_I(durlog_decode_rec(b, &back), 0);
	for (uint8_t k = DL_FALLOCATE + 1; k < DL_MKDIR; k++) {
		r.kind = k;
		durlog_encode_rec(&r, b);
		CHECK_EQ_I(durlog_decode_rec(b, &back),
		           strcmp(durlog_kind_name(k), "?") ? 0 : -EBADMSG);
	}
}

static void test_header_round_trip(void)
{
	struct durlog_header h = {.version = DURLOG_VERSION,
	                          .mono_ns = 5,
	                          .real_ns = 6,
	                          .flags = DLH_DIRSYNC,
	                          .n_fs = 2,
	                          .n_workers = 3};
	h.fs[0] = (struct durlog_fs_id){0, 0xabcdefull, 0x1234ull, 0x99ull, 0, 0};
	h.fs[1] = (struct durlog_fs_id){1, 0xfeedull, 0x5678ull, 0x77ull, 3, 30}; /* dedupe:30 */
	unsigned char b[DURLOG_HEADER_LEN];
	struct durlog_header back;
	char err[256];
	durlog_encode_header(&h, b);
	CHECK(!memcmp(b, "FSMIXDUR", 8));
	CHECK_EQ_I(durlog_decode_header(b, &back, err, sizeof(err)), 0);
	CHECK_EQ_U(back.n_fs, 2);
	CHECK_EQ_U(back.fs[1].tree_id, 0xfeed);
	CHECK_EQ_U(back.fs[0].content_seed, 0x1234);
	CHECK_EQ_U(back.fs[1].spec_hash, 0x77);
	CHECK_EQ_U(back.fs[0].content_mode, 0);
	CHECK_EQ_U(back.fs[1].content_mode, 3);
	CHECK_EQ_U(back.fs[1].content_pct, 30);
	CHECK_EQ_U(back.flags, DLH_DIRSYNC);
	b[100] ^= 1;
	CHECK_EQ_I(durlog_decode_header(b, &back, err, sizeof(err)), -1);
	CHECK(strstr(err, "corrupt") != NULL);
	durlog_encode_header(&h, b);
	b[8] = 9; /* another version */
	CHECK_EQ_I(durlog_decode_header(b, &back, err, sizeof(err)), -1);
	CHECK(strstr(err, "version 9") != NULL);
	memcpy(b, "FSMIXMAN", 8);
	CHECK_EQ_I(durlog_decode_header(b, &back, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a durability log") != NULL);
}

#define WRITERS 6
#define PER     (3 * DURLOG_RING + 123) /* more than a ring holds: the writers must wait */

struct writer {
	struct durlog_ring *ring;
	unsigned index;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	for (uint64_t i = 0; i < PER; i++) {
		struct durlog_rec r = {.kind = DL_WRITE,
		                       .fs = 0,
		                       .file = w->index,
		                       .off = i,
		                       .len = 1,
		                       .gen = (uint32_t)i + 1,
		                       .t_end = i};
		durlog_add(w->ring, &r);
	}
	return NULL;
}

static void test_logger_many_writers(void)
{
	char path[] = "/tmp/fsmix-test-durlog.XXXXXX";
	int tfd = mkstemp(path);
	CHECK(tfd >= 0);
	close(tfd);
	struct durlog l;
	char err[512];
	CHECK_EQ_I(durlog_open(&l, path, err, sizeof(err)), 0);
	struct durlog_header h = {.version = DURLOG_VERSION, .n_fs = 1, .n_workers = WRITERS};
	struct durlog_rec pre[3];
	for (int i = 0; i < 3; i++)
		pre[i] = (struct durlog_rec){.kind = DL_BASE,
		                             .worker = DURLOG_WORKER_MAIN,
		                             .seq = (uint64_t)i,
		                             .file = 1000u + (unsigned)i};
	CHECK_EQ_I(durlog_begin(&l, &h, pre, 3, WRITERS, err, sizeof(err)), 0);
	pthread_t th[WRITERS];
	struct writer ws[WRITERS];
	for (unsigned i = 0; i < WRITERS; i++) {
		ws[i] = (struct writer){durlog_ring_of(&l, i), i};
		CHECK(ws[i].ring != NULL);
		pthread_create(&th[i], NULL, writer_main, &ws[i]);
	}
	for (unsigned i = 0; i < WRITERS; i++)
		pthread_join(th[i], NULL);
	struct durlog_stats st;
	CHECK_EQ_I(durlog_stop(&l, &st, err, sizeof(err)), 0);
	CHECK_EQ_U(st.records, 3 + (uint64_t)WRITERS * PER + 1); /* and DL_END */
	CHECK(st.syncs >= 1);
	durlog_free(&l);

	struct durlog_read rd;
	CHECK_EQ_I(durlog_read_file(path, &rd, err, sizeof(err)), 0);
	CHECK(rd.complete);
	CHECK_EQ_U(rd.torn, 0);
	CHECK_EQ_U(rd.n, 3 + (uint64_t)WRITERS * PER);
	uint64_t next[WRITERS] = {0};
	int bad = 0;
	for (size_t i = 0; i < rd.n; i++) {
		const struct durlog_rec *r = &rd.recs[i];
		if (r->worker == DURLOG_WORKER_MAIN) {
			bad += r->kind != DL_BASE || i > 2;
			continue;
		}
		if (r->worker >= WRITERS) {
			bad++;
			continue;
		}
		/* per worker: in order, seq without gaps, and the record it wrote */
		bad += r->seq != next[r->worker] || r->off != next[r->worker] ||
		       r->file != r->worker || r->gen != r->seq + 1;
		next[r->worker]++;
	}
	CHECK_EQ_I(bad, 0);
	for (unsigned i = 0; i < WRITERS; i++)
		CHECK_EQ_U(next[i], PER);

	durlog_read_free(&rd);
	/* a torn tail (the log's own crash): the partial record is dropped, the rest read */
	CHECK_EQ_I(truncate(path, (off_t)(DURLOG_HEADER_LEN + 10 * DURLOG_REC_LEN + 33)), 0);
	CHECK_EQ_I(durlog_read_file(path, &rd, err, sizeof(err)), 0);
	CHECK_EQ_U(rd.n, 10);
	CHECK_EQ_U(rd.torn, 1);
	CHECK(!rd.complete);
	durlog_read_free(&rd);
	/* a record spoilt in the middle: not a torn end, counted apart */
	FILE *fp = fopen(path, "r+b");
	CHECK(fp != NULL);
	long at = (long)(DURLOG_HEADER_LEN + 4 * DURLOG_REC_LEN + 20);
	CHECK_EQ_I(fseek(fp, at, SEEK_SET), 0);
	int c = fgetc(fp);
	CHECK_EQ_I(fseek(fp, at, SEEK_SET), 0);
	CHECK_EQ_I(fputc(c ^ 0xff, fp) != EOF, 1);
	fclose(fp);
	CHECK_EQ_I(durlog_read_file(path, &rd, err, sizeof(err)), 0);
	CHECK_EQ_U(rd.n, 9);
	CHECK_EQ_U(rd.corrupt, 1);
	CHECK_EQ_U(rd.first_corrupt, 5);
	CHECK_EQ_U(rd.torn, 1);
	durlog_read_free(&rd);
	CHECK_EQ_I(truncate(path, 10), 0);
	CHECK_EQ_I(durlog_read_file(path, &rd, err, sizeof(err)), -1);
	CHECK(strstr(err, "too short") != NULL);
	unlink(path);
}

static void test_waits_counted(void)
{
	/* a logger that is not running: a full ring waits; here the ring is drained by hand */
	struct durlog_ring r;
	memset(&r, 0, sizeof(r));
	r.recs = calloc(DURLOG_RING, sizeof(*r.recs));
	CHECK(r.recs != NULL);
	struct durlog_rec rec = {.kind = DL_WRITE};
	for (int i = 0; i < DURLOG_RING; i++)
		durlog_add(&r, &rec);
	CHECK_EQ_U(r.waits, 0);
	atomic_store(&r.tail, 1); /* the logger took one */
	durlog_add(&r, &rec);
	CHECK_EQ_U(r.seq, DURLOG_RING + 1);
	CHECK_EQ_U(r.waits, 0); /* there was room after a fresh look at the tail */
	free(r.recs);
}

static void test_same_device(void)
{
	char err[1024];
	const char *loc[] = {"/tmp"};
	/* a log in the tested location, or in a directory below it: refused */
	CHECK_EQ_I(durlog_check_place("/tmp/fsmix-durlog-test.log", loc, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "/tmp/fsmix-durlog-test.log") && strstr(err, "location '/tmp'"));
	const char *two[] = {"/proc", "/tmp"};
	CHECK_EQ_I(durlog_check_place("/tmp/x.log", two, 2, err, sizeof(err)), -1);
	/* another filesystem: accepted */
	struct stat a, b;
	if (stat("/proc", &a) == 0 && stat("/tmp", &b) == 0 && a.st_dev != b.st_dev) {
		const char *proc[] = {"/proc"};
		CHECK_EQ_I(durlog_check_place("/tmp/x.log", proc, 1, err, sizeof(err)), 0);
	}
	CHECK_EQ_I(durlog_check_place("/nonexistent-dir/x.log", loc, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "No such file") != NULL);
}

/* durlog_read_file: what is after the end record, where bad slots are, a directory. */
static void test_read_shapes(void)
{
	char path[] = "/tmp/fsmix-test-durread.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	struct durlog_header h = {.version = DURLOG_VERSION, .n_fs = 1, .n_workers = 1};
	unsigned char hb[DURLOG_HEADER_LEN], rb[DURLOG_REC_LEN], zero[DURLOG_REC_LEN] = {0};
	durlog_encode_header(&h, hb);
	CHECK_EQ_I(write(fd, hb, sizeof(hb)), (int)sizeof(hb));
	/* slots: 1 syncfs, 2 bad, 3 w0 seq 0, 4 end, 5 w0 seq 1 (after the end), 6 bad */
	struct durlog_rec r = {.kind = DL_SYNCFS, .worker = DURLOG_WORKER_MAIN};
	durlog_encode_rec(&r, rb);
	CHECK_EQ_I(write(fd, rb, sizeof(rb)), (int)sizeof(rb));
	CHECK_EQ_I(write(fd, zero, sizeof(zero)), (int)sizeof(zero));
	r = (struct durlog_rec){.kind = DL_WRITE, .worker = 0, .seq = 0, .len = 1};
	durlog_encode_rec(&r, rb);
	CHECK_EQ_I(write(fd, rb, sizeof(rb)), (int)sizeof(rb));
	r = (struct durlog_rec){.kind = DL_END, .worker = DURLOG_WORKER_MAIN, .seq = 2};
	durlog_encode_rec(&r, rb);
	CHECK_EQ_I(write(fd, rb, sizeof(rb)), (int)sizeof(rb));
	r = (struct durlog_rec){.kind = DL_WRITE, .worker = 0, .seq = 1, .len = 1};
	durlog_encode_rec(&r, rb);
	CHECK_EQ_I(write(fd, rb, sizeof(rb)), (int)sizeof(rb));
	CHECK_EQ_I(write(fd, zero, 30), 30); /* a partial last slot */
	close(fd);
	struct durlog_read rd;
	char err[512];
	CHECK_EQ_I(durlog_read_file(path, &rd, err, sizeof(err)), 0);
	CHECK_EQ_U(rd.n, 2); /* syncfs and w0's seq 0: nothing after the end record is kept */
	CHECK(rd.complete);
	CHECK_EQ_U(rd.end_at, 4);
	CHECK_EQ_U(rd.end_seq, 2);
	CHECK_EQ_U(rd.after_end, 1);
	CHECK_EQ_U(rd.first_after_end, 5);
	CHECK_EQ_U(rd.n_bad, 1);
	CHECK_EQ_U(rd.bad[0].at, 2);
	CHECK_EQ_U(rd.bad[0].count, 1);
	CHECK_EQ_U(rd.corrupt, 1);
	CHECK_EQ_U(rd.torn, 1);
	CHECK_EQ_U(rd.partial, 30);
	CHECK_EQ_U(rd.slots, 6);
	durlog_read_free(&rd);
	unlink(path);
	CHECK_EQ_I(durlog_read_file("/tmp", &rd, err, sizeof(err)), -1);
	CHECK(strstr(err, "'/tmp' is a directory, not a durability log") != NULL);
}

/* The same-device rule follows symbolic links, a dangling one to where open(2) creates. */
static void test_place_through_links(void)
{
	struct stat a, b;
	if (stat("/dev/shm", &a) || stat("/tmp", &b) || a.st_dev == b.st_dev) {
		printf(
		    "skip test_place_through_links: /dev/shm and /tmp are not two filesystems\n");
		return;
	}
	char link[] = "/tmp/fsmix-test-durlink.XXXXXX", err[1024];
	int fd = mkstemp(link);
	CHECK(fd >= 0);
	close(fd);
	unlink(link);
	CHECK_EQ_I(symlink("/dev/shm/fsmix-test-durlink-target.log", link), 0);
	const char *shm[] = {"/dev/shm"}, *tmp[] = {"/tmp"};
	CHECK_EQ_I(durlog_check_place(link, shm, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "(a symbolic link to /dev/shm/fsmix-test-durlink-target.log) is on the "
	                  "filesystem under test (location '/dev/shm')") != NULL);
	CHECK_EQ_I(durlog_check_place(link, tmp, 1, err, sizeof(err)), 0); /* the link's own fs */
	unlink(link);
}

/* A log as fsmix writes it, made by hand: setup (2 base files and a syncfs of fs 0), then
 * worker 0 and 1 alternately, PER2 records each, then the end record. */
#define PER2 5

struct craft {
	struct durlog_read rd;
	struct durlog_rec recs[64];
	struct durlog_span bad[4];
	struct durlog_bounds b;
};

static void craft_log(struct craft *c)
{
	memset(c, 0, sizeof(*c));
	c->rd.h = (struct durlog_header){.version = DURLOG_VERSION, .n_fs = 1, .n_workers = 2};
	c->rd.recs = c->recs;
	c->rd.bad = c->bad;
	size_t n = 0;
	for (uint32_t i = 0; i < 2; i++)
		c->recs[n++] = (struct durlog_rec){.kind = DL_BASE,
		                                   .worker = DURLOG_WORKER_MAIN,
		                                   .seq = i,
		                                   .file = i,
		                                   .size = 4096};
	c->recs[n++] =
	    (struct durlog_rec){.kind = DL_SYNCFS, .worker = DURLOG_WORKER_MAIN, .seq = 2};
	for (uint64_t k = 0; k < PER2; k++)
		for (uint32_t w = 0; w < 2; w++)
			c->recs[n++] = (struct durlog_rec){.kind = DL_WRITE,
			                                   .worker = w,
			                                   .seq = k,
			                                   .file = w,
			                                   .dir = TREE_DIR_TOP,
			                                   .off = 4096 * k,
			                                   .len = 4096,
			                                   .size = 4096 * (k + 1),
			                                   .gen = (uint32_t)k + 2};
	c->rd.n = n;
	c->rd.complete = true;
	c->rd.end_at = n + 1;
	c->rd.end_seq = n;
	c->rd.slots = n + 1;
	c->b.max_workers = 64;
	c->b.fs[0] = (struct durlog_fs_bounds){.files = 1u << 26, .dirs = 10};
}

/* Drops the end record (the log's tail lost). */
static void no_end(struct craft *c)
{
	c->rd.complete = false;
	c->rd.end_at = 0;
	c->rd.slots--;
}

/* durlog_check of c: its status, and err containing want (NULL: 0 expected). */
static int checked(struct craft *c, const char *want)
{
	char err[512] = "";
	int rc = durlog_check(&c->rd, &c->b, err, sizeof(err));
	if (want && (rc != -EINVAL || !strstr(err, want))) {
		fprintf(stderr, "  expected '%s', got %d '%s'\n", want, rc, err);
		return -1;
	}
	if (!want && rc) {
		fprintf(stderr, "  expected 0, got %d '%s'\n", rc, err);
		return -1;
	}
	return 0;
}

static void test_check_sequences(void)
{
	struct craft c;
	craft_log(&c);
	CHECK_EQ_I(checked(&c, NULL), 0);
	no_end(&c);
	CHECK_EQ_I(checked(&c, NULL), 0); /* a prefix: legitimate */
	c.rd.n -= 4;                      /* cut at a record boundary */
	CHECK_EQ_I(checked(&c, NULL), 0);
	/* a gap: worker 1's seq 1 and 2 removed from the middle */
	craft_log(&c);
	size_t at = 3 + 2 * 1 + 1; /* worker 1, seq 1 */
	memmove(&c.recs[at], &c.recs[at + 1], (c.rd.n - at - 1) * sizeof(c.recs[0]));
	c.rd.n--;
	at = 3 + 2 * 2; /* worker 1, seq 2 now one earlier */
	memmove(&c.recs[at], &c.recs[at + 1], (c.rd.n - at - 1) * sizeof(c.recs[0]));
	c.rd.n--;
	c.rd.end_seq = c.rd.n;
	CHECK_EQ_I(checked(&c, "worker 1: records 1-2 missing (record 9, its next in the log, has "
	                       "seq 3)"),
	           0);
	/* a record repeated */
	craft_log(&c);
	c.recs[6].seq = 0; /* worker 1's seq 1 -> 0 */
	CHECK_EQ_I(checked(&c, "worker 1: record 7 has seq 0 after seq 0: repeated"), 0);
	/* a main-thread record missing */
	craft_log(&c);
	c.recs[1].seq = 2, c.recs[2].seq = 3;
	CHECK_EQ_I(checked(&c, "the main thread: records 1-1 missing"), 0);
	/* a worker the header does not have */
	craft_log(&c);
	c.recs[4].worker = 2;
	CHECK_EQ_I(checked(&c, "record 5: worker 2, but its header has 2 workers"), 0);
	c.rd.h.n_workers = 65;
	CHECK_EQ_I(checked(&c, "its header has 65 workers; a run has at most 64"), 0);
}

static void test_check_end_and_torn(void)
{
	struct craft c;
	craft_log(&c);
	c.rd.n = 0, c.rd.complete = false;
	CHECK_EQ_I(checked(&c, "it holds no record after its header"), 0);
	c.rd.torn = 3;
	CHECK_EQ_I(checked(&c, "it holds no good record, only 3 torn ones"), 0);
	craft_log(&c);
	c.rd.after_end = 1, c.rd.first_after_end = c.rd.end_at + 1;
	CHECK_EQ_I(checked(&c, "1 record after its end record (the first: record 15)"), 0);
	craft_log(&c);
	c.rd.torn = 1;
	CHECK_EQ_I(checked(&c, "bytes after its end record (slot 15 on)"), 0);
	craft_log(&c); /* worker 1's last record gone, the end record's count kept */
	c.rd.n--;
	CHECK_EQ_I(checked(&c, "its end record counts 13 records before it, but 12 are there"), 0);
	/* torn slots: with the end record, damage; without it, where a worker's records end.
	 * Slots: 1-2 base, 3 syncfs, then workers 0 and 1 alternately (4: w0 seq 0, ..., 12: w0
	 * seq 4, 13: w1 seq 4), 14 the end record. */
	craft_log(&c);
	memmove(&c.recs[11], &c.recs[12], sizeof(c.recs[0])); /* slot 12 (w0's last) torn */
	c.rd.n--;
	c.bad[0] = (struct durlog_span){12, 1};
	c.rd.n_bad = 1, c.rd.corrupt = 1, c.rd.first_corrupt = 12;
	CHECK_EQ_I(checked(&c, "1 record fail their check before its end record (the first: "
	                       "record 12)"),
	           0);
	no_end(&c);
	CHECK_EQ_I(checked(&c, NULL),
	           0); /* worker 0's last, worker 1's after it: the log's crash */
	craft_log(&c);
	no_end(&c);
	c.bad[0] = (struct durlog_span){10, 1}; /* a bad slot between w1 seq 2 and w0 seq 3 */
	c.rd.n_bad = 1, c.rd.corrupt = 1, c.rd.first_corrupt = 10;
	CHECK_EQ_I(checked(&c, "record 10 fails its check, and every worker has a later record"),
	           0);
	c.bad[0].count = 3;
	CHECK_EQ_I(checked(&c, "records 10-12 fail their check"), 0);
	/* setup damage: a bad slot before the main thread's last record */
	craft_log(&c);
	no_end(&c);
	c.bad[0] = (struct durlog_span){2, 1};
	c.rd.n_bad = 1, c.rd.corrupt = 1, c.rd.first_corrupt = 2;
	CHECK_EQ_I(checked(&c, "record 2 fails its check, and setup records of the main thread "
	                       "follow"),
	           0);
	/* setup cut: the syncfs missing */
	craft_log(&c);
	no_end(&c);
	c.rd.n = 2;
	CHECK_EQ_I(
	    checked(&c, "its setup records end before the syncfs of every filesystem (0 of 1"), 0);
}

static void test_check_fields(void)
{
	struct craft c;
	/* file ids: base ones below the pool's largest capacity; the others below the base ids
	 * (2 files here) and what the log's 13 records and 2 workers' rings can have made */
	uint64_t reach = 2 + 13 + 3 * (DURLOG_RING_MAX + 1);
	char want[200];
	craft_log(&c);
	c.recs[5].file = 1u << 31;
	CHECK_EQ_I(checked(&c, "record 6 (worker 0, seq 1, write): file id 2147483648 is beyond "
	                       "the file ids filesystem 0 can have (below "),
	           0);
	c.recs[5].file = (uint32_t)reach;
	snprintf(want, sizeof(want),
	         "file id %u is beyond the file ids filesystem 0 can have (below %u: its base "
	         "files' ids and what the log's records can have made since)",
	         (unsigned)reach, (unsigned)reach);
	CHECK_EQ_I(checked(&c, want), 0);
	c.recs[5].file = (uint32_t)reach - 1;
	CHECK_EQ_I(checked(&c, NULL), 0);
	craft_log(&c);
	c.recs[0].file = 1u << 26; /* a base record */
	CHECK_EQ_I(checked(&c,
	                   "record 1 (the main thread, seq 0, base): file id 67108864 is beyond "
	                   "the file ids filesystem 0 can have (below 67108864: no file pool "
	                   "is larger)"),
	           0);
	c.recs[0].file = 1u << 24; /* a reused tree's ids may be sparse: below the cap */
	CHECK_EQ_I(checked(&c, NULL), 0);
	c.recs[0].file = 0;
	c.recs[6].file = 1u << 24; /* not a base record: beyond what the log can have made */
	CHECK_EQ_I(checked(&c, "record 7 (worker 1, seq 1, write): file id 16777216 is beyond"), 0);
	craft_log(&c);
	c.recs[5].dir = 10;
	CHECK_EQ_I(checked(&c, "directory 10 is beyond the directories of filesystem 0 (below 10"),
	           0);
	c.recs[5].dir = 9;
	CHECK_EQ_I(checked(&c, NULL), 0);
	c.recs[5].dir = DURLOG_DIR_META; /* meta/ only for a dirsync */
	CHECK_EQ_I(checked(&c, "directory 4294967294"), 0);
	c.recs[5] =
	    (struct durlog_rec){.kind = DL_DIRSYNC, .worker = 0, .seq = 1, .dir = DURLOG_DIR_META};
	CHECK_EQ_I(checked(&c, NULL), 0);
	/* a rename's aux is the directory it left: bounded as dir is */
	craft_log(&c);
	c.recs[5].kind = DL_RENAME, c.recs[5].dir = 1, c.recs[5].aux = 10;
	CHECK_EQ_I(checked(&c, "the directory it left, 10, is beyond the directories of "
	                       "filesystem 0 (below 10)"),
	           0);
	c.recs[5].aux = UINT32_MAX; /* data/ itself (TREE_DIR_TOP) */
	CHECK_EQ_I(checked(&c, NULL), 0);
	c.recs[5].aux = 9;
	CHECK_EQ_I(checked(&c, NULL), 0);
	/* a fallocate's aux is its mode: 0 to 2 (durlog_falloc) */
	craft_log(&c);
	c.recs[5].kind = DL_FALLOCATE, c.recs[5].dir = 1, c.recs[5].aux = DL_FALLOC_COUNT;
	c.recs[5].off = 4096, c.recs[5].len = 512, c.recs[5].size = 8192;
	CHECK_EQ_I(checked(&c, "fallocate mode 3 is none of 0 to 2"), 0);
	c.recs[5].aux = DL_FALLOC_ZERO;
	CHECK_EQ_I(checked(&c, NULL), 0);
	craft_log(&c);
	c.recs[5].fs = 1;
	CHECK_EQ_I(checked(&c, "filesystem 1, but the log has 1"), 0);
	craft_log(&c);
	c.recs[5].off = UINT64_MAX - 100; /* off + len wraps */
	CHECK_EQ_I(checked(&c, "beyond the largest file offset"), 0);
	c.recs[5].off = DURLOG_OFF_MAX - 4096; /* ends exactly at 2^63 - 1 */
	CHECK_EQ_I(checked(&c, NULL), 0);
	c.recs[5].len = 4097;
	CHECK_EQ_I(checked(&c, "beyond the largest file offset"), 0);
	craft_log(&c);
	c.recs[7].size = DURLOG_OFF_MAX + 1;
	CHECK_EQ_I(checked(&c, "beyond the largest file offset"), 0);
	/* a file id in a syncfs record names nothing: not checked */
	craft_log(&c);
	c.recs[2].file = UINT32_MAX;
	CHECK_EQ_I(checked(&c, NULL), 0);
}

int main(void)
{
	RUN(test_record_round_trip);
	RUN(test_header_round_trip);
	RUN(test_logger_many_writers);
	RUN(test_waits_counted);
	RUN(test_same_device);
	RUN(test_read_shapes);
	RUN(test_place_through_links);
	RUN(test_check_sequences);
	RUN(test_check_end_and_torn);
	RUN(test_check_fields);
	return test_summary();
}
