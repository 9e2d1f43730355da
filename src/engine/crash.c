/* crash.c - run --crash-after: the filesystems under test shut down at a moment of the run
 * phase with the shutdown ioctl, without flushing their journal (FS_IOC_SHUTDOWN, flag
 * NOLOGFLUSH), as xfstests simulates a crash (docs/durability.md). Checked before anything is
 * built or the logs are made: the filesystem type (ext4, xfs, f2fs take the ioctl), that it is
 * a dedicated test filesystem (crash_place.c), the privilege the ioctl needs (CAP_SYS_ADMIN)
 * and the moment against the run's time. After the shutdown every call on those
 * filesystems fails with EIO: the workers end at their next operation, and their failures then
 * are counted apart (results.failed_after_crash), not as errors. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "engine.h"
#include "engine_int.h"

/* linux/fs.h (6.x), xfs_fs.h and f2fs.h give it three names; one number. */
#define CRASH_IOC_SHUTDOWN  _IOR('X', 125, uint32_t)
#define CRASH_NOLOGFLUSH    2u
#define CRASH_EXT4_MAGIC    0xEF53u
#define CRASH_XFS_MAGIC     0x58465342u
#define CRASH_F2FS_MAGIC    0xF2F52010u
#define CRASH_CAP_SYS_ADMIN 21
#define CRASH_RNG_STREAM    0xc4a54ull /* the moment's random stream: no worker's index */

static const char *crash_fs_name(unsigned long type)
{
	switch (type) {
	case CRASH_EXT4_MAGIC:
		return "ext4";
	case CRASH_XFS_MAGIC:
		return "xfs";
	case CRASH_F2FS_MAGIC:
		return "f2fs";
	default:
		return NULL;
	}
}

/* Whether this process holds CAP_SYS_ADMIN (the shutdown ioctl's check); true where
 * /proc/self/status cannot be read (the ioctl will tell). */
static bool crash_privileged(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	bool found = false, cap = true;
	if (!f)
		return true;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long eff;
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			cap = (eff >> CRASH_CAP_SYS_ADMIN) & 1u;
		}
	}
	fclose(f);
	return cap;
}

enum failure engine_crash_check(struct engine *e, char *err, size_t errlen)
{
	const struct engine_opts *o = e->opts;
	const struct plan *pl = e->plan;
	if (!o->crash)
		return FAIL_NONE;
	if (!pl->time_s && !pl->counted) {
		snprintf(err, errlen, "--crash-after: the profile has no run phase (time=0)");
		return FAIL_INPUT;
	}
	if (pl->time_s && o->crash_after_s >= (double)pl->time_s) {
		snprintf(
		    err, errlen,
		    "--crash-after %s%g: the moment must be before the end of the run (time=%u)",
		    o->crash_random ? "random:" : "", o->crash_after_s, (unsigned)pl->time_s);
		return FAIL_INPUT;
	}
	for (size_t i = 0; i < e->n_fs; i++) {
		const char *loc = e->fs[i].pf->location;
		struct statfs sf;
		if (statfs(loc, &sf)) {
			snprintf(err, errlen, "%s: --crash-after: cannot statfs %s: %s",
			         e->fs[i].pf->name, loc, strerror(errno));
			return errno == ENOENT || errno == ENOTDIR ? FAIL_INPUT : FAIL_IO;
		}
		if (!crash_fs_name((unsigned long)sf.f_type)) {
			snprintf(
			    err, errlen,
			    "%s: --crash-after: %s is on a filesystem (type 0x%lx) without the "
			    "shutdown ioctl; it works on ext4, xfs and f2fs only",
			    e->fs[i].pf->name, loc, (unsigned long)sf.f_type);
			return FAIL_UNSUPPORTED;
		}
	}
	enum failure f = crash_place_check(e, err, errlen); /* nobody else's filesystem */
	if (f)
		return f;
	if (!crash_privileged()) {
		snprintf(err, errlen,
		         "--crash-after: the shutdown ioctl needs CAP_SYS_ADMIN (run as root)");
		return FAIL_UNSUPPORTED;
	}
	e->crash_ns = (uint64_t)(o->crash_after_s * 1e9);
	if (o->crash_random) {
		struct rng r;
		rng_seed(&r, e->seed, CRASH_RNG_STREAM);
		e->crash_ns = e->crash_ns ? rng_below(&r, e->crash_ns) : 0;
	}
	fprintf(o->log, "fsmix: --crash-after: the filesystems shut down %.3f s into the run\n",
	        (double)e->crash_ns / 1e9);
	return FAIL_NONE;
}

void engine_crash(struct engine *e)
{
	struct results *r = e->res;
	int expected = STOP_NONE;
	/* The moment came (STOP_NONE), or the counted groups ended first (STOP_COUNT, or a
	 * stonewall): crash now. A signal or an error before it: no crash. */
	if (!atomic_compare_exchange_strong(&e->stop, &expected, STOP_CRASH)) {
		if (expected != STOP_COUNT && expected != STOP_STONEWALL)
			return;
		if (!atomic_compare_exchange_strong(&e->stop, &expected, STOP_CRASH))
			return;
	}
	engine_wake(e); /* the sleepers (op_delay) see the stop now */
	uint64_t at = now_ns();
	dev_t done[e->n_fs ? e->n_fs : 1];
	size_t n_done = 0;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		struct stat st;
		uint32_t flag = CRASH_NOLOGFLUSH;
		if (fstat(fs->tree.rootfd, &st)) {
			fprintf(e->opts->log, "fsmix: %s: --crash-after: cannot stat %s: %s\n",
			        fs->pf->name, fs->tree.root, strerror(errno));
			r->crash_failed = true;
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < n_done; k++)
			seen = seen || done[k] == st.st_dev;
		if (seen) /* another location on the same filesystem: down already */
			continue;
		if (ioctl(fs->tree.rootfd, CRASH_IOC_SHUTDOWN, &flag)) {
			fprintf(e->opts->log,
			        "fsmix: %s: --crash-after: the shutdown ioctl on %s failed: %s\n",
			        fs->pf->name, fs->tree.root, strerror(errno));
			r->crash_failed = true;
			continue;
		}
		done[n_done++] = st.st_dev;
	}
	r->crashed = n_done > 0;
	r->crash_at_s = e->t0 && at > e->t0 ? (double)(at - e->t0) / 1e9 : 0;
	fprintf(e->opts->log,
	        "fsmix: crashed: %zu filesystem%s shut down (no log flush) %.3f s into the run\n",
	        n_done, n_done == 1 ? "" : "s", r->crash_at_s);
}
