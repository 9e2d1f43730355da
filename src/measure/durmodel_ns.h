/* durmodel_ns.h - the durability model's rules for the namespace operations (durmodel_ns.c;
 * docs/durability.md, "Namespace operations"): where a renamed file may be found after a crash,
 * and what a file replaced by replace_fsync may hold. durmodel.c keeps one struct dm_ns per
 * file incarnation (zeroed with it) and calls these from its replay and its check.
 *
 * Rules (durpromise.def's rename, replace and truncate rows say what each call promises; these
 * are what its columns cannot say):
 *   - rename (DL_RENAME) and replace_fsync (DL_REPLACE) make the file's name anew at the
 *     record's t_end: only a row with names in reach (a sync or syncfs, an fsync of the file's
 *     new directory) that started after it makes that name durable (dm_ns_synced). Until then
 *     a renamed file may still be under any directory it left since its name was last durable
 *     (its promises hold wherever it is found); more than DM_NS_ALT such moves: its name is
 *     not checked (dm_ns_named).
 *   - the entry a rename removed is an unlink of its own: once a row with unlinks in reach of
 *     the directory left (a sync or syncfs, an fsync of that directory) started after the
 *     rename, the file is durably gone from there (dm_ns_left). Once the file is deleted it
 *     must be found in none of those directories (`resurrected`), whether or not its own
 *     unlink is durable; a directory it came back to by a later rename is no longer one.
 *   - replace_fsync: the temporary file was fsynced before the rename, so the new content is
 *     whole -- generation gen over [0, size) -- once the file holds it. Until the directory's
 *     fsync covers the replace (the window is open) the file may hold its old content instead:
 *     no byte of the new generation or later, accepted as it is (its old promises are not
 *     checked then). Never both (a file with blocks of the new generation or later and blocks
 *     of older ones: DM_MIXED), never empty where the new content is not and the old was
 *     promised not to be (DM_EMPTIED). Once the window is closed the new content is promised
 *     (an old one is stale).
 *   - truncate (DL_TRUNCATE, durmodel.c): nothing beyond the new length is promised any more
 *     (content, length, a replace's); a hole made by extending a file is promised nothing.
 *   - a second name (DL_LINK, DL_UNLINK: l<id> in dir; its last change counts): its link(2)
 *     is covered by a row with names in reach of its directory (a directory fsync of it,
 *     syncfs, sync) that started after it; then l<id> must be found there and name the inode
 *     f<id> names where f<id> is found with its current name durable and no replace open
 *     (else DM_MISSING, DM_SPLIT; durmodel_check.c). Its unlink(2) is covered by
 *     a row with unlinks in reach of that directory: then l<id> must stay gone
 *     (DM_RESURRECTED), also once the file is deleted. Uncovered, either may be: not checked.
 *     No fsync of the file covers its second name (no row says so for ext4, xfs and btrfs).
 */
#ifndef FSMIX_DURMODEL_NS_H
#define FSMIX_DURMODEL_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "durmodel.h"

#define DM_NS_ALT 4 /* directories a renamed file may still be in; left ones tracked */

/* A directory a rename left: the rename's t_end; once the removal is durable, the record that
 * made it so. */
struct dm_ns_rm {
	uint32_t dir;
	uint64_t t;
	struct dm_ref ref;
};

struct dm_ns {
	uint32_t alt[DM_NS_ALT]; /* directories left by renames not yet durable, oldest first */
	uint8_t n_alt;
	uint8_t n_rm, n_left;
	struct dm_ns_rm rm[DM_NS_ALT];   /* directories left whose removal is not durable yet */
	struct dm_ns_rm left[DM_NS_ALT]; /* ...and whose removal is durable (the newest kept) */
	bool lost_track; /* more moves than alt holds: where the file is is not checked */
	bool replaced;   /* replace_fsync's new content is this incarnation's */
	bool rep_open;   /* ...and no directory fsync or sync has covered the replace yet */
	uint32_t rep_gen;
	uint64_t rep_len, old_min; /* the new length; the old content's promised length */
	struct dm_ref rep_ref;
	uint8_t link;      /* enum dm_link: the second name's last change */
	bool link_durable; /* ...covered (link_ref: by which record) */
	uint32_t link_dir; /* its directory */
	uint64_t link_t;   /* its t_end */
	struct dm_ref link_ref;
};

/* A file's second name l<id>, by its last change. */
enum dm_link { DM_LINK_NONE, DM_LINK_MADE, DM_LINK_GONE };

/* The file moved from directory `from` to `to` (DL_RENAME), completed at t (its t_end). */
void dm_ns_rename(struct dm_ns *ns, uint32_t from, uint32_t to, uint64_t t);
/* A row with unlinks in reach of dir (all: of every directory, a sync or syncfs) started at t
 * (ref: its record): the removals from there by renames that completed before t are durable. */
void dm_ns_left(struct dm_ns *ns, bool all, uint32_t dir, uint64_t t, struct dm_ref ref);
/* Removals by renames that a later row still has to make durable. */
bool dm_ns_leaving(const struct dm_ns *ns);
/* The file was deleted: where it may still be and the replace are forgotten; the directories
 * it left are kept (durably left: it must not be found there). */
void dm_ns_deleted(struct dm_ns *ns);
/* A replace (DL_REPLACE, unsure: DLF_UNSURE, nothing promised of the new content) whose new
 * content is generation gen, len bytes; old_min: the length the old content was promised. */
void dm_ns_replace(struct dm_ns *ns, const struct durlog_rec *r, uint64_t old_min);
/* The file was truncated to len bytes: a replace's promises end there too. */
void dm_ns_truncate(struct dm_ns *ns, uint64_t len);
/* A sync covered the file's name where it is now: renames and the replace are durable. */
void dm_ns_synced(struct dm_ns *ns);
/* Something a later sync still has to make durable. */
bool dm_ns_pending(const struct dm_ns *ns);
/* The second name made (DL_LINK) or removed (DL_UNLINK) in r->dir, completed at r->t_end. */
void dm_ns_link(struct dm_ns *ns, const struct durlog_rec *r);
/* A row that covers names (made: DM_LINK_MADE) or unlinks (DM_LINK_GONE) in dir (all: of every
 * directory) started at t (ref: its record): the second name's last change of that sort, if it
 * completed before t, is durable. Returns whether one still waits to be covered. */
bool dm_ns_link_cover(struct dm_ns *ns, enum dm_link made, bool all, uint32_t dir, uint64_t t,
                      struct dm_ref ref);
/* Whether the second name's last change is durable (its check: dm_ns_check_link). */
bool dm_ns_link_promised(const struct dm_ns *ns);
/* The second name of file id against its durable last change: 0 kept, 1 broken (*fd: kind
 * DM_MISSING, DM_SPLIT or DM_RESURRECTED, dir the second name's, second set), -errno when it
 * cannot be looked at. dir: where f<id> was found (TREE_DIR_TOP... any; found false: nowhere,
 * so no inode to compare). */
int dm_ns_check_link(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs, uint32_t id,
                     uint32_t dir, bool found, struct dm_finding *fd);

/* Whether a rename since its name was last durable may still be lost (it may be elsewhere). */
bool dm_ns_moved(const struct dm_ns *ns);
/* Whether the file's name can be checked (false: moved more often than tracked). */
bool dm_ns_named(const struct dm_ns *ns);

/* The file id's length where it is: under dir, else under the directories renames left (the
 * latest first); *found the directory it was found in. -ENOENT when in none of them (or only
 * as something that is not a regular file), -errno (*found: where) when in none of them and a
 * lookup failed so. */
int64_t dm_ns_locate(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs, uint32_t id,
                     uint32_t dir, uint32_t *found);

/* A replaced file, size bytes long in dir, against the replace rules (key: its content key;
 * buf: cap bytes of scratch). 0: go on with the file's usual checks; 1: a broken promise in
 * *fd (kind, off, ref; DM_MIXED, DM_EMPTIED); 2: its old content in the open window, kept;
 * -errno when it cannot be read. */
int dm_ns_check_replace(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs,
                        uint32_t dir, uint32_t id, const struct content_key *key, uint64_t size,
                        unsigned char *buf, size_t cap, struct dm_finding *fd);

#endif
