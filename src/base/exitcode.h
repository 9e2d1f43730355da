/* exitcode.h - fsmix's documented exit statuses (fsmix(1), EXIT STATUS; each has a test), and
 * the one place where a failure (failure.h) becomes one. In base, so that every layer that
 * records the status a failure ends with (a sweep's JSON, study/) reads the same table the
 * command line exits with; only the command line calls exit. */
#ifndef FSMIX_EXITCODE_H
#define FSMIX_EXITCODE_H

#include "failure.h"

enum fsmix_exit {
	EXIT_OK = 0,           /* the run (or check) completed */
	EXIT_RUN_FAILED = 1,   /* an I/O error during setup or the run (ENOSPC, EIO, ...) */
	EXIT_BAD_INPUT = 2,    /* invalid profile, command line or location; nothing was run */
	EXIT_UNSUPPORTED = 3,  /* a needed feature or resource is missing (O_DIRECT refused, ...) */
	EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM/SIGHUP: partial results were reported */
};

/* exit_status_of - the process exit status of a failure: FAIL_NONE 0, FAIL_IO 1, FAIL_INPUT 2,
 * FAIL_UNSUPPORTED 3, FAIL_INTERRUPTED 130; a value outside the enum is an I/O failure (1). */
int exit_status_of(enum failure f);

#endif
