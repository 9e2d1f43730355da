/* profile_json.h - the fully resolved profile, every key with its value and origin: as text and
 * as JSON for `fsmix check`, and as the "profile" object of run reports and sweeps. */
#ifndef FSMIX_PROFILE_JSON_H
#define FSMIX_PROFILE_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "plan.h"
#include "profile.h"

/* profile_print_text - every section and key: value, and where it came from
 * ("file:line", "--set ...", or "default"), then a one-line summary per section. */
void profile_print_text(FILE *out, const struct profile *p, const struct plan *pl);

/* profile_print_settings - every key of every section as one line "SECTION.KEY=VALUE" (a list
 * key's items on its one line, separated by "; "), in the profile's order, without origins: the
 * same text for the same resolved profile whichever file and options produced it (an MPI job's
 * ranks compare it, cli/job.c). */
void profile_print_settings(FILE *out, const struct profile *p);

/* profile_json_object - the resolved profile as a new JSON object (jansson; the caller owns the
 * reference): {"file": name, "global": section, "filesystems": [section...], "threadgroups":
 * [section...]}, where a section is {"name", "line", "keys": {key: {"value", "source", "line"}},
 * and optionally "aging_threadgroup" / "stats"}. NULL when out of memory. */
json_t *profile_json_object(const struct profile *p);

/* profile_json_print - the same as a JSON document (jansson). Returns 0 or -1 (out of memory /
 * write error). */
int profile_json_print(FILE *out, const struct profile *p, const struct plan *pl,
                       const struct diag *d);

#endif
