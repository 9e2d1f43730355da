/* uring_hide.c - an LD_PRELOAD shim for tests/e2e/engines.sh: the io_uring probes (liburing's
 * io_uring_get_probe and io_uring_get_probe_ring) report the opcodes listed in the environment
 * variable URING_HIDE_OPS (decimal numbers, comma-separated) as unsupported, as an older
 * kernel would, while the kernel still does them. So the engine's fallback (the call made
 * synchronously, and the warning naming it) runs on any kernel. With URING_EAGAIN_EVERY=N,
 * every Nth io_uring_submit_and_wait or io_uring_submit of a thread (one count for both; the
 * engine's wait with a deadline submits with the latter) returns -EAGAIN without entering the
 * kernel (as a kernel out of memory for the request refuses a submission): the entry stays
 * queued. With URING_FAIL_FROM=N, the Nth of them in a thread and every later one return -EFAULT
 * without entering the kernel: a broken ring. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>

static void hide(struct io_uring_probe *p)
{
	const char *s = getenv("URING_HIDE_OPS");
	while (p && s && *s) {
		char *end;
		unsigned long op = strtoul(s, &end, 10);
		if (end == s)
			break;
		if (op < p->ops_len)
			p->ops[op].flags &= (__u16)~IO_URING_OP_SUPPORTED;
		s = *end == ',' ? end + 1 : end;
	}
}

struct io_uring_probe *io_uring_get_probe_ring(struct io_uring *ring)
{
	struct io_uring_probe *(*real)(struct io_uring *) =
	    (struct io_uring_probe * (*)(struct io_uring *)) dlsym(RTLD_NEXT, __func__);
	struct io_uring_probe *p = real ? real(ring) : NULL;
	hide(p);
	return p;
}

struct io_uring_probe *io_uring_get_probe(void)
{
	struct io_uring_probe *(*real)(void) =
	    (struct io_uring_probe * (*)(void)) dlsym(RTLD_NEXT, __func__);
	struct io_uring_probe *p = real ? real() : NULL;
	hide(p);
	return p;
}

/* The refusal of this thread's next submission: 0 (none), -EAGAIN or -EFAULT (above). */
static int refusal(void)
{
	static _Thread_local unsigned long calls;
	const char *e = getenv("URING_EAGAIN_EVERY"), *f = getenv("URING_FAIL_FROM");
	unsigned long every = e ? strtoul(e, NULL, 10) : 0, from = f ? strtoul(f, NULL, 10) : 0;
	++calls;
	if (from && calls >= from)
		return -EFAULT;
	if (every && calls % every == 0)
		return -EAGAIN;
	return 0;
}

int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	int rc = refusal();
	if (rc)
		return rc;
	int (*real)(struct io_uring *, unsigned) =
	    (int (*)(struct io_uring *, unsigned))dlsym(RTLD_NEXT, __func__);
	return real ? real(ring, wait_nr) : -ENOSYS;
}

int io_uring_submit(struct io_uring *ring)
{
	int rc = refusal();
	if (rc)
		return rc;
	int (*real)(struct io_uring *) = (int (*)(struct io_uring *))dlsym(RTLD_NEXT, __func__);
	return real ? real(ring) : -ENOSYS;
}
