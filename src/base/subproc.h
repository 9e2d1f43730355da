/* subproc.h - start a helper program (the profile's callout, gnuplot) and wait for it.
 *
 * fsmix blocks its stop signals (SIGINT, SIGTERM, SIGHUP) in every thread during a run and
 * keeps them blocked between the runs of a sweep; a child started with system() or a plain
 * posix_spawn would inherit that mask, so Ctrl-C (SIGINT to the terminal's process group)
 * could not stop it. Children started here have no signal blocked. */
#ifndef FSMIX_SUBPROC_H
#define FSMIX_SUBPROC_H

/* subproc_run - run argv[0] (looked up in PATH) with argv and the process's environment, no
 * signal blocked, in directory cwd (NULL: fsmix's own), and wait for it. Returns its wait
 * status (>= 0), or -errno when it cannot be started (-ENOENT: not installed or no cwd) or
 * waited for. */
int subproc_run(char *const argv[], const char *cwd);

#endif
