/* iokeys.h - the keys of sizes and offsets inside a file (fsmix extensions, in fio's syntax):
 * write_bssplit, read_bssplit, write_bsrange, read_bsrange, random_distribution and
 * percentage_random. Their text parsed into the samplers of iodist.h, and their rules across
 * keys (and sqpoll's: engine=io_uring only); every error names the file, line and key (diag).
 */
#ifndef FSMIX_IOKEYS_H
#define FSMIX_IOKEYS_H

#include <stdbool.h>
#include <stdio.h>

#include "iodist.h"
#include "plan.h"
#include "profile.h"
#include "value.h"

/* The largest size of a mix: write_blocksize's and read_blocksize's bound (1 GiB). */
#define IOKEYS_SIZE_MAX (1ull << 30)

/* The ops that take a size and an offset from these keys: read (rmix), and write,
 * write_fsync and write_fdatasync (wmix), as bits (1u << op). */
#define IOKEYS_WRITE_OPS ((1u << OP_write) | (1u << OP_write_fsync) | (1u << OP_write_fdatasync))
#define IOKEYS_READ_OPS  (1u << OP_read)

/* iokeys_parse_split - fio's bssplit, "SIZE/PCT:SIZE/PCT:...": at most IOSIZE_MAX entries,
 * sizes 1 B .. 1 GiB with units, percentages above 0 (decimals allowed); entries without a
 * percentage ("SIZE" or "SIZE/") share what the others leave of 100 evenly; the percentages must
 * add up to 100. Returns NULL, or err. */
const char *iokeys_parse_split(const char *text, struct iosize *s, char err[VALUE_ERR_LEN]);

/* iokeys_parse_range - fio's bsrange, "LO-HI" (1 B <= LO <= HI <= 1 GiB, with units). */
const char *iokeys_parse_range(const char *text, struct iosize *s, char err[VALUE_ERR_LEN]);

/* iokeys_parse_offdist - fio's random_distribution: random, zipf:THETA (0 < THETA <= 100),
 * pareto:H (0.5 < H < 1), normal:SIGMA (percent of the file, 0 < SIGMA <= 100) or
 * zoned:ACCESS/SIZE:... (percentages, each list adding up to 100, at most OFFZONE_MAX zones). */
const char *iokeys_parse_offdist(const char *text, struct offdist *d, char err[VALUE_ERR_LEN]);

/* iokeys_group - the group's keys parsed into g (wmix, rmix, offd, with percentage_random and
 * the global alignio in it) and checked with each other and with the rest of the group
 * (directio: every size a multiple of 512, offsets aligned). */
void iokeys_group(struct diag *d, const struct section *tg, struct plan_group *g, bool directio,
                  bool alignio);

/* iokeys_mix_ops - the op bits (1u << op) whose call size comes from a mix set in g (0: none):
 * those ops need neither their blocksize key nor their size key. */
unsigned iokeys_mix_ops(const struct plan_group *g);

/* iokeys_print_group - `fsmix check`'s summary: the group's call-size mixes with their resolved
 * shares, and its offset distribution, if any. */
void iokeys_print_group(FILE *out, const struct plan_group *g);

#endif
