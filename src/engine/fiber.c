/* fiber.c - user-space contexts (fiber.h): a stack of their own each, switched by saving the
 * callee-saved registers and the stack pointer. On x86_64 the switch is fsmix_fiber_swap below
 * (about 20 instructions, no system call); on other architectures glibc's swapcontext, whose
 * rt_sigprocmask per switch costs a system call (correct, slower). Every switch is announced
 * to AddressSanitizer (__sanitizer_start/finish_switch_fiber: which stack is live) and to
 * ThreadSanitizer (__tsan_switch_to_fiber: whose history the thread now runs). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "fiber.h"

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FIBER_TSAN 1
#endif
#endif

/* The sanitizers' fiber interfaces (compiler-rt's sanitizer/common_interface_defs.h and
 * tsan_interface.h; declared here, not included, so no header of a given compiler version is
 * needed). */
#ifdef FIBER_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif
#ifdef FIBER_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

/* FSMIX_FIBER_UCONTEXT: swapcontext on x86_64 too (to test the fallback there). */
#if defined(__x86_64__) && !defined(FSMIX_FIBER_UCONTEXT)
/* fsmix_fiber_swap(save, to): pushes the callee-saved registers of the System V ABI (rbp, rbx,
 * r12-r15) and the SSE and x87 control words on the current stack, stores the stack pointer in
 * *save, takes `to` as the stack pointer and pops the same from it: the `ret` returns into
 * whoever swapped away from `to`, or, for a new fiber, into fsmix_fiber_boot, which calls
 * r13(r12) (fiber_boot_frame lays that frame out). Everything else is caller-saved: the C
 * caller of the swap expects it clobbered anyway. */
void fsmix_fiber_swap(void **save, void *to);
void fsmix_fiber_boot(void);
#ifdef __CET__
#define FIBER_ENDBR "endbr64\n"
#else
#define FIBER_ENDBR ""
#endif
__asm__(".text\n"
        ".p2align 4\n"
        ".globl fsmix_fiber_swap\n"
        ".hidden fsmix_fiber_swap\n"
        ".type fsmix_fiber_swap,@function\n"
        "fsmix_fiber_swap:\n" FIBER_ENDBR "pushq %rbp\n"
        "pushq %rbx\n"
        "pushq %r12\n"
        "pushq %r13\n"
        "pushq %r14\n"
        "pushq %r15\n"
        "subq $8, %rsp\n"
        "stmxcsr (%rsp)\n"
        "fnstcw 4(%rsp)\n"
        "movq %rsp, (%rdi)\n"
        "movq %rsi, %rsp\n"
        "ldmxcsr (%rsp)\n"
        "fldcw 4(%rsp)\n"
        "addq $8, %rsp\n"
        "popq %r15\n"
        "popq %r14\n"
        "popq %r13\n"
        "popq %r12\n"
        "popq %rbx\n"
        "popq %rbp\n"
        "ret\n"
        ".size fsmix_fiber_swap,.-fsmix_fiber_swap\n"
        ".p2align 4\n"
        ".globl fsmix_fiber_boot\n"
        ".hidden fsmix_fiber_boot\n"
        ".type fsmix_fiber_boot,@function\n"
        "fsmix_fiber_boot:\n"
        "movq %r12, %rdi\n"
        "callq *%r13\n"
        "ud2\n"
        ".size fsmix_fiber_boot,.-fsmix_fiber_boot\n");
#define FIBER_HANDWRITTEN 1
#else
#include <ucontext.h>
#define FIBER_HANDWRITTEN 0
struct fiber_uctx {
	ucontext_t fiber, home;
};
#endif

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

int fiber_make(struct fiber *f, size_t stack_len)
{
	memset(f, 0, sizeof(*f));
	size_t pg = page_size();
	stack_len = (stack_len + pg - 1) / pg * pg;
	void *m = mmap(NULL, stack_len + pg, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	if (mprotect(m, pg, PROT_NONE)) { /* the guard: an overflow faults */
		int rc = -errno;
		munmap(m, stack_len + pg);
		return rc;
	}
	f->map = m;
	f->map_len = stack_len + pg;
	f->done = true;
#if !FIBER_HANDWRITTEN
	f->uctx = calloc(1, sizeof(struct fiber_uctx));
	if (!f->uctx) {
		munmap(m, f->map_len);
		f->map = NULL;
		return -ENOMEM;
	}
#endif
#ifdef FIBER_TSAN
	f->tsan_fiber = __tsan_create_fiber(0);
#endif
	return 0;
}

void fiber_free(struct fiber *f)
{
	if (!f->map)
		return;
#ifdef FIBER_TSAN
	__tsan_destroy_fiber(f->tsan_fiber);
#endif
	free(f->uctx);
	munmap(f->map, f->map_len);
	memset(f, 0, sizeof(*f));
}

/* The usable stack: above the guard page. */
static char *stack_lo(const struct fiber *f)
{
	return f->map + page_size();
}

static size_t stack_len(const struct fiber *f)
{
	return f->map_len - page_size();
}

/* The switches, with the sanitizers told. `fake` keeps ASan's fake stack of the side that
 * leaves (NULL: it leaves for good, its fake frames can go). */
static void switch_to(struct fiber *f, bool to_fiber, void **fake)
{
#ifdef FIBER_TSAN
	__tsan_switch_to_fiber(to_fiber ? f->tsan_fiber : f->tsan_home, 0);
#endif
#ifdef FIBER_ASAN
	if (to_fiber)
		__sanitizer_start_switch_fiber(fake, stack_lo(f), stack_len(f));
	else
		__sanitizer_start_switch_fiber(fake, f->home_bottom, f->home_size);
#else
	(void)fake;
#endif
#if FIBER_HANDWRITTEN
	if (to_fiber)
		fsmix_fiber_swap(&f->home_sp, f->sp);
	else
		fsmix_fiber_swap(&f->sp, f->home_sp);
#else
	struct fiber_uctx *u = f->uctx;
	FSMIX_ASSERT(
	    swapcontext(to_fiber ? &u->home : &u->fiber, to_fiber ? &u->fiber : &u->home) == 0);
#endif
}

/* Where a started fiber begins, on its own stack: its function, then back home for good. */
static void fiber_entry(struct fiber *f)
{
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(NULL, &f->home_bottom, &f->home_size);
#endif
	f->fn(f->arg);
	f->done = true;
	f->value = 0;
	switch_to(f, false, NULL);
	FSMIX_ASSERT_MSG(false, "a finished fiber was resumed");
}

#if !FIBER_HANDWRITTEN
/* makecontext passes ints: the fiber's address in two halves. */
static void fiber_entry_uctx(unsigned hi, unsigned lo)
{
	fiber_entry((struct fiber *)(((uintptr_t)hi << 32) | (uintptr_t)lo));
}
#endif

void fiber_start(struct fiber *f, fiber_fn *fn, void *arg)
{
	FSMIX_ASSERT(f->map && f->done);
	f->fn = fn;
	f->arg = arg;
	f->done = false;
#if FIBER_HANDWRITTEN
	/* The frame fsmix_fiber_swap pops, from the top of the stack down: 8 bytes of padding,
	 * the return address (fsmix_fiber_boot, entered with the stack 16-byte aligned as after
	 * a call's push), rbp (0: the end of a backtrace), rbx, r12 (f), r13 (fiber_entry), r14,
	 * r15, then the control words (MXCSR and x87: their power-on defaults). */
	uint64_t *top = (uint64_t *)(void *)(stack_lo(f) + stack_len(f));
	uint64_t *sp = top - 10;
	memset(sp, 0, 10 * sizeof(*sp));
	sp[0] = 0x1F80u | ((uint64_t)0x037Fu << 32);
	sp[3] = (uint64_t)(uintptr_t)fiber_entry; /* r13 */
	sp[4] = (uint64_t)(uintptr_t)f;           /* r12 */
	sp[7] = (uint64_t)(uintptr_t)fsmix_fiber_boot;
	f->sp = sp;
#else
	struct fiber_uctx *u = f->uctx;
	FSMIX_ASSERT(getcontext(&u->fiber) == 0);
	u->fiber.uc_stack.ss_sp = stack_lo(f);
	u->fiber.uc_stack.ss_size = stack_len(f);
	u->fiber.uc_link = NULL;
	uintptr_t a = (uintptr_t)f;
	makecontext(&u->fiber, (void (*)(void))fiber_entry_uctx, 2, (unsigned)(a >> 32),
	            (unsigned)a);
#endif
}

int64_t fiber_resume(struct fiber *f, int64_t v)
{
	FSMIX_ASSERT(!f->done);
	f->value = v;
#ifdef FIBER_TSAN
	f->tsan_home = __tsan_get_current_fiber();
#endif
	void *fake = NULL;
	switch_to(f, true, &fake);
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
	return f->value;
}

int64_t fiber_yield(struct fiber *f, int64_t v)
{
	f->value = v;
	void *fake = NULL;
	switch_to(f, false, &fake);
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(fake, &f->home_bottom, &f->home_size);
#endif
	return f->value;
}
