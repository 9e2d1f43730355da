/* main.c - the fsmix binary: parses argv (parse.c, through the option and command tables),
 * runs the command (commands.c) and turns its failure into the documented exit status
 * (exitcode.h). The only place that exits. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "exitcode.h"
#include "job.h"
#include "outfile.h"
#include "parse.h"
#include "stopsig.h"
#include "usage.h"

/* A closed descriptor 0, 1 or 2 would be taken by the next file fsmix opens (a report would
 * then land in the JSON's temporary file): park /dev/null there, read-only, so that writes
 * to a closed stdout still fail and are reported. */
static void keep_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

/* What the parsed command line asks for. */
static enum failure act(struct cli *c)
{
	switch (c->action) {
	case ACT_USAGE:
		usage_print(stderr);
		return FAIL_INPUT;
	case ACT_HELP:
		usage_print(stdout);
		return FAIL_NONE;
	case ACT_VERSION:
		printf("fsmix %s\n", FSMIX_VERSION);
		return FAIL_NONE;
	case ACT_HELP_MAN:
		usage_print_man(stdout);
		return FAIL_NONE;
	case ACT_COMMAND:
		break;
	}
	return command_run(c);
}

int main(int argc, char **argv)
{
	static struct cli c; /* static: what it holds stays reachable (leak checkers) */
	keep_std_fds();
	/* A closed stdout (fsmix ... | head -1) must not kill the run before its JSON is written
	 * and its trees are cleaned up: the failure is reported at the end instead. */
	outfile_ignore_sigpipe();
	/* SIGUSR1 stops no command (a run's watcher, and this handler elsewhere, say so). */
	stopsig_ignore_usr1();
	char err[MSG_MAX];
	/* Under an MPI launcher (or --mpi): join the job first (docs/distributed.md). */
	enum failure f = job_start(&argc, &argv);
	if (f == FAIL_NONE) {
		f = cli_parse(argc, argv, &c, err, sizeof(err));
		if (f == FAIL_NONE)
			f = job_options(&c, err, sizeof(err));
		if (f)
			fprintf(stderr, "fsmix: %s\nTry 'fsmix --help'.\n", err);
		/* a distributed run: every rank parsed its command line, and all were given the
		 * same profile and options (job.h) */
		enum failure job = job_parsed(&c, f, err);
		if (f == FAIL_NONE)
			f = job != FAIL_NONE ? job : act(&c);
	}
	char why[256];
	if (outfile_stdout_failed(why, sizeof(why))) {
		fprintf(stderr, "fsmix: %s\n", why);
		f = failure_first(f, FAIL_IO);
	}
	job_end();
	return exit_status_of(f);
}
