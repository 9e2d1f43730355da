/* durpromise.c - the table of promises (durpromise.h), from durpromise.def. */
#include "durpromise.h"

static const struct dp_row rows[DP_COUNT] = {
#define PROMISE(id, c, rec, rch, ld, ln, lu, pd, pn, pu, k)                                        \
	[DP_##id] = {.call = c,                                                                    \
	             .record = rec,                                                                \
	             .kernel = k,                                                                  \
	             .reach = rch,                                                                 \
	             .rule = {{ld, ln, lu}, {pd, pn, pu}}},
#include "durpromise.def"
#undef PROMISE
};

const struct dp_row *durpromise_row(enum dp_id id)
{
	return (unsigned)id < DP_COUNT ? &rows[id] : NULL;
}

const struct dp_row *durpromise_of(const struct durlog_rec *r)
{
	switch (r->kind) {
	case DL_FSYNC:
		return &rows[DP_FSYNC];
	case DL_FDATASYNC:
		return &rows[DP_FDATASYNC];
	case DL_WRITE:
		return r->flags & DLF_SYNC ? &rows[DP_ODSYNC_WRITE] : NULL;
	case DL_SYNC:
		return &rows[DP_SYNC];
	case DL_SYNCFS:
		return &rows[DP_SYNCFS];
	case DL_DIRSYNC:
		return &rows[DP_DIRSYNC];
	case DL_REPLACE: /* DLF_UNSURE: its fsync may have returned too late to promise */
		return r->flags & DLF_UNSURE ? NULL : &rows[DP_REPLACE];
	default:
		return NULL;
	}
}

static const char *reach_text(enum dp_reach r, enum dp_data d)
{
	static const char *const file[] = {"-", "its own extent and the length to it",
	                                   "the file's writes and its length"};
	static const char *const wide[] = {"-", "-", "every write completed before it started"};
	if (r == DPR_FILE)
		return file[d];
	return d == DPD_WHOLE && r == DPR_ALL ? "every write, every filesystem"
	       : d == DPD_WHOLE               ? "every write on its filesystem"
	                                      : wide[d];
}

static const char *names_text(enum dp_reach r, bool on)
{
	static const char *const text[] = {"its own name", "its directory's names",
	                                   "its filesystem's names", "all names"};
	return on ? text[r] : "-";
}

static const char *unlinks_text(enum dp_reach r, bool on)
{
	static const char *const text[] = {"-", "its directory's", "its filesystem's", "all"};
	return on ? text[r] : "-";
}

void durpromise_markdown(FILE *o)
{
	fprintf(o, "| call | record | model | data | names | unlinks | relies on |\n");
	fprintf(o, "|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < DP_COUNT; i++) {
		const struct dp_row *r = &rows[i];
		for (int m = 0; m < 2; m++) {
			const struct dp_rule *u = &r->rule[m];
			fprintf(o, "| %s | %s | %s | %s | %s | %s | %s |\n", m ? "" : r->call,
			        m ? "" : r->record, m ? "posix" : "linux",
			        reach_text(r->reach, u->data),
			        i == DP_MKDIR && u->names
			            ? "its own entry, with any name promised in it"
			            : names_text(r->reach, u->names),
			        unlinks_text(r->reach, u->unlinks), m ? "-" : r->kernel);
		}
	}
}
