/* preflight.c - checks before anything is created (see preflight.h). */
#include "preflight.h"

#include <errno.h>
#include <string.h>

#include "outfile.h"
#include "tree.h"

/* tree_open's rules for a location, before anything is created. */
static int check_location(const struct plan_fs *f, FILE *log)
{
	char why[MSG_MAX];
	if (tree_check_location(f->location, why, sizeof(why)) == 0)
		return 0;
	fprintf(log, "fsmix: %s: %s\n", f->name, why);
	return -1;
}

enum failure preflight_locations(const struct plan *pl, FILE *log)
{
	int bad = 0;
	for (size_t i = 0; i < pl->n_fs; i++)
		bad |= check_location(&pl->fs[i], log);
	if (bad)
		fprintf(log, "fsmix: nothing was run\n");
	return bad ? FAIL_INPUT : FAIL_NONE;
}

enum failure preflight_output(const char *option, const char *path, FILE *log)
{
	char why[MSG_MAX];
	if (!path || outfile_check(path, why, sizeof(why)) == 0)
		return FAIL_NONE;
	fprintf(log, "fsmix: %s %s; nothing was run\n", option, why);
	return FAIL_INPUT;
}

enum failure preflight_collisions(const struct preflight_file *files, size_t n, FILE *log)
{
	enum failure f = FAIL_NONE;
	struct outfile_id a, b;
	for (size_t i = 0; i < n; i++) {
		if (!files[i].path || outfile_identify(files[i].path, &a))
			continue;
		for (size_t j = i + 1; j < n; j++) {
			const struct preflight_file *x = &files[i], *y = &files[j];
			if (!y->path || (x->input && y->input) || outfile_identify(y->path, &b) ||
			    !outfile_id_same(&a, &b))
				continue;
			if (x->input || y->input) {
				const struct preflight_file *in = x->input ? x : y;
				const struct preflight_file *out = x->input ? y : x;
				fprintf(log,
				        "fsmix: %s %s is %s (%s): writing it would destroy what "
				        "fsmix reads; nothing was run\n",
				        out->what, out->path, in->what, in->path);
			} else {
				fprintf(log,
				        "fsmix: %s %s and %s %s are the same file: one would "
				        "replace the other; give each output a file of its own; "
				        "nothing was run\n",
				        x->what, x->path, y->what, y->path);
			}
			f = FAIL_INPUT;
		}
	}
	return f;
}
