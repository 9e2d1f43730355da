/* tree_owner.c - whose an entry of a tree is. A marker proves only that a root looks like one
 * fsmix made: anyone can write one. What fsmix uses, builds in or removes from -- the root, its
 * marker, data/, meta/ and every directory below them, a leftover .new or .del root -- must
 * also belong to the user running fsmix and be writable by nobody else (the check ssh's
 * StrictModes and sudo make), so that another user's directory is never emptied or filled.
 * A filesystem that has no owners of its own (vfat, exFAT, SMB without POSIX extensions: every
 * entry shows the mount's uid and mode) cannot be checked, nor does it protect one user's files
 * from another: there the check is skipped, as before it existed. */

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "tree_impl.h"

/* statfs f_type of the filesystems whose owners and modes are the mount's, not the files'. */
static const unsigned long no_owner_types[] = {
    0x4d44,     /* MSDOS_SUPER_MAGIC: vfat, msdos */
    0x2011bab0, /* EXFAT_SUPER_MAGIC */
    0xff534d42, /* CIFS_SUPER_MAGIC */
    0xfe534d42, /* SMB2_SUPER_MAGIC */
    0x517b,     /* SMB_SUPER_MAGIC */
};

void tree_note_owners(struct tree *t, int fd)
{
	struct statfs sf;
	t->no_owners = 0;
	if (fstatfs(fd, &sf))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(no_owner_types); i++)
		if ((uint32_t)sf.f_type == (uint32_t)no_owner_types[i])
			t->no_owners = 1;
}

/* "nobody (uid 65534)", or "uid 1234" for a uid without a user name. */
static void describe_user(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[2048];
	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res && res->pw_name)
		(void)snprintf(buf, len, "%s (uid %u)", res->pw_name, (unsigned)uid);
	else
		(void)snprintf(buf, len, "uid %u", (unsigned)uid);
}

int tree_owner_problem(const struct tree *t, const struct stat *st, const char *path, char *err,
                       size_t errlen)
{
	uid_t me = geteuid();
	if (t->no_owners || (st->st_uid == me && !(st->st_mode & (S_IWGRP | S_IWOTH))))
		return 0;
	char owner[320], mine[320];
	describe_user(st->st_uid, owner, sizeof(owner));
	if (st->st_uid != me) {
		describe_user(me, mine, sizeof(mine));
		tree_seterr(err, errlen,
		            "'%s' belongs to %s, not to %s, who runs fsmix: fsmix neither uses "
		            "nor removes anything in a tree, marker or directory of another user "
		            "(run fsmix as its owner, or move it away)",
		            path, owner, mine);
	} else {
		tree_seterr(err, errlen,
		            "'%s' (owner %s) is writable by %s (mode %04o): fsmix neither uses "
		            "nor removes anything in a tree, marker or directory that others can "
		            "change (chmod go-w it if it is yours)",
		            path, owner, (st->st_mode & S_IWOTH) ? "every user" : "its group",
		            (unsigned)(st->st_mode & 07777));
	}
	return -EPERM;
}

int tree_check_owner_fd(const struct tree *t, int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		tree_seterr(err, errlen, "'%s': %s", path, strerror(e));
		return -e;
	}
	return tree_owner_problem(t, &st, path, err, errlen);
}
