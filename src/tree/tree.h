/* tree.h - fsmix's own directory inside a user's `location`, its naming scheme, its reuse
 * manifest, and its safe removal.
 *
 * Safety rule: fsmix never deletes or overwrites anything it did not create. FFSB ran
 * `rm -rf <location>/data <location>/meta` through /bin/sh (destroying any user directory of that
 * name, and open to shell injection); fsmix instead works only below its own root
 *
 *   <location>/fsmix.fs<index>/          created by fsmix (mode 0700), never a symlink
 *       .fsmix-tree                       ownership marker: "fsmix-tree", "version 1",
 *                                         "id <16 hex digits>" (a random 64-bit tree id),
 *                                         "run <16 hex digits>" (tree_mark_run; optional)
 *       .fsmix-manifest                   reuse manifest (binary, see tree_write_manifest)
 *       data/f<id>                        files directly in data/ (dir index TREE_DIR_TOP)
 *       data/d<NNN>/f<id>                 NNN = dir index, at least 3 digits (d000, d001, ...)
 *       data/d<NNN>/.../d<NNN>/f<id>      a deeper tree (dir_depth > 1): files in the leaves,
 *                                         dir = the leaf's index (dirlayout.h); the run's
 *                                         createdir directories stay data/d<N>, N >= leaves
 *       data/[d<NNN>/]f<id>.tmp           replace_fsync's temporary file (TREE_TMP_SUFFIX), renamed
 *                                         over f<id>; a crash may leave it, removal takes it
 *       data/[d<NNN>/]l<id>               op link's second name of file <id> (a hard link to
 *                                         f<id>, in another data directory), removal takes it
 *       meta/m<id>[.<gen>]                metadata-op directories
 *
 * and removal (tree_remove, tree_remove_contents) deletes only entries whose name *and* type
 * match that scheme, through openat/unlinkat on O_NOFOLLOW|O_DIRECTORY descriptors: it never
 * follows a symlink, never leaves the root and never enters another mount (a directory mounted
 * over one of fsmix's names is left in place and reported). A root without a valid marker is
 * refused, never adopted; unknown entries are left in place and reported. A marker proves
 * nothing about who made the tree: the root, its marker, a leftover .new/.del and every
 * directory fsmix builds in or removes from must also be the running user's and writable by
 * nobody else, or the call fails with -EPERM naming the path and its owner (tree_owner.c).
 *
 * Crash safety: no kill point leaves anything fsmix cannot recognise as its own. A new root is
 * made complete (marker, data/, meta/) under the name fsmix.fs<index>.new and renamed into place
 * (RENAME_NOREPLACE); tree_remove renames the root to fsmix.fs<index>.del before emptying it.
 * tree_open finishes a leftover .new or .del (removing only what fsmix generates) first.
 *
 * Exclusion: every tree_open holds an exclusive flock(2) on the location directory until
 * tree_close, so two fsmix processes never use one location at once (the second gets -EBUSY,
 * with the holder's PID from /proc/locks). The lock is shared within the process (reference
 * counted) and vanishes with the process. tree_lock_location takes it without a tree (sweeps
 * hold it between runs).
 *
 * Writing only through our own files: a reused tree that a run will write into is walked file
 * by file (tree_load_manifest, TREE_VERIFY_ALL): a file with more than one hard link, or on
 * another mount than the root, refuses the reuse. New files are created with O_EXCL.
 *
 * <id> is the pool slot id (pool.h), in decimal; paths are derived from (dir, id), never stored.
 *
 * Concurrency: tree_open, tree_set_dirs, the manifest calls, tree_remove[_contents] and tree_close
 * are setup and teardown calls for one thread.
 * tree_file_at/tree_file_path/tree_data_dirfd/tree_meta_dirfd and the name helpers only read the
 * struct and may be called by every worker at once. All functions return 0 (or a value >= 0 as
 * documented) or -errno, and write a one-line, user-facing reason into err (when err is not NULL)
 * on failure; they never print or exit.
 */
#ifndef FSMIX_TREE_H
#define FSMIX_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "dirlayout.h"
#include "failure.h"

struct pool;

/* Directory index meaning data/ itself (files not in a dNNN subdirectory). */
#define TREE_DIR_TOP UINT32_MAX
/* dNNN directory descriptors kept open per tree at most (the others are reached as
 * "dNNN/f<id>" relative to data/, one more path lookup per call). tree_set_dirs keeps fewer
 * when the process's descriptor limit is low: a quarter of (RLIMIT_NOFILE - 256), or 64 under a
 * limit of 512, so several filesystems and the workers' own open files still fit. */
#define TREE_MAX_DIRFDS 4096
/* Longest name tree_file_name/tree_file_at/tree_dir_path produce: a leaf's path (dirlayout.h)
 * or "d" + 10 digits, then "/f" + 10 digits + ".tmp" + NUL. */
#define TREE_NAME_MAX (DIRLAYOUT_PATH_MAX + 24)
/* The suffix of replace_fsync's temporary file f<id>.tmp (TREE_NAME_MAX still holds it). */
#define TREE_TMP_SUFFIX ".tmp"

/* tree_open flags */
#define TREE_CREATE  1u /* create <location>/fsmix.fs<index> when it does not exist */
#define TREE_NO_LOCK 2u /* take no lock: another process of the job (MPI rank 0) holds it */
/* tree_load_manifest flags */
#define TREE_VERIFY_ALL 1u /* check every listed file, not a sample: the run writes into them */
#define TREE_KEEP_SIZES                                                                            \
	2u /* a file of another size than listed is loaded with the listed size                    \
	    * (verify=1: the run's checked reads report it, not a rebuild) */
/* Files tree_load_manifest checks without TREE_VERIFY_ALL (a random sample, not a walk). */
#define TREE_SAMPLE 64

struct tree {
	int locfd;   /* O_PATH of location (the user's directory; only the root's own entries) */
	int lock;    /* tree_lock_location handle, 0 when none */
	int rootfd;  /* <location>/fsmix.fs<index>, O_NOFOLLOW */
	int datafd;  /* data/ */
	int metafd;  /* meta/ */
	int *dirfds; /* dirfds[i] = leaf i for i < min(num_dirs, TREE_MAX_DIRFDS) */
	struct dirlayout layout; /* the data directories' shape (tree_set_layout) */
	uint32_t num_dirs;       /* the leaves of layout: the directories that hold files */
	uint32_t num_dirfds;
	uint64_t tree_id;   /* from the marker */
	uint64_t run_id;    /* the marker's run id (tree_mark_run), 0: none; read by tree_peek */
	int created;        /* 1 when this tree_open created the root */
	unsigned leftovers; /* interrupted .new/.del trees tree_open finished removing */
	uint64_t dev;       /* the root's device (makedev) and mount id (0: unknown) */
	uint64_t mnt_id;
	int no_owners; /* 1: a filesystem without owners of its own (vfat, exFAT, SMB): tree_owner.c
	                */
	char name[48]; /* "fsmix.fs<index>", or "fsmix.fs<index>.r<rank>" in a job (instance.h) */
	char root[PATH_MAX];
	/* The caller's (NULL after tree_open): asked before each entry tree_remove[_contents]
	 * removes; true stops the removal there with -EINTR (a stop signal during --cleanup).
	 * tree_remove then leaves the root as fsmix.fsN.del, which the next tree_open (fsmix
	 * clean) finishes. */
	bool (*purge_stop)(void *arg);
	void *purge_stop_arg;
};

/* Counts filled by tree_remove/tree_remove_contents. */
struct tree_purge {
	uint64_t removed;        /* files and directories removed */
	uint64_t unknown;        /* entries left in place because fsmix did not generate them */
	char first_unknown[256]; /* path of the first one, relative to the root */
	char refused[MSG_MAX];   /* why removal stopped at a directory of another user (-EPERM) */
};

struct tree_usage {
	uint64_t total_bytes; /* f_blocks * f_frsize */
	uint64_t used_bytes;  /* (f_blocks - f_bfree) * f_frsize */
	uint64_t avail_bytes; /* f_bavail * f_frsize (what an unprivileged writer may still use) */
	double util;          /* used / total, 0..1: FFSB's (f_blocks - f_bfree) / f_blocks */
	uint64_t total_files; /* f_files: inodes of the filesystem, 0 when it has no fixed count */
};

/* tree_check_location - the rules for a location (the user's directory; a symbolic link to it
 * is followed): not empty, exists, a directory, not on a read-only filesystem, writable and
 * searchable. 0, or -errno with "location 'DIR' ..." in err. tree_open applies them; preflight
 * applies them to every location before anything is created. */
int tree_check_location(const char *location, char *err, size_t errlen);

/* tree_open - check `location`, lock it (see Exclusion above), finish leftover .new/.del trees,
 * and open (TREE_CREATE: create if missing) its fsmix root fsmix.fs<fs_index>, with data/ and
 * meta/. Without TREE_CREATE nothing is created (a removal needs no free inode or block).
 * Errors: -ENOENT "location '/x': No such file or directory" (also without TREE_CREATE when the
 * root does not exist), -ENOTDIR "location '/x' is not a directory", -EROFS "location '/x' is
 * read-only (Read-only file system)", -EACCES "... is not writable", -ELOOP when the root is a
 * symbolic link, -EEXIST when the root exists but has no valid marker (it is not fsmix's),
 * -EBUSY when another process holds the location ("... in use by another process (PID 123) of
 * fsmix", or "... locked by another process (PID 123, 'flock'), not fsmix"), -EACCES when the
 * location cannot be read (so not locked), -EPERM
 * when the root, its marker, data/, meta/ or a leftover .new/.del is another user's or writable
 * by others ("'/x/fsmix.fs0' belongs to nobody (uid 65534), not to root (uid 0), ..."), -EXDEV
 * when data/ or meta/ is another mount, and other -errno (-EIO, -EMFILE, ...) for I/O errors,
 * e.g. while reading the marker. tree_failure() tells their kind.
 * On failure t is left closed (tree_close is harmless). */
MUST_CHECK int tree_open(struct tree *t, const char *location, unsigned fs_index, unsigned flags,
                         char *err, size_t errlen);

/* tree_open_rank - tree_open for the tree of rank `rank` (instance.h: fsmix.fs<index>.r<rank>,
 * TREE_NO_RANK: fsmix.fs<index>, which tree_open opens). Whose rank it is and who locks are the
 * caller's to say (the MPI layer's policy: engine_hooks), not the process's. */
MUST_CHECK int tree_open_rank(struct tree *t, const char *location, unsigned fs_index, int rank,
                              unsigned flags, char *err, size_t errlen);

/* tree_peek - open the root <location>/fsmix.fs<fs_index> read-only, for `fsmix verify`: no
 * lock, nothing finished or created (tree_open's work); its marker must be valid. Returns the
 * root's descriptor (the caller closes it) with *id the tree id and *run (may be NULL) the id
 * of the last run that wrote the tree (0: none recorded), or -errno with err. */
int tree_peek(const char *location, unsigned fs_index, uint64_t *id, uint64_t *run, char *err,
              size_t errlen);

/* tree_mark_run - record in the marker of the open tree t that the run `run` (a random id,
 * nonzero) writes it, before it changes anything: the marker is replaced (temp, fsync, rename,
 * fsync of the root), its tree id kept. `fsmix verify` then tells a durability log of this run
 * from one of an earlier run (docs/durability.md, "Run ids"). 0, or -errno with err. */
MUST_CHECK int tree_mark_run(struct tree *t, uint64_t run, char *err, size_t errlen);

/* tree_close - close descriptors, free memory and drop the location lock; the tree stays on
 * disk. Idempotent. */
void tree_close(struct tree *t);

/* tree_failure - the kind of a tree error: FAIL_INPUT for a bad or busy location or a tree
 * fsmix will not use (-ENOENT, -ENOTDIR, -EINVAL, -ENAMETOOLONG, -EROFS, -EACCES, -EPERM,
 * -ELOOP, -EEXIST, -EBUSY, -EXDEV, -EMLINK), FAIL_IO for every other error (I/O errors,
 * -EMFILE, -ENOMEM, -ENOSPC, ...). */
enum failure tree_failure(int rc);

/* The most distinct locations one process holds locked at once (handles 1..TREE_MAX_LOCKS). */
#define TREE_MAX_LOCKS 64

/* tree_lock_location - take this process's exclusive lock on directory `location` (a flock on
 * the directory itself: it needs no space and vanishes with the process). Taking it again in
 * the same process only counts a reference and returns the same handle. Returns a handle > 0
 * for tree_unlock_location, -EMFILE for a location more than TREE_MAX_LOCKS held, -EBUSY when
 * another process holds it (err names its PID when /proc/locks tells), or -errno when the location
 * cannot be opened: -EACCES or -EPERM for a location that may not be read (mode -wx), where no
 * lock can be had (tree_check_location refuses it first). A filesystem without flock support
 * (some NFS setups) gets a handle without a lock. */
MUST_CHECK int tree_lock_location(const char *location, char *err, size_t errlen);

/* tree_unlock_location - drop one reference taken by tree_lock_location; 0 is ignored. */
void tree_unlock_location(int handle);

/* tree_set_dirs - make data/d000 .. d<num_dirs-1> exist (existing ones are kept, and must be
 * real directories on the root's mount: -EXDEV otherwise; the running user's and writable by
 * nobody else: -EPERM otherwise) and open descriptors for the first
 * TREE_MAX_DIRFDS. Call again after tree_remove_contents. Returns 0 or -errno. */
MUST_CHECK int tree_set_dirs(struct tree *t, uint32_t num_dirs, char *err, size_t errlen);

/* tree_set_layout - tree_set_dirs for a tree of several levels (dirlayout.h): makes every
 * directory of every level (the same rules for each), opens descriptors for the first leaves
 * (as many as tree_set_dirs keeps), and sets t->layout and t->num_dirs (its leaves). A layout
 * of more than DIRLAYOUT_MAX_DIRS directories or DIRLAYOUT_MAX_DEPTH levels is -EINVAL. */
MUST_CHECK int tree_set_layout(struct tree *t, const struct dirlayout *l, char *err, size_t errlen);

/* tree_dir_path - where directory `dir` is, relative to data/: leaf dir of layout l (dir <
 * its leaves) or createdir's "d<dir>" beyond them. Returns the length or -ENAMETOOLONG. */
int tree_dir_path(const struct dirlayout *l, uint32_t dir, char *buf, size_t len);

/* tree_file_name - "f<id>" into buf. Returns the length, or -ENAMETOOLONG. */
int tree_file_name(uint32_t id, char *buf, size_t len);

/* tree_dir_name - "d<NNN>" (at least 3 digits) into buf. Returns the length or -ENAMETOOLONG. */
int tree_dir_name(uint32_t dir, char *buf, size_t len);

/* tree_meta_name - metadata directory name "m<id>" (gen 0) or "m<id>.<gen>" (after renames).
 * Returns the length or -ENAMETOOLONG. */
int tree_meta_name(uint32_t id, uint32_t gen, char *buf, size_t len);

/* tree_data_dirfd - descriptor of data/ (dir == TREE_DIR_TOP) or of data/d<dir> when it is one
 * of the held descriptors; -1 otherwise (use tree_file_at). The descriptor belongs to the tree:
 * do not close it. */
int tree_data_dirfd(const struct tree *t, uint32_t dir);

/* tree_file_at - where file `id` of directory `dir` lives, for openat/fstatat/unlinkat: returns
 * a descriptor owned by the tree and writes the name relative to it into name[len] (len >=
 * TREE_NAME_MAX is always enough): "f<id>" with the dNNN descriptor, or "d<NNN>/f<id>" relative
 * to data/ when that directory's descriptor is not held (the leaf's path in a deeper tree). Returns
 * -EINVAL for a dir >= num_dirs (other than TREE_DIR_TOP), -ENAMETOOLONG for a short buffer. */
int tree_file_at(const struct tree *t, uint32_t dir, uint32_t id, char *name, size_t len);

/* tree_file_path - full path "<root>/data[/<tree_dir_path>]/f<id>" (messages, tools). Returns the
 * length or -ENAMETOOLONG. */
int tree_file_path(const struct tree *t, uint32_t dir, uint32_t id, char *buf, size_t len);

/* tree_probe_open - can a file of this tree be created with the extra open(2) `flags` (e.g.
 * O_DIRECT)? Creates the tree's own probe file in its root with them and removes it again;
 * touches no file of the tree and no pool. Returns 0 or -errno. */
int tree_probe_open(const struct tree *t, int flags);

/* tree_meta_dirfd - descriptor of meta/ (owned by the tree). */
int tree_meta_dirfd(const struct tree *t);

/* tree_write_manifest - record every live file of `pool` (after the run; nothing may touch the
 * pool meanwhile) with `spec_hash` (the caller's hash of the filesystem spec: num_files,
 * num_dirs, sizes, ...) into .fsmix-manifest, atomically: write .fsmix-manifest.tmp, fsync,
 * rename, fsync the root. Format (native byte order, with a byte-order word): a 48-byte header
 * (magic "FSMIXMAN", version 2, byte order, spec hash, tree id, num_dirs (the first level's
 * directories), a layout word, record count), 24
 * bytes per file (u32 id, u32 dir, u64 size, u32 content generation, u32 the wall-clock second
 * it was written) in ascending id order, and a 64-bit FNV-1a checksum of all preceding bytes.
 * The layout word is 0 for one level; a deeper tree (t->layout, dir_depth) writes version 3
 * with dir_depth in its top 8 bits and dir_fanout below, and its records' dir is a leaf's index.
 * Version 1 (16-byte records without the generation) is still read: its files' generations
 * are unknown (POOL_GEN_UNKNOWN). Returns 0 or -errno. */
MUST_CHECK int tree_write_manifest(struct tree *t, uint64_t spec_hash, const struct pool *pool,
                                   char *err, size_t errlen);

/* tree_invalidate_manifest - remove .fsmix-manifest and fsync the root, before a run that will
 * modify the tree, so an interrupted run never leaves a stale manifest. 0 when there was none. */
int tree_invalidate_manifest(struct tree *t, char *err, size_t errlen);

/* tree_load_manifest - fill an empty, initialised pool from .fsmix-manifest when it belongs to
 * this tree, `spec_hash` matches, the data/dNNN directories are exactly the manifest's num_dirs
 * (d000..d<n-1> exist on the root's mount, d<n> does not, nor createdir's first d<leaves> of a
 * deeper tree), its layout is t's (when set), and the listed files are what fsmix
 * left: regular files with the recorded sizes, one hard link each, on the root's mount. With
 * TREE_VERIFY_ALL (for a run that writes into existing files) every file is checked, one statx
 * each (about 1-4 us on a cached tree: 0.1-0.4 s for 100 000 files, against seconds to
 * rebuild them); otherwise a random sample of TREE_SAMPLE files, as reading and deleting cannot
 * harm a file outside the tree. On success also opens the directories (tree_set_dirs) and
 * pushes id holes onto the pool's free stack. The layout (levels, fanout) comes from the
 * manifest: tree_set_layout makes or checks every level below the first.
 * Returns 0; -ENOENT (no manifest); -ESTALE (hash, tree, directories or a file differ; err says
 * which: rebuild); -EMLINK (a checked file has other hard links) or -EXDEV (a file or directory
 * is on another mount): the tree must not be written, err names the file; -EBADMSG (corrupt or
 * truncated); -ENOSPC (an id beyond the pool's capacity); -EINVAL (pool not empty); other
 * -errno for I/O errors. On failure the pool is left untouched. */
MUST_CHECK int tree_load_manifest(struct tree *t, uint64_t spec_hash, struct pool *pool,
                                  unsigned flags, char *err, size_t errlen);

/* tree_remove - remove the whole tree, root included, if everything in it was generated by
 * fsmix; otherwise remove what was, keep unknown entries, the directories holding them, the
 * marker and the root, and return -ENOTEMPTY ("left 2 unknown entries in '/x/fsmix.fs0' (first:
 * data/notes.txt); kept the tree"). The marker is re-checked first (-EEXIST if it is gone).
 * The root is first renamed to fsmix.fs<index>.del (and back when unknown entries keep it), so
 * a crash leaves a tree the next tree_open finishes removing; where that rename fails (ENOSPC
 * for a directory entry, EBUSY) the tree is removed in place. Needs no free inode or block.
 * Closes t in every case. counts may be NULL. */
MUST_CHECK int tree_remove(struct tree *t, struct tree_purge *counts, char *err, size_t errlen);

/* tree_remove_contents - empty data/ and meta/ (keeping them, the root and the marker) and
 * remove the manifest, for a rebuild. The dNNN descriptors are closed and num_dirs becomes 0:
 * call tree_set_dirs again. Returns 0 or -ENOTEMPTY with unknown entries (left in place). */
MUST_CHECK int tree_remove_contents(struct tree *t, struct tree_purge *counts, char *err,
                                    size_t errlen);

/* tree_usage - space on the filesystem holding the tree (statvfs of location), for
 * init_size/init_util/desired_util and the pools' capacity. Returns 0 or -errno. */
int tree_usage(const struct tree *t, struct tree_usage *u);

#endif
