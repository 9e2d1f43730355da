/* plot.h - charts of fsmix results drawn by gnuplot (Debian's gnuplot-nox), PNG or SVG by the
 * output file's extension:
 *   - a sweep: throughput (ops/s, trans/s) and latency (op p50/p99, sync p99) against the
 *     swept value, mean with standard-deviation error bars;
 *   - a single run: the msec_range histogram of every timed syscall;
 *   - a comparison (two documents): base and new side by side per point, with error bars.
 */
#ifndef FSMIX_PLOT_H
#define FSMIX_PLOT_H

#include <jansson.h>
#include <stdio.h>

/* plot_write - draw doc (a sweep or run JSON; with base_or_null: the comparison base vs doc)
 * into path. Returns 0, EXIT_UNSUPPORTED when gnuplot is missing, EXIT_BAD_INPUT for a bad
 * file name or document, EXIT_RUN_FAILED when gnuplot fails; messages go to log. */
int plot_write(const json_t *doc, const json_t *base_or_null, const char *path, FILE *log);

/* plot_check_output - `path` can take a plot: it ends in .png or .svg and can be written
 * (outfile.h; nothing is created). 0, or -1 with "PATH: reason" in err. */
int plot_check_output(const char *path, char *err, size_t errlen);

#endif
