/* subproc.c - helper programs with no signal blocked, stopped with fsmix (subproc.h). */
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#include "stopsig.h"

extern char **environ;

/* The poll of the wait: a stop signal has no descriptor the child's end could share. */
#define SUBPROC_POLL_MS 10

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int spawn(pid_t *pid, char *const argv[], const char *cwd, const char *out)
{
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t fa;
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setpgroup(&attr, 0); /* a group of its own: pgid = its pid */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	posix_spawn_file_actions_init(&fa);
	int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc && out)
		rc = posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
		                                      0600);
	if (!rc && out)
		rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (!rc && cwd)
		rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (!rc)
		rc = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

int subproc_run(char *const argv[], const char *cwd, struct subproc_end *end)
{
	return subproc_run_out(argv, cwd, NULL, end);
}

int subproc_run_out(char *const argv[], const char *cwd, const char *out, struct subproc_end *end)
{
	struct subproc_end local = {0};
	struct subproc_end *e = end ? end : &local;
	*e = (struct subproc_end){0};
	unsigned snapshot = stopsig_count();
	pid_t pid;
	int st, rc = spawn(&pid, argv, cwd, out);
	if (rc)
		return -rc;
	uint64_t kill_at = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (!e->stopped && stopsig_arrived(snapshot)) {
			e->stopped = true;
			kill_at = mono_ms() + SUBPROC_GRACE_MS;
			(void)kill(-pid, SIGTERM);
			(void)kill(-pid, SIGCONT); /* a stopped child must see it */
		} else if (e->stopped && !e->killed && mono_ms() >= kill_at) {
			e->killed = true;
			(void)kill(-pid, SIGKILL);
		}
		struct timespec ts = {0, SUBPROC_POLL_MS * 1000000L};
		nanosleep(&ts, NULL);
	}
	/* Its group outlives it while something it started is still in it (the pgid cannot be
	 * reused meanwhile): after a stop, that goes too. */
	if (e->stopped)
		(void)kill(-pid, SIGKILL);
	return st;
}
