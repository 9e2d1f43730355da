/* check.h - FSMIX_ASSERT: the project's one runtime assertion, for invariants the code relies on
 * (a state machine's states, an index's bounds, a divisor that other code keeps non-zero).
 *
 *   FSMIX_ASSERT(cond)                 cond must hold here
 *   FSMIX_ASSERT_MSG(cond, fmt, ...)   the same, with a printf message of the values involved
 *
 * A false cond is a bug of fsmix, never bad input (bad input gets a message and exit status 2):
 * fsmix_assert_fail prints one line to stderr,
 *   fsmix: assertion failed: FILE:LINE: FUNC: COND[: MESSAGE]
 * and a request to report it, then calls abort() (SIGABRT: a core dump where enabled; a
 * sanitizer build prints its stack). No cleanup runs: state that broke an invariant is not
 * trusted to unmount or delete anything.
 *
 * On or off: FSMIX_ASSERTIONS (0 or 1), defined by CMake from its cache variable of the same
 * name: AUTO, the default, is on for every build type but Release, so every CI build --
 * RelWithDebInfo, the sanitizers, clang, Debug -- checks (docs/design.md, "Invariants").
 * Off, cond is not evaluated (only type-checked, inside sizeof), so it may name variables that
 * exist for the check alone, and it must have no side effect. A source built outside CMake
 * gets them on.
 *
 * Cost: one compare and a predicted branch to a cold, out-of-line call. Use it in setup, in
 * cold paths and at an operation's boundaries; in per-operation hot code only when it is a
 * single cheap compare. */
#ifndef FSMIX_CHECK_H
#define FSMIX_CHECK_H

#include "compiler.h"

#ifndef FSMIX_ASSERTIONS
#define FSMIX_ASSERTIONS 1
#endif

/* fsmix_assert_fail, fsmix_assert_fail_msg - report a failed FSMIX_ASSERT (FSMIX_ASSERT_MSG)
 * and abort. */
_Noreturn void fsmix_assert_fail(const char *file, int line, const char *func, const char *cond)
    __attribute__((cold));
_Noreturn void fsmix_assert_fail_msg(const char *file, int line, const char *func, const char *cond,
                                     const char *fmt, ...) __attribute__((cold)) ATTR_PRINTF(5, 6);

/* fsmix_assertions_on - whether the library was built with FSMIX_ASSERTIONS (test_check asks
 * it: the check must be compiled in every CI build type). */
int fsmix_assertions_on(void);

#if FSMIX_ASSERTIONS
#define FSMIX_ASSERT(cond)                                                                         \
	(LIKELY(cond) ? (void)0 : fsmix_assert_fail(__FILE__, __LINE__, __func__, #cond))
#define FSMIX_ASSERT_MSG(cond, ...)                                                                \
	(LIKELY(cond) ? (void)0                                                                    \
	              : fsmix_assert_fail_msg(__FILE__, __LINE__, __func__, #cond, __VA_ARGS__))
#else
#define FSMIX_ASSERT(cond)          ((void)sizeof(!(cond)))
#define FSMIX_ASSERT_MSG(cond, ...) ((void)sizeof(!(cond)))
#endif

#endif
