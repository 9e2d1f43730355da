/* test_outfile.c - the output-file rules of outfile.h on a private temporary directory:
 * symbolic link chains and loops, dangling links, refused types, a target that changes type
 * between open and commit, abort, and no temporary file left behind. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "test.h"

static char dir[] = "/tmp/fsmix-outfile-XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

/* Writes "hello\n" to path through outfile_open/commit; returns outfile_commit's result or
 * outfile_open's. */
static int write_hello(const char *path, char *err, size_t errlen)
{
	struct outfile o;
	int rc = outfile_open(&o, path, 0, err, errlen);
	if (rc)
		return rc;
	if (write(o.fd, "hello\n", 6) != 6) {
		outfile_abort(&o);
		return -EIO;
	}
	return outfile_commit(&o, err, errlen);
}

static bool file_is(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 0 && strcmp(buf, text) == 0;
}

static int entries(void)
{
	int n = 0;
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static void test_links(void)
{
	char err[MSG_MAX];
	/* a chain: a -> sub/b (relative) -> ../final (relative to sub) */
	CHECK_EQ_I(mkdir(at("sub"), 0755), 0);
	CHECK_EQ_I(symlink("sub/b", at("a")), 0);
	CHECK_EQ_I(symlink("../final", at("sub/b")), 0);
	CHECK_EQ_I(write_hello(at("a"), err, sizeof(err)), 0);
	struct stat st;
	CHECK(lstat(at("a"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(lstat(at("sub/b"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(file_is(at("final"), "hello\n"));
	/* a loop is refused with ELOOP, nothing created */
	CHECK_EQ_I(symlink("loop2", at("loop1")), 0);
	CHECK_EQ_I(symlink("loop1", at("loop2")), 0);
	int before = entries();
	CHECK_EQ_I(write_hello(at("loop1"), err, sizeof(err)), -ELOOP);
	CHECK_CONTAINS(err, "loop1");
	CHECK_EQ_I(entries(), before);
}

static void test_refused(void)
{
	char err[MSG_MAX];
	CHECK_EQ_I(outfile_check(at("sub"), err, sizeof(err)), -EISDIR);
	CHECK_CONTAINS(err, "is a directory");
	CHECK_EQ_I(outfile_check(at("nodir/x.json"), err, sizeof(err)), -ENOENT);
	CHECK_CONTAINS(err, "nodir/x.json");
	CHECK_EQ_I(outfile_check("", err, sizeof(err)), -EINVAL);
	CHECK_EQ_I(outfile_check("-", err, sizeof(err)), 0);
}

/* The target turns into a FIFO between open and commit: the FIFO is not replaced, the
 * temporary file is removed. */
static void test_changed_before_commit(void)
{
	char err[MSG_MAX];
	struct outfile o;
	int before = entries();
	CHECK_EQ_I(outfile_open(&o, at("changing"), 0, err, sizeof(err)), 0);
	CHECK(o.mode == OUTFILE_ATOMIC);
	CHECK_EQ_I(mkfifo(at("changing"), 0600), 0);
	CHECK_EQ_I(outfile_commit(&o, err, sizeof(err)), -EEXIST);
	CHECK_CONTAINS(err, "no longer a regular file");
	struct stat st;
	CHECK(lstat(at("changing"), &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_EQ_I(entries(), before + 1); /* the FIFO, no temporary file */
	unlink(at("changing"));
}

static void test_abort(void)
{
	char err[MSG_MAX];
	struct outfile o;
	CHECK_EQ_I(write_hello(at("kept"), err, sizeof(err)), 0);
	int before = entries();
	CHECK_EQ_I(outfile_open(&o, at("kept"), 0, err, sizeof(err)), 0);
	CHECK_EQ_I(entries(), before + 1); /* the temporary file */
	CHECK(write(o.fd, "partial", 7) == 7);
	outfile_abort(&o);
	outfile_abort(&o); /* idempotent */
	CHECK_EQ_I(entries(), before);
	CHECK(file_is(at("kept"), "hello\n"));
}

/* Do two paths name one file (issue 19, item 2)? */
static bool same(const char *a, const char *b)
{
	struct outfile_id x, y;
	return outfile_identify(a, &x) == 0 && outfile_identify(b, &y) == 0 &&
	       outfile_id_same(&x, &y);
}

/* A FIFO without a reader: outfile waits for one (outfile_wait_reader) instead of failing with
 * ENXIO, and the reader gets the whole document. The reader comes 0.3 s late, so the writer
 * finds none first (on a machine so slow that it does not, the test still passes). */
static void test_fifo_waits(void)
{
	char err[512] = "";
	CHECK_EQ_I(mkfifo(at("fifo"), 0600), 0);
	int fds[2];
	CHECK_EQ_I(pipe(fds), 0);
	pid_t child = fork();
	if (child == 0) {
		close(fds[0]);
		usleep(300000);
		int fd = open(at("fifo"), O_RDONLY);
		char buf[16] = "";
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		_exit(n == 6 && write(fds[1], buf, 6) == 6 ? 0 : 1);
	}
	close(fds[1]);
	CHECK_EQ_I(write_hello(at("fifo"), err, sizeof(err)), 0);
	char got[8] = "";
	CHECK_EQ_I(read(fds[0], got, 6), 6);
	CHECK_STR(got, "hello\n");
	int st = -1;
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
	CHECK_EQ_I(unlink(at("fifo")), 0);
}

static void test_identity(void)
{
	char err[MSG_MAX];
	CHECK_EQ_I(write_hello(at("one"), err, sizeof(err)), 0);
	CHECK(same(at("one"), at("one")));
	CHECK(same(at("one"), at("./one")));
	CHECK(!same(at("one"), at("two")));
	CHECK_EQ_I(symlink("one", at("to-one")), 0);
	CHECK(same(at("one"), at("to-one")));
	CHECK_EQ_I(link(at("one"), at("hard-one")), 0);
	CHECK(same(at("hard-one"), at("to-one")));
	/* names not made yet: the same once resolved, also through a dangling link */
	CHECK(same(at("new"), at("new")));
	CHECK_EQ_I(mkdir(at("idsub"), 0700), 0);
	CHECK(same(at("new"), at("idsub/../new")));
	CHECK_EQ_I(symlink("new", at("to-new")), 0);
	CHECK(same(at("to-new"), at("new")));
	CHECK(!same(at("new"), at("idsub/new")));
	CHECK(!same(at("new"), at("one")));
	/* streams take several outputs */
	CHECK(!same("/dev/null", "/dev/null"));
	struct outfile_id id;
	CHECK_EQ_I(outfile_identify(at("nodir/x"), &id), -ENOENT);
	CHECK_EQ_I(id.kind, OUTFILE_ID_UNKNOWN);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_links);
	RUN(test_refused);
	RUN(test_changed_before_commit);
	RUN(test_abort);
	RUN(test_identity);
	RUN(test_fifo_waits);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	return test_summary();
}
