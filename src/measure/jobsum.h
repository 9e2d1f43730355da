/* jobsum.h - what a distributed run (MPI ranks on one or more hosts, src/mpi) adds to the results
 * of one run: each rank's totals, the spread of the ranks' rates, the hosts and their devices'
 * counters. Rank 0 fills it after merging every rank's statistics into its own (the merged
 * figures are the run's ordinary results); the reports print it when present.
 *
 * How each figure aggregates (docs/distributed.md):
 *   - operation counts, bytes, errors, histograms: SUM over ranks (exact; percentiles of the
 *     merged histograms are within the histogram's bound of the union of all samples);
 *   - run time: the longest rank's (every rank starts at the same barrier), so the report's
 *     rates are the whole job's: total / longest;
 *   - stonewall (IOR's figure): the first rank's end (the shortest run time); each rank's
 *     snapshot of what it had done when it learned of that end (within its 100 ms poll), or at
 *     its own end when that came first; the rate is the sum over ranks of snapshot ops over
 *     snapshot time: the job's rate while every rank was running, measured;
 *   - spread: min / mean / max / population stddev of the ranks' own rates;
 *   - device counters: per host and filesystem, read by the host's lowest rank only (every rank of
 *     a host sees the same device), never added per rank. */
#ifndef FSMIX_JOBSUM_H
#define FSMIX_JOBSUM_H

#include <stddef.h>
#include <stdint.h>

#include "devstat.h"

#define JOBSUM_HOST_MAX 256

struct jobsum_rank {
	int rank;
	int host; /* index into jobsum.host_names */
	double runtime_s;
	uint64_t ops, trans, bytes_read, bytes_written, errors;
	double ops_per_s, trans_per_s; /* over its own run time */
	int status;    /* its own outcome: an enum failure (failure.h), FAIL_NONE: ok */
	uint64_t seed; /* its seed (a given seed + its rank, or its own random one) */
	/* its stonewall snapshot: ops and transactions done by stonewall_s seconds from its start
	 * (when it heard of the first rank's end, or its own end if that came first) */
	uint64_t stonewall_ops, stonewall_trans;
	double stonewall_s;
};

/* Device counters of one filesystem of the profile on one host, over its lowest rank's run. */
struct jobsum_device {
	int host;
	unsigned fs; /* plan filesystem index */
	char devname[64];
	char fstype[64];
	struct devstat_sample delta; /* valid: counters read before and after */
};

struct jobsum_spread {
	double min, mean, max, stddev; /* population stddev (divide by the number of ranks) */
};

struct jobsum {
	int n_ranks, n_hosts;
	char (*host_names)[JOBSUM_HOST_MAX]; /* [n_hosts], in order of their lowest rank */
	struct jobsum_rank *ranks;           /* [n_ranks], by rank */
	struct jobsum_device *devices;       /* [n_devices], by host then filesystem */
	size_t n_devices;
	double runtime_s;           /* the longest rank's run time */
	double stonewall_s;         /* the first rank's end: the shortest rank's run time */
	double stonewall_ops_per_s; /* sum of the ranks' stonewall_ops / stonewall_s */
	double stonewall_trans_per_s;
	uint64_t stonewall_ops, stonewall_trans; /* sums of the ranks' snapshots */
	struct jobsum_spread ops_per_s, trans_per_s;
};

/* jobsum_spread_of - min, mean, max, stddev of n values (all 0 for n == 0). */
struct jobsum_spread jobsum_spread_of(const double *v, size_t n);

/* jobsum_finish - fill the derived figures (rates of each rank, spreads, run times, stonewall)
 * from the ranks' counts and run times. */
void jobsum_finish(struct jobsum *j);

/* jobsum_free - release the arrays (j itself is the caller's). */
void jobsum_free(struct jobsum *j);

#endif
