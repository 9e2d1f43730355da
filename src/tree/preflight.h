/* preflight.h - the checks made before anything is created on disk: every filesystem's
 * location and every output path. Bad input must cost nothing: a profile whose second location
 * is missing must not build the first one's tree, and a --json FILE in a missing directory must
 * not be found only after the run, with its results lost. The checks are repeated where the
 * work is done (tree_open, outfile_open), since the disk may change meanwhile. */
#ifndef FSMIX_PREFLIGHT_H
#define FSMIX_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "failure.h"
#include "plan.h"

/* preflight_locations - every filesystem's location exists, is a directory, is writable and
 * not on a read-only mount. Prints every problem ("fsmix: filesystem1: location '/x': ...")
 * to log. FAIL_NONE, or FAIL_INPUT. */
enum failure preflight_locations(const struct plan *pl, FILE *log);

/* preflight_output - `option PATH` can be written (outfile.h's rules; nothing is created).
 * path NULL: nothing to check. Prints the problem to log. FAIL_NONE, or FAIL_INPUT. */
enum failure preflight_output(const char *option, const char *path, FILE *log);

struct profile;
struct diag;

/* preflight_nesting - no filesystem's location is in or below another's tree: a location L
 * of filesystem j must not be <location of i>/fsmix.fs<i> (or its .new, .del or .r<rank>
 * names) or below it, once both are resolved (symbolic links, "..": realpath; a location that
 * does not exist yet is made absolute as written). One tree would be built inside the other,
 * and removing either would meet the other's files. Each case is an error in d at the inner
 * filesystem's location key (file, line). Locations that are the same directory are fine (the
 * trees are side by side). Returns the number of errors added. */
size_t preflight_nesting(const struct profile *p, const struct plan *pl, struct diag *d);

/* One file a command writes (an output) or reads (an input: the profile, compare's and plot's
 * documents, plot --lat-log's log): `what` names it in messages ("--json", "the profile"). */
struct preflight_file {
	const char *what;
	const char *path; /* NULL: not given */
	bool input;
};

/* preflight_collisions - no two outputs of files[n] are one file, and no output is one of the
 * inputs (outfile_id_same: the same device and inode, or the same path once resolved, through
 * symbolic links; terminals and FIFOs are exempt): one would replace the other, or the input,
 * silently. Prints every such pair to log. FAIL_NONE, or FAIL_INPUT. */
enum failure preflight_collisions(const struct preflight_file *files, size_t n, FILE *log);

#endif