/* crash_place.c - where --crash-after may crash (engine_int.h, crash_place_check): only on a
 * dedicated test filesystem, so that the shutdown hurts nobody. The shutdown ioctl stops the
 * whole filesystem, every mount of it and every process using it, until it is unmounted: on a
 * filesystem that also held a neighbour's files their reads failed with EIO, and on the
 * machine's root filesystem the machine stops. The rules (docs/durability.md, "(a) Filesystem
 * crash"), for every location:
 *
 *   1. its filesystem is not that of /, of the current directory, of an output of the run
 *      (--json, --csv, --plot, --lat-log, --durability-log; the file's directory when it does
 *      not exist yet, a dangling symbolic link followed), nor of the standard output or error
 *      when they are files;
 *   2. it sits on a block device (a loop device or another: /sys/dev/block/MAJ:MIN of its
 *      st_dev exists), mounted from the filesystem's root directory (not a bind mount of a
 *      subdirectory, where the rest of the filesystem is out of sight);
 *   3. its root directory holds nothing but fsmix's trees (fsmix.fs<N>..., directories),
 *      lost+found and the directories on the way to this run's locations on it, and each
 *      directory on that way holds nothing but fsmix's trees and the next directory on the way.
 *
 * Read-only checks, made before anything is created; the messages name the location and the
 * reason. Not on the hot path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine.h"
#include "engine_int.h"

/* One location under check. */
struct place {
	const char *fs_name, *location;
	char real[PATH_MAX]; /* the location resolved (realpath) */
	char mnt[PATH_MAX];  /* the mount point of its filesystem */
	const char *rel;     /* real below mnt: "" (the root) or "a/b" */
	dev_t dev;
};

/* The end of the refusal: what the rule is for. */
#define PLACE_WHY                                                                                  \
	"; --crash-after shuts down only a dedicated test filesystem (docs/durability.md, \"(a) "  \
	"Filesystem crash\"); nothing was run"

/* The device of the filesystem where path is or would be written: the file's, else its
 * directory's (a dangling symbolic link is followed to where the file would be made). Returns
 * 0, or -1 when there is nothing to check (standard output, a device or FIFO, which is written
 * in place, or a path that cannot be resolved: the output's own check reports it). */
static int output_dev(const char *path, dev_t *dev)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	if (!path || !strcmp(path, "-"))
		return -1;
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		if (stat(cur, &st) == 0) {
			if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
				return -1;
			*dev = st.st_dev;
			return 0;
		}
		snprintf(dir, sizeof(dir), "%s", cur);
		snprintf(dir, sizeof(dir), "%s", dirname(dir));
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) /* no such file: it will be made in dir */
			break;
		link[n] = '\0';
		if (link[0] == '/')
			snprintf(cur, sizeof(cur), "%s", link);
		else if (snprintf(cur, sizeof(cur), "%s/%s", dir, link) >= (int)sizeof(cur))
			return -1;
	}
	snprintf(dir, sizeof(dir), "%s", cur);
	if (stat(dirname(dir), &st))
		return -1;
	*dev = st.st_dev;
	return 0;
}

/* Rule 1: the filesystem is not one whose shutdown would hurt fsmix or the machine. */
static enum failure check_others(const struct engine *e, const struct place *p, char *err,
                                 size_t errlen)
{
	const struct engine_opts *o = e->opts;
	const struct {
		const char *what, *path;
	} outputs[] = {
	    {"--json", o->json_path},
	    {"--csv", o->csv_path},
	    {"--plot", o->plot_path},
	    {"--lat-log", o->lat_log_path},
	    {"--durability-log", o->durability_log_path},
	};
	struct stat st;
	dev_t dev;
	if (stat("/", &st) == 0 && st.st_dev == p->dev) {
		snprintf(
		    err, errlen,
		    "%s: --crash-after: location '%s' is on the filesystem of / (the machine's "
		    "root filesystem)" PLACE_WHY,
		    p->fs_name, p->location);
		return FAIL_INPUT;
	}
	if (stat(".", &st) == 0 && st.st_dev == p->dev) {
		snprintf(err, errlen,
		         "%s: --crash-after: location '%s' is on the filesystem of the current "
		         "directory" PLACE_WHY,
		         p->fs_name, p->location);
		return FAIL_INPUT;
	}
	for (size_t i = 0; i < ARRAY_SIZE(outputs); i++)
		if (output_dev(outputs[i].path, &dev) == 0 && dev == p->dev) {
			snprintf(
			    err, errlen,
			    "%s: --crash-after: location '%s' is on the filesystem of %s '%s', "
			    "which the shutdown would lose" PLACE_WHY,
			    p->fs_name, p->location, outputs[i].what, outputs[i].path);
			return FAIL_INPUT;
		}
	for (int fd = 1; fd <= 2; fd++)
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == p->dev) {
			snprintf(
			    err, errlen,
			    "%s: --crash-after: location '%s' is on the filesystem of the "
			    "standard %s (a file there), which the shutdown would lose" PLACE_WHY,
			    p->fs_name, p->location, fd == 1 ? "output" : "error");
			return FAIL_INPUT;
		}
	return FAIL_NONE;
}

/* Rule 2: a block device, mounted from the filesystem's root; fills p->mnt and p->rel. */
static enum failure check_mount(struct place *p, char *err, size_t errlen)
{
	struct devstat_dev d;
	struct devstat_mount m;
	int rc = devstat_probe(p->real, &d);
	if (rc || !d.devname[0]) {
		snprintf(err, errlen,
		         "%s: --crash-after: location '%s' is not on a block device (%s)" PLACE_WHY,
		         p->fs_name, p->location, rc ? strerror(-rc) : d.why);
		return FAIL_INPUT;
	}
	FILE *f = fopen("/proc/self/mountinfo", "re");
	rc = f ? devstat_find_mount(f, major(p->dev), minor(p->dev), p->real, &m) : -errno;
	if (f)
		fclose(f);
	size_t l = rc ? 0 : strlen(m.mount_point);
	if (rc || !l) {
		snprintf(err, errlen,
		         "%s: --crash-after: location '%s': its mount is not found in "
		         "/proc/self/mountinfo (%s)" PLACE_WHY,
		         p->fs_name, p->location, rc ? strerror(-rc) : "no mount point above it");
		return FAIL_INPUT;
	}
	if (strcmp(m.root, "/")) {
		snprintf(err, errlen,
		         "%s: --crash-after: location '%s': %s shows the directory '%s' of the "
		         "filesystem on /dev/%s, not its root: what else the filesystem holds "
		         "cannot be seen" PLACE_WHY,
		         p->fs_name, p->location, m.mount_point, m.root, d.devname);
		return FAIL_INPUT;
	}
	snprintf(p->mnt, sizeof(p->mnt), "%s", m.mount_point);
	p->rel = p->real + l; /* below "/mnt/t" (or "/"): the rest, without its '/' */
	if (*p->rel == '/')
		p->rel++;
	return FAIL_NONE;
}

/* Whether the entry name of the directory at rel ("" the root) of p's filesystem may be there:
 * a tree of fsmix's, lost+found at the root, or the next directory on the way to a location
 * of this run on the same filesystem. Directories all (never a symbolic link). */
static bool allowed(const struct place *all, size_t n, const struct place *p, const char *rel,
                    int dfd, const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
		return false;
	if (tree_instance_is_name(name) || (!rel[0] && !strcmp(name, "lost+found")))
		return true;
	size_t rl = strlen(rel), nl = strlen(name);
	for (size_t i = 0; i < n; i++) {
		const char *r = all[i].rel;
		if (all[i].dev != p->dev) /* rel is from the root of the filesystem of each */
			continue;
		if (rl && (strncmp(r, rel, rl) || r[rl] != '/'))
			continue; /* not below rel */
		r += rl ? rl + 1 : 0;
		if (!strncmp(r, name, nl) && (r[nl] == '\0' || r[nl] == '/'))
			return true;
	}
	return false;
}

/* The first entry of the open directory dfd that may not be there, into bad; false if none. */
static bool foreign_entry(const struct place *all, size_t n, const struct place *p, const char *rel,
                          int dfd, char *bad, size_t badlen)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(bad, badlen, "(unreadable: %s)", strerror(errno));
		return true;
	}
	struct dirent *de;
	bool found = false;
	while (!found && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!allowed(all, n, p, rel, dfd, de->d_name)) {
			snprintf(bad, badlen, "'%s'", de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* Rule 3: from the root down to the location, every directory holds only what may be there. */
static enum failure check_contents(const struct place *all, size_t n, const struct place *p,
                                   char *err, size_t errlen)
{
	char rel[PATH_MAX] = "", bad[NAME_MAX + 32];
	const char *next = p->rel;
	struct stat st;
	int dfd = open(p->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (;;) {
		if (dfd < 0 || fstat(dfd, &st) || st.st_dev != p->dev) {
			snprintf(err, errlen,
			         "%s: --crash-after: location '%s': cannot read %s%s%s of its "
			         "filesystem (%s)" PLACE_WHY,
			         p->fs_name, p->location, p->mnt, rel[0] ? "/" : "", rel,
			         dfd < 0 ? strerror(errno) : "another filesystem is mounted there");
			if (dfd >= 0)
				close(dfd);
			return FAIL_INPUT;
		}
		if (foreign_entry(all, n, p, rel, dfd, bad, sizeof(bad))) {
			snprintf(
			    err, errlen,
			    "%s: --crash-after: location '%s': its filesystem (mounted at %s) "
			    "holds %s in %s%s%s, which is not fsmix's: its root may hold nothing "
			    "but fsmix's trees (fsmix.fsN...) and lost+found, and the directories "
			    "on the way to this run's locations nothing but fsmix's "
			    "trees" PLACE_WHY,
			    p->fs_name, p->location, p->mnt, bad, p->mnt,
			    rel[0] && strcmp(p->mnt, "/") ? "/" : "", rel);
			close(dfd);
			return FAIL_INPUT;
		}
		if (!*next)
			break;
		size_t cl = strcspn(next, "/"), rl = strlen(rel);
		if (rl + cl + 2 > sizeof(rel))
			break; /* cannot be: the location's path fits */
		snprintf(rel + rl, sizeof(rel) - rl, "%s%.*s", rl ? "/" : "", (int)cl, next);
		int nfd = openat(dfd, rel + (rl ? rl + 1 : 0),
		                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dfd);
		dfd = nfd;
		next += cl + (next[cl] == '/');
	}
	close(dfd);
	return FAIL_NONE;
}

enum failure crash_place_check(const struct engine *e, char *err, size_t errlen)
{
	struct place *all = calloc(e->n_fs ? e->n_fs : 1, sizeof(*all));
	enum failure f = FAIL_NONE;
	if (!all) {
		snprintf(err, errlen, "out of memory");
		return FAIL_IO;
	}
	for (size_t i = 0; i < e->n_fs && !f; i++) {
		struct place *p = &all[i];
		struct stat st;
		p->fs_name = e->fs[i].pf->name;
		p->location = e->fs[i].pf->location;
		if (!realpath(p->location, p->real) || stat(p->real, &st)) {
			snprintf(err, errlen, "%s: --crash-after: location '%s': %s", p->fs_name,
			         p->location, strerror(errno));
			f = FAIL_INPUT;
			break;
		}
		p->dev = st.st_dev;
		f = check_others(e, p, err, errlen);
		if (!f)
			f = check_mount(p, err, errlen);
	}
	for (size_t i = 0; i < e->n_fs && !f; i++)
		f = check_contents(all, e->n_fs, &all[i], err, errlen);
	free(all);
	return f;
}
