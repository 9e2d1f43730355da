/* test_check.c - FSMIX_ASSERT (src/base/check.h): a false condition aborts with SIGABRT after
 * naming the file, line, function and condition (and FSMIX_ASSERT_MSG's message); a true one
 * does nothing; and the check is compiled in for every build type CI runs (all but Release,
 * unless FSMIX_ASSERTIONS forces it), in the library as in this test. */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "chist.h"
#include "pool.h"
#include "test.h"

#ifndef FSMIX_TEST_BUILD_TYPE
#define FSMIX_TEST_BUILD_TYPE "unknown"
#endif
#ifndef FSMIX_TEST_ASSERT_SETTING
#define FSMIX_TEST_ASSERT_SETTING "AUTO"
#endif

static int evaluated;
static int count_eval(int v)
{
	evaluated++;
	return v;
}

/* The assertions a child trips: 0 plain, 1 with a message; 2 and 3 are invariants of the
 * library: a pool slot removed that no writer holds (a file deleted twice), a compact
 * histogram series beyond the arena's. */
static void trip(int which)
{
	int x = count_eval(1);
	if (which == 0)
		FSMIX_ASSERT(x == 2);
	else if (which == 1)
		FSMIX_ASSERT_MSG(x == 2, "x is %d, wanted %d", x, 2);
	if (which == 2) {
		struct pool p;
		if (pool_init(&p, 16) == 0 && pool_add_initial(&p, 3, 0, 4096) == 0)
			pool_remove(&p, 3); /* idle: no POOL_WRITE pick holds it */
	}
	if (which == 3) {
		static struct chist_arena a;
		struct hist h;
		chist_merge_series(&h, &a, CHIST_SERIES);
	}
}

/* Runs trip(which) in a child with stderr on a pipe: its stderr in out, its wait status. */
static int run_child(int which, char *out, size_t outlen)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit no_core = {0,
		                         0}; /* abort() must not leave a core in the build tree */
		setrlimit(RLIMIT_CORE, &no_core);
		dup2(fds[1], 2);
		close(fds[0]);
		trip(which);
		_exit(0); /* assertions off: the child gets here */
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < outlen && (k = read(fds[0], out + n, outlen - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(fds[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	return st;
}

static void test_true_passes(void)
{
	evaluated = 0;
	FSMIX_ASSERT(count_eval(1) == 1);
	FSMIX_ASSERT_MSG(count_eval(2) == 2, "never printed %d", 2);
	CHECK_EQ_I(evaluated, FSMIX_ASSERTIONS ? 2 : 0); /* off: not evaluated at all */
}

static void test_false_aborts(void)
{
	char out[2048];
	int st = run_child(0, out, sizeof(out));
	if (!FSMIX_ASSERTIONS) {
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		return;
	}
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_CONTAINS(out, "fsmix: assertion failed: ");
	CHECK_CONTAINS(out, "test_check.c:");
	CHECK_CONTAINS(out, ": trip: x == 2\n");
	CHECK_CONTAINS(out, "bug of fsmix");

	st = run_child(1, out, sizeof(out));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_CONTAINS(out, ": trip: x == 2: x is 1, wanted 2\n");
}

/* The library's own assertions are compiled in and fire (pool.c, chist.c). */
static void test_library_invariants(void)
{
	char out[2048];
	int st = run_child(2, out, sizeof(out));
	if (!FSMIX_ASSERTIONS)
		return; /* not compiled in: the misuse is undefined, the child's fate too */
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_CONTAINS(out, "pool.c:");
	CHECK_CONTAINS(out, "slot 3 in state 0x2, not 0xfffffffe");
	st = run_child(3, out, sizeof(out));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_CONTAINS(out, "chist.c:");
	CHECK_CONTAINS(out, "s < CHIST_SERIES");
}

/* Every CI build (RelWithDebInfo, Debug, ASan+UBSan, TSan, clang) has them, in the library
 * (fsmix_assertions_on, compiled in src/base) and here; Release leaves them out. */
static void test_compiled_in_ci_builds(void)
{
	int want = strcmp(FSMIX_TEST_BUILD_TYPE, "Release") != 0;
	if (strcmp(FSMIX_TEST_ASSERT_SETTING, "ON") == 0)
		want = 1;
	else if (strcmp(FSMIX_TEST_ASSERT_SETTING, "OFF") == 0)
		want = 0;
	printf("build type %s, FSMIX_ASSERTIONS=%s: assertions %s\n", FSMIX_TEST_BUILD_TYPE,
	       FSMIX_TEST_ASSERT_SETTING, fsmix_assertions_on() ? "on" : "off");
	CHECK_EQ_I(fsmix_assertions_on(), want);
	CHECK_EQ_I(FSMIX_ASSERTIONS, want);
}

int main(void)
{
	RUN(test_true_passes);
	RUN(test_false_aborts);
	RUN(test_library_invariants);
	RUN(test_compiled_in_ci_builds);
	return test_summary();
}
