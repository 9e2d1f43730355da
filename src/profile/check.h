/* check.h - `fsmix check`: the fully resolved profile, every key with its value and origin. */
#ifndef FSMIX_CHECK_H
#define FSMIX_CHECK_H

#include <jansson.h>
#include <stdio.h>

#include "plan.h"
#include "profile.h"

/* check_print_text - every section and key: value, and where it came from
 * ("file:line", "--set ...", or "default"), then a one-line summary per section. */
void check_print_text(FILE *out, const struct profile *p, const struct plan *pl);

/* check_profile_json - the resolved profile as a new JSON object (jansson; the caller owns the
 * reference): {"file": name, "global": section, "filesystems": [section...], "threadgroups":
 * [section...]}, where a section is {"name", "line", "keys": {key: {"value", "source", "line"}},
 * and optionally "aging_threadgroup" / "stats"}. NULL when out of memory. */
json_t *check_profile_json(const struct profile *p);

/* check_print_json - the same as a JSON document (jansson). Returns 0 or -1 (out of memory /
 * write error). */
int check_print_json(FILE *out, const struct profile *p, const struct plan *pl,
                     const struct diag *d);

#endif
