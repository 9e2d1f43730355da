/* opverify.c - verify=1's check of what a read got (opfile.h: opfile_verify_read), for the read
 * bodies of opfile.c and opseq.c: the content check against the file's generations, the latched
 * mismatch, and the worker's write pattern that a read into its buffer spoils or, checked,
 * leaves as it was (opcontent.h).
 */
#include <errno.h>

#include "content.h"
#include "engine.h"
#include "opcommon.h"
#include "opcontent.h"
#include "opfile.h"

/* Latches a content mismatch found by a read of the held file, at generation gen (cold). */
static int verify_fail(struct worker *w, struct engine_fs *fs, enum op_id op,
                       const struct held_file *f, uint32_t gen, const struct content_finding *cf)
{
	w->verify_bad++;
	bool first = !w->err_set;
	int rc = fail(w, op, SYS_read, EBADMSG, fs, f->dir, f->id, false);
	if (first) {
		w->err.verify = true;
		w->err.found = *cf;
		w->err.gen_current = gen;
		w->err.gen_written_s =
		    gen == cf->gen_expected ? pool_gen_time(fileset(w, fs), f->id) : 0;
	}
	return rc;
}

/* verify=1: checks the `got` bytes just read into w->rbuf (= w->buf) from file offset off (`want`
 * asked for) against every generation the file may hold, [1, its current one], and where that
 * fails (rarely: a mismatch, or a file whose counter wrapped, which may hold generations above
 * its current one) against every generation; a read that ends before the file's recorded size
 * is a mismatch too (the file was truncated behind fsmix's back). Returns 0, or -EBADMSG after
 * latching the mismatch. */
int opfile_verify_read(struct worker *w, struct engine_fs *fs, enum op_id op,
                       const struct held_file *f, uint64_t off, int64_t got, uint64_t want)
{
	struct content_key key = engine_content_key(fs, disk_id(w, f->id));
	struct content_finding cf;
	uint32_t gen = pool_gen(fileset(w, fs), f->id); /* held: no writer changes it */
	uint32_t hi = gen == POOL_GEN_UNKNOWN ? UINT32_MAX : gen;
	/* The read wrote buf[0, got) (the read bodies leave marking it to this check); lo0, hi0:
	 * what of the buffer did not hold the write pattern before it. */
	size_t lo0 = w->pat_lo, hi0 = w->pat_hi;
	if (got > 0 && w->rbuf == w->buf)
		buf_spoil(w, (size_t)got);
	if (got > 0 && content_check(w->rbuf, (size_t)got, &key, off, 1, hi, &cf) &&
	    (hi == UINT32_MAX ||
	     content_check(w->rbuf, (size_t)got, &key, off, gen_next(hi), hi, NULL)))
		return verify_fail(w, fs, op, f, gen, &cf);
	if (got >= 0 && (uint64_t)got < want && off + (uint64_t)got < f->size) {
		cf = (struct content_finding){
		    .verdict = CONTENT_SHORT, .off = off + (uint64_t)got, .gen_expected = gen};
		return verify_fail(w, fs, op, f, gen, &cf);
	}
	/* content=header: checked bytes from a block boundary into buf's start are the payload
	 * pattern of the key's seed at phase 0 (the same in every file and generation; header bytes
	 * aside), which is what the writes send from buf (opcontent.h: pattern_need): the read did
	 * not spoil [0, got) after all, and the next write need not refill it (a memmove of what
	 * each read returned). */
	if (got > 0 && key.mode == CONTENT_MODE_HEADER && off % 512 == 0 && w->rbuf == w->buf &&
	    w->pat_ready && w->pat_seed == key.seed) {
		w->pat_lo = lo0 > (size_t)got ? lo0 : (size_t)got; /* [lo0, hi0) less [0, got) */
		w->pat_hi = hi0;
	}
	return 0;
}
