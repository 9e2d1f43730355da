/* crashtest.h - fsmix crashtest's machinery (crashtest_env.c): a private directory, the helper
 * programs it runs (mkfs, losetup, fsmix-powercut, the checkers, fsmix run), the loop device,
 * mounts and FUSE daemons it makes, and their removal on every exit (docs/durability.md, "Every
 * crash state"). The command itself is cmd_crashtest.c. */
#ifndef FSMIX_CLI_CRASHTEST_H
#define FSMIX_CLI_CRASHTEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

#define CT_PATH 512

struct ct_env {
	char dir[CT_PATH];      /* the private directory (mkdtemp under $TMPDIR or /tmp) */
	char self[CT_PATH];     /* fsmix's own binary (/proc/self/exe) */
	char powercut[CT_PATH]; /* fsmix-powercut */
	char out[CT_PATH];      /* dir/cmd.out: the last helper's output */
	char fuse[2][CT_PATH];  /* FUSE mounts made (recording disk, served state); "" none */
	char loop[2][64];       /* loop devices attached; "" none */
	dev_t loop_dev[2];      /* the device and inode of the file each is attached to */
	ino_t loop_ino[2];
	char mnt[2][CT_PATH]; /* filesystems mounted; "" none */
	bool stopped;         /* a stop signal (Ctrl-C) came */
};

/* ct_env_open - the environment's checks (root, /dev/fuse, loop devices, fsmix-powercut beside
 * fsmix or $FSMIX_POWERCUT, the mkfs and checker of fs): FAIL_UNSUPPORTED with the reason in
 * err; then the private directory (FAIL_IO). */
int ct_env_open(struct ct_env *e, const char *fs, char *err, size_t errlen);
/* ct_env_close - unmount, detach, stop the daemons, remove the private directory. */
void ct_env_close(struct ct_env *e);

/* ct_stop_seen - a stop signal came (now or before): e->stopped. It is consumed, so that the
 * cleanup's helpers are not stopped too. */
bool ct_stop_seen(struct ct_env *e);

/* ct_cmd - run argv (a NULL-terminated list) with its output in e->out; its exit status, or
 * -1 when it could not start or was stopped. */
int ct_cmd(struct ct_env *e, char *const argv[]);
/* ct_cmd_to - ct_cmd with the output in the file out. */
int ct_cmd_to(struct ct_env *e, char *const argv[], const char *out);
/* ct_cmd_tail - the last line of e->out into buf (for a message). */
void ct_cmd_tail(const struct ct_env *e, char *buf, size_t len);

/* ct_attach - a loop device (slot 0 or 1) over file; 0 or -1 (message on stderr). */
int ct_attach(struct ct_env *e, int slot, const char *file, bool direct);
void ct_detach(struct ct_env *e, int slot);
/* ct_drop_cache - drop the page cache of block device dev (BLKFLSBUF). Its last close drops it
 * too, but another process that has the device open (a probe: blkid, btrfs device scan) keeps
 * it, and the next state would be read partly from the previous one's pages. 0 or -errno. */
int ct_drop_cache(const char *dev);
/* ct_mount - dev on dir (slot 0 or 1) with type fs and options opts (mount(2)); 0 or -errno. */
int ct_mount(struct ct_env *e, int slot, const char *dev, const char *dir, const char *fs,
             const char *opts);
int ct_umount(struct ct_env *e, int slot);
/* ct_fuse_up - start fsmix-powercut with args (it detaches once mounted at dir, its last
 * argument) as slot; 0 or -1 (message on stderr). */
int ct_fuse_up(struct ct_env *e, int slot, char *const argv[]);
int ct_fuse_down(struct ct_env *e, int slot);

/* ct_mkfs - mkfs.fs on file with the words of opts; 0 or -1 (message on stderr). */
int ct_mkfs(struct ct_env *e, const char *fs, const char *opts, const char *file);
/* ct_checker - the filesystem's checker, read-only, on dev: 0 clean, 1 flagged, -1 not run. */
int ct_checker(struct ct_env *e, const char *fs, const char *dev);

#endif
