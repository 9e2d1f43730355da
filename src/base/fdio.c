/* fdio.c - descriptor I/O helpers (see fdio.h). */
#include "fdio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fd_read_all(int fd, void *buf, size_t len, size_t *got)
{
	char *p = buf;
	size_t total = 0;
	int rc = 0;
	while (total < len) {
		ssize_t n = read(fd, p + total, len - total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		total += (size_t)n;
	}
	*got = total;
	return rc;
}

int tmpdir_make(char *dir, size_t size, const char *prefix, size_t room, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	int n = snprintf(dir, size, "%s/%s.XXXXXX", tmp, prefix);
	if (n < 0 || (size_t)n >= size || size - (size_t)n <= room) {
		snprintf(err, errlen, "TMPDIR is too long: %s", tmp);
		dir[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		int e = errno;
		snprintf(err, errlen, "cannot create a temporary directory in %s: %s", tmp,
		         strerror(e));
		dir[0] = '\0';
		return -e;
	}
	return 0;
}
