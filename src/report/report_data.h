/* report_data.h - the machine-readable reports: JSON (--json) and CSV (--csv).
 *
 * Both are written after the run has stopped (also after SIGINT: the engine stops cleanly first)
 * and describe the same results as the text report (report.h). The formats are documented in
 * docs/output.md; REPORT_JSON_SCHEMA_VERSION changes whenever a JSON field changes meaning or
 * disappears (adding fields does not change it).
 *
 * Files are written by outfile_write (outfile.h): a regular file atomically (temporary file,
 * fsync, rename; a failure leaves `path` untouched, so a reader never sees a truncated
 * document), a character device or FIFO in place, a symbolic link through to its target, "-"
 * to stdout.
 */
#ifndef FSMIX_REPORT_DATA_H
#define FSMIX_REPORT_DATA_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "compiler.h"
#include "profile.h"
#include "results.h"

#define REPORT_JSON_SCHEMA_VERSION 1

/* What the JSON echoes besides the results: how fsmix was started and how it ends. */
struct report_run {
	int exit_status; /* the status fsmix exits with (fsmix(1), EXIT STATUS) */
	int argc;        /* the command line; argv NULL: none */
	char **argv;
	const char *profile_path;      /* as given on the command line, NULL: none */
	const struct profile *profile; /* the resolved profile, NULL: none */
};

/* report_json_build - the JSON report of a finished run as a new jansson object (the caller
 * owns the reference). NULL when out of memory. */
json_t *report_json_build(const struct results *r, const struct report_run *run);

/* report_json_write - build the JSON report and write it to `path` ("-": stdout), indented, with
 * a final newline. Returns 0, or -errno with a message naming the path in err (outfile_write's:
 * -EINTR when a stop signal ended the wait for a FIFO's reader). */
MUST_CHECK int report_json_write(const struct results *r, const struct report_run *run,
                                 const char *path, char *err, size_t errlen);

/* report_csv_write - write the CSV report (header, one row per group and op, per group and
 * timed syscall, the "total" group, then the interval rows; the header alone when nothing was
 * measured) to `path` ("-": stdout). Returns 0, or -errno with a message naming the path in err
 * (outfile_write's: -EINTR when a stop signal ended the wait for a FIFO's reader). */
MUST_CHECK int report_csv_write(const struct results *r, const char *path, char *err,
                                size_t errlen);

/* report_write_outputs - the machine-readable results of a run: --csv to csv_path, then --json
 * to json_path (NULL: not asked), each written whole or not at all (outfile.h). run->exit_status
 * is what the JSON records: the caller writes the JSON last, after every other output, with the
 * status fsmix exits with (run_report.c). A failure is printed to log ("fsmix: PATH: reason");
 * both files are attempted. Returns FAIL_NONE, or the
 * first failure: FAIL_INTERRUPTED when a stop signal ended the wait for a FIFO's reader, else
 * FAIL_IO. */
MUST_CHECK enum failure report_write_outputs(const struct results *r, const struct report_run *run,
                                             const char *json_path, const char *csv_path,
                                             FILE *log);

/* report_csv_field - one RFC 4180 field: quoted (with "" for ") when it holds a comma, a quote
 * or a line end. */
void report_csv_field(FILE *f, const char *s);

#endif
