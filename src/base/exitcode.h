/* exitcode.h - fsmix's documented exit statuses (fsmix(1), EXIT STATUS; each has a test). */
#ifndef FSMIX_EXITCODE_H
#define FSMIX_EXITCODE_H

#include "failure.h"

enum fsmix_exit {
	EXIT_OK = 0,           /* the run (or check) completed */
	EXIT_RUN_FAILED = 1,   /* an I/O error during setup or the run (ENOSPC, EIO, ...) */
	EXIT_BAD_INPUT = 2,    /* invalid profile, command line or location; nothing was run */
	EXIT_UNSUPPORTED = 3,  /* a needed feature or resource is missing (O_DIRECT refused, ...) */
	EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM: partial results were reported */
};

#endif
