/* exitcode.h (cli) - the one place where a failure becomes fsmix's exit status (fsmix(1), EXIT
 * STATUS: 0 success, 1 I/O error, 2 bad input, 3 unsupported, 130 interrupted).
 *
 * The EXIT_* values themselves are still in base/exitcode.h while layers below the command
 * line return them (issue 12 converts them to enum failure); they move here when none does. */
#ifndef FSMIX_CLI_EXITCODE_H
#define FSMIX_CLI_EXITCODE_H

#include "../base/exitcode.h"
#include "failure.h"

/* exit_status_of - the process exit status of a failure: FAIL_NONE 0, FAIL_IO 1, FAIL_INPUT 2,
 * FAIL_UNSUPPORTED 3, FAIL_INTERRUPTED 130; a value outside the enum is an I/O failure (1). */
int exit_status_of(enum failure f);

/* failure_of_exit - the failure that a lower layer's exit status stands for (the inverse of
 * exit_status_of), for the callees that still return EXIT_*. Its parameter's type is the
 * EXIT_* enum on purpose: when such a callee changes to return enum failure, passing it here
 * is an enum mismatch that -Wenum-conversion (-Wextra) turns into a build error, so the call
 * cannot silently map FAIL_INPUT (3) to "unsupported". Remove the call then. */
enum failure failure_of_exit(enum fsmix_exit status);

#endif
