/* latplot.h - `fsmix plot --lat-log LOG -o FILE`: every operation of a latency log (latlog.h)
 * as a point (start time, latency) on a log latency axis, one colour per operation kind, and
 * the time each operation spent in sync calls (sync_ns) as open black circles.
 *
 * Thinning: logs of up to LATPLOT_RAW_MAX operations are drawn whole. Beyond that, the picture
 * is a grid of LATPLOT_COLS time columns x LATPLOT_ROWS log-latency rows (LATPLOT_ROWS_PER_OCT
 * per power of two, from 2^LATPLOT_MIN_OCT ns) per operation kind, and each occupied cell is
 * drawn as its slowest operation, at that operation's true time and latency, with an opacity
 * that grows with the logarithm of the number of operations in the cell: every outlier stays,
 * dense clouds keep their outline and show where most operations are, and the number of points
 * is bounded whatever the log's length. Kinds of at least LATPLOT_LINE_MIN operations also
 * get their median and 99th percentile over time as lines (from the grid's counts, per
 * LATPLOT_LINE_COLS-th of the time), which stay visible where clouds overlap. The time columns
 * start 1 s wide in total and double as the log goes on, so the log is read once, in one pass, in
 * memory proportional to the grid. The chart's title and fsmix's message say which of the two was
 * done.
 */
#ifndef FSMIX_LATPLOT_H
#define FSMIX_LATPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "failure.h"

#define LATPLOT_RAW_MAX      100000
#define LATPLOT_COLS         800
#define LATPLOT_ROWS_PER_OCT 16
#define LATPLOT_MIN_OCT      6  /* 64 ns: faster operations are drawn at 64 ns */
#define LATPLOT_MAX_OCT      46 /* 2^46 ns, 19.5 hours */
#define LATPLOT_ROWS         ((LATPLOT_MAX_OCT - LATPLOT_MIN_OCT) * LATPLOT_ROWS_PER_OCT)
#define LATPLOT_KINDS        24 /* operation names; later ones are counted as "other" */
#define LATPLOT_NAME_MAX     48
#define LATPLOT_LINE_MIN     1000 /* operations of a kind for its median and p99 lines */
#define LATPLOT_LINE_COLS    100  /* the lines' points: one per 8 grid columns */

/* A cell of the thinning grid: its slowest operation and how many operations fell in it. */
struct latplot_cell {
	uint64_t ns; /* 0: empty cell */
	float t_s;   /* (a float: a cell is at least a millisecond wide) */
	uint32_t n;  /* operations in the cell (saturates) */
};

struct latplot_series {
	char name[LATPLOT_NAME_MAX];
	uint64_t count;             /* operations (sync series: operations with sync_ns > 0) */
	struct latplot_cell *cells; /* LATPLOT_COLS x LATPLOT_ROWS, NULL until the first one */
	uint64_t count_drawn;       /* points put into cells */
	unsigned row_lo, row_hi;    /* rows in use: [row_lo, row_hi] (when count_drawn) */
};

struct latplot_raw {
	double t_s;
	uint64_t ns;
	unsigned kind; /* index into kinds, or LATPLOT_KINDS + 1 for the sync series */
};

struct latplot {
	uint64_t lines; /* operations read */
	uint64_t zero;  /* operations with lat_ns 0 (not drawn on a log axis) */
	double span_s;  /* the grid's time span: LATPLOT_COLS columns of span_s / COLS */
	double t_max;   /* latest start time */
	size_t n_kinds; /* used entries of kinds; kinds[LATPLOT_KINDS] is "other" */
	struct latplot_series kinds[LATPLOT_KINDS + 2]; /* [LATPLOT_KINDS + 1]: sync calls */
	struct latplot_raw *raw; /* every point while there are at most LATPLOT_RAW_MAX */
	size_t n_raw, raw_cap;
	size_t raw_max; /* at most this many points are drawn whole (LATPLOT_RAW_MAX) */
	bool thinned;   /* more than LATPLOT_RAW_MAX points: the grid is drawn */
};

#define LATPLOT_OTHER LATPLOT_KINDS
#define LATPLOT_SYNC  (LATPLOT_KINDS + 1)

/* The longest line of a latency log accepted, in bytes without its '\n' (fsmix writes lines of
 * at most about 120 bytes): a longer one, or input without line ends (/dev/zero), is refused
 * with its line number, so that reading a log needs bounded memory whatever it holds. */
#define LATPLOT_LINE_MAX 4096

/* latplot_begin - lp empty, to be fed lines (latplot_line) and finished (latplot_end); at most
 * raw_max (<= LATPLOT_RAW_MAX) points are drawn whole. */
void latplot_begin(struct latplot *lp, size_t raw_max);

/* latplot_line - line number `line` of the log (len bytes at p, without its '\n'). FAIL_NONE;
 * FAIL_INPUT with "NAME:LINE: reason" in err for a malformed line or one longer than
 * LATPLOT_LINE_MAX; FAIL_IO with "NAME: out of memory" in err. */
enum failure latplot_line(struct latplot *lp, const char *p, size_t len, uint64_t line,
                          const char *name, char *err, size_t errlen);

/* latplot_end - after the last line: FAIL_NONE, or FAIL_IO (out of memory) with err. */
enum failure latplot_end(struct latplot *lp, const char *name, char *err, size_t errlen);

/* latplot_read - read a whole latency log from buf (len bytes, no terminator needed): lines of
 * 7 fields (t_s group thread op lat_ns bytes sync_ns) or 8 (and resp_ns, which is not drawn).
 * Lines starting with '#' and empty lines are skipped. FAIL_NONE; FAIL_INPUT with
 * "NAME:LINE: reason" in err for a malformed line (or one over LATPLOT_LINE_MAX); FAIL_IO with
 * "NAME: out of memory" in err. lp must be latplot_free()d either way. */
enum failure latplot_read(struct latplot *lp, const char *buf, size_t len, const char *name,
                          char *err, size_t errlen);

/* latplot_read_max - the same with raw_max (<= LATPLOT_RAW_MAX) instead of LATPLOT_RAW_MAX
 * points drawn whole (the fuzzer thins small inputs with it). */
enum failure latplot_read_max(struct latplot *lp, const char *buf, size_t len, const char *name,
                              size_t raw_max, char *err, size_t errlen);

/* latplot_script - the points (numbers only) to data, the gnuplot commands to script; title is
 * passed through gp_str. Returns 0, or -1 when there is no point to draw. */
int latplot_script(const struct latplot *lp, FILE *data, const char *data_path, FILE *script,
                   const char *title);

/* latplot_describe - one sentence on how the log was drawn (all points, or thinned how). */
void latplot_describe(const struct latplot *lp, char *buf, size_t len);

void latplot_free(struct latplot *lp);

/* latplot_write - `fsmix plot --lat-log log_path -o out_path`: the log is read in chunks (a
 * file, pipe, FIFO or device alike; memory bounded by the chunk, LATPLOT_LINE_MAX and the
 * grids); messages (including how it thinned) go to log. FAIL_NONE; FAIL_INPUT for a bad
 * output name or an unreadable, malformed or empty log; FAIL_IO when out of memory;
 * FAIL_INTERRUPTED when a stop signal (blocked by the caller: stopsig_block) came while reading;
 * otherwise gp_finish's failure (gnuplot.h). */
enum failure latplot_write(const char *log_path, const char *out_path, FILE *log);

#endif
