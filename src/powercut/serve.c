/* serve.c - `fsmix-powercut serve` and `inspect` (docs/durability.md, "Record and replay"):
 * crash state K of a record (state.c), served as MOUNTPOINT/disk.img for a loop device, or
 * written out once (--materialize OUT). The FUSE loop is single-threaded (-s): the state is
 * touched by one request at a time, without a lock. */
#define FUSE_USE_VERSION 31
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "powercut_cli.h"
#include "record.h"
#include "state.h"

static const char serve_usage[] =
    "Usage: fsmix-powercut serve --record FILE [--base IMAGE] --state K [--subset SUBSET]\n"
    "                            [--torn SEED] [--lose N] [--read-only] [-f] [-o OPTS]\n"
    "                            MOUNTPOINT\n"
    "       fsmix-powercut serve --record FILE [--base IMAGE] --state K [--subset SUBSET]\n"
    "                            [--torn SEED] [--lose N] --materialize OUT\n"
    "Crash state K of a record made by 'fsmix-powercut --record FILE': IMAGE (the backing\n"
    "file as it was when the record began; zeroes if the daemon made it with --size and no\n"
    "IMAGE is given), every write before flush K (K = 0: none; 'last': the record's last\n"
    "flush), and SUBSET of the writes between flush K and the next flush, the cut or the end:\n"
    "  none (default), all, prefix:N (the first N), random:SEED (each with probability 1/2)\n"
    "  --torn SEED      the last write applied is torn: each of its 512-byte sectors new or\n"
    "                   old by SEED, at least one of each (a one-sector write stays whole)\n"
    "  --lose N         the writes between flush K-N and flush K are lost (K >= N): a disk\n"
    "                   that reorders writes across flushes (a test aid)\n"
    "Served at MOUNTPOINT/disk.img (for losetup) copy-on-write: IMAGE and FILE are only\n"
    "read; writes to disk.img (a mount's journal replay) are kept in memory and lost at\n"
    "the unmount, or refused with EROFS under --read-only. --materialize writes the state\n"
    "to OUT (a new file, sparse) instead. The same arguments give the same bytes.\n"
    "Write 'state K [SUBSET] [torn SEED] [lose N]' to MOUNTPOINT/control to serve\n"
    "another state (the disk's own writes dropped), only while nothing holds disk.img's\n"
    "loop device open.\n"
    "Exit status: 0 ok, 1 failure, 2 bad usage or a record that is truncated, corrupt or of\n"
    "another version, a state the record does not have, an IMAGE of the wrong size.\n";

static struct pc_record srec;
static struct pc_state sst;
static const unsigned char *sbase; /* the base image mapped, or NULL: zeroes */
static bool read_only;

/* ---- the FUSE filesystem: disk.img and control ---- */

static void sv_summary(const struct pc_spec *sp);

/* Digits only, all of s, no overflow: control's numbers and the options' alike. */
static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !*end && !errno;
}

/* "state K [SUBSET] [torn SEED] [lose N]" written to control: the state rebuilt, the disk's own
 * writes dropped. -EINVAL for a bad line or a state the record does not have (said on
 * standard error), -ENOMEM; the state served is then unchanged. */
static int sv_control(const char *buf, size_t len)
{
	char line[128], *save, why[512];
	struct pc_spec sp = {.subset = PC_SUB_NONE};
	struct pc_state next;
	snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
	         buf);
	char *w = strtok_r(line, " \n", &save), *k = strtok_r(NULL, " \n", &save);
	if (!w || strcmp(w, "state") || !k)
		return -EINVAL;
	uint64_t v = srec.nflush, n;
	if (strcmp(k, "last") && (!parse_u64(k, &v) || v > SIZE_MAX))
		return -EINVAL;
	sp.k = (size_t)v;
	for (w = strtok_r(NULL, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(w, "lose")) {
			char *a = strtok_r(NULL, " \n", &save);
			if (!a || !parse_u64(a, &n) || n > SIZE_MAX)
				return -EINVAL;
			sp.lose = (size_t)n;
		} else if (!strcmp(w, "torn")) {
			char *seed = strtok_r(NULL, " \n", &save);
			if (!seed || !parse_u64(seed, &sp.torn_seed))
				return -EINVAL;
			sp.torn = true;
		} else if (!pc_spec_parse(w, &sp)) {
			return -EINVAL;
		}
	}
	if (pc_state_build(&next, &srec, sbase, &sp, why, sizeof(why))) {
		fprintf(stderr, "fsmix-powercut serve: control: %s\n", why);
		return strcmp(why, "out of memory") ? -EINVAL : -ENOMEM;
	}
	pc_state_free(&sst);
	sst = next;
	sv_summary(&sp);
	return 0;
}

static int sv_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!strcmp(path, "/control")) {
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
		return 0;
	}
	if (strcmp(path, "/disk.img"))
		return -ENOENT;
	st->st_mode = S_IFREG | (read_only ? 0400 : 0600);
	st->st_nlink = 1;
	st->st_size = (off_t)sst.size;
	st->st_blocks = (blkcnt_t)(sst.size / 512);
	return 0;
}

static int sv_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk.img", NULL, 0, 0);
	fill(buf, "control", NULL, 0, 0);
	return 0;
}

static int sv_open(const char *path, struct fuse_file_info *fi)
{
	if (!strcmp(path, "/control"))
		return (fi->flags & O_ACCMODE) == O_RDONLY ? -EACCES : 0;
	if (strcmp(path, "/disk.img"))
		return -ENOENT;
	if (read_only && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	fi->direct_io = 1; /* no page cache: the next state's disk.img is read afresh */
	return 0;
}

static int sv_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/disk.img"))
		return -EBADF;
	if ((uint64_t)off >= sst.size)
		return 0;
	if ((uint64_t)off + len > sst.size)
		len = (size_t)(sst.size - (uint64_t)off);
	pc_state_read(&sst, (uint64_t)off, buf, len);
	return (int)len;
}

static int sv_write(const char *path, const char *buf, size_t len, off_t off,
                    struct fuse_file_info *fi)
{
	(void)fi;
	if (!strcmp(path, "/control")) {
		int rc = sv_control(buf, len);
		return rc ? rc : (int)len;
	}
	if (read_only)
		return -EROFS;
	if ((uint64_t)off + len > sst.size)
		return -ENOSPC;
	int rc = pc_state_write(&sst, (uint64_t)off, buf, len);
	return rc ? rc : (int)len;
}

static int sv_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path, (void)datasync, (void)fi;
	return 0; /* the state's writes live in memory: nothing to make durable */
}

static int sv_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	if (!strcmp(path, "/control"))
		return 0; /* `echo ... > control` truncates first */
	return (uint64_t)size == sst.size ? 0 : -EPERM;
}

static void *sv_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return NULL;
}

static const struct fuse_operations sv_ops = {
    .init = sv_init,
    .getattr = sv_getattr,
    .readdir = sv_readdir,
    .open = sv_open,
    .read = sv_read,
    .write = sv_write,
    .fsync = sv_fsync,
    .truncate = sv_truncate,
};

/* ---- the command ---- */

struct sv_args {
	const char *record, *base, *out, *mountpoint, *state;
	struct pc_spec spec;
	char *fuse_argv[16];
	int fuse_argc;
};

/* One option with a value; 0, 2 bad (printed), -1 not one of these. */
static int sv_option(const char *name, const char *v, struct sv_args *a)
{
	bool ok = true;
	uint64_t n;
	if (!strcmp(name, "--record"))
		a->record = v;
	else if (!strcmp(name, "--base"))
		a->base = v;
	else if (!strcmp(name, "--materialize"))
		a->out = v;
	else if (!strcmp(name, "--state"))
		a->state = v;
	else if (!strcmp(name, "--subset"))
		ok = pc_spec_parse(v, &a->spec);
	else if (!strcmp(name, "--lose"))
		ok = parse_u64(v, &n) && n <= SIZE_MAX && ((a->spec.lose = (size_t)n), true);
	else if (!strcmp(name, "--torn"))
		ok = parse_u64(v, &a->spec.torn_seed) && (a->spec.torn = true);
	else
		return -1;
	if (!ok)
		fprintf(stderr, "fsmix-powercut serve: %s: bad value '%s' (see serve --help)\n",
		        name, v);
	return ok ? 0 : 2;
}

/* argv into a; -1 to go on, else the exit status (help printed: 0; bad usage: 2). */
static int sv_parse(int argc, char **argv, struct sv_args *a)
{
	static char fsopts[] = "fsname=fsmix-powercut-serve,subtype=powercut-serve";
	a->fuse_argv[a->fuse_argc++] = "fsmix-powercut";
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(serve_usage, stdout);
			return 0;
		}
		if (!strcmp(o, "--read-only")) {
			read_only = true;

		} else if (!strcmp(o, "-f") || !strcmp(o, "--foreground")) {
			a->fuse_argv[a->fuse_argc++] = "-f";
		} else if (!strcmp(o, "-o") && i + 1 < argc && a->fuse_argc < 10) {
			a->fuse_argv[a->fuse_argc++] = "-o";
			a->fuse_argv[a->fuse_argc++] = argv[++i];
		} else if (o[0] == '-' && o[1]) {
			int rc = i + 1 < argc ? sv_option(o, argv[i + 1], a) : -1;
			if (rc < 0)
				fprintf(
				    stderr,
				    "fsmix-powercut serve: unknown option or no value: '%s' (see "
				    "serve --help)\n",
				    o);
			if (rc)
				return 2;
			i++;
		} else if (!a->mountpoint) {
			a->mountpoint = o;
		} else {
			fprintf(stderr, "fsmix-powercut serve: one MOUNTPOINT, not '%s'\n", o);
			return 2;
		}
	}
	if (!a->record || !a->state || !a->out == !a->mountpoint) {
		fprintf(stderr, "fsmix-powercut serve: needs --record FILE, --state K and one of "
		                "MOUNTPOINT and --materialize OUT (see serve --help)\n");
		return 2;
	}
	a->fuse_argv[a->fuse_argc++] = (char *)a->mountpoint;
	a->fuse_argv[a->fuse_argc++] = "-s";
	a->fuse_argv[a->fuse_argc++] = "-o";
	a->fuse_argv[a->fuse_argc++] = fsopts;
	return -1;
}

/* The base image mapped (*map; NULL: zeroes); 0 or the exit status (printed). */
static int sv_base(const struct sv_args *a, const unsigned char **map)
{
	struct stat st;
	*map = NULL;
	if (!a->base) {
		if (srec.flags & PC_RECF_ZERO_BASE)
			return 0;
		fprintf(stderr,
		        "fsmix-powercut serve: %s began on an existing backing file: give "
		        "--base IMAGE, a copy of it as it was then\n",
		        a->record);
		return 2;
	}
	int fd = open(a->base, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != srec.disk_size) {
		fprintf(stderr,
		        "fsmix-powercut serve: --base %s: %s (the record's disk has %" PRIu64
		        " bytes)\n",
		        a->base, fd < 0 ? strerror(errno) : "not a file of the disk's size",
		        srec.disk_size);
		if (fd >= 0)
			close(fd);
		return 2;
	}
	void *m = mmap(NULL, srec.disk_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "fsmix-powercut serve: --base %s: %s\n", a->base, strerror(errno));
		return 1;
	}
	*map = m;
	return 0;
}

/* The state written to out (a new file; holes where it reads zeroes). */
static int sv_materialize(const char *out)
{
	static unsigned char buf[1 << 20], zero[1 << 20];
	int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && ftruncate(fd, (off_t)sst.size) == 0;
	for (uint64_t off = 0; ok && off < sst.size; off += sizeof(buf)) {
		size_t n = sst.size - off < sizeof(buf) ? (size_t)(sst.size - off) : sizeof(buf);
		pc_state_read(&sst, off, buf, n);
		ok = !memcmp(buf, zero, n) || pwrite(fd, buf, n, (off_t)off) == (ssize_t)n;
	}
	ok = ok && fsync(fd) == 0;
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		fprintf(stderr, "fsmix-powercut serve: --materialize %s: %s%s\n", out,
		        strerror(err), err == EEXIST ? " (never written over)" : "");
		if (fd >= 0)
			unlink(out);
		return err == EEXIST ? 2 : 1;
	}
	return 0;
}

/* What the state holds, on stderr. */
static void sv_summary(const struct pc_spec *sp)
{
	fprintf(stderr,
	        "fsmix-powercut serve: state %zu of 0..%zu: %zu writes applied, %zu of the %zu "
	        "after flush %zu",
	        sp->k, srec.nflush, sst.applied, sst.volatile_applied, sst.volatile_total, sp->k);
	if (sp->torn)
		fprintf(stderr, ", the last torn: %" PRIu64 " sectors new, %" PRIu64 " old",
		        sst.torn_new, sst.torn_old);
	fputc('\n', stderr);
}

int pc_serve_main(int argc, char **argv)
{
	struct sv_args a = {.spec.subset = PC_SUB_NONE};
	char why[512];
	const unsigned char *base;
	int rc = sv_parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (pc_record_load(&srec, a.record, why, sizeof(why))) {
		fprintf(stderr, "fsmix-powercut serve: %s\n", why);
		return 2;
	}
	uint64_t k;
	if (!strcmp(a.state, "last"))
		k = srec.nflush;
	else if (!parse_u64(a.state, &k) || k > srec.nflush) {
		fprintf(stderr,
		        "fsmix-powercut serve: --state %s: the record has %zu flushes, so "
		        "states 0 to %zu (or 'last')\n",
		        a.state, srec.nflush, srec.nflush);
		return 2;
	}
	a.spec.k = (size_t)k;
	if ((rc = sv_base(&a, &base)) != 0)
		return rc;
	sbase = base;
	if (pc_state_build(&sst, &srec, base, &a.spec, why, sizeof(why))) {
		fprintf(stderr, "fsmix-powercut serve: %s\n", why);
		return strcmp(why, "out of memory") ? 2 : 1;
	}
	if (a.out && (rc = sv_materialize(a.out)) != 0)
		return rc;
	sv_summary(&a.spec);
	if (a.out)
		return 0;
	rc = fuse_main(a.fuse_argc, a.fuse_argv, &sv_ops, NULL);
	pc_state_free(&sst);
	pc_record_free(&srec);
	return rc ? 1 : 0;
}

/* `inspect [--states] FILE`: what a record holds, and each state's volatile writes. */
int pc_inspect_main(int argc, char **argv)
{
	char why[512];
	bool states = argc == 3 && !strcmp(argv[1], "--states");
	if (argc != 2 + states || argv[argc - 1][0] == '-') {
		fprintf(stderr, "fsmix-powercut: usage: fsmix-powercut inspect [--states] FILE\n");
		return 2;
	}
	if (pc_record_load(&srec, argv[argc - 1], why, sizeof(why))) {
		fprintf(stderr, "fsmix-powercut inspect: %s\n", why);
		return 2;
	}
	uint64_t end = srec.n ? srec.e[srec.n - 1].ns : srec.start_ns;
	printf("format %u\ndisk_size %" PRIu64 "\nbase %s\nentries %zu\nwrites %" PRIu64
	       "\nwrite_bytes %" PRIu64 "\nflushes %zu\ncut %d\nstates %zu\nseconds %.3f\n"
	       "record_bytes %zu\nstart_ns %" PRIu64 "\nend_ns %" PRIu64 "\n",
	       PC_REC_VERSION, srec.disk_size, srec.flags & PC_RECF_ZERO_BASE ? "zeroes" : "image",
	       srec.n, srec.writes, srec.write_bytes, srec.nflush, srec.cut, srec.nflush + 1,
	       (double)(end - srec.start_ns) / 1e9, srec.size, srec.start_ns, end);
	for (size_t k = 0; states && k <= srec.nflush; k++) {
		size_t lo, hi, w = 0;
		uint64_t bytes = 0;
		pc_record_epoch(&srec, k, &lo, &hi);
		for (size_t i = lo; i < hi; i++)
			if (srec.e[i].type == PC_REC_WRITE)
				w++, bytes += srec.e[i].len;
		uint64_t at = k ? srec.e[lo - 1].ns : srec.start_ns;
		printf("state %zu at %.6f s: %zu writes (%" PRIu64 " bytes) after it; ns %" PRIu64
		       "\n",
		       k, (double)(at - srec.start_ns) / 1e9, w, bytes, at);
	}
	pc_record_free(&srec);
	return 0;
}
