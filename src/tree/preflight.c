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
