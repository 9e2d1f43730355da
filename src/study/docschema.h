/* docschema.h - the result documents compare and plot read (`run --json`: "fsmix-report"; a
 * sweep's: "fsmix-sweep"), checked against their documented schema (docs/output.md,
 * docs/sweeps.md) before anything is drawn or compared.
 *
 * The check is table-driven (docschema.c): every documented key that compare or plot may read
 * has its JSON types (a "real" accepts an integer too; "or null" where the docs say so), and
 * the keys every document of schema_version 1 has are required. Keys not in the tables are
 * ignored, as the docs ask of consumers (new keys may come without a new version). The first
 * bad field is named by its JSON path: `$.points[0].runs[1].runtime_s: must be a number (is a
 * string)`. */
#ifndef FSMIX_DOCSCHEMA_H
#define FSMIX_DOCSCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* The schema_version this fsmix reads (and writes). */
#define DOCSCHEMA_VERSION 1

/* doc_check - doc is a run or sweep document of DOCSCHEMA_VERSION. 0, or -1 with "$.PATH:
 * reason" in err. */
int doc_check(const json_t *doc, char *err, size_t errlen);

#endif
