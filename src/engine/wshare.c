/* wshare.c - shared_writes=1 at iodepth > 1 (docs/engines.md, "Writes in flight on one file"):
 * the write operations in flight of one worker share their file, as fio's requests share
 * theirs.
 *
 * The worker holds the file in the pool exclusively (POOL_WRITE), as one writer, for as long as
 * any of its fibers does; which fiber holds which file, and the extent of its write in flight,
 * is w->share[slot] (the fibers run one at a time on the worker's thread: no lock). Other
 * threads, readers and the operations that change a file's size or name find it busy, as for
 * any writer. Overlapping writes in flight go one after the other (depth_extent_wait), so the
 * last write to a byte is its highest content generation, as with one writer. */
#include "engine.h"
#include "engine_int.h"
#include "fiber.h"
#include "opcommon.h"

/* The running fiber's entry. */
static struct wshare *share_now(const struct worker *w)
{
	FSMIX_ASSERT(w->share && w->fiber && w->slot_now < w->iodepth);
	return &w->share[w->slot_now];
}

int depth_share_acquire(struct worker *w, struct engine_fs *fs, uint32_t *id)
{
	struct wshare *s = share_now(w);
	struct pool *p = fileset(w, fs);
	int rc = acquire_once(w, fs, POOL_WRITE, false, id);
	if (rc && rc != -ENOENT) { /* every file held: join one of the worker's own writes */
		uint32_t n = w->iodepth, at = (uint32_t)rng_below(&w->rng, n);
		for (uint32_t k = 0; k < n && rc; k++) {
			const struct wshare *o = &w->share[(at + k) % n];
			if (o->pool == p) {
				*id = o->id;
				rc = 0;
			}
		}
		if (rc) /* none: as any pick (other threads hold them), tried again and again */
			rc = acquire(w, fs, POOL_WRITE, false, id);
	} else if (rc == -ENOENT) {
		rc = OP_SKIPPED;
	}
	if (rc == 0)
		*s = (struct wshare){.pool = p, .id = *id};
	return rc;
}

void depth_share_release(struct worker *w, struct engine_fs *fs, uint32_t id)
{
	struct pool *p = fileset(w, fs);
	*share_now(w) = (struct wshare){0};
	for (uint32_t i = 0; i < w->iodepth; i++)
		if (w->share[i].pool == p && w->share[i].id == id)
			return; /* another fiber still writes it */
	pool_release(p, id, POOL_WRITE);
}

/* Whether another fiber's write in flight overlaps [off, end) of s's file. */
static bool extent_taken(const struct worker *w, const struct wshare *s, uint64_t off, uint64_t end)
{
	for (uint32_t i = 0; i < w->iodepth; i++) {
		const struct wshare *o = &w->share[i];
		if (o != s && o->pool == s->pool && o->id == s->id && o->ext_end &&
		    o->ext_off < end && off < o->ext_end)
			return true;
	}
	return false;
}

void depth_extent_wait(struct worker *w, uint64_t off, uint64_t len)
{
	if (!w->share || !w->fiber)
		return;
	struct wshare *s = share_now(w);
	if (!s->pool || !len)
		return; /* not a shared hold (a sequence's write) */
	/* The other write is in flight (a fiber holds an extent only across its write calls), or
	 * done and not yet resumed: either way the worker's loop gets to it before it resumes
	 * this fiber again. */
	while (extent_taken(w, s, off, off + len))
		(void)fiber_yield(w->fiber, YIELD_IDLE);
	s->ext_off = off;
	s->ext_end = off + len;
}

void depth_extent_done(struct worker *w)
{
	if (w->share && w->fiber)
		share_now(w)->ext_end = 0;
}
