/* dirtree.c - dir_depth, dir_fanout, dir_files and dir_per_thread (see dirtree.h). */
#include "dirtree.h"

#include <inttypes.h>
#include <string.h>

#include "diag.h"
#include "dirlayout.h"
#include "keys.h"

const char *dirtree_parse_files(const char *text, double *shape, char err[VALUE_ERR_LEN])
{
	*shape = 0;
	if (!strcmp(text, "uniform"))
		return NULL;
	if (strncmp(text, "gamma:", 6) == 0) {
		char e2[VALUE_ERR_LEN];
		double k;
		/* the project's number parser: plain decimals (no hex, blanks, inf or nan) */
		if (!value_parse_double(text + 6, &k, e2) && k >= 0.01 && k <= 1000) {
			*shape = k;
			return NULL;
		}
		snprintf(err, VALUE_ERR_LEN,
		         "'%s': the gamma shape is a number from 0.01 to 1000 (e.g. gamma:1.5)",
		         text);
		return err;
	}
	snprintf(err, VALUE_ERR_LEN, "'%s' is not uniform or gamma:SHAPE (e.g. gamma:1.5)", text);
	return err;
}

/* Where a setting is, or its section when it is a default. */
static struct src_loc at(const struct section *s, const struct setting *st)
{
	return st->set ? st->loc : s->loc;
}

/* The shape rules; false when the tree cannot be made (data_dirs is then left 0). */
static bool check_shape(struct diag *d, const struct section *s, const struct dirtree_settings *st,
                        const struct plan_fs *f)
{
	if (f->dir_depth <= 1) {
		if (st->fanout->set)
			diag_warn(d, DIAG_IGNORED, st->fanout->loc, s->name, "dir_fanout",
			          "ignored: dir_depth is 1 (one level of num_dirs directories)");
		return true;
	}
	if (!f->num_dirs) {
		diag_error(d, DIAG_CONFLICT, at(s, st->depth), s->name, "dir_depth",
		           "%u needs num_dirs >= 1: the directories of the first level",
		           f->dir_depth);
		return false;
	}
	if (!f->dir_fanout) {
		diag_error(d, DIAG_MISSING, at(s, st->depth), s->name, "dir_depth",
		           "%u needs dir_fanout >= 1: the subdirectories of each directory above "
		           "the last level",
		           f->dir_depth);
		return false;
	}
	struct dirlayout l = {.top = f->num_dirs, .depth = f->dir_depth, .fanout = f->dir_fanout};
	uint64_t total = dirlayout_total(&l);
	if (total > DIRLAYOUT_MAX_DIRS) {
		char many[32];
		if (total == UINT64_MAX)
			snprintf(many, sizeof(many), "more than 2^64");
		else
			snprintf(many, sizeof(many), "%" PRIu64, total);
		diag_error(d, DIAG_CONFLICT, at(s, st->fanout), s->name, "dir_fanout",
		           "%u over dir_depth %u levels (line %u) below num_dirs %u makes %s "
		           "directories; the limit is %u in all",
		           f->dir_fanout, f->dir_depth, st->depth->loc.line, f->num_dirs, many,
		           DIRLAYOUT_MAX_DIRS);
		return false;
	}
	return true;
}

void dirtree_fs(struct diag *d, const struct section *s, const struct dirtree_settings *st,
                struct plan_fs *f)
{
	char err[VALUE_ERR_LEN];
	if (f->dir_files_text && dirtree_parse_files(f->dir_files_text, &f->dir_gamma, err))
		diag_error(d, DIAG_BAD_VALUE, at(s, st->files), s->name, "dir_files", "%s", err);
	f->data_dirs = 0;
	if (check_shape(d, s, st, f)) {
		struct dirlayout l = {.top = f->num_dirs,
		                      .depth = f->dir_depth ? f->dir_depth : 1,
		                      .fanout = f->dir_fanout};
		f->data_dirs = (uint32_t)dirlayout_leaves(&l);
	}
	f->top_files = f->dir_depth <= 1 && f->dir_gamma == 0 && !f->dir_per_thread;
	if (f->num_dirs)
		return;
	if (f->dir_gamma > 0)
		diag_error(d, DIAG_CONFLICT, at(s, st->files), s->name, "dir_files",
		           "%s needs directories to spread the files over (num_dirs >= 1)",
		           f->dir_files_text);
	if (f->dir_per_thread)
		diag_error(d, DIAG_CONFLICT, at(s, st->per_thread), s->name, "dir_per_thread",
		           "1 needs directories to give the threads (num_dirs >= 1)");
}

void dirtree_threads(struct diag *d, const struct section *s, const struct dirtree_settings *st,
                     const struct plan_fs *f, uint64_t total_threads)
{
	if (!f->dir_per_thread || !f->data_dirs || f->data_dirs >= total_threads)
		return;
	diag_error(d, DIAG_CONFLICT, at(s, st->per_thread), s->name, "dir_per_thread",
	           "1 gives each thread its own directories, but this tree has %u file "
	           "directories for %" PRIu64
	           " threads (all groups, or a phase's): make num_dirs x "
	           "dir_fanout^(dir_depth-1) at least %" PRIu64,
	           f->data_dirs, total_threads, total_threads);
}

void dirtree_print(FILE *out, const struct plan_fs *f)
{
	if (f->dir_depth > 1) {
		struct dirlayout l = {
		    .top = f->num_dirs, .depth = f->dir_depth, .fanout = f->dir_fanout};
		fprintf(out,
		        "    directory tree: %u levels, %u then %u per directory: %" PRIu64
		        " directories, files in the %u of the last level\n",
		        f->dir_depth, f->num_dirs, f->dir_fanout, dirlayout_total(&l),
		        f->data_dirs);
	}
	if (f->dir_gamma > 0)
		fprintf(out, "    files per directory: %s\n", f->dir_files_text);
	if (f->dir_per_thread)
		fprintf(out, "    each thread creates in its own directories (dir_per_thread)\n");
}
