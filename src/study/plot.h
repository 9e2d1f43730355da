/* plot.h - charts of fsmix results drawn by gnuplot (Debian's gnuplot-nox), PNG or SVG by the
 * output file's extension (gnuplot.h: how no input text is ever interpreted by gnuplot):
 *   - a sweep: throughput (ops/s, trans/s) and latency (op p50/p99, sync p99) against the
 *     swept value, mean with standard-deviation error bars;
 *   - a single run with --interval rows: ops/s, MB/s and op p99 over time, one line per thread
 *     group (and the total when there are several), on a shared time axis;
 *   - a single run without intervals: the msec_range histogram of every timed syscall;
 *   - a comparison (two documents): base and new side by side per point, with error bars.
 */
#ifndef FSMIX_PLOT_H
#define FSMIX_PLOT_H

#include <jansson.h>
#include <stdio.h>

#include "failure.h"

/* plot_write - draw doc (a sweep or run JSON; with base_or_null: the comparison base vs doc)
 * into path; messages go to log. FAIL_NONE; FAIL_INPUT for a bad file name or a document with
 * nothing to draw; FAIL_UNSUPPORTED when gnuplot is missing; FAIL_INTERRUPTED when a stop
 * signal arrived while gnuplot ran; FAIL_IO when gnuplot or writing the picture fails. */
enum failure plot_write(const json_t *doc, const json_t *base_or_null, const char *path, FILE *log);

/* plot_script - the reading half of plot_write: the data (numbers only) to `data` and the
 * gnuplot commands (which read data_path) to `script`. The terminal and output lines are the
 * caller's. FAIL_NONE; FAIL_INPUT with a message on log when doc has nothing to draw; FAIL_IO
 * when out of memory. Any JSON document is accepted without crashing
 * (tests/fuzz/fuzz_results.c). */
enum failure plot_script(const json_t *doc, const json_t *base_or_null, FILE *data,
                         const char *data_path, FILE *script, FILE *log);

/* plot_has_intervals - doc is a single run with --interval rows (drawn over time). */
int plot_has_intervals(const json_t *doc);

/* plot_check_output - `path` can take a plot: it ends in .png or .svg and can be written
 * (outfile.h; nothing is created). 0, or -1 with "PATH: reason" in err. */
int plot_check_output(const char *path, char *err, size_t errlen);

#endif
