/* check.c - the cold end of FSMIX_ASSERT (check.h): say which invariant broke where, abort. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* One line, written with one fprintf to unbuffered stderr where it can be, so that workers
 * failing at once do not interleave their lines within a line. */
static _Noreturn void assert_abort(const char *file, int line, const char *func, const char *cond,
                                   const char *msg)
{
	fprintf(stderr, "fsmix: assertion failed: %s:%d: %s: %s%s%s\n", file, line, func, cond,
	        msg ? ": " : "", msg ? msg : "");
	fprintf(stderr, "fsmix: this is a bug of fsmix; please report it with the line above\n");
	abort();
}

void fsmix_assert_fail(const char *file, int line, const char *func, const char *cond)
{
	assert_abort(file, line, func, cond, NULL);
}

void fsmix_assert_fail_msg(const char *file, int line, const char *func, const char *cond,
                           const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	assert_abort(file, line, func, cond, msg);
}

int fsmix_assertions_on(void)
{
	return FSMIX_ASSERTIONS;
}
