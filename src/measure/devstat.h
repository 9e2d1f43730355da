/* devstat.h - the block device behind a directory, its mount, and its I/O counters.
 *
 * For the 2010 ext4 barrier experiment fsmix reports how many cache flushes ("barriers") the
 * device received during the run: it finds the device from the directory's st_dev
 * (/sys/dev/block/MAJ:MIN, which covers partitions, loop, dm and md devices), snapshots its
 * `stat` file before and after the run phase and reports the difference. The flush fields exist
 * since Linux 5.5 (fields 16-17 of Documentation/block/stat.rst). Where there is no block device
 * (tmpfs, btrfs's anonymous st_dev, NFS) or the fields are missing, the counters are marked
 * unavailable with the reason, never reported as 0.
 *
 * Not on the hot path: called before and after the run by the main thread only.
 */
#ifndef FSMIX_DEVSTAT_H
#define FSMIX_DEVSTAT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One snapshot (or a difference of two) of /sys/dev/block/MAJ:MIN/stat. Sector counts are in
 * 512-byte units, as the kernel reports them. */
struct devstat_sample {
	bool valid;       /* the stat file was read */
	bool has_discard; /* the kernel reports discard counters (Linux >= 4.18) */
	bool has_flush;   /* the kernel reports flush counters (Linux >= 5.5) */
	uint64_t read_ios, read_merges, read_sectors, read_ticks_ms;
	uint64_t write_ios, write_merges, write_sectors, write_ticks_ms;
	uint64_t in_flight, io_ticks_ms, time_in_queue_ms;
	uint64_t discard_ios, discard_merges, discard_sectors, discard_ticks_ms;
	uint64_t flush_ios, flush_ticks_ms;
};

/* What is known about the filesystem and device under a directory. */
struct devstat_dev {
	char path[PATH_MAX];        /* the directory probed */
	char mount_point[PATH_MAX]; /* from /proc/self/mountinfo ("" if unknown) */
	char fstype[64];            /* "ext4", "tmpfs", ... */
	char mount_source[256];     /* "/dev/loop0", "tmpfs", ... */
	char mount_options[512];    /* mount and superblock options, e.g. "rw,relatime,barrier" */
	unsigned major, minor;      /* st_dev of the directory */
	bool has_device;            /* a block device with a readable stat file */
	char devname[64];           /* kernel name: "loop0", "sda1", "dm-0" ("" if none) */
	char stat_path[PATH_MAX];   /* /sys/dev/block/MAJ:MIN/stat */
	char why[160];              /* when !has_device: why there are no counters */
};

/* One line of /proc/self/mountinfo, unescaped (\040 -> ' ' etc.). */
struct devstat_mount {
	unsigned major, minor; /* field 3, "MAJ:MIN" */
	char root[PATH_MAX];   /* field 4: the root of the mount within its filesystem */
	char mount_point[PATH_MAX];
	char fstype[64];
	char source[256];
	char options[512]; /* per-mount options, then the super options not already listed */
};

/* devstat_parse_mountinfo_line - parse one mountinfo line (optional fields before " - " are
 * skipped). Options that do not fit are left out, a long source is cut. Returns 0, -EINVAL when
 * malformed, -ENAMETOOLONG when the root, mount point or filesystem type does not fit. */
int devstat_parse_mountinfo_line(const char *line, struct devstat_mount *m);

/* devstat_find_mount - the mount of device major:minor whose mount point is the longest prefix
 * of realdir (an absolute path without symlinks); among equals the last (topmost) one. When no
 * mount point of that device is a prefix, the last mount of the device with mount_point "".
 * Reads f (mountinfo format) to its end. Returns 0, or -ENOENT when the device is not listed. */
int devstat_find_mount(FILE *f, unsigned major, unsigned minor, const char *realdir,
                       struct devstat_mount *m);

/* devstat_probe - fill d for the directory at path. Returns 0 (also when there is no block
 * device: then has_device is false and why says so), or -errno when path cannot be stat()ed. */
int devstat_probe(const char *path, struct devstat_dev *d);

/* devstat_parse - parse the text of a stat file: 11 (before 4.18), 15 (discards) or 17 (flushes,
 * since 5.5) decimal fields; more are accepted and ignored. Returns 0, or -EINVAL (s->valid
 * false). */
int devstat_parse(const char *line, struct devstat_sample *s);

/* devstat_read - snapshot the counters of d's device. Returns 0, or -errno (s->valid false). */
int devstat_read(const struct devstat_dev *d, struct devstat_sample *s);

/* devstat_delta - out = after - before, field by field (in_flight: the after value). out is
 * valid only if both are and no counter went backwards (wrap or device reset: out is then
 * invalid, all zero); has_discard / has_flush only if both have them. */
void devstat_delta(const struct devstat_sample *before, const struct devstat_sample *after,
                   struct devstat_sample *out);

#endif
