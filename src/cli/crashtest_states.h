/* crashtest_states.h - the states fsmix crashtest explores (docs/durability.md, "Every crash
 * state"). With F flushes recorded there are F + 1 flush points k = 0 .. F; state (k, subset)
 * is every write before flush k and a subset of those between flush k and flush k + 1 (none, or
 * a seeded random one). It models a power cut between those two flushes, so every promise the
 * durability log shows acknowledged before flush k + 1 arrived (the record's and the log's times
 * are both CLOCK_MONOTONIC ns of this host) must hold in it: such a sync waited for a flush at or
 * before k. The rest of the log is a lost tail. */
#ifndef FSMIX_CLI_CRASHTEST_STATES_H
#define FSMIX_CLI_CRASHTEST_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* --disk-fault reorder-across-flush: the flushes the disk modelled writes back late (as
 * fsmix-powercut --reorder-across-flush: four, about two ext4 transactions). */
#define CT_REORDER_LATE 4
/* --disk-fault reorder-across-flush: the flushes the disk modelled writes back late (as
 * fsmix-powercut --reorder-across-flush: four, about two ext4 transactions). */
#define CT_REORDER_LATE 4
#define CT_LOSE_WORD    "4" /* the same, as serve's --lose takes it */
/* --disk-fault ignore-flush: the write-back delay of the disk modelled (1 s). */
#define CT_DESTAGE_NS 1000000000ull

struct ct_point {
	uint64_t ns;   /* flush k's arrival (k = 0: the record's start) */
	size_t writes; /* the writes between it and the next flush */
};

/* What a record holds (inspect --states). */
struct ct_rec {
	size_t nflush;
	struct ct_point *pt; /* nflush + 1 */
	uint64_t start_ns, end_ns, writes, write_bytes, record_bytes;
};

struct ct_state {
	size_t k;        /* the flush point */
	size_t serve_k;  /* the flush point served (k, or earlier for a lying disk) */
	uint64_t cut_ns; /* promises acknowledged before this must hold */
	bool verify;     /* the run's setup was durable before the cut: promises to check */
	bool random;     /* subset random:seed, else none (all with lose) */
	bool lose;       /* --disk-fault reorder-across-flush: the epochs the last CT_REORDER_LATE
	                  * flushes acknowledged lost */
	uint64_t seed;
};

struct ct_list {
	struct ct_state *states; /* numbered from 0 in this order */
	size_t n;
};

/* ct_rec_read - parse inspect --states' output; 0 or -1. Free r->pt. */
int ct_rec_read(const char *inspect_out, struct ct_rec *r);

/* ct_setup_done - the time the run's setup syncfs was acknowledged (before it the log promises
 * nothing); 0 with err when the log cannot be read or has none. */
uint64_t ct_setup_done(const char *log_path, char *err, size_t errlen);

/* ct_states_make - the states to explore, numbered: every flush point (o->states 0) or
 * o->states of them spread evenly over the run phase (the last among them), each with subset
 * none and o->reorder random subsets drawn from seed. The same record, options and seed give
 * the same list. 0, or -1 (no memory). Free l->states. */
int ct_states_make(const struct ct_rec *r, const struct ct_opts *o, uint64_t seed,
                   uint64_t setup_ns, struct ct_list *l);

/* ct_state_subset - "none" or "random:SEED", as fsmix-powercut serve takes it. */
void ct_state_subset(const struct ct_state *s, char *buf, size_t len);

#endif
