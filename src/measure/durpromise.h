/* durpromise.h - the table of promises (durpromise.def): what each acknowledged call promises
 * under --model linux and --model posix. The durability model (durmodel.c) replays a journal by
 * it alone; docs/durability.md prints it (durpromise_markdown). */
#ifndef FSMIX_DURPROMISE_H
#define FSMIX_DURPROMISE_H

#include <stdbool.h>
#include <stdio.h>

#include "durlog.h"

enum dp_reach { DPR_FILE, DPR_DIR, DPR_FS, DPR_ALL };
enum dp_data { DPD_NONE, DPD_EXTENT, DPD_WHOLE };

enum dp_id {
#define PROMISE(id, call, rec, reach, ld, ln, lu, pd, pn, pu, kernel) DP_##id,
#include "durpromise.def"
#undef PROMISE
	DP_COUNT
};

/* What a call promises under one model. */
struct dp_rule {
	enum dp_data data;
	bool names, unlinks;
};

struct dp_row {
	const char *call, *record, *kernel;
	enum dp_reach reach;
	struct dp_rule rule[2]; /* by enum dm_model: [0] linux, [1] posix */
};

const struct dp_row *durpromise_row(enum dp_id id);
/* durpromise_of - the row a record replays by (DL_WRITE: only with DLF_SYNC; the log does not
 * tell O_SYNC from O_DSYNC, whose rows promise the same; DL_REPLACE: not with DLF_UNSURE), or
 * NULL when it promises nothing. */
const struct dp_row *durpromise_of(const struct durlog_rec *r);
/* durpromise_markdown - the table as docs/durability.md prints it (a Markdown table). */
void durpromise_markdown(FILE *o);

#endif
