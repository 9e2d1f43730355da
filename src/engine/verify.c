/* verify.c - `fsmix verify`: the durability log read back, matched against the plan's trees
 * (tree ids, spec hashes), replayed (durmodel.h) and checked against the files as they are
 * after a crash and a remount. Read-only: files are opened O_RDONLY (O_NOATIME where allowed);
 * nothing is created, written or removed. It takes the location lock (a flock, which writes
 * nothing), so that it never checks a tree a run is still changing. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durcheck.h"
#include "durhook.h"
#include "durmodel.h"
#include "engine.h"
#include "keys.h"

_Static_assert(DURLOG_DIR_META == DURHOOK_DIR_META, "a dirsync of meta/ names one directory");

struct vfiles {
	int roots[DURLOG_MAX_FS];
	int locks[DURLOG_MAX_FS]; /* tree_lock_location handles (0: none) */
	uint32_t n_fs, n_locks;
	int fd; /* the file last opened, by all three: a file's name is looked for in each
	         * directory a rename may have left it in (dm_ns_locate) */
	uint32_t fd_fs, fd_dir, fd_file;
	struct dirlayout layouts[DURLOG_MAX_FS]; /* each tree's directories (engine_fs_layout) */
};

/* A log with a run id (0: fsmix before run ids, checked as it always was) is checked only
 * against a tree whose marker names that run as the last that wrote it: files a later run
 * changed would read as broken promises (docs/durability.md, "Run ids"). */
static int later_run(const struct plan_fs *pf, const char *path, uint64_t log_run,
                     uint64_t tree_run, FILE *log)
{
	if (!log_run || log_run == tree_run)
		return 0;
	char tr[40];
	if (tree_run)
		snprintf(tr, sizeof(tr), "by the run %016" PRIx64, tree_run);
	else
		snprintf(tr, sizeof(tr), "by a run that records no run id");
	fprintf(log,
	        "fsmix: %s: %s is the log of the run %016" PRIx64 ", but the tree in %s was "
	        "written since %s (its marker says so): that run's changes would read as broken "
	        "promises, so the log cannot be checked against this tree; verify a log before "
	        "the next run on its tree; nothing was verified\n",
	        pf->name, path, log_run, pf->location, tr);
	return 1;
}

/* The location is a directory (it was locked) but holds no fsmix.fsN at all: a crash lost
 * the tree (a power cut with barrier=0 before its directory reached the disk), or it was
 * removed. The log's promises on it still stand: every file it promised is checked, and found
 * missing (a broken promise, exit 1), rather than nothing verified. A wrong location that
 * exists cannot be told from this, so the message says both. 1 when so (printed), else 0. */
static int tree_gone(const struct plan_fs *pf, const char *path, FILE *log)
{
	char root[PATH_MAX];
	struct stat st;
	if (snprintf(root, sizeof(root), "%s/fsmix.fs%u", pf->location, pf->index) >=
	        (int)sizeof(root) ||
	    fstatat(AT_FDCWD, root, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return 0;
	fprintf(log,
	        "fsmix: %s: no tree in %s (%s is missing): the crash lost it, or it was removed, "
	        "or %s is not where the run's filesystem is (not mounted?); every file %s "
	        "promised there is checked, and missing\n",
	        pf->name, pf->location, root, pf->location, path);
	return 1;
}

/* "data[/<directory>]/f<id>" relative to the root (tree_dir_path: a leaf of a deeper tree too);
 * "l<id>" for the second name (file with DM_SECOND_NAME, durmodel.h). */
static int rel_path(const struct dirlayout *l, uint32_t dir, uint32_t file, char *buf, size_t len)
{
	char d[TREE_NAME_MAX], f[TREE_NAME_MAX];
	if (tree_file_name(file & ~DM_SECOND_NAME, f, sizeof(f)) < 0)
		return -ENAMETOOLONG;
	if (file & DM_SECOND_NAME)
		f[0] = 'l';
	if (dir == TREE_DIR_TOP)
		return snprintf(buf, len, "data/%s", f) < (int)len ? 0 : -ENAMETOOLONG;
	if (tree_dir_path(l, dir, d, sizeof(d)) < 0)
		return -ENAMETOOLONG;
	return snprintf(buf, len, "data/%s/%s", d, f) < (int)len ? 0 : -ENAMETOOLONG;
}

static int open_file(struct vfiles *v, uint32_t fs, uint32_t dir, uint32_t file)
{
	if (v->fd >= 0 && v->fd_fs == fs && v->fd_dir == dir && v->fd_file == file)
		return v->fd;
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
	char rel[2 * TREE_NAME_MAX + 8];
	int rc = rel_path(&v->layouts[fs], dir, file, rel, sizeof(rel));
	if (rc)
		return rc;
	if (v->roots[fs] < 0)
		return -ENOENT; /* the tree is gone: tree_gone */
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = openat(v->roots[fs], rel, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(v->roots[fs], rel, flags);
	if (fd < 0) /* a symlink in its place: not fsmix's file, but its name is there */
		return errno == ELOOP ? -EEXIST : -errno;
	struct stat st;
	int err = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EEXIST; /* durmodel.h */
	if (err) {
		close(fd);
		return -err;
	}
	v->fd = fd;
	v->fd_fs = fs;
	v->fd_dir = dir;
	v->fd_file = file;
	return fd;
}

static int64_t v_size(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	struct vfiles *v = ctx;
	int fd = open_file(v, fs, dir, file);
	if (fd < 0)
		return fd;
	struct stat st;
	return fstat(fd, &st) < 0 ? -errno : (int64_t)st.st_size;
}

static int64_t v_read(void *ctx, uint32_t fs, uint32_t dir, uint32_t file, uint64_t off, void *buf,
                      size_t len)
{
	struct vfiles *v = ctx;
	int fd = open_file(v, fs, dir, file);
	if (fd < 0)
		return fd;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (int64_t)got;
}

/* The file's content read ahead, without waiting for it (durmodel_check calls this for every
 * file whose content it will read, before it reads any): the reads are queued at once, and the
 * disk serves them back to back instead of one round trip per file as the checks come to it,
 * which under crashtest (a loop device over FUSE, its cache cold) was most of verify's time.
 * A hint: whatever fails here is found (and said) by the checks. */
static void v_prefetch(void *ctx, uint32_t fs, uint32_t dir, uint32_t file)
{
	struct vfiles *v = ctx;
	char rel[2 * TREE_NAME_MAX + 8];
	if (v->roots[fs] < 0 || rel_path(&v->layouts[fs], dir, file, rel, sizeof(rel)))
		return;
	int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = openat(v->roots[fs], rel, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(v->roots[fs], rel, flags);
	if (fd < 0)
		return;
	struct stat st;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	close(fd);
}

/* Directory id under parent (meta/m<id>, or createdir's data/d<id>): 0 when a directory is there,
 * -EEXIST when the name holds something else (a file, a symlink: the name is there, no directory
 * of fsmix's; durmodel.h), -ENOENT when nothing is, or the tree is gone (tree_gone: no root to
 * look under), -errno when it cannot be looked up. */
static int v_dir(void *ctx, uint32_t fs, uint32_t parent, uint32_t id)
{
	struct vfiles *v = ctx;
	if (v->roots[fs] < 0)
		return -ENOENT; /* as open_file: missing, not EBADF's unreadable */
	char name[TREE_NAME_MAX], rel[TREE_NAME_MAX + 8];
	int rc = parent == DURLOG_DIR_META ? tree_meta_name(id, 0, name, sizeof(name))
	                                   : tree_dir_name(id, name, sizeof(name));
	if (rc < 0)
		return rc;
	snprintf(rel, sizeof(rel), "%s/%s", parent == DURLOG_DIR_META ? "meta" : "data", name);
	struct stat st;
	if (fstatat(v->roots[fs], rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -EEXIST;
}

/* Whether two names are one inode (a second name and its first): 1, 0, or -errno. */
static int v_same(void *ctx, uint32_t fs, uint32_t dir_a, uint32_t file_a, uint32_t dir_b,
                  uint32_t file_b)
{
	struct vfiles *v = ctx;
	char a[2 * TREE_NAME_MAX + 8], b[2 * TREE_NAME_MAX + 8];
	struct stat sa, sb;
	int rc = rel_path(&v->layouts[fs], dir_a, file_a, a, sizeof(a));
	if (!rc)
		rc = rel_path(&v->layouts[fs], dir_b, file_b, b, sizeof(b));
	if (rc)
		return rc;
	if (fstatat(v->roots[fs], a, &sa, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstatat(v->roots[fs], b, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The log's header against the plan and the trees: 0, or -1 (printed). */
static int match_trees(const struct plan *pl, const struct durlog_read *rd, const char *path,
                       struct vfiles *v, FILE *log)
{
	const struct durlog_header *h = &rd->h;
	if (h->n_fs != pl->n_fs) {
		fprintf(log,
		        "fsmix: %s is the log of a run on %u filesystem%s; the profile has %zu\n",
		        path, h->n_fs, h->n_fs == 1 ? "" : "s", pl->n_fs);
		return -1;
	}
	for (uint32_t i = 0; i < h->n_fs; i++) {
		const struct plan_fs *pf = &pl->fs[i];
		char err[MSG_MAX];
		uint64_t id, run;
		int lk = tree_lock_location(pf->location, err, sizeof(err));
		if (lk < 0) {
			fprintf(log, "fsmix: %s: %s%s\n", pf->name, err,
			        lk == -EBUSY ? " (a run still going there: verify after it ended)"
			                     : "");
			return -1;
		}
		v->locks[v->n_locks++] = lk;
		int fd = tree_peek(pf->location, pf->index, &id, &run, err, sizeof(err));
		if (fd < 0 && !(fd == -ENOENT && tree_gone(pf, path, log))) {
			fprintf(log, "fsmix: %s: %s%s\n", pf->name, err,
			        fd == -ENOENT
			            ? " (the tree's root is there without its marker: not "
			              "a tree fsmix can check; nothing was verified)"
			            : "");
			return -1;
		}
		v->roots[i] = fd < 0 ? -1 : fd; /* -1: the tree is gone, its files missing */
		v->layouts[i] = engine_fs_layout(&pl->fs[i]);
		v->n_fs = i + 1;
		if (fd >= 0 && id != h->fs[i].tree_id) {
			fprintf(
			    log,
			    "fsmix: %s: %s does not belong to the tree in %s (the log's tree is "
			    "%016" PRIx64 ", the location's %016" PRIx64 ")\n",
			    pf->name, path, pf->location, h->fs[i].tree_id, id);
			return -1;
		}
		if (fd >= 0 && later_run(pf, path, h->run_id, run, log))
			return -1;
		if (h->fs[i].spec_hash != engine_fs_spec_hash(pf, pl->fidelity)) {
			fprintf(
			    log,
			    "fsmix: %s: the profile's files (num_files, num_dirs, sizes, content) "
			    "differ from those of the run that wrote %s\n",
			    pf->name, path);
			return -1;
		}
	}
	return 0;
}

/* The log against what fsmix's logger can have written and what the profile's trees allow
 * (durcheck.h), before anything is replayed or sized by it: FAIL_INPUT for a bad log (printed). */
static enum failure check_log(const struct plan *pl, const struct durlog_read *rd, const char *path,
                              FILE *log)
{
	struct durlog_bounds b = {.max_workers = KEYS_MAX_THREADS};
	for (size_t i = 0; i < pl->n_fs && i < DURLOG_MAX_FS; i++)
		engine_fs_bounds(&pl->fs[i], &b.fs[i].files, &b.fs[i].dirs);
	char err[MSG_MAX];
	int rc = durlog_check(rd, &b, err, sizeof(err));
	if (rc == -ENOMEM)
		fprintf(log, "fsmix: out of memory checking %s\n", path);
	else if (rc)
		fprintf(log, "fsmix: %s is a bad log: %s; nothing was verified\n", path, err);
	return rc == -ENOMEM ? FAIL_IO : rc ? FAIL_INPUT : FAIL_NONE;
}

/* The log as it stood when the records acknowledged at acked_before_ns or later had not yet
 * been written: each worker's records are acknowledged in seq order, so what is dropped is a
 * suffix of each worker's, which the checks below accept as a log without its end record. The
 * records dropped (the known tail, what the run did after the cut) go to *tail (malloc'ed), in
 * file order; -1 when out of memory. */
static int cut_log(struct durlog_read *rd, uint64_t acked_before_ns, struct durlog_rec **tail,
                   size_t *n_tail)
{
	size_t n = 0, t = 0;
	*tail = malloc((rd->n ? rd->n : 1) * sizeof(**tail));
	if (!*tail)
		return -1;
	for (size_t i = 0; i < rd->n; i++) {
		if (rd->recs[i].t_end < acked_before_ns)
			rd->recs[n++] = rd->recs[i];
		else
			(*tail)[t++] = rd->recs[i];
	}
	rd->n = n;
	*n_tail = t;
	rd->complete = false;
	rd->end_seq = 0;
	rd->after_end = 0;
	return 0;
}

enum failure engine_verify(const struct plan *pl, const char *log_path, int model,
                           struct dm_report *rep, FILE *log)
{
	return engine_verify_cut(pl, log_path, model, 0, rep, log);
}

enum failure engine_verify_cut(const struct plan *pl, const char *log_path, int model,
                               uint64_t acked_before_ns, struct dm_report *rep, FILE *log)
{
	struct durlog_read rd;
	char err[MSG_MAX + 256];
	if (durlog_read_file(log_path, &rd, err, sizeof(err))) {
		fprintf(log, "fsmix: %s\n", err);
		return FAIL_INPUT;
	}
	struct durlog_rec *tail = NULL;
	size_t n_tail = 0;
	if (acked_before_ns && acked_before_ns <= rd.h.mono_ns) {
		/* crashtest verifies only states after the log's setup: this is verify --cut-at
		 * with another boot's time, or one not of CLOCK_MONOTONIC */
		fprintf(log,
		        "fsmix: the cut (%" PRIu64 " ns) is before %s was made (%" PRIu64
		        " ns, CLOCK_MONOTONIC): not a cut of its run; nothing was verified\n",
		        acked_before_ns, log_path, rd.h.mono_ns);
		durlog_read_free(&rd);
		return FAIL_INPUT;
	}
	if (acked_before_ns && cut_log(&rd, acked_before_ns, &tail, &n_tail)) {
		fprintf(log, "fsmix: out of memory cutting %s\n", log_path);
		durlog_read_free(&rd);
		return FAIL_IO;
	}
	struct vfiles v = {.fd = -1};
	enum failure f = FAIL_NONE;
	if (match_trees(pl, &rd, log_path, &v, log)) {
		f = FAIL_INPUT;
		goto out;
	}
	if ((f = check_log(pl, &rd, log_path, log)))
		goto out;
	if (rd.torn + rd.corrupt)
		fprintf(log, "fsmix: %s: %zu torn record%s ignored (the log's own end was cut%s)\n",
		        log_path, rd.torn + rd.corrupt, rd.torn + rd.corrupt == 1 ? "" : "s",
		        rd.corrupt ? "; some before other workers' last records, each where a "
		                     "worker's records end"
		                   : "");
	if (!rd.complete && !acked_before_ns)
		fprintf(
		    log,
		    "fsmix: %s has no end record: the run did not end (a crash), and what it "
		    "did after the log's last record is unknown; every record that reached the "
		    "log is checked, a later generation is accepted, and what a later delete or "
		    "create may explain is reported apart (lost tail), not as broken\n",
		    log_path);
	if (rd.h.flags & DLH_STREAM)
		fprintf(log,
		        "fsmix: warning: %s was written to a character device or FIFO and never "
		        "fdatasynced: after a crash its last records may be missing, so it is no "
		        "crash check (for a run that ended, its promises are checked as usual)\n",
		        log_path);
	struct durmodel *m =
	    durmodel_build(&rd.h, rd.recs, rd.n, rd.complete, (enum dm_model)model);
	if (!m && errno == EINVAL) {
		fprintf(log,
		        "fsmix: %s: a record names an extent past 2^64 bytes: not a log fsmix "
		        "wrote (bad log); nothing was verified\n",
		        log_path);
		f = FAIL_INPUT;
		goto out;
	}
	if (!m) {
		fprintf(log, "fsmix: out of memory replaying %s\n", log_path);
		f = FAIL_IO;
		goto out;
	}
	if (tail)
		durmodel_known_tail(m, tail, n_tail);
	struct dm_files files = {&v, v_size, v_read, v_dir, v_same, v_prefetch};
	if (durmodel_check(m, &files, rep, err, sizeof(err))) {
		fprintf(log, "fsmix: verify: %s\n", err);
		f = FAIL_IO;
	}
	rep->torn = rd.torn + rd.corrupt;
	rep->log_complete = rd.complete;
	rep->cut_ns = acked_before_ns;
	rep->after_cut = n_tail;
	rep->mono_ns = rd.h.mono_ns;
	rep->real_ns = rd.h.real_ns;
	durmodel_free(m);
out:
	if (v.fd >= 0)
		close(v.fd);
	for (uint32_t i = 0; i < v.n_fs; i++)
		if (v.roots[i] >= 0)
			close(v.roots[i]);
	for (uint32_t i = 0; i < v.n_locks; i++)
		tree_unlock_location(v.locks[i]);
	durlog_read_free(&rd);
	free(tail);
	return f;
}
