/* gnuplot.h - drawing with gnuplot without giving it any text to interpret.
 *
 * A job writes its data file and script into a private temporary directory (mkdtemp under
 * /tmp, so its paths hold only [A-Za-z0-9/.-]); gnuplot draws into DIR/image.png|svg, and the
 * image is then copied to the output path by fsmix itself (outfile.h: a device, FIFO or symbolic
 * link is written through, never replaced), so the output path never appears in the script. Every
 * other string that reaches the script (titles, group, profile and operation names, labels) is
 * written with gp_str() (gp_tic() for a tic label) as a double-quoted gnuplot string, and data
 * files hold numbers only.
 *
 * gnuplot 5.4's rules, which gp_str relies on (checked by tests/e2e/plot_hostile.sh): inside
 * "..." a backslash and three octal digits stand for that byte, and a script line is scanned
 * for backquote substitution and @macros before the string is read, so gp_str writes only
 * letters, digits and " _.,:;()/+=-" as they are and every other byte (quotes, backslashes,
 * backquotes, @, %, control characters, bytes above 127) as \ooo: any byte sequence arrives
 * intact. (Single-quoted strings, with '' for a quote, were used once: gnuplot 5.4 misreads
 * '' twice in a row.) A tic label in `set xtics ("LABEL" x)` is also a format for the tic's
 * value, so gp_tic doubles its '%'. The terminal is set `noenhanced`, so ^ _ @ & { } in a title
 * are shown as they are instead of being taken as markup.
 */
#ifndef FSMIX_GNUPLOT_H
#define FSMIX_GNUPLOT_H

#include <limits.h>
#include <stdio.h>

#include "failure.h"

/* The data file's name in scripts: gnuplot runs in the job's directory, so scripts name
 * their files relatively and no path reaches gnuplot's command language. */
#define GP_DATA_NAME "data"

struct gp_job {
	char dir[PATH_MAX];    /* $TMPDIR (or /tmp)/fsmix-plot.XXXXXX */
	char data[PATH_MAX];   /* DIR/data: numbers only */
	char script[PATH_MAX]; /* DIR/plot.gp */
	char image[PATH_MAX];  /* DIR/image.png or .svg: gnuplot's output */
	FILE *data_f, *script_f;
};

/* gp_check_output - the output path's name ends in .png or .svg (case-insensitive) and it can
 * be written (outfile_check; nothing is created). 0, or -1 with "PATH: reason" in err. */
int gp_check_output(const char *path, char *err, size_t errlen);

/* gp_check_path - gp_check_output with the message on log, after opt (the option's name).
 * FAIL_NONE, or FAIL_INPUT (a bad output name is the user's to fix). */
enum failure gp_check_path(const char *path, const char *opt, FILE *log);

/* gp_open - make the directory and the two files, and write the terminal (width x height
 * pixels, by path's extension) and output lines. Messages go to log; on failure nothing is
 * left behind. FAIL_NONE; FAIL_INPUT for a path not ending in .png/.svg or a $TMPDIR too long
 * for the job's names; FAIL_IO when the directory or its files cannot be made. */
enum failure gp_open(struct gp_job *j, const char *path, int width, int height, FILE *log);

/* gp_finish - close the files, run gnuplot, check the image, copy it to path (outfile.h) and
 * remove the directory. Messages go to log. FAIL_NONE; FAIL_UNSUPPORTED without gnuplot;
 * FAIL_INTERRUPTED when a stop signal arrived while gnuplot ran; FAIL_IO when writing the
 * job's files, gnuplot itself or writing path failed. */
enum failure gp_finish(struct gp_job *j, const char *path, FILE *log);

/* gp_discard - remove the job's files and directory without drawing. */
void gp_discard(struct gp_job *j);

/* gp_str - s as a gnuplot double-quoted string literal, quotes included (NULL: ""). */
void gp_str(FILE *g, const char *s);

/* gp_tic - gp_str for a tic label: '%' doubled as well (the label is a format). */
void gp_tic(FILE *g, const char *s);

/* gp_num - a double as gnuplot data: %.9g, or NaN (a missing point) when not finite. */
void gp_num(FILE *f, double v);

#endif
