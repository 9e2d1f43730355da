/* crashtest_env.c - fsmix crashtest's private directory, helper programs, loop devices, mounts
 * and FUSE daemons, each recorded as it is made and undone by ct_env_close (crashtest.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crashtest.h"
#include "failure.h"
#include "fdio.h"
#include "stopsig.h"
#include "subproc.h"

static void ct_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

bool ct_stop_seen(struct ct_env *e)
{
	sigset_t set;
	stopsig_fill(&set);
	struct timespec zero = {0, 0};
	while (sigtimedwait(&set, NULL, &zero) > 0)
		e->stopped = true;
	return e->stopped;
}

int ct_cmd(struct ct_env *e, char *const argv[])
{
	return ct_cmd_to(e, argv, e->out);
}

int ct_cmd_to(struct ct_env *e, char *const argv[], const char *out)
{
	struct subproc_end end;
	int st = subproc_run_out(argv, NULL, out, &end);
	if (end.stopped)
		e->stopped = true;
	if (st < 0 || end.stopped || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

void ct_cmd_tail(const struct ct_env *e, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(e->out, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			snprintf(buf, len, "%s", line);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* A program in PATH. */
static bool in_path(const char *name)
{
	const char *p = getenv("PATH");
	char buf[CT_PATH];
	for (p = p ? p : "/usr/sbin:/usr/bin:/sbin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

static const char *checker_of(const char *fs)
{
	return !strcmp(fs, "ext4") ? "e2fsck" : !strcmp(fs, "xfs") ? "xfs_repair" : "btrfs";
}

/* fsmix-powercut: $FSMIX_POWERCUT, or beside fsmix's own binary. */
static int find_powercut(struct ct_env *e, char *err, size_t errlen)
{
	ssize_t n = readlink("/proc/self/exe", e->self, sizeof(e->self) - 1);
	if (n <= 0) {
		snprintf(err, errlen, "cannot find fsmix's own binary (/proc/self/exe): %s",
		         strerror(errno));
		return -1;
	}
	e->self[n] = '\0';
	const char *env = getenv("FSMIX_POWERCUT");
	char dir[CT_PATH];
	snprintf(dir, sizeof(dir), "%s", e->self);
	if (env && *env)
		snprintf(e->powercut, sizeof(e->powercut), "%s", env);
	else
		snprintf(e->powercut, sizeof(e->powercut), "%s/fsmix-powercut", dirname(dir));
	if (access(e->powercut, X_OK) == 0)
		return 0;
	snprintf(err, errlen,
	         "fsmix-powercut not found (%s: %s; it is built where libfuse3-dev is "
	         "installed, beside fsmix, or set FSMIX_POWERCUT)",
	         e->powercut, strerror(errno));
	return -1;
}

static int env_checks(struct ct_env *e, const char *fs, char *err, size_t errlen)
{
	char mkfs[32];
	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", fs);
	const char *need[] = {"losetup", "fusermount3", mkfs, checker_of(fs)};
	if (geteuid() != 0) {
		snprintf(err, errlen, "crashtest needs root (loop devices, mounts)");
		return -1;
	}
	if (access("/dev/fuse", R_OK | W_OK)) {
		snprintf(err, errlen, "crashtest needs /dev/fuse: %s", strerror(errno));
		return -1;
	}
	if (access("/dev/loop-control", R_OK | W_OK)) {
		snprintf(err, errlen, "crashtest needs loop devices (/dev/loop-control: %s)",
		         strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!in_path(need[i])) {
			snprintf(err, errlen, "crashtest needs %s (not found in PATH)", need[i]);
			return -1;
		}
	return find_powercut(e, err, errlen);
}

int ct_env_open(struct ct_env *e, const char *fs, char *err, size_t errlen)
{
	memset(e, 0, sizeof(*e));
	if (env_checks(e, fs, err, errlen))
		return FAIL_UNSUPPORTED;
	/* room for the longest name made below it (cmd.c's files, the mount point's paths) */
	int rc = tmpdir_make(e->dir, sizeof(e->dir), "fsmix-crashtest", 64, err, errlen);
	if (rc)
		return rc == -ENAMETOOLONG ? FAIL_INPUT : FAIL_IO;
	snprintf(e->out, sizeof(e->out), "%s/cmd.out", e->dir);
	return FAIL_NONE;
}

int ct_attach(struct ct_env *e, int slot, const char *file, bool direct)
{
	char *argv[] = {"losetup",    "-f", "--show", direct ? "--direct-io=on" : "--direct-io=off",
	                (char *)file, NULL};
	char line[512];
	int rc = ct_cmd(e, argv);
	ct_cmd_tail(e, line, sizeof(line));
	if (rc != 0 || strncmp(line, "/dev/loop", 9)) {
		fprintf(stderr, "fsmix: crashtest: losetup %s failed: %s\n", file, line);
		return -1;
	}
	snprintf(e->loop[slot], sizeof(e->loop[slot]), "%s", line);
	struct stat st;
	if (stat(file, &st) == 0) {
		e->loop_dev[slot] = st.st_dev;
		e->loop_ino[slot] = st.st_ino;
	}
	return 0;
}

/* Whether slot's loop device is still attached to the file ct_attach attached (LOOP_GET_STATUS64:
 * its backing file's device and inode): false once it is detached (ENXIO), or bound since to a
 * file of someone else's, which is never ours to detach. */
static bool loop_still_ours(const struct ct_env *e, int slot)
{
	int fd = open(e->loop[slot], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ENXIO; /* cannot tell: as if it were */
	struct loop_info64 li;
	int rc = ioctl(fd, LOOP_GET_STATUS64, &li);
	close(fd);
	return rc == 0 && li.lo_inode == (uint64_t)e->loop_ino[slot] &&
	       li.lo_device == (uint64_t)e->loop_dev[slot];
}

/* losetup -d, again while the device is still ours: after a stop its detach can fail for a
 * moment (the unmount's last release still under way) and then happen anyway, which left
 * the private directory in place as "busy" with nothing there. */
void ct_detach(struct ct_env *e, int slot)
{
	if (!e->loop[slot][0])
		return;
	char *argv[] = {"losetup", "-d", e->loop[slot], NULL};
	for (int i = 0; i < 50; i++) {
		if (ct_cmd(e, argv) == 0 || !loop_still_ours(e, slot)) {
			e->loop[slot][0] = '\0';
			return;
		}
		ct_sleep_ms(100);
	}
	char line[512];
	ct_cmd_tail(e, line, sizeof(line));
	fprintf(stderr, "fsmix: crashtest: cannot detach %s: %s\n", e->loop[slot], line);
}

int ct_drop_cache(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = ioctl(fd, BLKFLSBUF, 0) ? -errno : 0;
	close(fd);
	return rc;
}

int ct_mount(struct ct_env *e, int slot, const char *dev, const char *dir, const char *fs,
             const char *opts)
{
	if (mount(dev, dir, fs, 0, opts && *opts ? opts : NULL))
		return -errno;
	snprintf(e->mnt[slot], sizeof(e->mnt[slot]), "%s", dir);
	return 0;
}

int ct_umount(struct ct_env *e, int slot)
{
	if (!e->mnt[slot][0])
		return 0;
	for (int i = 0; i < 50; i++) { /* EBUSY a moment after a helper closed a file there */
		if (umount2(e->mnt[slot], 0) == 0 || errno == EINVAL || errno == ENOENT) {
			e->mnt[slot][0] = '\0';
			return 0;
		}
		if (errno != EBUSY)
			break;
		ct_sleep_ms(100);
	}
	fprintf(stderr, "fsmix: crashtest: cannot unmount %s: %s\n", e->mnt[slot], strerror(errno));
	return -errno;
}

static bool is_mountpoint(const char *dir)
{
	struct stat a, b;
	char up[CT_PATH];
	snprintf(up, sizeof(up), "%s/..", dir);
	return !stat(dir, &a) && !stat(up, &b) && a.st_dev != b.st_dev;
}

int ct_fuse_up(struct ct_env *e, int slot, char *const argv[])
{
	size_t n = 0;
	while (argv[n])
		n++;
	const char *dir = argv[n - 1];
	int rc = ct_cmd(e, argv);
	if (rc == 0 && is_mountpoint(dir)) {
		snprintf(e->fuse[slot], sizeof(e->fuse[slot]), "%s", dir);
		return 0;
	}
	char line[512];
	ct_cmd_tail(e, line, sizeof(line));
	fprintf(stderr, "fsmix: crashtest: fsmix-powercut failed (exit %d): %s\n", rc, line);
	return -1;
}

int ct_fuse_down(struct ct_env *e, int slot)
{
	if (!e->fuse[slot][0])
		return 0;
	char *argv[] = {"fusermount3", "-u", e->fuse[slot], NULL};
	for (int i = 0; i < 50; i++) { /* the loop device's release may lag its detach */
		if (ct_cmd(e, argv) == 0 || !is_mountpoint(e->fuse[slot])) {
			e->fuse[slot][0] = '\0';
			return 0;
		}
		ct_sleep_ms(100);
	}
	fprintf(stderr, "fsmix: crashtest: cannot unmount %s\n", e->fuse[slot]);
	return -1;
}

int ct_mkfs(struct ct_env *e, const char *fs, const char *opts, const char *file)
{
	char prog[32], words[1024];
	char *argv[64];
	size_t n = 0;
	snprintf(prog, sizeof(prog), "mkfs.%s", fs);
	snprintf(words, sizeof(words), "%s", opts ? opts : "");
	argv[n++] = prog;
	argv[n++] = !strcmp(fs, "ext4") ? "-F" : "-f";
	argv[n++] = "-q";
	for (char *save, *w = strtok_r(words, " ", &save); w && n < 62;
	     w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = (char *)file;
	argv[n] = NULL;
	if (ct_cmd(e, argv) == 0)
		return 0;
	char line[512];
	ct_cmd_tail(e, line, sizeof(line));
	fprintf(stderr, "fsmix: crashtest: %s failed: %s\n", prog, line);
	return -1;
}

int ct_checker(struct ct_env *e, const char *fs, const char *dev)
{
	char *ext4[] = {"e2fsck", "-fn", (char *)dev, NULL};
	char *xfs[] = {"xfs_repair", "-n", (char *)dev, NULL};
	char *btrfs[] = {"btrfs", "check", "--readonly", (char *)dev, NULL};
	int rc = ct_cmd(e, !strcmp(fs, "ext4") ? ext4 : !strcmp(fs, "xfs") ? xfs : btrfs);
	return rc < 0 ? -1 : rc != 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void ct_env_close(struct ct_env *e)
{
	ct_stop_seen(e); /* the cleanup's own helpers run to their end */
	bool left = false;
	for (int s = 1; s >= 0; s--)
		left |= ct_umount(e, s) != 0;
	for (int s = 1; s >= 0; s--)
		ct_detach(e, s);
	for (int s = 1; s >= 0; s--)
		left |= ct_fuse_down(e, s) != 0 || e->loop[s][0];
	if (!e->dir[0])
		return;
	if (left) { /* never remove through a mount */
		fprintf(stderr, "fsmix: crashtest: %s left in place (something there is busy)\n",
		        e->dir);
		return;
	}
	nftw(e->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	e->dir[0] = '\0';
}
