/* devstat.c - the block device behind a directory, its mount, and its I/O counters.
 *
 * The mount comes from /proc/self/mountinfo (device number and longest mount-point prefix), the
 * device from /sys/dev/block/MAJ:MIN, the counters from its `stat` file
 * (Documentation/block/stat.rst). No allocation; errors are returned as -errno.
 */
#include "devstat.h"
#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MOUNTINFO_PATH "/proc/self/mountinfo"

/* ---- stat file ---------------------------------------------------------------------------- */

/* The fields of the stat file in their order (Documentation/block/stat.rst). */
static uint64_t *stat_field(struct devstat_sample *s, unsigned i)
{
	uint64_t *f[] = {
	    &s->read_ios,       &s->read_merges,     &s->read_sectors,     &s->read_ticks_ms,
	    &s->write_ios,      &s->write_merges,    &s->write_sectors,    &s->write_ticks_ms,
	    &s->in_flight,      &s->io_ticks_ms,     &s->time_in_queue_ms, &s->discard_ios,
	    &s->discard_merges, &s->discard_sectors, &s->discard_ticks_ms, &s->flush_ios,
	    &s->flush_ticks_ms,
	};
	return i < ARRAY_SIZE(f) ? f[i] : NULL;
}

int devstat_parse(const char *line, struct devstat_sample *s)
{
	unsigned n = 0;
	const char *p = line;

	memset(s, 0, sizeof(*s));
	if (!line)
		return -EINVAL;
	for (;;) {
		uint64_t v = 0;
		uint64_t *f;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n')
			break;
		if (*p < '0' || *p > '9')
			goto bad;
		while (*p >= '0' && *p <= '9') {
			unsigned digit = (unsigned)(*p - '0');
			if (v > (UINT64_MAX - digit) / 10)
				goto bad;
			v = v * 10 + digit;
			p++;
		}
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0')
			goto bad;
		f = stat_field(s, n);
		if (f)
			*f = v;
		n++;
	}
	if (*p == '\n' && p[1] != '\0')
		goto bad; /* one line only */
	if (n < 11 || (n > 11 && n < 15) || n == 16)
		goto bad;
	s->has_discard = n >= 15;
	s->has_flush = n >= 17;
	s->valid = true;
	return 0;
bad:
	memset(s, 0, sizeof(*s));
	return -EINVAL;
}

int devstat_read(const struct devstat_dev *d, struct devstat_sample *s)
{
	char buf[512];
	ssize_t got;
	int fd, err;

	memset(s, 0, sizeof(*s));
	if (!d->has_device)
		return -ENODEV;
	fd = open(d->stat_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		got = read(fd, buf, sizeof(buf) - 1);
	while (got < 0 && errno == EINTR);
	err = got < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if ((size_t)got == sizeof(buf) - 1)
		return -EOVERFLOW;
	buf[got] = '\0';
	return devstat_parse(buf, s);
}

void devstat_delta(const struct devstat_sample *before, const struct devstat_sample *after,
                   struct devstat_sample *out)
{
	struct devstat_sample b = *before, a = *after; /* out may alias either */

	memset(out, 0, sizeof(*out));
	if (!b.valid || !a.valid)
		return;
	for (unsigned i = 0;; i++) {
		uint64_t *fa = stat_field(&a, i), *fb = stat_field(&b, i), *fo = stat_field(out, i);
		if (!fa)
			break;
		if (fa == &a.in_flight) {
			*fo = *fa; /* a gauge, not a counter */
			continue;
		}
		if (*fa < *fb) { /* wrapped or reset (device re-created): no sound difference */
			memset(out, 0, sizeof(*out));
			return;
		}
		*fo = *fa - *fb;
	}
	out->has_discard = a.has_discard && b.has_discard;
	out->has_flush = a.has_flush && b.has_flush;
	if (!out->has_discard)
		out->discard_ios = out->discard_merges = out->discard_sectors =
		    out->discard_ticks_ms = 0;
	if (!out->has_flush)
		out->flush_ios = out->flush_ticks_ms = 0;
	out->valid = true;
}

/* ---- mountinfo ---------------------------------------------------------------------------- */

/* next_field - copy the space-separated field at *pp into buf, decoding the octal escapes the
 * kernel writes for ' ', '\t', '\n' and '\\' (\040 etc.). Returns 0, -EINVAL at end of line,
 * -ENAMETOOLONG when it does not fit; with trunc, what fits is kept and 1 is returned instead. */
static int next_field(const char **pp, char *buf, size_t size, bool trunc)
{
	const char *p = *pp;
	size_t n = 0;
	bool over = false;

	while (*p == ' ')
		p++;
	if (*p == '\0' || *p == '\n')
		return -EINVAL;
	while (*p != '\0' && *p != ' ' && *p != '\n') {
		char c = *p++;
		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (n + 1 >= size) {
			if (!trunc)
				return -ENAMETOOLONG;
			over = true;
			continue;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	*pp = p;
	return over ? 1 : 0;
}

/* drop_partial_option - after a truncated copy, remove the last (cut) option of list. */
static void drop_partial_option(char *list)
{
	char *comma = strrchr(list, ',');

	if (comma)
		*comma = '\0';
	else
		list[0] = '\0';
}

static bool has_option(const char *list, const char *opt, size_t len)
{
	const char *p = list;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		if (l == len && memcmp(p, opt, len) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* merge_options - append to dst (which holds the per-mount options) each super option not
 * already there and that still fits (a mount with very long options, like overlayfs's layer
 * lists, keeps what fits rather than becoming invisible). */
static void merge_options(char *dst, size_t size, const char *super)
{
	const char *p = super;
	size_t used = strlen(dst);

	while (*p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		size_t need = l + (used ? 1 : 0);
		if (l && !has_option(dst, p, l) && used + need + 1 <= size) {
			if (used)
				dst[used++] = ',';
			memcpy(dst + used, p, l);
			used += l;
			dst[used] = '\0';
		}
		if (!end)
			break;
		p = end + 1;
	}
}

int devstat_parse_mountinfo_line(const char *line, struct devstat_mount *m)
{
	char tmp[PATH_MAX], super[PATH_MAX];
	const char *p = line;
	unsigned maj, min;
	int err, used;

	memset(m, 0, sizeof(*m));
	if (!line)
		return -EINVAL;
	/* mount ID, parent ID */
	if ((err = next_field(&p, tmp, sizeof(tmp), true)) < 0 ||
	    (err = next_field(&p, tmp, sizeof(tmp), true)) < 0)
		goto out;
	if ((err = next_field(&p, tmp, sizeof(tmp), false)) < 0)
		goto out;
	if (sscanf(tmp, "%u:%u%n", &maj, &min, &used) != 2 || tmp[used] != '\0') {
		err = -EINVAL;
		goto out;
	}
	m->major = maj;
	m->minor = min;
	if ((err = next_field(&p, m->root, sizeof(m->root), false)) < 0 ||
	    (err = next_field(&p, m->mount_point, sizeof(m->mount_point), false)) < 0 ||
	    (err = next_field(&p, m->options, sizeof(m->options), true)) < 0)
		goto out;
	if (err > 0)
		drop_partial_option(m->options);
	/* optional fields ("shared:1", "master:2", ...) up to the "-" separator */
	for (;;) {
		if ((err = next_field(&p, tmp, sizeof(tmp), true)) < 0)
			goto out;
		if (strcmp(tmp, "-") == 0)
			break;
	}
	if ((err = next_field(&p, m->fstype, sizeof(m->fstype), false)) < 0 ||
	    (err = next_field(&p, m->source, sizeof(m->source), true)) < 0 ||
	    (err = next_field(&p, super, sizeof(super), true)) < 0)
		goto out;
	if (err > 0)
		drop_partial_option(super);
	merge_options(m->options, sizeof(m->options), super);
	err = 0;
out:
	if (err)
		memset(m, 0, sizeof(*m));
	return err;
}

/* prefix_len - strlen(mnt) when the mount point mnt contains the path dir, else -1. */
static long prefix_len(const char *mnt, const char *dir)
{
	size_t l = strlen(mnt);

	if (l == 0)
		return -1;
	if (strcmp(mnt, "/") == 0)
		return dir[0] == '/' ? 1 : -1;
	if (strncmp(mnt, dir, l) != 0 || (dir[l] != '\0' && dir[l] != '/'))
		return -1;
	return (long)l;
}

int devstat_find_mount(FILE *f, unsigned major, unsigned minor, const char *realdir,
                       struct devstat_mount *m)
{
	/* Lines longer than this (overlayfs with many layers) are skipped. */
	char line[PATH_MAX * 2 + 1024];
	struct devstat_mount cur;
	long best = -1;
	bool any = false;

	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		long l;

		if (!strchr(line, '\n') && !feof(f)) {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (devstat_parse_mountinfo_line(line, &cur) != 0)
			continue;
		if (cur.major != major || cur.minor != minor)
			continue;
		l = prefix_len(cur.mount_point, realdir);
		if (l >= 0 && l >= best) {
			best = l;
			*m = cur;
		} else if (best < 0) {
			*m = cur; /* the device's last mount, until a prefix match is found */
			m->mount_point[0] = '\0';
		}
		any = true;
	}
	return any ? 0 : -ENOENT;
}

/* ---- probe -------------------------------------------------------------------------------- */

static int copy_str(char *dst, size_t size, const char *src)
{
	size_t l = strlen(src);

	if (l >= size)
		return -ENAMETOOLONG;
	memcpy(dst, src, l + 1);
	return 0;
}

/* probe_device - fill the device part of d from /sys/dev/block/MAJ:MIN. */
static void probe_device(struct devstat_dev *d)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct devstat_sample s;
	const char *base;
	ssize_t n;
	int err;

	if (d->major == 0) {
		if (strcmp(d->fstype, "btrfs") == 0)
			snprintf(d->why, sizeof(d->why),
			         "btrfs reports an anonymous device %u:%u, not its block devices",
			         d->major, d->minor);
		else if (d->fstype[0])
			snprintf(d->why, sizeof(d->why), "%s has no block device (st_dev %u:%u)",
			         d->fstype, d->major, d->minor);
		else
			snprintf(
			    d->why, sizeof(d->why),
			    "no block device for %u:%u (btrfs subvolume or network filesystem)",
			    d->major, d->minor);
		return;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", d->major, d->minor);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		snprintf(d->why, sizeof(d->why), "no block device for %u:%u (%s: %s)", d->major,
		         d->minor, link, strerror(errno));
		return;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (copy_str(d->devname, sizeof(d->devname), base) != 0)
		d->devname[0] = '\0';
	if (snprintf(d->stat_path, sizeof(d->stat_path), "%s/stat", link) >=
	    (int)sizeof(d->stat_path)) {
		d->stat_path[0] = '\0';
		return;
	}
	d->has_device = true; /* for devstat_read; taken back below when the file is unusable */
	err = devstat_read(d, &s);
	if (err) {
		d->has_device = false;
		snprintf(d->why, sizeof(d->why), "%s: %s", d->stat_path,
		         err == -EINVAL ? "unexpected format" : strerror(-err));
	}
}

int devstat_probe(const char *path, struct devstat_dev *d)
{
	char real[PATH_MAX];
	struct devstat_mount m;
	struct stat st;
	FILE *f;
	int err;

	memset(d, 0, sizeof(*d));
	if (!path || !*path)
		return -EINVAL;
	if ((err = copy_str(d->path, sizeof(d->path), path)))
		return err;
	if (stat(path, &st) != 0)
		return -errno;
	d->major = major(st.st_dev);
	d->minor = minor(st.st_dev);
	if (!realpath(path, real) && copy_str(real, sizeof(real), path) != 0)
		real[0] = '\0';

	f = fopen(MOUNTINFO_PATH, "re");
	if (f) {
		if (devstat_find_mount(f, d->major, d->minor, real, &m) == 0) {
			copy_str(d->mount_point, sizeof(d->mount_point), m.mount_point);
			copy_str(d->fstype, sizeof(d->fstype), m.fstype);
			if (copy_str(d->mount_source, sizeof(d->mount_source), m.source))
				d->mount_source[0] = '\0';
			copy_str(d->mount_options, sizeof(d->mount_options), m.options);
		}
		fclose(f);
	}
	probe_device(d);
	return 0;
}
