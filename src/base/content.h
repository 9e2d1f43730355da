/* content.h - verifiable file content: every byte fsmix writes is a deterministic function of
 * (content key, file, generation, offset), so any later read can tell acknowledged content
 * from stale, torn, zeroed or foreign data.
 *
 * CONTRACT (shared by the writers in src/engine, the in-run `verify=1` read check and the
 * after-crash checker `fsmix verify`; the format behind it is content.c's and
 * docs/durability.md's):
 *
 *   - struct content_key names one file of one tree: the tree's content seed (recorded with the
 *     tree, so a reused tree is checked with the seed it was written with, whatever the run's
 *     --seed), the filesystem index and the file id (its name f<id>).
 *   - A generation is a per-file counter: 1 for the file as created (by populate or a create op),
 *     +1 for every later op that writes into it (write, writeall, append; append_fsync2 counts
 *     once per append, a write with write_random once per block: each extent of its own). 0 is
 *     never written. It has no ceiling: after UINT32_MAX comes 1 (gen_next), and every window
 *     and order of generations is read on the 32-bit circle (gen_in, gen_after), so a file may
 *     be rewritten any number of times.
 *   - content_fill(buf, len, key, gen, off) produces exactly the bytes of file `key` at
 *     generation `gen` for the file range [off, off+len). Any offset and length (unaligned
 *     included); pieces filled separately and concatenated equal one fill of the whole range.
 *   - content_check(buf, len, key, off, gen_min, gen_max, &finding) checks bytes read from
 *     [off, off+len) of the file: every byte must be content of that file at that offset at some
 *     generation g in the window [gen_min, gen_max] = gen_min, gen_min + 1, ..., gen_max counted
 *     mod 2^32 (gen_in: it may cross the wrap; gen_min 0 means 1; gen_max = gen_min - 1 is every
 *     generation). Ranges written by different generations may
 *     meet anywhere (a write that started or ended mid-block), and that is not an error.
 *     Returns 0 when all of it is acceptable, else 1 with the first bad place in *finding.
 *   - The key's mode (enum content_mode, the global key `content`) says what the bytes around
 *     each block's header are; every rule above holds in every mode, but where a mode's bytes
 *     are the same in every generation (the zeros of zero and compressible, dedupe's duplicate
 *     4 KiB blocks) the check cannot tell generations apart there (docs/output.md, "Content
 *     modes"). CONTENT_MODE_FIXED has no header at all: its bytes are the same in every
 *     tree, file, generation and block, so content_check tells only whether bytes are that
 *     pattern (zeroed or foreign when not), and content_newest finds no generation.
 */
#ifndef FSMIX_CONTENT_H
#define FSMIX_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the bytes around each block's header are (the global key `content`, docs/output.md
 * "Content modes"). CONTENT_MODE_RANDOM, 0, is the format as it was before modes (and what a
 * durability log of fsmix before modes records); the key's default, auto, is CONTENT_MODE_HEADER
 * or CONTENT_MODE_FIXED (profile/plan.c). */
enum content_mode {
	/* payload: random words that carry the generation (incompressible) */
	CONTENT_MODE_RANDOM = 0,
	/* payload: zeros (the header alone identifies the block) */
	CONTENT_MODE_ZERO,
	/* compressible:PCT -- compresses by about PCT % (fio's buffer_compress_percentage): a
	 * block's header and first words random, the rest zeros */
	CONTENT_MODE_COMPRESS,
	/* dedupe:PCT -- about PCT % of the file's 4 KiB blocks (on the file-offset grid) are
	 * copies, whole (no header), of one of the CONTENT_DEDUPE_POOL blocks of the content
	 * seed; the others are as CONTENT_MODE_RANDOM */
	CONTENT_MODE_DEDUPE,
	/* header (auto's choice when the run checks content): each block's header as above, its
	 * payload a fixed pattern of the content seed and (offset mod 512), the same in every file
	 * and generation: a writer fills it once and writes only the headers (content_pattern,
	 * content_headers) */
	CONTENT_MODE_HEADER,
	/* fixed (what the default, auto, is when nothing checks the content: no verify=1, no
	 * --durability-log): no header, byte o of every file is byte o % 512 of one 512-byte
	 * pattern, fixed in the source (no seed); a writer sends it from one read-only copy of
	 * the process, as FFSB and fsmix before verifiable content wrote one constant buffer */
	CONTENT_MODE_FIXED,
};

#define CONTENT_DEDUPE_CHUNK 4096u /* the unit of dedupe */
#define CONTENT_DEDUPE_POOL  8u    /* distinct duplicate blocks a content seed has */

struct content_key {
	uint64_t seed; /* the tree's content seed */
	uint32_t fs;   /* filesystem index in the profile */
	uint32_t file; /* file id: the name f<id> */
	uint8_t mode;  /* enum content_mode; 0 (CONTENT_MODE_RANDOM) when not set */
	uint8_t pct;   /* CONTENT_MODE_COMPRESS, CONTENT_MODE_DEDUPE: the percentage, 0..100 */
};

/* What a bad place in a checked range is. */
enum content_verdict {
	CONTENT_OK = 0,
	CONTENT_ZERO,    /* zeroed bytes where content should be (a hole, a lost extent) */
	CONTENT_STALE,   /* this file's content at this offset, of a generation below gen_min */
	CONTENT_TORN,    /* a block partly of an acceptable generation and partly not */
	CONTENT_FOREIGN, /* bytes that are no generation of this file at this offset */
	CONTENT_SHORT,   /* never from content_check: its caller found the file ending before
	                  * the range it expected to read (a file truncated behind fsmix's back) */
};

#define CONTENT_SHOW 16 /* bytes of expected and found content kept in a finding */

struct content_finding {
	enum content_verdict verdict;
	uint64_t off;                   /* file offset of the first bad byte */
	uint32_t gen_found;             /* generation the bad bytes carry (0 = none recognised) */
	uint32_t gen_expected;          /* the generation the expected bytes are shown for */
	size_t shown;                   /* bytes in expected[] and found[] */
	uint8_t expected[CONTENT_SHOW]; /* content at gen_expected from off */
	uint8_t found[CONTENT_SHOW];    /* what was read from off */
};

/* Generations on the 32-bit circle (0 is never written, so it is skipped and never acceptable).
 * gen_next(g): the generation after g; gen_add(g, n): n after g. gen_after(a, b): a was written
 * after b, for two generations of one file less than 2^31 writes apart. gen_in(g, lo, hi): g is
 * in the window lo, lo + 1, ..., hi (mod 2^32; hi = lo - 1: every generation). */
static inline uint32_t gen_next(uint32_t g)
{
	return g == UINT32_MAX ? 1u : g + 1u;
}
static inline uint32_t gen_add(uint32_t g, uint32_t n)
{
	uint32_t r = g + n;
	return r < g || !r ? r + 1u : r; /* passed 0: one more */
}
static inline bool gen_after(uint32_t a, uint32_t b)
{
	return (uint32_t)(a - b - 1u) < 0x7fffffffu;
}
static inline bool gen_in(uint32_t g, uint32_t lo, uint32_t hi)
{
	return g && (uint32_t)(g - lo) <= (uint32_t)(hi - lo);
}

void content_fill(void *buf, size_t len, const struct content_key *key, uint32_t gen, uint64_t off);
int content_check(const void *buf, size_t len, const struct content_key *key, uint64_t off,
                  uint32_t gen_min, uint32_t gen_max, struct content_finding *finding);
/* content_newest - the highest generation a whole word of buf (bytes [off, off+len) of the file)
 * is exactly the content of; 0: none. Highest as a number, not on the circle: across a wrap it
 * is a generation from before it. */
uint32_t content_newest(const void *buf, size_t len, const struct content_key *key, uint64_t off);
const char *content_verdict_name(enum content_verdict v); /* "zeroed", "stale", "torn", ... */

/* content_parse - the value of the key `content`: "header", "random", "zero", "fixed",
 * "compressible:PCT" or "dedupe:PCT" (PCT an integer 0..100). 0 with *mode and *pct set, else
 * -1 with a message in err. content_name writes the value back in that form. (The key's default,
 * "auto", is the plan's to resolve: profile/plan.c.) */
int content_parse(const char *text, uint8_t *mode, uint8_t *pct, char *err, size_t errlen);
void content_name(uint8_t mode, uint8_t pct, char *buf, size_t len);

/* CONTENT_MODE_HEADER's fast write path. content_pattern fills buf[0, len) with the payload
 * pattern of key's seed as for file offset 0 (byte j is that of offset j; the header bytes, at
 * j % 512 < 24, are left unspecified). content_headers then makes buf, which holds that
 * pattern at phase off % 512 (buf = pattern buffer + off % 512), the content of [off, off+len)
 * at generation gen by writing only the header bytes in range (24 of every 512): the result
 * equals content_fill(buf, len, key, gen, off). */
void content_pattern(void *buf, size_t len, const struct content_key *key);
void content_headers(void *buf, size_t len, const struct content_key *key, uint32_t gen,
                     uint64_t off);

#endif
