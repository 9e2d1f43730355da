/* instance.h - the names of the trees of a job's processes.
 *
 * A single fsmix process works in <location>/fsmix.fs<N> (the default). The processes (MPI
 * ranks) of one distributed run each work in a tree of their own, as mdtest -u does, so that
 * ranks never collide, on one host or on a shared filesystem:
 *
 *   <location>/fsmix.fs<N>.r<R>     the tree of filesystem N of rank R (R in decimal, no padding)
 *
 * with the same marker, manifest, .new/.del crash suffixes and safe removal as a single tree
 * (tree.h). `fsmix clean` finds every rank's tree of a location (tree_instance_find).
 * With --shared-tree every rank uses the one tree fsmix.fs<N> (TREE_NO_RANK): rank 0 builds it,
 * the others only open it (no TREE_CREATE) and create and delete only their own ids
 * (pool_partition, docs/distributed.md).
 *
 * The location lock (tree_lock_location) belongs to the job, not to each process: rank 0 takes
 * it, before any rank creates anything, and holds it until every rank is done; the other ranks
 * take none (their flock would conflict with rank 0's on the same host, and on a shared
 * filesystem whose flock is coherent across clients). That is the MPI layer's policy, which the
 * engine is given explicitly (engine_hooks: rank, ranks, takes_locks) and passes on to
 * tree_open_rank (rank, TREE_NO_LOCK); the tree layer keeps no process-wide rank. */
#ifndef FSMIX_TREE_INSTANCE_H
#define FSMIX_TREE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

/* The rank of a single process: trees are named fsmix.fs<N>. */
#define TREE_NO_RANK (-1)

/* tree_instance_name - "fsmix.fs<index>" (rank TREE_NO_RANK) or "fsmix.fs<index>.r<rank>" into
 * buf. Returns the length, or -ENAMETOOLONG. */
int tree_instance_name(char *buf, size_t len, unsigned fs_index, int rank);

/* tree_instance_find - the ranks R whose tree fsmix.fs<index>.r<R> (or an interrupted .new or
 * .del of one) is in `location`, ascending, without duplicates, into a malloc'd array (*ranks,
 * free it; NULL when none). Only names fsmix generates count ("r" and 1-9 decimal digits without
 * a leading zero, at most INT_MAX). Returns the count, or -errno (location unreadable, ENOMEM). */
int tree_instance_find(const char *location, unsigned fs_index, int **ranks);

/* tree_instance_is_name - whether name is one fsmix gives a tree's root in a location, of any
 * filesystem index and rank: fsmix.fs<N>, fsmix.fs<N>.r<R>, or an interrupted .new or .del of
 * either (N and R in decimal as tree_instance_name writes them). */
bool tree_instance_is_name(const char *name);

#endif
