/* subproc.c - helper programs with no signal blocked (subproc.h). */
#include "subproc.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int subproc_run(char *const argv[], const char *cwd)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none;
	pid_t pid;
	int st;
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_init(&fa);
	int rc = cwd ? posix_spawn_file_actions_addchdir_np(&fa, cwd) : 0;
	if (!rc)
		rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc)
		return -rc;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}
