/* state.h - a crash state built from a record (record.h), copy-on-write over the base image
 * (docs/durability.md, "Record and replay"): state K is the base, every write before flush K,
 * and a chosen subset of the writes between flush K and the next flush (or the cut, or the
 * end), the last of them optionally torn. Only the sectors the state's writes touch are held,
 * as references into the mapped record; every other sector reads from the base (or zeroes).
 * Writes to the served state (a mount's journal replay) are kept in memory, sector by sector,
 * and never reach the base or the record. Same inputs, same bytes: the only randomness is
 * splitmix64 from the seeds given. Pure logic on mapped files: no FUSE, no threads. */
#ifndef FSMIX_POWERCUT_STATE_H
#define FSMIX_POWERCUT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum pc_subset { PC_SUB_NONE, PC_SUB_ALL, PC_SUB_PREFIX, PC_SUB_RANDOM };

struct pc_spec {
	size_t k;              /* the flush point: 0 .. nflush */
	enum pc_subset subset; /* of the volatile writes after it */
	uint64_t arg;          /* PC_SUB_PREFIX: how many; PC_SUB_RANDOM: the seed */
	bool torn;             /* the last write applied is torn (--torn) */
	size_t lose;           /* --lose N: the writes between flush k - N and flush k (those the
	                        * last N flushes acknowledged) are lost, those after flush k kept
	                        * as chosen: a disk that reorders writes across flushes (k >= N) */
	uint64_t torn_seed;
};

struct pc_state {
	const struct pc_record *rec;
	const unsigned char *base; /* the base image mapped, disk_size bytes; NULL: zeroes */
	uint64_t size;             /* disk bytes */
	uint64_t *keys;            /* open addressing: sector + 1 (0: empty), nslots */
	uint64_t *vals;            /* PC_MEM | index into mem, or the byte offset in the record */
	size_t nslots, used;
	unsigned char *mem; /* nmem sectors written to the served state (or partly by a write) */
	size_t nmem, memcap;
	size_t applied; /* writes of the record applied (the volatile ones chosen included) */
	size_t volatile_total, volatile_applied; /* the writes after flush K; of them applied */
	uint64_t torn_new, torn_old;             /* sectors of the torn write: new, kept old */
};

/* pc_spec_parse - "none", "all", "prefix:N", "random:SEED" into s->subset and s->arg; false
 * when it is none of them. */
bool pc_spec_parse(const char *subset, struct pc_spec *s);

/* pc_state_build - state spec of rec over base (NULL: zeroes; else rec->disk_size bytes).
 * 0, or -1 with the reason in why (a flush point past the record's, a prefix longer than the
 * writes after it, a torn write asked where none is applied, out of memory). */
int pc_state_build(struct pc_state *st, const struct pc_record *rec, const unsigned char *base,
                   const struct pc_spec *spec, char *why, size_t wl);
void pc_state_free(struct pc_state *st);

/* pc_state_read - len bytes at off (within the disk) into buf. */
void pc_state_read(const struct pc_state *st, uint64_t off, void *buf, size_t len);
/* pc_state_write - len bytes at off into the state's memory (never the base or the record).
 * 0 or -ENOMEM. */
int pc_state_write(struct pc_state *st, uint64_t off, const void *buf, size_t len);

#endif
