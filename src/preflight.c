/* preflight.c - checks before anything is created (see preflight.h). */
#include "preflight.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exitcode.h"
#include "outfile.h"

/* The rules of tree_open for a location (the user's directory; symbolic links are followed). */
static int check_location(const struct plan_fs *f, FILE *log)
{
	struct stat st;
	struct statvfs sv;
	const char *loc = f->location;
	if (!loc || !*loc) {
		fprintf(log, "fsmix: %s: location is empty\n", f->name);
		return -1;
	}
	if (stat(loc, &st)) {
		fprintf(log, "fsmix: %s: location '%s': %s\n", f->name, loc, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(log, "fsmix: %s: location '%s' is not a directory\n", f->name, loc);
		return -1;
	}
	if ((statvfs(loc, &sv) == 0 && (sv.f_flag & ST_RDONLY)) ||
	    (access(loc, W_OK) && errno == EROFS)) {
		fprintf(log, "fsmix: %s: location '%s' is read-only (%s)\n", f->name, loc,
		        strerror(EROFS));
		return -1;
	}
	if (access(loc, W_OK | X_OK)) {
		fprintf(log, "fsmix: %s: location '%s' is not writable (%s)\n", f->name, loc,
		        strerror(errno));
		return -1;
	}
	return 0;
}

int preflight_locations(const struct plan *pl, FILE *log)
{
	int bad = 0;
	for (size_t i = 0; i < pl->n_fs; i++)
		bad |= check_location(&pl->fs[i], log);
	if (bad)
		fprintf(log, "fsmix: nothing was run\n");
	return bad ? EXIT_BAD_INPUT : 0;
}

int preflight_output(const char *option, const char *path, FILE *log)
{
	char why[MSG_MAX];
	if (!path || outfile_check(path, why, sizeof(why)) == 0)
		return 0;
	fprintf(log, "fsmix: %s %s; nothing was run\n", option, why);
	return EXIT_BAD_INPUT;
}
