/* outfile.c - the output files (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stopsig.h"

#define MAX_LINKS 40 /* as the kernel's limit on symbolic links in one lookup */

static void seterr(char *err, size_t errlen, const char *path, const char *target, const char *what)
{
	if (strcmp(path, target))
		snprintf(err, errlen, "%s (a symbolic link to %s): %s", path, target, what);
	else
		snprintf(err, errlen, "%s: %s", path, what);
}

/* The directory part of p ("." for a bare name, "/" for "/x"). */
static void dir_of(const char *p, char *dir, size_t len)
{
	const char *slash = strrchr(p, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == p)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - p), p);
}

/* Follows symbolic links from path to the final name (which may not exist). st gets its lstat,
 * or st_mode 0 when it does not exist. 0 or -errno. */
static int resolve(const char *path, char *out, size_t outlen, struct stat *st)
{
	char cur[PATH_MAX];
	if (strlen(path) >= sizeof(cur))
		return -ENAMETOOLONG;
	strcpy(cur, path);
	for (int links = 0;; links++) {
		if (lstat(cur, st)) {
			if (errno != ENOENT)
				return -errno;
			st->st_mode = 0;
			break;
		}
		if (!S_ISLNK(st->st_mode))
			break;
		if (links == MAX_LINKS)
			return -ELOOP;
		char link[PATH_MAX], next[PATH_MAX];
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		if (link[0] == '/') {
			memcpy(next, link, (size_t)n + 1);
		} else {
			char dir[PATH_MAX];
			dir_of(cur, dir, sizeof(dir));
			if (snprintf(next, sizeof(next), "%s/%s", dir, link) >= (int)sizeof(next))
				return -ENAMETOOLONG;
		}
		strcpy(cur, next);
	}
	if (strlen(cur) >= outlen)
		return -ENAMETOOLONG;
	strcpy(out, cur);
	return 0;
}

static const char *refused_type(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISBLK(m))
		return "is a block device; fsmix writes results only to regular files, character "
		       "devices and FIFOs";
	if (S_ISSOCK(m))
		return "is a socket; fsmix writes results only to regular files, character devices "
		       "and FIFOs";
	if (!S_ISREG(m) && !S_ISCHR(m) && !S_ISFIFO(m))
		return "is not a regular file, character device or FIFO";
	return NULL;
}

/* The checks shared by outfile_check and outfile_open: resolves path into target, sets *mode
 * and *st. 0 or -errno with the message in err. */
static int examine(const char *path, char *target, size_t tlen, enum outfile_mode *mode,
                   struct stat *st, char *err, size_t errlen)
{
	if (!strcmp(path, "-")) {
		*mode = OUTFILE_STDOUT;
		memset(st, 0, sizeof(*st)); /* set on every 0 return, as said above */
		snprintf(target, tlen, "-");
		return 0;
	}
	if (!*path) {
		snprintf(err, errlen, "an empty file name");
		return -EINVAL;
	}
	int rc = resolve(path, target, tlen, st);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (st->st_mode) {
		const char *why = refused_type(st->st_mode);
		if (why) {
			seterr(err, errlen, path, target, why);
			return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		}
		if (!S_ISREG(st->st_mode)) {
			*mode = OUTFILE_STREAM;
			if (access(target, W_OK)) {
				rc = -errno;
				seterr(err, errlen, path, target, strerror(-rc));
				return rc;
			}
			return 0;
		}
	}
	/* A regular file or a new name: the temporary file goes into its directory. */
	*mode = OUTFILE_ATOMIC;
	char dir[PATH_MAX], what[PATH_MAX + 64];
	struct stat ds;
	dir_of(target, dir, sizeof(dir));
	if (stat(dir, &ds)) {
		rc = -errno;
		snprintf(what, sizeof(what), "%s (directory %s)", strerror(-rc), dir);
		seterr(err, errlen, path, target, what);
		return rc;
	}
	if (!S_ISDIR(ds.st_mode)) {
		snprintf(what, sizeof(what), "%s (%s is not a directory)", strerror(ENOTDIR), dir);
		seterr(err, errlen, path, target, what);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK)) {
		rc = -errno;
		snprintf(what, sizeof(what), "cannot create files in %s: %s", dir, strerror(-rc));
		seterr(err, errlen, path, target, what);
		return rc;
	}
	return 0;
}

/* The kind of an existing entry's identity. */
static void identify_stat(const struct stat *st, struct outfile_id *id)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || S_ISBLK(st->st_mode))
		id->kind = OUTFILE_ID_FILE;
	else
		id->kind = OUTFILE_ID_STREAM;
}

int outfile_identify(const char *path, struct outfile_id *id)
{
	memset(id, 0, sizeof(*id));
	struct stat st;
	if (!strcmp(path, "-")) {
		if (fstat(STDOUT_FILENO, &st))
			return -errno;
		identify_stat(&st, id);
		return 0;
	}
	char target[PATH_MAX];
	int rc = resolve(path, target, sizeof(target), &st);
	if (rc)
		return rc;
	if (st.st_mode) { /* exists (not a link: resolve followed them) */
		identify_stat(&st, id);
		return 0;
	}
	/* A new name: where it would be made, its directory resolved. */
	char dir[PATH_MAX], real[PATH_MAX];
	dir_of(target, dir, sizeof(dir));
	if (!realpath(dir, real))
		return -errno;
	const char *slash = strrchr(target, '/');
	const char *name = slash ? slash + 1 : target;
	if (snprintf(id->path, sizeof(id->path), "%s%s%s", real, strcmp(real, "/") ? "/" : "",
	             name) >= (int)sizeof(id->path))
		return -ENAMETOOLONG;
	id->kind = OUTFILE_ID_NEW;
	return 0;
}

bool outfile_id_same(const struct outfile_id *a, const struct outfile_id *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == OUTFILE_ID_FILE)
		return a->dev == b->dev && a->ino == b->ino;
	if (a->kind == OUTFILE_ID_NEW)
		return !strcmp(a->path, b->path);
	return false;
}

int outfile_check(const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX];
	enum outfile_mode mode;
	struct stat st;
	return examine(path, target, sizeof(target), &mode, &st, err, errlen);
}

int outfile_wait_reader(const char *target, int flags, const char *path, int *fd)
{
	unsigned snapshot = stopsig_count();
	fprintf(stderr, "fsmix: %s: waiting for a reader of the FIFO (Ctrl-C gives up)\n", path);
	for (;;) {
		*fd = open(target, flags);
		if (*fd >= 0 || errno != ENXIO)
			return 0;
		if (stopsig_arrived(snapshot))
			return -1;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int outfile_open(struct outfile *o, const char *path, unsigned flags, char *err, size_t errlen)
{
	static _Atomic unsigned seq;
	struct stat st;
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	int rc = examine(path, o->target, sizeof(o->target), &o->mode, &st, err, errlen);
	if (rc)
		return rc;
	int append = flags & OUTFILE_APPEND ? O_APPEND : 0;
	if (o->mode == OUTFILE_STDOUT) {
		fflush(stdout);
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (o->mode == OUTFILE_STREAM) {
		/* No O_CREAT: if the device or FIFO has gone meanwhile, nothing is created. A FIFO
		 * without a reader would block the open silently: say what fsmix waits for. */
		int base = O_WRONLY | O_NOCTTY | O_CLOEXEC | append;
		o->fd = open(o->target, base | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
		if (o->fd < 0 && errno == ENXIO) {
			if (outfile_wait_reader(o->target, base | O_NONBLOCK, path, &o->fd)) {
				seterr(err, errlen, path, o->target,
				       "interrupted while waiting for a reader of the FIFO");
				return -EINTR;
			}
		}
		if (o->fd >= 0 && S_ISFIFO(st.st_mode))
			(void)fcntl(o->fd, F_SETFL, append); /* blocking writes from here on */
		if (o->fd < 0) {
			rc = -errno;
			seterr(err, errlen, path, o->target, strerror(-rc));
			return rc;
		}
		if (fstat(o->fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
			close(o->fd);
			o->fd = -1;
			seterr(err, errlen, path, o->target, "changed while fsmix opened it");
			return -EAGAIN;
		}
		return 0;
	}
	o->replaces = st.st_mode != 0;
	o->mode_bits = o->replaces ? (unsigned)(st.st_mode & 07777) : 0;
	for (int tries = 0; tries < 100 && o->fd < 0; tries++) {
		int n = snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-%ld-%u", o->target, (long)getpid(),
		                 atomic_fetch_add(&seq, 1));
		if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
			errno = ENAMETOOLONG;
			break;
		}
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | append,
		             0666);
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		rc = -errno;
		char what[256];
		snprintf(what, sizeof(what), "cannot create a temporary file next to it: %s",
		         strerror(-rc));
		seterr(err, errlen, path, o->target, what);
		o->tmp[0] = '\0';
		return rc;
	}
	/* The replaced file's permissions carry over (a private result stays private). */
	if (o->replaces)
		(void)fchmod(o->fd, o->mode_bits);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->mode != OUTFILE_STDOUT && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->mode == OUTFILE_ATOMIC && o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

/* The end of a commit, after the descriptor was closed with the first error e (0: none). */
static int finish(struct outfile *o, int e, char *err, size_t errlen)
{
	char what[256];
	o->fd = -1;
	if (o->mode == OUTFILE_STREAM || e) {
		if (e) {
			snprintf(what, sizeof(what), "cannot write: %s", strerror(e));
			seterr(err, errlen, o->path, o->target, what);
			outfile_abort(o);
		}
		return -e;
	}
	/* The target may have been replaced by something that must not be replaced since it was
	 * examined: check again just before the rename. */
	struct stat st;
	if (lstat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
		seterr(err, errlen, o->path, o->target,
		       "is no longer a regular file; fsmix does not replace it");
		outfile_abort(o);
		return -EEXIST;
	}
	if (rename(o->tmp, o->target)) {
		e = errno;
		snprintf(what, sizeof(what), "cannot write: %s", strerror(e));
		seterr(err, errlen, o->path, o->target, what);
		outfile_abort(o);
		return -e;
	}
	o->tmp[0] = '\0';
	/* Make the rename durable too (best effort). */
	char dir[PATH_MAX];
	dir_of(o->target, dir, sizeof(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int e = 0;
	if (o->mode == OUTFILE_STDOUT) {
		o->fd = -1;
		return 0;
	}
	if (o->fd < 0) {
		seterr(err, errlen, o->path, o->target, "not open");
		return -EBADF;
	}
	if (o->mode == OUTFILE_ATOMIC && fsync(o->fd))
		e = errno;
	if (close(o->fd) && !e && errno != EINTR)
		e = errno;
	return finish(o, e, err, errlen);
}

int outfile_write(const char *path, int (*fill)(FILE *f, void *arg), void *arg, char *err,
                  size_t errlen)
{
	struct outfile o;
	int orc = outfile_open(&o, path, 0, err, errlen);
	if (orc)
		return orc;
	FILE *f = stdout;
	if (o.mode == OUTFILE_STDOUT) {
		clearerr(stdout);
	} else {
		f = fdopen(o.fd, "w");
		if (!f) {
			int e = errno ? errno : ENOMEM;
			seterr(err, errlen, path, o.target, strerror(e));
			outfile_abort(&o);
			return -e;
		}
	}
	errno = 0;
	int rc = fill(f, arg);
	int e = 0;
	if (fflush(f) || ferror(f))
		e = errno ? errno : EIO;
	else if (rc)
		e = ENOMEM;
	if (o.mode == OUTFILE_STDOUT) {
		if (e) {
			snprintf(err, errlen, "standard output: cannot write: %s", strerror(e));
			/* reported here: main() does not report stdout again */
			(void)outfile_stdout_failed(NULL, 0);
			return -e;
		}
		return 0;
	}
	if (!e && o.mode == OUTFILE_ATOMIC && fsync(o.fd))
		e = errno;
	if (fclose(f) && !e) /* closes o.fd */
		e = errno ? errno : EIO;
	return finish(&o, e, err, errlen);
}

static volatile sig_atomic_t got_sigpipe;

static void on_sigpipe(int sig)
{
	(void)sig;
	got_sigpipe = 1;
}

void outfile_ignore_sigpipe(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

bool outfile_stdout_failed(char *err, size_t errlen)
{
	static bool reported;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return false;
	if (reported)
		return false;
	reported = true;
	if (!err)
		return true;
	/* stdio keeps only "an error happened": find the reason. A pipe without a reader raised
	 * SIGPIPE; a device such as /dev/full fails an empty write too. */
	int e = EIO;
	struct stat st;
	if (got_sigpipe && fstat(STDOUT_FILENO, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		e = EPIPE;
	else if (write(STDOUT_FILENO, "", 0) < 0)
		e = errno;
	snprintf(err, errlen, "standard output: cannot write: %s; the report on it is incomplete",
	         strerror(e));
	return true;
}
