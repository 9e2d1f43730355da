/* test_durlog.c - the journal of promises (durlog.c): records and the header encoded and decoded
 * (little-endian, checks that find a torn or foreign record), the workers' rings and the logger
 * (many writers at once: nothing lost, nothing reordered per worker, sequence numbers without
 * gaps, waits counted when a ring is full), and the rule that the log is not on the tested
 * filesystem. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durlog.h"
#include "test.h"

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

int main(void)
{
	RUN(test_record_round_trip);
	RUN(test_header_round_trip);
	RUN(test_logger_many_writers);
	RUN(test_waits_counted);
	RUN(test_same_device);
	return test_summary();
}
