/* devstat_probe - print what devstat finds under a directory and, given a command, the device
 * counters it moved.
 *
 * Usage: devstat_probe DIR [-- COMMAND [ARG...]]
 *
 * Output is one "key=value" line each, for the e2e tests to grep: path, mount_point, fstype,
 * source, options, device ("loop0 7:0", or "n/a: <why>"), stat. With a command: DIR's
 * filesystem is synced (so earlier writeback stays out of the window), the counters are read,
 * the command runs, they are read again, and the difference is printed (read_ios, write_ios,
 * write_kib, discard_ios, flush_ios, status, elapsed_ms). Counters that cannot be measured are
 * "n/a: <reason>". Exit status: the command's (128+signal when killed), 2 on usage errors, 1
 * when DIR cannot be probed or the command cannot be started.
 */
#include "compiler.h"
#include "devstat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void print_counter(const char *name, const struct devstat_sample *d, bool present,
                          uint64_t v, const char *why)
{
	if (!d->valid)
		printf("%s=n/a: %s\n", name, why);
	else if (!present)
		printf("%s=n/a: the kernel does not report it\n", name);
	else
		printf("%s=%" PRIu64 "\n", name, v);
}

static int run(char **argv, int *status)
{
	pid_t pid;

	fflush(stdout); /* the command writes to the same stdout */
	pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "devstat_probe: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct devstat_dev d;
	struct devstat_sample before, after, delta;
	const char *why;
	char whybuf[200];
	uint64_t t0;
	int err, status, fd;

	if (argc < 2 || (argc > 2 && (strcmp(argv[2], "--") != 0 || argc < 4))) {
		fprintf(stderr, "usage: devstat_probe DIR [-- COMMAND [ARG...]]\n");
		return 2;
	}
	err = devstat_probe(argv[1], &d);
	if (err) {
		fprintf(stderr, "devstat_probe: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	printf("path=%s\nmount_point=%s\nfstype=%s\nsource=%s\noptions=%s\n", d.path, d.mount_point,
	       d.fstype, d.mount_source, d.mount_options);
	if (d.has_device)
		printf("device=%s %u:%u\nstat=%s\n", d.devname, d.major, d.minor, d.stat_path);
	else
		printf("device=n/a: %s\n", d.why);
	if (argc == 2)
		return 0;

	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
	why = d.why;
	err = d.has_device ? devstat_read(&d, &before) : -ENODEV;
	if (d.has_device && err) {
		snprintf(whybuf, sizeof(whybuf), "%s: %s", d.stat_path, strerror(-err));
		why = whybuf;
	}
	t0 = now_ns();
	err = run(argv + 3, &status);
	if (err) {
		fprintf(stderr, "devstat_probe: cannot run %s: %s\n", argv[3], strerror(-err));
		return 1;
	}
	printf("elapsed_ms=%" PRIu64 "\n", (now_ns() - t0) / 1000000);
	if (d.has_device && before.valid) {
		err = devstat_read(&d, &after);
		if (err) {
			snprintf(whybuf, sizeof(whybuf), "%s: %s", d.stat_path, strerror(-err));
			why = whybuf;
		}
		devstat_delta(&before, &after, &delta);
		if (!err && !delta.valid)
			why = "counters went backwards: device reset?";
	} else {
		memset(&delta, 0, sizeof(delta));
	}
	print_counter("read_ios", &delta, true, delta.read_ios, why);
	print_counter("write_ios", &delta, true, delta.write_ios, why);
	print_counter("write_kib", &delta, true, delta.write_sectors / 2, why);
	print_counter("discard_ios", &delta, delta.has_discard, delta.discard_ios, why);
	print_counter("flush_ios", &delta, delta.has_flush, delta.flush_ios, why);

	if (WIFEXITED(status)) {
		printf("status=%d\n", WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	printf("status=signal %d\n", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}
