/* tree_impl.h - what the files of the tree module share, for them alone (other modules use
 * tree.h): the names of fsmix's own entries, error messages, mounts, the marker, the location's
 * renames and the removal of generated entries. Functions returning int give 0 (or a value
 * >= 0 as documented) or -errno, like tree.h's; none prints or exits.
 *
 *   tree.c           opening and creating a tree; its data/dNNN directories; usage
 *   tree_names.c     the naming scheme: making names, recognising them, locating a file
 *   tree_location.c  the user's directory: its rules, its lock, renames and fsync in it;
 *                    closing a tree (its descriptors and its lock)
 *   tree_mount.c     which mount an entry is on (fsmix never writes through another mount)
 *   tree_marker.c    the ownership marker .fsmix-tree
 *   tree_owner.c     whose an entry is: the running user's, writable by nobody else
 *   tree_manifest.c  the reuse manifest .fsmix-manifest
 *   tree_purge.c     safe removal: only what fsmix generates, never through a symlink or mount
 *   tree_leftover.c  finishing a root left as fsmix.fsN.new or .del by a crash
 */
#ifndef FSMIX_TREE_IMPL_H
#define FSMIX_TREE_IMPL_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "compiler.h"
#include "tree.h"

#define MARKER_NAME       ".fsmix-tree"
#define MARKER_TMP_NAME   ".fsmix-tree.tmp"
#define MANIFEST_NAME     ".fsmix-manifest"
#define MANIFEST_TMP_NAME ".fsmix-manifest.tmp"
#define PROBE_NAME        ".fsmix-probe"
#define NEW_SUFFIX        ".new" /* fsmix.fsN.new: a root being created */
#define DEL_SUFFIX        ".del" /* fsmix.fsN.del: a root being removed */
#define DIR_FLAGS         (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* --- messages and names (tree_names.c) --- */

/* tree_seterr - printf into err[len] (nothing when err is NULL or len 0). */
void tree_seterr(char *err, size_t len, const char *fmt, ...) ATTR_PRINTF(3, 4);

/* tree_fmt - printf into buf[len]; the length, or -ENAMETOOLONG when it does not fit. */
int tree_fmt(char *buf, size_t len, const char *fmt, ...) ATTR_PRINTF(3, 4);

/* tree_is_numbered - a fixed letter followed by 1..10 decimal digits ("f123", "d007"). */
bool tree_is_numbered(const char *s, char letter);

/* tree_is_file_tmp - "f<digits>" + TREE_TMP_SUFFIX: replace_fsync's temporary file. */
bool tree_is_file_tmp(const char *s);

/* tree_is_meta_name - "m<digits>", optionally followed by ".<digits>" (tree_meta_name). */
bool tree_is_meta_name(const char *s);

/* --- descriptors (tree.c) --- */

/* tree_close_fd - close *fd when open and set it to -1. */
void tree_close_fd(int *fd);

/* tree_close_dirfds - close the dNNN descriptors; num_dirs becomes 0 (tree_set_dirs again). */
void tree_close_dirfds(struct tree *t);

/* --- mounts (tree_mount.c) --- */

/* tree_statx - statx of name in dirfd (of dirfd itself for ""), never following a symlink:
 * type, size, links, device and mount id (Linux >= 5.8; stx_mask says whether it came). */
int tree_statx(int dirfd, const char *name, struct statx *sx);

/* tree_on_root_mount - is the statx'ed entry on the root's mount? */
bool tree_on_root_mount(const struct tree *t, const struct statx *sx);

/* tree_note_root_mount - record the device and mount id of the open directory rootfd as t's. */
int tree_note_root_mount(struct tree *t, int rootfd);

/* tree_check_mount_fd - is the open directory fd on the root's mount? 0, -EXDEV, or -errno. */
int tree_check_mount_fd(const struct tree *t, int fd);

/* --- marker (tree_marker.c) --- */

/* tree_read_marker - parse the marker of an open root: 0 with *id, -ENOENT when absent,
 * -EBADMSG when not a regular file or not in the expected format, other -errno. st (may be
 * NULL) gets the marker's fstat when it could be opened, for tree_owner_problem. */
int tree_read_marker(int rootfd, uint64_t *id, struct stat *st);
/* tree_read_marker_run - the same, and *run (may be NULL): the marker's run id, 0 when it has
 * none. */
int tree_read_marker_run(int rootfd, uint64_t *id, uint64_t *run, struct stat *st);

/* --- owners (tree_owner.c) --- */

/* tree_owner_problem - does the entry of st belong to the user running fsmix (effective uid)
 * with no group or other write bit? 0, or -EPERM with "'PATH' belongs to nobody (uid 65534),
 * not to root (uid 0), ..." (or "... is writable by its group (mode 0770) ...") in err. Always 0
 * on a filesystem that keeps no owners of its own (t->no_owners: vfat, exFAT, SMB). */
int tree_owner_problem(const struct tree *t, const struct stat *st, const char *path, char *err,
                       size_t errlen);

/* tree_check_owner_fd - tree_owner_problem for the open entry fd; other -errno from fstat. */
int tree_check_owner_fd(const struct tree *t, int fd, const char *path, char *err, size_t errlen);

/* tree_note_owners - set t->no_owners from the filesystem of the open directory fd. */
void tree_note_owners(struct tree *t, int fd);

/* tree_write_marker - write the marker into a root just created: temp, fsync, rename, fsync. */
int tree_write_marker(int rootfd, uint64_t id);

/* --- the location (tree_location.c) --- */

/* tree_aside_name - "fsmix.fs<index>" + suffix into buf (sizeof t->name + 8 is enough). */
void tree_aside_name(const struct tree *t, const char *suffix, char *buf, size_t len);

/* tree_sync_location - fsync the location's directory, so a rename there survives a power
 * cut; best effort (the rename itself is atomic), only with the lock's readable descriptor. */
void tree_sync_location(const struct tree *t);

/* tree_rename_noreplace - rename `from` to `to` within the location, never replacing `to`. */
int tree_rename_noreplace(int locfd, const char *from, const char *to);

/* --- removal (tree_purge.c) and leftovers (tree_leftover.c) --- */

/* tree_purge_root - remove what fsmix generates below the root open as rootfd (all but the
 * marker), counting into *p. 0 or the first hard error; unknown entries are no error. */
int tree_purge_root(const struct tree *t, int rootfd, struct tree_purge *p);

/* tree_finish_leftover - finish removing fsmix.fs<index><suffix> (NEW_SUFFIX, DEL_SUFFIX)
 * left by a crash; counts t->leftovers. 0 (also when nothing was there or something stayed),
 * -EPERM when it, its marker or a directory in it belongs to another user or is writable by
 * others (tree_owner_problem), or -errno for an I/O error; err says which. */
int tree_finish_leftover(struct tree *t, const char *suffix, char *err, size_t errlen);

#endif
