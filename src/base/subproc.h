/* subproc.h - start a helper program (the profile's callout, gnuplot) and wait for it, or stop it.
 *
 * fsmix blocks its stop signals (SIGINT, SIGTERM, SIGHUP) in every thread during a run and
 * keeps them blocked between the runs of a sweep; a child started with system() or a plain
 * posix_spawn would inherit that mask. Children started here have no signal blocked, standard
 * input from /dev/null, and a process group of their own (so that everything the child starts
 * can be stopped together). While fsmix waits, a stop signal it receives (stopsig.h: read by a
 * run's watcher, or pending) is passed on: SIGTERM to the child's process group, then, if the
 * child has not ended SUBPROC_GRACE_MS later, SIGKILL; once the child has ended after a stop,
 * whatever is left in its group gets SIGKILL too. */
#ifndef FSMIX_SUBPROC_H
#define FSMIX_SUBPROC_H

#include <stdbool.h>

/* The grace period between SIGTERM and SIGKILL (documented in fsmix(1) and docs/profile.md). */
#define SUBPROC_GRACE_MS 2000

/* How a child's wait ended besides its status. */
struct subproc_end {
	bool stopped; /* a stop signal came: its group got SIGTERM */
	bool killed;  /* ... and SIGKILL, after the grace period */
};

/* subproc_run - run argv[0] (looked up in PATH) with argv and the process's environment, as
 * above, in directory cwd (NULL: fsmix's own), and wait for it; end (may be NULL) says whether
 * it was stopped. Returns its wait status (>= 0), or -errno when it cannot be started
 * (-ENOENT: not installed or no cwd) or waited for. */
int subproc_run(char *const argv[], const char *cwd, struct subproc_end *end);
/* subproc_run_out - subproc_run with standard output and error written to the file out (made
 * or truncated, mode 0600; NULL: fsmix's own). */
int subproc_run_out(char *const argv[], const char *cwd, const char *out, struct subproc_end *end);

#endif
