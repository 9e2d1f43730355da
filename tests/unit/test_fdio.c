/* test_fdio.c - fd_write_all (fdio.c): whole buffers arrive, errors come back as -errno. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "test.h"

static void test_whole_buffer(void)
{
	char path[] = "/tmp/fsmix-test-fdio.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	size_t n = 3 << 20; /* big enough for several write() calls on some filesystems */
	char *buf = malloc(n), *back = malloc(n);
	CHECK(buf && back);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 7);
	CHECK_EQ_I(fd_write_all(fd, buf, n), 0);
	CHECK_EQ_I(fd_write_all(fd, buf, 0), 0);
	CHECK_EQ_I((long)pread(fd, back, n, 0), (long)n);
	CHECK(memcmp(buf, back, n) == 0);
	close(fd);
	unlink(path);
	free(buf);
	free(back);
}

static void test_errors(void)
{
	int fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		CHECK_EQ_I(fd_write_all(fd, "x", 1), -ENOSPC);
		close(fd);
	}
	CHECK_EQ_I(fd_write_all(-1, "x", 1), -EBADF);
	int rd = open("/dev/null", O_RDONLY);
	CHECK(rd >= 0);
	CHECK_EQ_I(fd_write_all(rd, "x", 1), -EBADF);
	close(rd);
}

int main(void)
{
	RUN(test_whole_buffer);
	RUN(test_errors);
	return test_summary();
}
