/* powercut_cli.h - fsmix-powercut's command line (powercut_cli.c): the daemon's options, the
 * `cut` and `stats` commands, the backing image. */
#ifndef FSMIX_POWERCUT_CLI_H
#define FSMIX_POWERCUT_CLI_H

#include <stdbool.h>
#include <stdint.h>

struct pc_opts {
	const char *backing, *mountpoint, *stats_path;
	const char *record_path; /* --record FILE, or NULL */
	uint64_t size;           /* --size: create BACKING of this size (0: it must exist) */
	uint64_t cache_bytes;    /* --cache-size */
	int64_t delay_ms;        /* --destage-delay, -1: never */
	unsigned persist_pct;    /* --persist-on-cut */
	uint64_t flush_us;       /* --flush-latency: what a flush costs besides its writes */
	bool ignore_flush;       /* --ignore-flush */
	bool reorder;            /* --reorder-across-flush */
	uint64_t seed;           /* --seed */
	bool seed_given;
};

/* pc_cli - parse argv into o and the arguments for fuse_main (at most 64). Returns -1 when the
 * daemon is to run, else the exit status: --help, --version, the commands `cut` and `stats`
 * (done here), or 2 for bad usage (printed). */
int pc_cli(int argc, char **argv, struct pc_opts *o, char **fuse_argv, int *fuse_argc);

/* The name and type of the daemon's mount (FUSE's fsname and subtype options; the kernel lists
 * the type as "fuse." subtype in /proc/self/mountinfo): `cut` and `stats` look for them. */
#define PC_FSNAME  "fsmix-powercut"
#define PC_SUBTYPE "powercut"
#define PC_FSTYPE  "fuse." PC_SUBTYPE

/* pc_open_backing - open o->backing (created with --size, never truncated: an existing file
 * is used as it is, and must then have o->size bytes if --size is given) and lock it (flock
 * LOCK_EX, held as long as the descriptor is open: one daemon per backing file); its size, a
 * whole number of 4 KiB blocks, in *size, and whether this call made the file in *created.
 * The descriptor, or -1 (printed) with the exit status in *status: 3 the file is locked by
 * another fsmix-powercut, 2 it is missing (without --size) or not a usable image, 1 another
 * failure. Nothing it made is left behind on failure. */
int pc_open_backing(const struct pc_opts *o, uint64_t *size, bool *created, int *status);

/* pc_drop_backing - close fd, the backing file; when this process made it (created), remove
 * it too, if o->backing still names that file: a daemon that never mounted leaves nothing. */
void pc_drop_backing(const struct pc_opts *o, int fd, bool created);

/* pc_open_record - create o->record_path (O_EXCL: never an existing file) for --record, after
 * refusing a place where recording would write to the disk it records or to the daemon's own
 * mount: inside MOUNTPOINT, on a fuse.powercut mount, or on a filesystem on a loop device over
 * a file on such a mount. The descriptor, or -1 (printed) with the exit status in *status: 2 a
 * refused or unusable path, 1 another failure. */
int pc_open_record(const struct pc_opts *o, int *status);

/* pc_drop_record - close fd (if >= 0), the record; remove it too when drop (the daemon never
 * served) and o->record_path still names that file. */
void pc_drop_record(const struct pc_opts *o, int fd, bool drop);

/* pc_serve_main - `fsmix-powercut serve ...` and `inspect ...` (serve.c): argv[0] is the
 * command's name. Returns the exit status. */
int pc_serve_main(int argc, char **argv);
int pc_inspect_main(int argc, char **argv);

#endif
