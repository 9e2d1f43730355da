/* fiber.h - user-space contexts of one thread (fibers): each runs a function on a stack of its
 * own, and gives the thread back to the code that resumed it when it yields (iodepth > 1:
 * worker_depth.c runs each operation in flight on one, docs/engines.md).
 *
 * A switch saves and restores the callee-saved registers and the stack pointer: on x86_64 a
 * few instructions of hand-written assembly (fiber.c), no system call; elsewhere glibc's
 * swapcontext, which also saves the signal mask (one rt_sigprocmask per switch). Under
 * AddressSanitizer and ThreadSanitizer every switch is announced to the sanitizer, which
 * otherwise takes the new stack for a stack overflow or mixes up the fibers' histories.
 *
 * Contract: fibers are resumed by one thread, the "home" (it calls fiber_resume from its own
 * stack), and never from another fiber; a fiber yields only to its home. A stack is made once
 * (fiber_make: an mmap with a guard page below it, so an overflow faults instead of writing
 * over a neighbour) and reused by every fiber_start. */
#ifndef FSMIX_FIBER_H
#define FSMIX_FIBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A fiber's function: runs on the fiber's stack; when it returns, the fiber is done (the
 * resume that ran it returns, fiber_done true) until fiber_start starts it again. */
typedef void fiber_fn(void *arg);

struct fiber {
	void *sp;        /* the fiber's saved stack pointer while it is not running */
	void *home_sp;   /* its home's while it runs */
	char *map;       /* the mapping: guard page, then the stack */
	size_t map_len;  /* bytes */
	fiber_fn *fn;    /* what fiber_start gave */
	void *arg;       /* fn's argument */
	int64_t value;   /* passed by the last resume or yield */
	bool done;       /* fn returned (or never started) */
	void *uctx;      /* the ucontext pair where there is no hand-written switch, else NULL */
	void *asan_fake; /* ASan: the fake stack of the side that switched away */
	const void *home_bottom; /* ASan: the home's stack, learnt on the first switch in */
	size_t home_size;
	void *tsan_fiber; /* TSan: this fiber's, and its home's, identities */
	void *tsan_home;
};

/* FIBER_STACK - a fiber's stack in bytes: the operation bodies keep names and buffers off
 * the stack (a worker thread has 256 KiB); a sanitizer's frames are several times larger. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FIBER_STACK (256 * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FIBER_STACK (256 * 1024)
#endif
#endif
#ifndef FIBER_STACK
#define FIBER_STACK (64 * 1024)
#endif

/* fiber_make - f with a stack of stack_len bytes (a multiple of the page size), not started
 * (fiber_done). 0, or -errno (no memory). */
int fiber_make(struct fiber *f, size_t stack_len);
/* fiber_free - f's stack unmapped; f must not be running (done, or never resumed again). */
void fiber_free(struct fiber *f);
/* fiber_start - f to run fn(arg) from the start at its next resume; f is done (not running). */
void fiber_start(struct fiber *f, fiber_fn *fn, void *arg);
/* fiber_resume - from the home (never from a fiber): run f until it yields or its function
 * returns, passing v (what its fiber_yield returns). Returns what f yielded (0 when it is
 * done). f must be started and not done. */
int64_t fiber_resume(struct fiber *f, int64_t v);
/* fiber_yield - from f's own function: back to its home, whose fiber_resume returns v. Returns
 * the value of the next fiber_resume of f. */
int64_t fiber_yield(struct fiber *f, int64_t v);

static inline bool fiber_done(const struct fiber *f)
{
	return f->done;
}

#endif
