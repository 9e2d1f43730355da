/* tree_mount.c - which mount an entry of a tree is on: fsmix writes, reads and removes only on
 * its tree's own mount, never through a directory or file mounted over one of its names. */
#include <errno.h>
#include <sys/sysmacros.h>

#include "tree_impl.h"

/* statx of name in dirfd (or of dirfd itself for ""), never following a symlink: type, size,
 * links, device and mount id (Linux >= 5.8; stx_mask says whether it came). */
int tree_statx(int dirfd, const char *name, struct statx *sx)
{
	int flags = AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH);
	if (statx(dirfd, name, flags, STATX_TYPE | STATX_NLINK | STATX_SIZE | STATX_MNT_ID, sx))
		return -errno;
	return 0;
}

/* Is the statx'ed entry on the root's mount? The mount id decides where the kernel gives one
 * (Linux >= 5.8): a bind mount of a directory of the same filesystem has the same device, and
 * overlayfs reports a file's device as that of its lower layer. Otherwise the device. */
bool tree_on_root_mount(const struct tree *t, const struct statx *sx)
{
	if (t->mnt_id && (sx->stx_mask & STATX_MNT_ID))
		return sx->stx_mnt_id == t->mnt_id;
	return makedev(sx->stx_dev_major, sx->stx_dev_minor) == t->dev;
}

/* Records the root's device and mount id from its open descriptor. */
int tree_note_root_mount(struct tree *t, int rootfd)
{
	struct statx sx;
	int rc = tree_statx(rootfd, "", &sx);
	if (rc)
		return rc;
	t->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	t->mnt_id = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
	return 0;
}

/* Is the open directory fd on the root's mount? 0, -EXDEV, or -errno. */
int tree_check_mount_fd(const struct tree *t, int fd)
{
	struct statx sx;
	int rc = tree_statx(fd, "", &sx);
	if (rc)
		return rc;
	return tree_on_root_mount(t, &sx) ? 0 : -EXDEV;
}
