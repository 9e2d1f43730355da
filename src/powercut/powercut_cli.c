/* powercut_cli.c - fsmix-powercut's command line (powercut_cli.h). */
#include "powercut_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef FSMIX_VERSION
#define FSMIX_VERSION "unknown"
#endif

static const char usage[] =
    "Usage: fsmix-powercut [OPTIONS] BACKING MOUNTPOINT\n"
    "       fsmix-powercut cut MOUNTPOINT [PCT]\n"
    "       fsmix-powercut stats MOUNTPOINT\n"
    "       fsmix-powercut serve --record FILE [--base IMAGE] --state K [...] MOUNTPOINT\n"
    "       fsmix-powercut serve --record FILE [--base IMAGE] --state K [...] --materialize OUT\n"
    "       fsmix-powercut inspect [--states] FILE\n"
    "A disk with a volatile write cache, for power-cut experiments: mounts a FUSE filesystem\n"
    "at MOUNTPOINT whose file disk.img (for losetup) is BACKING behind a cache in memory.\n"
    "A flush (fsync of disk.img) makes every earlier write durable in BACKING; cached writes\n"
    "also destage in random order after a delay; a power cut drops the cache, and every\n"
    "request fails with EIO after it. Unmounting without a cut writes the cache back.\n"
    "\n"
    "Options:\n"
    "  --size SIZE            create BACKING with SIZE bytes (K, M, G suffixes; a multiple\n"
    "                         of 4K); never truncates an existing file\n"
    "  --cache-size SIZE      the cache's capacity (default 64M); when full, a random block\n"
    "                         is written back to make room\n"
    "  --destage-delay MS     cached blocks are written back once cached MS milliseconds,\n"
    "                         in random order (default 1000; 'off': only flushes and a full\n"
    "                         cache write back)\n"
    "  --persist-on-cut PCT   at the cut, persist each cached block with probability PCT %\n"
    "                         first (default 0: drop the whole cache)\n"
    "  --flush-latency US     each flush takes US microseconds more, holding every other\n"
    "                         request (default 0: only its writes to BACKING)\n"
    "  --ignore-flush         a broken disk: flushes succeed and persist nothing\n"
    "  --reorder-across-flush a broken disk: a flush returns at once and persists only\n"
    "                         what came before the 4th flush back; the cut keeps the\n"
    "                         writes since the last flush and loses what they acknowledged\n"
    "  --seed N               seed of the random choices (default: from the clock; printed)\n"
    "  --stats FILE           write the counters to FILE at exit\n"
    "  --record FILE          record every write (with its data), flush and cut the disk\n"
    "                         receives, in order, timed, to FILE (made anew: never an\n"
    "                         existing file; not on the recorded disk): for 'serve'\n"
    "  -f, --foreground       stay in the foreground (default: detach once mounted)\n"
    "  -o OPTIONS             FUSE mount options\n"
    "  -h, --help             print this help;  -V, --version  print the version\n"
    "\n"
    "Limits: one request at a time; whole 4 KiB blocks, never torn; writes to one block kept\n"
    "in order; no latency but --flush-latency (fsmix-powercut(1), LIMITS).\n"
    "\n"
    "One daemon per BACKING: it holds the file's lock (flock) while it runs. A daemon that\n"
    "cannot mount removes the BACKING it has just made (never an existing one).\n"
    "\n"
    "Commands: 'cut MOUNTPOINT [PCT]' cuts the power (writes \"cut [PCT]\" to\n"
    "MOUNTPOINT/control); 'stats MOUNTPOINT' prints the counters (MOUNTPOINT/stats).\n"
    "Both act only on a live mount of fsmix-powercut (/proc/self/mountinfo says so).\n"
    "'serve' serves crash state K of a record ('serve --help'); 'inspect' describes one.\n"
    "Exit status: 0 ok, 1 failure, 2 bad usage (or a BACKING that cannot be used, a\n"
    "MOUNTPOINT that is no mount of fsmix-powercut, a --record FILE refused), 3 BACKING is\n"
    "in use by another fsmix-powercut. See fsmix-powercut(1), docs/durability.md.\n";

/* SIZE with an optional K, M or G (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || s[0] == '-' || errno)
		return false;
	uint64_t mult = 1;
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	if (mult > 1)
		end++;
	if (*end || v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end || s[0] == '-' || errno || v > max)
		return false;
	*out = v;
	return true;
}

/* The next space-separated field of a /proc/self/mountinfo line at *pp into buf, with the
 * kernel's octal escapes (\040 for ' ', ...) decoded; false at the end of the line or when it
 * does not fit. */
static bool mi_field(const char **pp, char *buf, size_t len)
{
	const char *p = *pp;
	size_t n = 0;
	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return false;
	for (; *p && *p != ' ' && *p != '\n'; p++) {
		char c = *p;
		if (c == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			c = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		}
		if (n + 1 >= len)
			return false;
		buf[n++] = c;
	}
	buf[n] = '\0';
	*pp = p;
	return true;
}

/* Whether one mountinfo line is fsmix-powercut's mount (fsname and subtype the daemon gives
 * it, pc_cli) of device dev at the mount point real. */
static bool mi_is_ours(const char *line, dev_t dev, const char *real)
{
	char f[PATH_MAX];
	unsigned maj, min;
	const char *p = line;
	if (!mi_field(&p, f, sizeof(f)) || !mi_field(&p, f, sizeof(f)) ||
	    !mi_field(&p, f, sizeof(f)) || sscanf(f, "%u:%u", &maj, &min) != 2 ||
	    makedev(maj, min) != dev || !mi_field(&p, f, sizeof(f)) || strcmp(f, "/") ||
	    !mi_field(&p, f, sizeof(f)) || strcmp(f, real))
		return false;
	do /* mount options, optional fields, up to the separator */
		if (!mi_field(&p, f, sizeof(f)))
			return false;
	while (strcmp(f, "-"));
	if (!mi_field(&p, f, sizeof(f)) || strcmp(f, PC_FSTYPE))
		return false;
	return mi_field(&p, f, sizeof(f)) && !strcmp(f, PC_FSNAME);
}

/* Whether dir is a mount of fsmix-powercut's, on top (its st_dev is the mount's): `cut` and
 * `stats` act on nothing else (a control file of any other directory is not a disk's).
 * 0 yes, 2 no (printed), 1 it cannot be told (printed: a dead mount fails the stat). */
static int our_mount(const char *dir)
{
	char real[PATH_MAX], line[3 * PATH_MAX];
	struct stat st;
	if (!realpath(dir, real) || stat(real, &st)) {
		int err = errno;
		fprintf(stderr, "fsmix-powercut: %s: %s%s\n", dir, strerror(err),
		        err == ENOTCONN ? " (its fsmix-powercut has ended)" : "");
		return err == ENOENT || err == ENOTDIR ? 2 : 1;
	}
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool ours = false;
	if (!f) {
		fprintf(stderr, "fsmix-powercut: /proc/self/mountinfo: %s\n", strerror(errno));
		return 1;
	}
	while (!ours && fgets(line, sizeof(line), f))
		ours = mi_is_ours(line, st.st_dev, real);
	fclose(f);
	if (!ours)
		fprintf(stderr,
		        "fsmix-powercut: %s is not a mount of fsmix-powercut (no %s mount of %s "
		        "there in /proc/self/mountinfo); nothing done\n",
		        dir, PC_FSTYPE, PC_FSNAME);
	return ours ? 0 : 2;
}

/* The type of the filesystem mounted from device dev ("fuse.powercut", "ext4", ...) into type,
 * from /proc/self/mountinfo; false if none is listed. */
static bool dev_fstype(dev_t dev, char *type, size_t len)
{
	char line[3 * PATH_MAX], f[PATH_MAX];
	bool found = false;
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	while (fp && !found && fgets(line, sizeof(line), fp)) {
		const char *p = line;
		unsigned maj, min;
		bool sep = false;
		if (!mi_field(&p, f, sizeof(f)) || !mi_field(&p, f, sizeof(f)) ||
		    !mi_field(&p, f, sizeof(f)) || sscanf(f, "%u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		while (!sep && mi_field(&p, f, sizeof(f)))
			sep = !strcmp(f, "-");
		found = sep && mi_field(&p, f, sizeof(f)) && snprintf(type, len, "%s", f) > 0;
	}
	if (fp)
		fclose(fp);
	return found;
}

/* Why a record in directory dir would record into a disk of fsmix-powercut's (NULL: it would
 * not): dir on a fuse.powercut mount, or on a loop device whose backing file is on one. */
static const char *on_a_disk(const char *dir)
{
	char type[64], path[PATH_MAX + 64], file[PATH_MAX];
	struct stat st;
	if (stat(dir, &st))
		return NULL;
	if (dev_fstype(st.st_dev, type, sizeof(type)) && !strcmp(type, PC_FSTYPE))
		return "is on a mount of fsmix-powercut";
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major(st.st_dev),
	         minor(st.st_dev));
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL; /* not a loop device */
	bool got = fgets(file, sizeof(file), f) != NULL;
	fclose(f);
	file[got ? strcspn(file, "\n") : 0] = '\0';
	if (got && !stat(file, &st) && dev_fstype(st.st_dev, type, sizeof(type)) &&
	    !strcmp(type, PC_FSTYPE))
		return "is on a filesystem on a loop device over a disk of fsmix-powercut";
	return NULL;
}

int pc_open_record(const struct pc_opts *o, int *status)
{
	char dir[PATH_MAX], rdir[PATH_MAX], rmnt[PATH_MAX];
	struct stat st;
	const char *why = NULL, *slash = strrchr(o->record_path, '/');
	*status = 2;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->record_path) : 1,
	         slash ? o->record_path : ".");
	if (slash == o->record_path)
		snprintf(dir, sizeof(dir), "/");
	size_t n = realpath(o->mountpoint, rmnt) ? strlen(rmnt) : 0;
	if (lstat(o->record_path, &st) == 0)
		why = "exists: a record is never written over (remove it or name another)";
	else if (!realpath(dir, rdir))
		why = "its directory cannot be resolved";
	else if (n && !strncmp(rdir, rmnt, n) && (rdir[n] == '\0' || rdir[n] == '/' || n == 1))
		why = "is inside MOUNTPOINT, the daemon's own mount";
	else
		why = on_a_disk(rdir);
	if (why) {
		fprintf(stderr, "fsmix-powercut: --record %s: %s%s; nothing mounted\n",
		        o->record_path, why,
		        strncmp(why, "is on", 5)
		            ? ""
		            : ": recording would write to the disk it records");
		return -1;
	}
	int fd = open(o->record_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "fsmix-powercut: --record %s: %s; nothing mounted\n",
		        o->record_path, strerror(errno));
		*status = errno == ENOENT || errno == EEXIST || errno == EISDIR ? 2 : 1;
	}
	return fd;
}

void pc_drop_record(const struct pc_opts *o, int fd, bool drop)
{
	struct stat a, b;
	if (fd < 0)
		return;
	if (drop && fstat(fd, &a) == 0 && stat(o->record_path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && unlink(o->record_path) == 0)
		fprintf(stderr, "fsmix-powercut: %s removed (made by this run, never served)\n",
		        o->record_path);
	close(fd);
}

/* `cut MOUNTPOINT [PCT]` and `stats MOUNTPOINT`, on a live mount of fsmix-powercut only. */
static int command(int argc, char **argv)
{
	char path[PATH_MAX], word[32];
	bool cut = !strcmp(argv[1], "cut");
	if (argc < 3 || argc > (cut ? 4 : 3)) {
		fprintf(stderr, "fsmix-powercut: usage: fsmix-powercut %s\n",
		        cut ? "cut MOUNTPOINT [PCT]" : "stats MOUNTPOINT");
		return 2;
	}
	uint64_t pct = 0;
	if (cut && argc == 4 && !parse_uint(argv[3], 100, &pct)) {
		fprintf(stderr, "fsmix-powercut: cut: PCT is 0 to 100, not '%s'\n", argv[3]);
		return 2;
	}
	int rc = our_mount(argv[2]);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/%s", argv[2], cut ? "control" : "stats");
	int fd = open(path, (cut ? O_WRONLY : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fsmix-powercut: %s: %s (is fsmix-powercut mounted there?)\n", path,
		        strerror(errno));
		return 1;
	}
	if (cut) {
		int n = argc == 4 ? snprintf(word, sizeof(word), "cut %" PRIu64 "\n", pct)
		                  : snprintf(word, sizeof(word), "cut\n");
		bool ok = write(fd, word, (size_t)n) == n;
		int err = errno;
		close(fd);
		if (!ok)
			fprintf(stderr, "fsmix-powercut: cut: %s: %s\n", path, strerror(err));
		return ok ? 0 : 1;
	}
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return n < 0 ? 1 : 0;
}

/* One option with a value at argv[*i] (the value is argv[*i + 1]); -1 unknown, 2 bad. */
static int option(char **argv, int argc, int *i, struct pc_opts *o)
{
	const char *name = argv[*i];
	if (*i + 1 >= argc) {
		fprintf(stderr, "fsmix-powercut: %s needs a value\n", name);
		return 2;
	}
	const char *v = argv[++*i];
	uint64_t u;
	bool ok = true;
	if (!strcmp(name, "--size"))
		ok = parse_size(v, &o->size) && o->size && o->size % 4096 == 0;
	else if (!strcmp(name, "--cache-size"))
		ok = parse_size(v, &o->cache_bytes) && o->cache_bytes >= 4096 &&
		     o->cache_bytes <= (64ull << 30);
	else if (!strcmp(name, "--destage-delay") && !strcmp(v, "off"))
		o->delay_ms = -1;
	else if (!strcmp(name, "--destage-delay"))
		ok = parse_uint(v, 86400000, &u) && ((o->delay_ms = (int64_t)u), true);
	else if (!strcmp(name, "--persist-on-cut"))
		ok = parse_uint(v, 100, &u) && ((o->persist_pct = (unsigned)u), true);
	else if (!strcmp(name, "--flush-latency"))
		ok = parse_uint(v, 10000000, &o->flush_us);
	else if (!strcmp(name, "--seed"))
		ok = parse_uint(v, UINT64_MAX, &o->seed) && (o->seed_given = true);
	else if (!strcmp(name, "--stats"))
		o->stats_path = v;
	else if (!strcmp(name, "--record"))
		o->record_path = v;
	else
		return -1;
	if (!ok) {
		fprintf(stderr, "fsmix-powercut: %s: bad value '%s' (see --help)\n", name, v);
		return 2;
	}
	return 0;
}

int pc_cli(int argc, char **argv, struct pc_opts *o, char **fuse_argv, int *fuse_argc)
{
	static char fsopts[] = "fsname=" PC_FSNAME ",subtype=" PC_SUBTYPE;
	const char *pos[2];
	int npos = 0, n = 0;
	if (argc >= 2 && (!strcmp(argv[1], "cut") || !strcmp(argv[1], "stats")))
		return command(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return pc_serve_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "inspect"))
		return pc_inspect_main(argc - 1, argv + 1);
	fuse_argv[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("fsmix-powercut %s\n", FSMIX_VERSION);
			return 0;
		}
		if (!strcmp(a, "--ignore-flush")) {
			o->ignore_flush = true;
		} else if (!strcmp(a, "--reorder-across-flush")) {
			o->reorder = true;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--foreground") || !strcmp(a, "-d")) {
			fuse_argv[n++] = argv[i];
		} else if (!strcmp(a, "-o") && i + 1 < argc && n < 56) {
			fuse_argv[n++] = argv[i++];
			fuse_argv[n++] = argv[i];
		} else if (a[0] == '-' && a[1]) {
			int rc = option(argv, argc, &i, o);
			if (rc < 0)
				fprintf(stderr,
				        "fsmix-powercut: unknown option '%s' (see --help)\n", a);
			if (rc)
				return 2;
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			fprintf(stderr,
			        "fsmix-powercut: one BACKING and one MOUNTPOINT, not '%s'\n", a);
			return 2;
		}
	}
	if (npos != 2) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	for (int i = 1; i < n; i++) /* FUSE's own spelling */
		if (!strcmp(fuse_argv[i], "--foreground"))
			fuse_argv[i] = "-f";
	o->backing = pos[0];
	o->mountpoint = pos[1];
	fuse_argv[n++] = (char *)pos[1];
	fuse_argv[n++] = "-s"; /* one request at a time; the destage thread takes the lock too */
	fuse_argv[n++] = "-o";
	fuse_argv[n++] = fsopts;
	*fuse_argc = n;
	return -1;
}

int pc_open_backing(const struct pc_opts *o, uint64_t *size, bool *created, int *status)
{
	struct stat st;
	*created = false;
	*status = 2;
	int fd = open(o->backing, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && o->size) {
		fd = open(o->backing, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		*created = fd >= 0;
	}
	if (fd < 0) {
		fprintf(stderr, "fsmix-powercut: %s: %s%s\n", o->backing, strerror(errno),
		        errno == ENOENT ? " (give --size to create it)" : "");
		return -1;
	}
	/* One daemon per backing file, for its whole life (the lock goes with the descriptor
	 * into the daemon FUSE forks): a second one's cache would write stale blocks over what
	 * the first had flushed, when either writes back. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;
		fprintf(stderr, "fsmix-powercut: %s: %s; nothing mounted\n", o->backing,
		        err == EWOULDBLOCK ? "in use: another fsmix-powercut serves it (it holds "
		                             "the file's lock); one daemon per backing file"
		                           : strerror(err));
		close(fd); /* if just made, another daemon locked it meanwhile: its file now */
		*created = false;
		*status = err == EWOULDBLOCK ? 3 : 1;
		return -1;
	}
	if (*created && ftruncate(fd, (off_t)o->size)) {
		fprintf(stderr, "fsmix-powercut: %s: cannot size it: %s\n", o->backing,
		        strerror(errno));
		pc_drop_backing(o, fd, true);
		*created = false;
		*status = 1;
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size % 4096 ||
	    (o->size && (uint64_t)st.st_size != o->size)) {
		fprintf(stderr,
		        "fsmix-powercut: %s: must be a regular file of a whole number of 4 KiB "
		        "blocks%s (it has %lld bytes)\n",
		        o->backing, o->size ? " and of --size" : "", (long long)st.st_size);
		pc_drop_backing(o, fd, *created);
		*created = false;
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

void pc_drop_backing(const struct pc_opts *o, int fd, bool created)
{
	struct stat a, b;
	/* only the file this process made, and only if the name still is that file */
	if (created && fstat(fd, &a) == 0 && stat(o->backing, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && unlink(o->backing) == 0)
		fprintf(stderr, "fsmix-powercut: %s removed (made by this run, never mounted)\n",
		        o->backing);
	close(fd);
}
