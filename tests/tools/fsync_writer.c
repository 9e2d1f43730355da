/* fsync_writer - an fsync-heavy workload for the device-counter tests.
 *
 * Usage: fsync_writer FILE COUNT [BLOCK]
 *
 * Creates FILE and COUNT times appends BLOCK bytes (default 4096) and fsync()s it, so every
 * fsync has new data and new metadata to commit (what FFSB's create_fsync does per file).
 * Prints "fsyncs=COUNT". Exit 0, 1 on an I/O error, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char block[1 << 20];

int main(int argc, char **argv)
{
	char *end;
	unsigned long count, size = 4096;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: fsync_writer FILE COUNT [BLOCK]\n");
		return 2;
	}
	errno = 0;
	count = strtoul(argv[2], &end, 10);
	if (errno || *end || end == argv[2]) {
		fprintf(stderr, "fsync_writer: bad COUNT '%s'\n", argv[2]);
		return 2;
	}
	if (argc == 4) {
		size = strtoul(argv[3], &end, 10);
		if (errno || *end || end == argv[3] || size == 0 || size > sizeof(block)) {
			fprintf(stderr, "fsync_writer: BLOCK must be 1..%zu\n", sizeof(block));
			return 2;
		}
	}
	memset(block, 'f', size);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fsync_writer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		ssize_t n = write(fd, block, size);
		if (n != (ssize_t)size || fsync(fd) != 0) {
			fprintf(stderr, "fsync_writer: %s: %s\n", argv[1],
			        n < 0 || n == (ssize_t)size ? strerror(errno) : "short write");
			close(fd);
			return 1;
		}
	}
	if (close(fd) != 0) {
		fprintf(stderr, "fsync_writer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("fsyncs=%lu\n", count);
	return 0;
}
