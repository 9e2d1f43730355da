/* subproc.c - helper programs with no signal blocked (subproc.h). */
#include "subproc.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int subproc_run(char *const argv[])
{
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid;
	int st;
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	int rc = posix_spawnp(&pid, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc)
		return -rc;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}
