/* preflight.c - checks before anything is created (see preflight.h). */
#include "preflight.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "instance.h"
#include "outfile.h"
#include "profile.h"
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

/* The location as an absolute path without ".", ".." or symbolic links: realpath of it, or of
 * its longest existing parent with the rest appended (a location that does not exist yet is
 * reported by preflight_locations; here it must still be compared where it would be). */
static void resolve_location(const char *loc, char *out, size_t len)
{
	char real[PATH_MAX];
	if (realpath(loc, real)) {
		(void)snprintf(out, len, "%s", real);
		return;
	}
	char abs[2 * PATH_MAX] = "", clean[2 * PATH_MAX] = "";
	if (loc[0] != '/' && getcwd(real, sizeof(real)))
		(void)snprintf(abs, sizeof(abs), "%s/%s", real, loc);
	else
		(void)snprintf(abs, sizeof(abs), "%s", loc);
	size_t n = 0; /* clean: abs without ".", ".." and doubled slashes */
	for (char *save = NULL, *c = strtok_r(abs, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n > 0 && clean[n - 1] != '/')
				n--;
			n = n > 0 ? n - 1 : 0;
			clean[n] = 0;
			continue;
		}
		int w = snprintf(clean + n, sizeof(clean) - n, "/%s", c);
		if (w < 0 || (size_t)w >= sizeof(clean) - n)
			break;
		n += (size_t)w;
	}
	char part[sizeof(clean)];
	memcpy(part, clean, sizeof(part));
	for (char *cut = strrchr(part, '/'); cut && cut > part; cut = strrchr(part, '/')) {
		*cut = 0; /* part: a parent of clean; clean + (cut - part): the rest */
		if (realpath(part, real)) {
			(void)snprintf(out, len, "%s%s", strcmp(real, "/") ? real : "",
			               clean + (cut - part));
			return;
		}
	}
	(void)snprintf(out, len, "%s", n ? clean : "/"); /* nothing of it exists but "/" */
}

/* Is `inner` at or below a tree of filesystem k in `outer` (outer/fsmix.fs<k>[.suffix])? */
static bool in_tree(const char *outer, const char *inner, unsigned k)
{
	size_t ol = strcmp(outer, "/") ? strlen(outer) : 0;
	if (strncmp(inner, outer, ol) || inner[ol] != '/')
		return false;
	char name[64];
	int nl = tree_instance_name(name, sizeof(name), k, TREE_NO_RANK);
	const char *c = inner + ol + 1;
	return nl > 0 && !strncmp(c, name, (size_t)nl) &&
	       (c[nl] == 0 || c[nl] == '/' || c[nl] == '.');
}

size_t preflight_nesting(const struct profile *p, const struct plan *pl, struct diag *d)
{
	size_t n = pl->n_fs < p->n_fs ? pl->n_fs : p->n_fs, errors = 0;
	char(*res)[PATH_MAX] = n ? calloc(n, sizeof(*res)) : NULL;
	if (n && !res)
		return 0; /* out of memory: the check is skipped, tree_open still refuses */
	for (size_t i = 0; i < n; i++)
		if (pl->fs[i].location)
			resolve_location(pl->fs[i].location, res[i], sizeof(res[i]));
	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; i < n && res[j][0]; i++) {
			if (i == j || !res[i][0] || !in_tree(res[i], res[j], pl->fs[i].index))
				continue;
			char tree[PATH_MAX + 64];
			char name[64];
			(void)tree_instance_name(name, sizeof(name), pl->fs[i].index, TREE_NO_RANK);
			(void)snprintf(tree, sizeof(tree), "%s%s%s", res[i],
			               strcmp(res[i], "/") ? "/" : "", name);
			char at[48] = "";
			struct src_loc li = p->fs[i]->set[KEY_location].loc;
			if (li.line)
				(void)snprintf(at, sizeof(at), ", line %u", (unsigned)li.line);
			diag_error(d, DIAG_CONFLICT, p->fs[j]->set[KEY_location].loc,
			           p->fs[j]->name, "location",
			           "'%s' is inside %s's tree '%s' (its location '%s'%s): one tree "
			           "would be built in the other, and removing one would meet the "
			           "other's files; give each filesystem a location outside every "
			           "other's tree",
			           pl->fs[j].location, pl->fs[i].name, tree, pl->fs[i].location,
			           at);
			errors++;
			break;
		}
	}
	free(res);
	return errors;
}
