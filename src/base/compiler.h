/* compiler.h - small portable helpers shared by every module. */
#ifndef FSMIX_COMPILER_H
#define FSMIX_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a)       (sizeof(a) / sizeof((a)[0]))
#define ATTR_PRINTF(fi, ai) __attribute__((format(printf, fi, ai)))
#define LIKELY(x)           __builtin_expect(!!(x), 1)
#define UNLIKELY(x)         __builtin_expect(!!(x), 0)
/* MUST_CHECK - a function whose result the caller must look at (a failure it would otherwise
 * lose: a write, an open, a lock, an agreement), as fio marks its engine ops. gcc warns even for
 * a (void) cast: such a function is called where its result is used. */
#define MUST_CHECK __attribute__((warn_unused_result))
/* FSMIX_TSAN: 1 when built with ThreadSanitizer (gcc defines __SANITIZE_THREAD__, clang has
 * __has_feature). */
#if defined(__SANITIZE_THREAD__)
#define FSMIX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FSMIX_TSAN 1
#endif
#endif
#ifndef FSMIX_TSAN
#define FSMIX_TSAN 0
#endif
/* Cache line size in bytes; per-thread state is aligned to it to avoid false sharing. */
#define CACHELINE 64

/* now_ns - CLOCK_MONOTONIC in nanoseconds. Used for every latency and run-length measurement. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* coarse_ns - CLOCK_MONOTONIC_COARSE in nanoseconds: the same clock as now_ns at the last timer
 * tick (it lags now_ns by at most one tick, 1-10 ms), read from the vDSO without touching the
 * clock source (a few ns). For checks of a deadline, never for latencies. */
static inline uint64_t coarse_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
