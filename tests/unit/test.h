/* test.h - a minimal unit-test harness: typed asserts that print both sides and file:line.
 *
 * Usage: write `static void test_x(void) { CHECK_EQ_U(1, 1); }` and list each function in
 * `int main(void) { RUN(test_x); return test_summary(); }`. A failed check records the failure
 * and continues with the next check; the executable exits 1 when any check failed. The summary
 * line is "N passed, M failed" so ctest logs are easy to read.
 */
#ifndef FSMIX_TEST_H
#define FSMIX_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_checks;
static int test_passed_checks;

#define TEST_FAIL(...)                                                                             \
	do {                                                                                       \
		fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__);                      \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		test_failed_checks++;                                                              \
	} while (0)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (cond)                                                                          \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s", #cond);                                                    \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                           \
	do {                                                                                       \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
		if (a_ == b_)                                                                      \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);            \
	} while (0)

#define CHECK_EQ_I(a, b)                                                                           \
	do {                                                                                       \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                      \
		if (a_ == b_)                                                                      \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s == %s: %" PRId64 " != %" PRId64, #a, #b, a_, b_);            \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double a_ = (double)(a), b_ = (double)(b);                                         \
		if (a_ - b_ <= (tol) && b_ - a_ <= (tol))                                          \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s ~= %s: %.9g vs %.9g (tolerance %g)", #a, #b, a_, b_,         \
			          (double)(tol));                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (a_ && b_ && strcmp(a_, b_) == 0)                                               \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s == %s:\n  got:      \"%s\"\n  expected: \"%s\"", #a, #b,     \
			          a_ ? a_ : "(null)", b_ ? b_ : "(null)");                         \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (h_ && n_ && strstr(h_, n_))                                                    \
			test_passed_checks++;                                                      \
		else                                                                               \
			TEST_FAIL("%s contains %s:\n  text: \"%s\"\n  missing: \"%s\"", #hay,      \
			          #needle, h_ ? h_ : "(null)", n_ ? n_ : "(null)");                \
	} while (0)

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		int before_ = test_failed_checks;                                                  \
		fn();                                                                              \
		fprintf(stderr, "%s %s\n", test_failed_checks == before_ ? "ok  " : "FAIL", #fn);  \
	} while (0)

/* test_chi2 - Pearson's chi-square of n observed counts against probabilities p[] (summing to
 * 1) over `draws` draws; cells of probability 0 are left out (a hit there is the caller's check).
 */
static inline double test_chi2(const uint64_t *hits, const double *p, size_t n, double draws)
{
	double chi = 0;
	for (size_t k = 0; k < n; k++) {
		double e = draws * p[k];
		if (e > 0)
			chi += ((double)hits[k] - e) * ((double)hits[k] - e) / e;
	}
	return chi;
}

static inline int test_summary(void)
{
	printf("%d passed, %d failed\n", test_passed_checks, test_failed_checks);
	return test_failed_checks ? 1 : 0;
}

#endif
