/* failure.h - the one way a layer below the command line says what kind of failure ended its
 * work. exitcode.h maps a failure to fsmix's exit status (fsmix(1), EXIT STATUS); only the
 * command line (src/cli) exits with it, the layers below only record it (a sweep's JSON).
 * docs/design.md, "Errors", gives the convention of each layer. */
#ifndef FSMIX_FAILURE_H
#define FSMIX_FAILURE_H

#include <limits.h>

/* Room for an error message that names two full paths (PATH_MAX each) and the reason: smaller
 * buffers cut long paths' messages before the reason. */
#define MSG_MAX (2 * PATH_MAX + 256)

/* Where two failures meet (a run failed, then its clean-up or an output), the first one
 * stands: it is what the user must fix first (failure_first). */
enum failure {
	FAIL_NONE = 0,    /* done */
	FAIL_IO,          /* an I/O error during setup, the run or an output (ENOSPC, EIO, ...) */
	FAIL_UNSUPPORTED, /* a needed feature or resource is missing (O_DIRECT refused, ...) */
	FAIL_INPUT,       /* invalid profile, command line or location: nothing was run */
	FAIL_INTERRUPTED  /* a stop signal (SIGINT, SIGTERM, SIGHUP): partial results */
};

static inline enum failure failure_first(enum failure a, enum failure b)
{
	return a != FAIL_NONE ? a : b;
}

#endif
