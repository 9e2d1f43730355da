/* exitcode_map.h - the one place where a kind of failure reported by a lower layer (failure.h)
 * becomes fsmix's process exit status (exitcode.h; fsmix(1), EXIT STATUS). Only the command
 * line decides exit statuses. */
#ifndef FSMIX_EXITCODE_MAP_H
#define FSMIX_EXITCODE_MAP_H

#include "exitcode.h"
#include "failure.h"

static inline int exit_status_of(enum failure f)
{
	switch (f) {
	case FAIL_NONE:
		return EXIT_OK;
	case FAIL_IO:
		return EXIT_RUN_FAILED;
	case FAIL_UNSUPPORTED:
		return EXIT_UNSUPPORTED;
	case FAIL_INPUT:
		return EXIT_BAD_INPUT;
	case FAIL_INTERRUPTED:
		return EXIT_INTERRUPTED;
	}
	return EXIT_RUN_FAILED; /* not a failure.h value: treated as a failed run */
}

#endif
