/* job.c - the command line's side of a distributed run (job.h). */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "instance.h"
#include "tree.h"

static bool wants_mpi(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--mpi"))
			return true;
	return false;
}

int job_start(struct job *j, int *argc, char ***argv)
{
	memset(j, 0, sizeof(*j));
	dist_single(&j->d);
	if (!dist_launched() && !wants_mpi(*argc, *argv))
		return -1; /* a single process, exactly as without MPI */
	char err[MSG_MAX];
	if (dist_init(&j->d, argc, argv, err, sizeof(err)) != FAIL_NONE) {
		if (j->d.rank == 0)
			fprintf(stderr, "fsmix: %s\n", err);
		return EXIT_UNSUPPORTED;
	}
	tree_instance_set(j->d.rank, j->d.size, j->d.rank == 0);
	distrun_init(&j->run, &j->d);
	if (j->d.rank != 0) { /* one voice: rank 0's (job.h) */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			fflush(NULL);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	return -1;
}

bool job_on(const struct job *j)
{
	return j->d.on;
}

int job_rank(const struct job *j)
{
	return j->d.rank;
}

int job_agree(struct job *j, int status, const char *msg, const char *suffix)
{
	if (!j->d.on)
		return status;
	char err[MSG_MAX];
	enum failure f =
	    dist_agree(&j->d, distrun_failure_of(status), msg ? msg : "", err, sizeof(err));
	if (f != FAIL_NONE && status == 0 && j->d.rank == 0)
		fprintf(stderr, "fsmix: %s%s\n", err, suffix ? suffix : "");
	return distrun_status_of(f);
}

int job_lock_locations(struct job *j, const struct plan *pl, char *err, size_t errlen)
{
	if (!j->d.on || j->d.rank != 0)
		return 0;
	for (size_t i = 0; i < pl->n_fs && j->n_locks < sizeof(j->locks) / sizeof(j->locks[0]);
	     i++) {
		int h = tree_lock_location(pl->fs[i].location, err, errlen);
		if (h < 0)
			return h == -EBUSY ? EXIT_BAD_INPUT : tree_status(h);
		j->locks[j->n_locks++] = h;
	}
	return 0;
}

void job_end(struct job *j)
{
	for (size_t i = 0; i < j->n_locks; i++)
		tree_unlock_location(j->locks[i]);
	j->n_locks = 0;
	if (j->d.on) {
		fflush(NULL);
		distrun_free(&j->run);
		dist_finalize(&j->d);
	}
}
