/* job.c - the command line's side of a distributed run (job.h). */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dist.h"
#include "distrun.h"
#include "instance.h"
#include "preflight.h"
#include "tree.h"

static struct job {
	struct dist d;
	struct distrun run;
	int locks[64]; /* rank 0: the locations' locks (tree_lock_location) */
	size_t n_locks;
} job;

static bool wants_mpi(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--mpi"))
			return true;
	return false;
}

enum failure job_start(int *argc, char ***argv)
{
	dist_single(&job.d);
	if (!dist_launched() && !wants_mpi(*argc, *argv))
		return FAIL_NONE; /* a single process, exactly as without MPI */
	char err[MSG_MAX];
	if (dist_init(&job.d, argc, argv, err, sizeof(err)) != FAIL_NONE) {
		if (job.d.rank == 0)
			fprintf(stderr, "fsmix: %s\n", err);
		return FAIL_UNSUPPORTED;
	}
	tree_instance_set(job.d.rank, job.d.size, job.d.rank == 0);
	distrun_init(&job.run, &job.d);
	if (job.d.rank != 0) { /* one voice: rank 0's (job.h) */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			fflush(NULL);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	return FAIL_NONE;
}

bool job_on(void)
{
	return job.d.on;
}

int job_rank(void)
{
	return job.d.rank;
}

enum failure job_options(struct cli *c, char *err, size_t errlen)
{
	static char lat_log[PATH_MAX];
	if (!job.d.on)
		return FAIL_NONE;
	if (c->interval_s > 0) {
		snprintf(err, errlen, "--interval is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (c->crash) {
		snprintf(err, errlen, "--crash-after is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (c->durability_log_path) { /* verify checks one process's trees */
		snprintf(err, errlen,
		         "--durability-log is not available in a distributed run (MPI)");
		return FAIL_INPUT;
	}
	if (c->lat_log_path && !strcmp(c->lat_log_path, "-")) {
		snprintf(err, errlen,
		         "--lat-log - is not available in a distributed run: give a "
		         "FILE (rank R writes FILE.rR)");
		return FAIL_INPUT;
	}
	if (c->lat_log_path && c->command && c->command->id == CMD_RUN) {
		if (snprintf(lat_log, sizeof(lat_log), "%s.r%d", c->lat_log_path, job.d.rank) >=
		    (int)sizeof(lat_log)) {
			snprintf(err, errlen, "--lat-log '%s': name too long", c->lat_log_path);
			return FAIL_INPUT;
		}
		c->lat_log_path = lat_log;
	}
	if (job.d.rank != 0) /* rank 0 writes the job's results */
		c->json_path = c->csv_path = c->plot_path = NULL;
	return FAIL_NONE;
}

enum failure job_agree(enum failure mine, const char *msg, const char *suffix)
{
	if (!job.d.on)
		return mine;
	char err[MSG_MAX];
	enum failure f = dist_agree(&job.d, mine, msg ? msg : "", err, sizeof(err));
	if (f != FAIL_NONE && mine == FAIL_NONE && job.d.rank == 0)
		fprintf(stderr, "fsmix: %s%s\n", err, suffix ? suffix : "");
	return f;
}

/* The first line diag_print would print, without its end of line (a rank's message). */
static void diag_first_line(const struct diag *d, char *buf, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	snprintf(buf, len, "%zu error%s in the profile", d->errors, d->errors == 1 ? "" : "s");
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return;
	diag_print(d, f);
	fclose(f);
	if (text && n)
		snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}

enum failure job_profile(enum failure f, const struct diag *d)
{
	if (!job.d.on)
		return f;
	char msg[MSG_MAX];
	diag_first_line(d, msg, sizeof(msg));
	return job_agree(f, msg, "; nothing was run");
}

/* Rank 0 takes every location's lock for the whole command (the other ranks take none:
 * tree/instance.h). FAIL_NONE, or the failure with the message in err. */
static enum failure lock_locations(const struct plan *pl, char *err, size_t errlen)
{
	if (job.d.rank != 0)
		return FAIL_NONE;
	for (size_t i = 0; i < pl->n_fs && job.n_locks < sizeof(job.locks) / sizeof(job.locks[0]);
	     i++) {
		int h = tree_lock_location(pl->fs[i].location, err, errlen);
		if (h < 0)
			return h == -EBUSY ? FAIL_INPUT : tree_failure(h);
		job.locks[job.n_locks++] = h;
	}
	return FAIL_NONE;
}

enum failure job_locations(const struct plan *pl, bool check)
{
	if (!job.d.on)
		return check ? preflight_locations(pl, stderr) : FAIL_NONE;
	char msg[MSG_MAX] = "";
	char *text = NULL;
	size_t n = 0;
	enum failure f = FAIL_NONE;
	FILE *mem = check ? open_memstream(&text, &n) : NULL;
	if (mem) { /* rank 0 prints it; any rank's first line is its message */
		f = preflight_locations(pl, mem);
		fclose(mem);
		if (text && n) {
			fputs(text, stderr);
			snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(text, "\n"), text);
		}
		free(text);
	} else if (check) {
		f = preflight_locations(pl, stderr);
	}
	if (f == FAIL_NONE && (f = lock_locations(pl, msg, sizeof(msg))))
		fprintf(stderr, "fsmix: %s\n", msg);
	/* "fsmix: X" -> "X" inside the job's "rank R on HOST: X" */
	return job_agree(f, strncmp(msg, "fsmix: ", 7) ? msg : msg + 7, "; nothing was run");
}

const struct engine_hooks *job_hooks(void)
{
	return job.d.on ? &job.run.hooks : NULL;
}

void job_said_report_time(void)
{
	if (job.d.on && job.d.rank == 0 && distrun_since_end(&job.run) >= 0)
		fprintf(stderr,
		        "fsmix: %d ranks' results merged and reported %.3f s after the last rank's "
		        "end\n",
		        job.d.size, distrun_since_end(&job.run));
}

void job_end(void)
{
	for (size_t i = 0; i < job.n_locks; i++)
		tree_unlock_location(job.locks[i]);
	job.n_locks = 0;
	if (job.d.on) {
		fflush(NULL);
		distrun_free(&job.run);
		dist_finalize(&job.d);
	}
}
