/* powercut_cli.c - fsmix-powercut's command line (powercut_cli.h). */
#include "powercut_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FSMIX_VERSION
#define FSMIX_VERSION "unknown"
#endif

static const char usage[] =
    "Usage: fsmix-powercut [OPTIONS] BACKING MOUNTPOINT\n"
    "       fsmix-powercut cut MOUNTPOINT [PCT]\n"
    "       fsmix-powercut stats MOUNTPOINT\n"
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
    "  --seed N               seed of the random choices (default: from the clock; printed)\n"
    "  --stats FILE           write the counters to FILE at exit\n"
    "  -f, --foreground       stay in the foreground (default: detach once mounted)\n"
    "  -o OPTIONS             FUSE mount options\n"
    "  -h, --help             print this help;  -V, --version  print the version\n"
    "\n"
    "Limits: one request at a time; whole 4 KiB blocks, never torn; writes to one block kept\n"
    "in order; no latency but --flush-latency (fsmix-powercut(1), LIMITS).\n"
    "\n"
    "Commands: 'cut MOUNTPOINT [PCT]' cuts the power (writes \"cut [PCT]\" to\n"
    "MOUNTPOINT/control); 'stats MOUNTPOINT' prints the counters (MOUNTPOINT/stats).\n"
    "Exit status: 0 ok, 1 failure, 2 bad usage. See fsmix-powercut(1), docs/durability.md.\n";

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

/* `cut MOUNTPOINT [PCT]` and `stats MOUNTPOINT`. */
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
	snprintf(path, sizeof(path), "%s/%s", argv[2], cut ? "control" : "stats");
	int fd = open(path, cut ? O_WRONLY : O_RDONLY);
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
	static char fsopts[] = "fsname=fsmix-powercut,subtype=powercut";
	const char *pos[2];
	int npos = 0, n = 0;
	if (argc >= 2 && (!strcmp(argv[1], "cut") || !strcmp(argv[1], "stats")))
		return command(argc, argv);
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

int pc_open_backing(const struct pc_opts *o, uint64_t *size)
{
	struct stat st;
	int fd = open(o->backing, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && o->size) {
		fd = open(o->backing, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 && ftruncate(fd, (off_t)o->size)) {
			fprintf(stderr, "fsmix-powercut: %s: cannot size it: %s\n", o->backing,
			        strerror(errno));
			close(fd);
			unlink(o->backing); /* ours: just made */
			return -1;
		}
	}
	if (fd < 0) {
		fprintf(stderr, "fsmix-powercut: %s: %s%s\n", o->backing, strerror(errno),
		        errno == ENOENT ? " (give --size to create it)" : "");
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size % 4096 ||
	    (o->size && (uint64_t)st.st_size != o->size)) {
		fprintf(stderr,
		        "fsmix-powercut: %s: must be a regular file of a whole number of 4 KiB "
		        "blocks%s (it has %lld bytes)\n",
		        o->backing, o->size ? " and of --size" : "", (long long)st.st_size);
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}
