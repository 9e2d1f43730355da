/* record.h - fsmix-powercut's record of a disk's input (docs/durability.md, "Record and
 * replay"): every write (offset, length, data), flush and power cut the disk received, in
 * arrival order, each with its CLOCK_MONOTONIC time. The daemon writes it (`--record FILE`,
 * pc_rec_*), `fsmix-powercut serve` and `inspect` read it (pc_record_*), and so will
 * `fsmix crashtest`.
 *
 * Format, version 1, every field little-endian (src/base/byteorder.h):
 *   header, 64 bytes:
 *     0  "FSMXPREC"                      magic
 *     8  u16 version (1), u16 header size (64), u32 flags (PC_RECF_*)
 *     16 u64 disk size in bytes          24 u64 CLOCK_MONOTONIC ns at the start
 *     32 u64 CLOCK_REALTIME ns at start  40 u32 sector size (512), u32 0
 *     48 u64 0                           56 u64 FNV-1a 64 of bytes 0..55
 *   then entries, each a 32-byte head and, for a write, its len bytes of data:
 *     0  u8 type (PC_REC_*), u8 flags (0), u16 0, u32 len (write: data bytes, else 0)
 *     8  u64 offset (write: byte offset on the disk; end: the number of entries before it)
 *     16 u64 CLOCK_MONOTONIC ns of its arrival
 *     24 u32 the data's checksum (pc_rec_sum; 0 without data), u32 the low 32 bits of the
 *        FNV-1a 64 of head bytes 0..23 and 24..27
 *   the last entry is one end (PC_REC_END), and the file ends with it: a record without it
 *   (the daemon killed, its file system full) is truncated and refused.
 * A FUA write cannot be told apart: the loop driver sends it as a write followed by a flush,
 * and FUSE delivers those (docs/durability.md); the format has no FUA type. */
#ifndef FSMIX_POWERCUT_RECORD_H
#define FSMIX_POWERCUT_RECORD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_REC_MAGIC   "FSMXPREC"
#define PC_REC_VERSION 1u
#define PC_REC_HEAD    64u /* header bytes */
#define PC_REC_ENTRY   32u /* entry head bytes */
#define PC_REC_SECTOR  512u

enum { PC_REC_WRITE = 1, PC_REC_FLUSH = 2, PC_REC_CUT = 3, PC_REC_END = 4 };

/* header flags */
#define PC_RECF_ZERO_BASE    1u /* the backing file was made by this daemon (--size): zeroes */
#define PC_RECF_IGNORE_FLUSH 2u /* recorded with --ignore-flush (flushes recorded all the same) */

/* ---- writing (the daemon) ---- */

#define PC_REC_NBUF 8 /* buffers of PC_REC_BUF bytes: 32 MiB in all */
#define PC_REC_BUF  (4u << 20)

/* A ring of buffers: the daemon fills buf[cur] (len bytes) under its own lock; a full one goes
 * to the writer thread (nfull of them wait, the oldest at cur - nfull), which writes them while
 * the next fills, so a disk request waits for the record's file only when the writer is the
 * whole ring behind (stall_ns). */
struct pc_rec {
	int fd;
	unsigned char *buf[PC_REC_NBUF];
	size_t lens[PC_REC_NBUF]; /* of the full buffers */
	size_t len, cap;
	unsigned cur, nfull;
	pthread_t thread;
	pthread_mutex_t mu; /* nfull, lens, cur's moves, quit */
	pthread_cond_t cv;
	bool threaded, quit;
	bool direct;             /* the file is open O_DIRECT (the buffers are page-aligned) */
	uint64_t entries, bytes; /* entries and bytes so far (the header's included) */
	uint64_t stall_ns;       /* time the daemon waited for the writer (the ring full) */
	atomic_int err;          /* the first write error (errno); recording stopped */
};

/* pc_rec_open - start a record in fd (an empty file the caller made; switched to O_DIRECT
 * where its filesystem allows): the header buffered. 0 or -ENOMEM. */
int pc_rec_open(struct pc_rec *r, int fd, uint64_t disk_size, uint32_t flags, uint64_t now);
/* pc_rec_start - the writer thread started (after the daemon's fork: threads do not survive
 * it); without it (pthread_create failed) every full buffer is written by the caller. */
void pc_rec_start(struct pc_rec *r);
/* pc_rec_write, pc_rec_flush, pc_rec_cut - one entry (now: CLOCK_MONOTONIC ns), buffered: the
 * record is complete once closed (its file outlives the recorded disk; nothing needs it
 * earlier). After a write error nothing more is recorded (r->err says why); they return it. */
int pc_rec_write(struct pc_rec *r, uint64_t off, const void *data, uint32_t len, uint64_t now);
int pc_rec_flush(struct pc_rec *r, uint64_t now);
int pc_rec_cut(struct pc_rec *r, uint64_t now);
/* pc_rec_close - the end entry, everything written and fsynced; the buffer freed (fd is the
 * caller's). 0 or -errno (then the record has no end and readers refuse it). */
int pc_rec_close(struct pc_rec *r, uint64_t now);

/* pc_rec_sum - the data checksum of an entry: four lanes of Fletcher-style sums (a += word,
 * b += a) over 32-byte strides of 64-bit little-endian words, folded with the tail bytes and
 * the length by FNV-1a 64, its two halves xored. */
uint32_t pc_rec_sum(const void *data, size_t len);

/* ---- reading ---- */

struct pc_rec_entry {
	uint64_t off;  /* write: byte offset on the disk */
	uint64_t data; /* write: byte offset of its data in the record file */
	uint64_t ns;   /* arrival, CLOCK_MONOTONIC */
	uint32_t len;  /* write: bytes */
	uint8_t type;  /* PC_REC_WRITE, _FLUSH or _CUT (the end is not kept) */
};

struct pc_record {
	const unsigned char *map; /* the whole file, mapped read-only */
	size_t size;
	uint64_t disk_size, start_ns;
	uint32_t flags;
	struct pc_rec_entry *e; /* n entries in arrival order */
	size_t n;
	size_t *flush; /* nflush indices into e of the flushes, in order */
	size_t nflush;
	uint64_t writes, write_bytes;
	bool cut;
};

/* pc_record_load - map and check path: the header, every entry's head and data checksums, the
 * end. 0, or -1 with the reason (naming the file and the byte offset) in why: a file that is
 * not a record, of another version, truncated or corrupt. */
int pc_record_load(struct pc_record *rec, const char *path, char *why, size_t whylen);
void pc_record_free(struct pc_record *rec);

/* pc_record_epoch - the entries of state k (0 .. nflush): every write before index *lo is
 * durable (the flush k's index, or 0 for k = 0), and the writes of [*lo, *hi) are the volatile
 * ones after it (up to the next flush, the cut or the end). */
void pc_record_epoch(const struct pc_record *rec, size_t k, size_t *lo, size_t *hi);

#endif
