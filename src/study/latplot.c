/* latplot.c - latency-log charts (see latplot.h). */
#include "latplot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnuplot.h"
#include "stopsig.h"

#define T_MAX_S 1e9 /* a start time beyond 31 years is a malformed line */

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* A decimal integer without sign; false on no digits or overflow. */
static bool parse_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return true;
}

/* Seconds: digits, optionally '.' and digits (the first 9 count). */
static bool parse_time(const char **pp, const char *end, double *t)
{
	uint64_t whole;
	if (!parse_u64(pp, end, &whole) || (double)whole > T_MAX_S)
		return false;
	const char *p = *pp;
	double frac = 0, scale = 0.1;
	if (p < end && *p == '.') {
		p++;
		for (int i = 0; p < end && *p >= '0' && *p <= '9'; p++, i++)
			if (i < 9) {
				frac += (*p - '0') * scale;
				scale /= 10;
			}
	}
	*pp = p;
	*t = (double)whole + frac;
	return true;
}

/* A field ends at a blank or the line's end. */
static bool field_end(const char *p, const char *end)
{
	return p == end || *p == ' ' || *p == '\t';
}

static unsigned row_of(uint64_t ns)
{
	if (ns < (1ull << LATPLOT_MIN_OCT))
		return 0;
	unsigned oct = 63u - (unsigned)__builtin_clzll(ns);
	if (oct >= LATPLOT_MAX_OCT)
		return LATPLOT_ROWS - 1;
	unsigned sub = (unsigned)(ns >> (oct - 4)) & (LATPLOT_ROWS_PER_OCT - 1);
	return (oct - LATPLOT_MIN_OCT) * LATPLOT_ROWS_PER_OCT + sub;
}

/* Double the grid's time span: column c takes the slower of columns 2c and 2c+1. */
static void grow_span(struct latplot *lp)
{
	for (size_t k = 0; k < LATPLOT_KINDS + 2; k++) {
		struct latplot_cell *cells = lp->kinds[k].cells;
		if (!cells)
			continue;
		for (size_t r = lp->kinds[k].row_lo; r <= lp->kinds[k].row_hi; r++) {
			struct latplot_cell *row = cells + r * LATPLOT_COLS;
			for (size_t c = 0; c < LATPLOT_COLS / 2; c++) {
				const struct latplot_cell *a = &row[2 * c], *b = &row[2 * c + 1];
				uint32_t n = a->n + b->n < a->n ? UINT32_MAX : a->n + b->n;
				row[c] = b->ns > a->ns ? *b : *a;
				row[c].n = n;
			}
			memset(row + LATPLOT_COLS / 2, 0, LATPLOT_COLS / 2 * sizeof(*row));
		}
	}
	lp->span_s *= 2;
}

/* Puts one operation into its kind's grid (allocated on the first). 0 or -ENOMEM. */
static int grid_add(struct latplot *lp, unsigned kind, double t, uint64_t ns)
{
	struct latplot_series *s = &lp->kinds[kind];
	if (!s->cells &&
	    !(s->cells = calloc((size_t)LATPLOT_COLS * LATPLOT_ROWS, sizeof(*s->cells))))
		return -ENOMEM;
	unsigned row = row_of(ns);
	if (!s->count_drawn++)
		s->row_lo = s->row_hi = row;
	s->row_lo = row < s->row_lo ? row : s->row_lo;
	s->row_hi = row > s->row_hi ? row : s->row_hi;
	while (t >= lp->span_s)
		grow_span(lp);
	size_t col = (size_t)(t / lp->span_s * LATPLOT_COLS);
	if (col >= LATPLOT_COLS)
		col = LATPLOT_COLS - 1;
	struct latplot_cell *cell = &s->cells[(size_t)row * LATPLOT_COLS + col];
	if (ns > cell->ns) {
		cell->t_s = (float)t;
		cell->ns = ns;
	}
	cell->n += cell->n < UINT32_MAX;
	return 0;
}

/* The raw points into the grids (they stay in raw). 0 or -ENOMEM. */
static int grid_from_raw(struct latplot *lp)
{
	for (size_t i = 0; i < lp->n_raw; i++)
		if (grid_add(lp, lp->raw[i].kind, lp->raw[i].t_s, lp->raw[i].ns))
			return -ENOMEM;
	return 0;
}

/* One point: kept as it is while there are at most raw_max, then everything goes into the
 * grids (which are only made then, so a short log costs no grid). 0 or -ENOMEM. */
static int add_point(struct latplot *lp, unsigned kind, double t, uint64_t ns)
{
	if (lp->thinned)
		return grid_add(lp, kind, t, ns);
	if (lp->n_raw == lp->raw_max) {
		int rc = grid_from_raw(lp);
		lp->thinned = true;
		free(lp->raw);
		lp->raw = NULL;
		lp->n_raw = lp->raw_cap = 0;
		return rc ? rc : grid_add(lp, kind, t, ns);
	}
	if (lp->n_raw == lp->raw_cap) { /* grows by doubling: small logs stay small */
		size_t cap = lp->raw_cap ? lp->raw_cap * 2 : 1024;
		cap = cap < lp->raw_max ? cap : lp->raw_max;
		struct latplot_raw *v = realloc(lp->raw, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		lp->raw = v;
		lp->raw_cap = cap;
	}
	lp->raw[lp->n_raw++] = (struct latplot_raw){t, ns, kind};
	return 0;
}

static unsigned kind_of(struct latplot *lp, const char *name, size_t len)
{
	if (len >= LATPLOT_NAME_MAX)
		len = LATPLOT_NAME_MAX - 1;
	for (size_t k = 0; k < lp->n_kinds; k++)
		if (!strncmp(lp->kinds[k].name, name, len) && !lp->kinds[k].name[len])
			return (unsigned)k;
	if (lp->n_kinds == LATPLOT_KINDS)
		return LATPLOT_OTHER;
	memcpy(lp->kinds[lp->n_kinds].name, name, len);
	lp->kinds[lp->n_kinds].name[len] = '\0';
	return (unsigned)lp->n_kinds++;
}

static enum failure oom_failure(const char *name, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: out of memory", name);
	return FAIL_IO;
}

enum failure latplot_read(struct latplot *lp, const char *buf, size_t len, const char *name,
                          char *err, size_t errlen)
{
	return latplot_read_max(lp, buf, len, name, LATPLOT_RAW_MAX, err, errlen);
}

void latplot_begin(struct latplot *lp, size_t raw_max)
{
	memset(lp, 0, sizeof(*lp));
	lp->span_s = 1.0;
	lp->raw_max = raw_max < LATPLOT_RAW_MAX ? raw_max : LATPLOT_RAW_MAX;
	snprintf(lp->kinds[LATPLOT_OTHER].name, LATPLOT_NAME_MAX, "other");
	snprintf(lp->kinds[LATPLOT_SYNC].name, LATPLOT_NAME_MAX, "time in sync calls");
}

/* One line [p, le) of the log: 0 (counted, or skipped: blank or a comment), 1 when it is not a
 * latency log line (*what: the first bad field), -1 when out of memory. */
static int parse_line(struct latplot *lp, const char *p, const char *le, const char **what)
{
	const char *q = skip_blanks(p, le);
	if (q == le || *q == '#')
		return 0;
	double t;
	uint64_t group, thread, lat, bytes, sync, resp;
	*what = "start time (t_s)";
	if (!parse_time(&q, le, &t) || !field_end(q, le))
		return 1;
	*what = "group";
	q = skip_blanks(q, le);
	if (!parse_u64(&q, le, &group) || !field_end(q, le))
		return 1;
	*what = "thread";
	q = skip_blanks(q, le);
	if (!parse_u64(&q, le, &thread) || !field_end(q, le))
		return 1;
	*what = "operation";
	q = skip_blanks(q, le);
	const char *op = q;
	while (!field_end(q, le))
		q++;
	size_t op_len = (size_t)(q - op);
	if (!op_len)
		return 1;
	*what = "latency (lat_ns)";
	q = skip_blanks(q, le);
	if (!parse_u64(&q, le, &lat) || !field_end(q, le))
		return 1;
	*what = "bytes";
	q = skip_blanks(q, le);
	if (!parse_u64(&q, le, &bytes) || !field_end(q, le))
		return 1;
	*what = "sync time (sync_ns)";
	q = skip_blanks(q, le);
	if (!parse_u64(&q, le, &sync) || !field_end(q, le))
		return 1;
	/* resp_ns (logs since the op_period response time) is read and not drawn: the picture
	 * shows each operation's own latency */
	*what = "response time (resp_ns)";
	q = skip_blanks(q, le);
	if (q != le && (!parse_u64(&q, le, &resp) || !field_end(q, le)))
		return 1;
	*what = "end of line (t_s group thread op lat_ns bytes sync_ns [resp_ns])";
	if (skip_blanks(q, le) != le)
		return 1;
	unsigned k = kind_of(lp, op, op_len);
	lp->lines++;
	lp->kinds[k].count++;
	if (t > lp->t_max)
		lp->t_max = t;
	if (!lat)
		lp->zero++;
	else if (add_point(lp, k, t, lat))
		return -1;
	if (sync) {
		lp->kinds[LATPLOT_SYNC].count++;
		if (add_point(lp, LATPLOT_SYNC, t, sync))
			return -1;
	}
	return 0;
}

enum failure latplot_line(struct latplot *lp, const char *p, size_t len, uint64_t line,
                          const char *name, char *err, size_t errlen)
{
	const char *what = "";
	if (len > LATPLOT_LINE_MAX) {
		snprintf(err, errlen,
		         "%s:%llu: not a latency log line: longer than %d bytes (the longest "
		         "accepted)",
		         name, (unsigned long long)line, LATPLOT_LINE_MAX);
		return FAIL_INPUT;
	}
	int rc = parse_line(lp, p, p + len, &what);
	if (rc < 0)
		return oom_failure(name, err, errlen);
	if (rc) {
		snprintf(err, errlen, "%s:%llu: not a latency log line: bad %s", name,
		         (unsigned long long)line, what);
		return FAIL_INPUT;
	}
	return FAIL_NONE;
}

enum failure latplot_end(struct latplot *lp, const char *name, char *err, size_t errlen)
{
	/* Unthinned, the grids are needed only for the median and p99 lines of big kinds. */
	for (size_t k = 0; !lp->thinned && k <= LATPLOT_OTHER; k++)
		if (lp->kinds[k].count >= LATPLOT_LINE_MIN)
			return grid_from_raw(lp) ? oom_failure(name, err, errlen) : FAIL_NONE;
	return FAIL_NONE;
}

enum failure latplot_read_max(struct latplot *lp, const char *buf, size_t len, const char *name,
                              size_t raw_max, char *err, size_t errlen)
{
	latplot_begin(lp, raw_max);
	const char *p = buf, *end = buf + len;
	for (uint64_t line = 1; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		enum failure f = latplot_line(lp, p, (size_t)(le - p), line, name, err, errlen);
		if (f)
			return f;
		p = eol ? eol + 1 : end;
	}
	return latplot_end(lp, name, err, errlen);
}

void latplot_free(struct latplot *lp)
{
	for (size_t k = 0; k < LATPLOT_KINDS + 2; k++)
		free(lp->kinds[k].cells);
	free(lp->raw);
	memset(lp, 0, sizeof(*lp));
}

/* One colour per operation kind (gnuplot's default set), as 0xRRGGBB. */
static const uint32_t kind_rgb[] = {0x9400d3, 0x009e73, 0x56b4e9, 0xe69f00,
                                    0xf0e442, 0x0072b2, 0xe51e10, 0x808080};
#define N_RGB (sizeof(kind_rgb) / sizeof(kind_rgb[0]))

/* The cells of series s that are in use (rows row_lo..row_hi), as [*first, *end). */
static bool cells_in_use(const struct latplot_series *s, const struct latplot_cell **first,
                         const struct latplot_cell **end)
{
	if (!s->count_drawn)
		return false;
	*first = s->cells + (size_t)s->row_lo * LATPLOT_COLS;
	*end = s->cells + (size_t)(s->row_hi + 1) * LATPLOT_COLS;
	return true;
}

/* Writes series k's points as one data block "t_s ms 0xAARRGGBB" (gnuplot's `lc rgb variable`;
 * AA is transparency); returns how many. Raw points are 30% transparent; a thinned cell is more
 * opaque the more operations it holds (25% to 90% opacity with log(n) / log(n of the fullest
 * cell)), so that where clouds of two kinds overlap both show. */
static uint64_t write_block(const struct latplot *lp, unsigned k, FILE *f)
{
	uint64_t n = 0;
	uint32_t rgb = k == LATPLOT_SYNC ? 0 : kind_rgb[k % N_RGB];
	const struct latplot_cell *c, *end;
	if (!lp->thinned) {
		for (size_t i = 0; i < lp->n_raw; i++)
			if (lp->raw[i].kind == k) {
				fprintf(f, "%.6f %.9g 0x%08x\n", lp->raw[i].t_s,
				        (double)lp->raw[i].ns / 1e6, 0x4d000000u | rgb);
				n++;
			}
	} else if (cells_in_use(&lp->kinds[k], &c, &end)) {
		uint32_t most = 1;
		for (const struct latplot_cell *p = c; p < end; p++)
			most = p->n > most ? p->n : most;
		for (const struct latplot_cell *p = c; p < end; p++) {
			if (!p->ns)
				continue;
			double opacity =
			    most > 1 ? 0.25 + 0.65 * log((double)p->n) / log((double)most) : 0.9;
			uint32_t alpha = (uint32_t)lround((1.0 - opacity) * 255.0);
			fprintf(f, "%.6f %.9g 0x%08x\n", (double)p->t_s, (double)p->ns / 1e6,
			        alpha << 24 | rgb);
			n++;
		}
	}
	fprintf(f, "\n\n");
	return n;
}

void latplot_describe(const struct latplot *lp, char *buf, size_t len)
{
	uint64_t points = 0;
	const struct latplot_cell *c, *end;
	if (!lp->thinned)
		points = lp->n_raw;
	else
		for (size_t k = 0; k < LATPLOT_KINDS + 2; k++)
			if (cells_in_use(&lp->kinds[k], &c, &end))
				for (; c < end; c++)
					points += c->ns != 0;
	char zero[80] = "";
	if (lp->zero)
		snprintf(zero, sizeof(zero), "; %llu with 0 ns latency not drawn",
		         (unsigned long long)lp->zero);
	if (!lp->thinned)
		snprintf(buf, len, "%llu operations, every one drawn (%llu points)%s",
		         (unsigned long long)lp->lines, (unsigned long long)points, zero);
	else
		snprintf(buf, len,
		         "%llu operations thinned to %llu points: the slowest one per cell of %d "
		         "time columns (%.3g s each) x %d latency rows per power of 2, per kind; "
		         "darker: more operations%s",
		         (unsigned long long)lp->lines, (unsigned long long)points, LATPLOT_COLS,
		         lp->span_s / LATPLOT_COLS, LATPLOT_ROWS_PER_OCT, zero);
}

/* Latency of the middle of grid row r, in ns. */
static double row_mid_ns(unsigned r)
{
	unsigned oct = r / LATPLOT_ROWS_PER_OCT + LATPLOT_MIN_OCT, sub = r % LATPLOT_ROWS_PER_OCT;
	return ((double)(LATPLOT_ROWS_PER_OCT + sub) + 0.5) * ldexp(1.0, (int)oct - 4);
}

/* Writes kind k's median and p99 per LATPLOT_LINE_COLS-th of the grid's span, "t_s p50_ms
 * p99_ms", from the grid's counts (within one row: 1/16 of a power of 2, 4.4%); columns with
 * fewer than 5 operations are left out. Returns the number of rows. */
static size_t write_lines(const struct latplot *lp, unsigned k, FILE *f)
{
	const struct latplot_series *s = &lp->kinds[k];
	const size_t w = LATPLOT_COLS / LATPLOT_LINE_COLS;
	size_t rows = 0;
	for (size_t cc = 0; s->count_drawn && cc < LATPLOT_LINE_COLS; cc++) {
		uint64_t total = 0, seen = 0;
		for (unsigned r = s->row_lo; r <= s->row_hi; r++)
			for (size_t c = cc * w; c < (cc + 1) * w; c++)
				total += s->cells[(size_t)r * LATPLOT_COLS + c].n;
		if (total < 5)
			continue;
		double p50 = -1, p99 = -1;
		for (unsigned r = s->row_lo; r <= s->row_hi && p99 < 0; r++) {
			for (size_t c = cc * w; c < (cc + 1) * w; c++)
				seen += s->cells[(size_t)r * LATPLOT_COLS + c].n;
			if (p50 < 0 && seen * 2 >= total)
				p50 = row_mid_ns(r);
			if (p99 < 0 && seen * 100 >= total * 99)
				p99 = row_mid_ns(r);
		}
		fprintf(f, "%.6f %.9g %.9g\n", ((double)cc + 0.5) * lp->span_s / LATPLOT_LINE_COLS,
		        p50 / 1e6, p99 / 1e6);
		rows++;
	}
	fprintf(f, "\n\n");
	return rows;
}

int latplot_script(const struct latplot *lp, FILE *data, const char *data_path, FILE *g,
                   const char *title)
{
	/* Operation kinds by descending count, so rarer kinds are drawn on top; the sync
	 * series last. Colours follow the order of first appearance in the log. */
	unsigned order[LATPLOT_KINDS + 2];
	size_t n = 0;
	for (unsigned k = 0; k < LATPLOT_KINDS + 1; k++)
		if (k < lp->n_kinds || (k == LATPLOT_OTHER && lp->kinds[k].count))
			order[n++] = k;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i;
		     j > 0 && lp->kinds[order[j]].count > lp->kinds[order[j - 1]].count; j--) {
			unsigned t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	order[n++] = LATPLOT_SYNC;
	char desc[512];
	latplot_describe(lp, desc, sizeof(desc));
	fprintf(g, "set title ");
	gp_str(g, title);
	fprintf(g, "\nset label 1 ");
	gp_str(g, desc);
	fprintf(g, " at screen 0.5, screen 0.04 center\nset bmargin 6\n");
	for (size_t i = 0; i + 1 < n; i++)
		if (lp->kinds[order[i]].count >= LATPLOT_LINE_MIN) {
			fprintf(
			    g,
			    "set label 2 'lines: the median and the 99th percentile of each 1/%d "
			    "of the time, per operation kind with at least %d operations' at "
			    "screen 0.5, screen 0.012 center\n",
			    LATPLOT_LINE_COLS, LATPLOT_LINE_MIN);
			break;
		}
	fprintf(g, "set grid\nset key outside right top\nset logscale y 10\nset format y '%%g'\n");
	fprintf(g, "set xlabel 'time since the start (s)'\nset ylabel 'latency (ms)'\n");
	fprintf(g, "set xrange [0:%.9g]\n", lp->t_max > 0 ? lp->t_max : 1.0);
	size_t drawn = 0;
	for (size_t i = 0; i < n; i++) { /* block i of data is series order[i] */
		unsigned k = order[i];
		if (!write_block(lp, k, data))
			continue;
		char name[LATPLOT_NAME_MAX + 40];
		snprintf(name, sizeof(name), "%s (%llu)", lp->kinds[k].name,
		         (unsigned long long)lp->kinds[k].count);
		fprintf(g, "%s'%s' index %zu ", drawn ? ", " : "plot ", drawn ? "" : data_path, i);
		if (k == LATPLOT_SYNC) {
			fprintf(g,
			        "using 1:2 with points pt 6 ps 1.2 lw 1.5 lc rgb 'black' title ");
		} else {
			/* The points carry colours of their own; the key gets an opaque sample.
			 * Thinned cells are small squares, about one cell each, so that they do
			 * not cover one another. */
			fprintf(g, "using 1:2:3 with points %s lc rgb variable notitle, ",
			        lp->thinned ? "pt 5 ps 0.2" : "pt 7 ps 0.35");
			fprintf(g, "keyentry with points pt 7 ps 1 lc rgb '#%06x' title ",
			        (unsigned)kind_rgb[k % N_RGB]);
		}
		gp_str(g, name);
		drawn++;
	}
	if (!drawn)
		return -1;
	/* Kinds with many operations also get their median (solid) and p99 (dashed) lines, in a
	 * darker shade, so that a kind stays visible inside another's cloud. Data blocks n, n+1,
	 * ... hold them. */
	size_t lines = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned k = order[i];
		if (lp->kinds[k].count < LATPLOT_LINE_MIN || !write_lines(lp, k, data))
			continue;
		uint32_t rgb = kind_rgb[k % N_RGB], dark = 0;
		for (int b = 0; b < 24; b += 8)
			dark |= (uint32_t)(((rgb >> b) & 0xff) * 6 / 10) << b;
		fprintf(
		    g,
		    ", '' index %zu using 1:2 with lines lw 2 lc rgb '#%06x' notitle, '' index %zu "
		    "using 1:3 with lines lw 1.5 dt 2 lc rgb '#%06x' notitle",
		    n + lines, (unsigned)dark, n + lines, (unsigned)dark);
		lines++;
	}
	if (lines)
		fprintf(g,
		        ", keyentry with lines lw 2 lc rgb '#404040' title 'median; p99 dashed'");
	fprintf(g, "\n");
	return 0;
}

/* The log is read in chunks of LATPLOT_CHUNK bytes (a regular file, a pipe, /dev/stdin alike):
 * memory is the chunk, one line carried over and the grids, whatever the input's length. */
#define LATPLOT_CHUNK   (1 << 20)
#define LATPLOT_POLL_MS 50

/* Reads the log open as fd into lp, line by line (latplot_line); a stop signal (stopsig.h)
 * ends the read with FAIL_INTERRUPTED. */
static enum failure stream_log(struct latplot *lp, int fd, const char *path, char *err,
                               size_t errlen)
{
	char *buf = malloc(LATPLOT_CHUNK + LATPLOT_LINE_MAX + 1);
	if (!buf)
		return oom_failure(path, err, errlen);
	unsigned snapshot = stopsig_count();
	size_t have = 0; /* bytes of an unfinished line at buf's start */
	uint64_t line = 1;
	enum failure f = FAIL_NONE;
	for (;;) {
		/* fd is non-blocking: a pipe or FIFO with nothing to read yet is waited for in
		 * steps, so that a stop signal (blocked: pending) ends the wait. */
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, LATPLOT_POLL_MS);
		if (stopsig_arrived(snapshot)) {
			snprintf(err, errlen, "interrupted while reading %s; no picture written",
			         path);
			f = FAIL_INTERRUPTED;
			break;
		}
		if (pr == 0 || (pr < 0 && errno == EINTR))
			continue;
		ssize_t r = read(fd, buf + have, LATPLOT_CHUNK);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			snprintf(err, errlen, "--lat-log %s: %s", path, strerror(errno));
			f = FAIL_INPUT;
			break;
		}
		size_t len = have + (size_t)r;
		const char *p = buf, *end = buf + len, *eol;
		while (!f && (eol = memchr(p, '\n', (size_t)(end - p)))) {
			f = latplot_line(lp, p, (size_t)(eol - p), line++, path, err, errlen);
			p = eol + 1;
		}
		have = (size_t)(end - p);
		if (!f && (r == 0 || have > LATPLOT_LINE_MAX)) /* the last line, or too long */
			f = have ? latplot_line(lp, p, have, line, path, err, errlen) : FAIL_NONE;
		if (f || r == 0)
			break;
		memmove(buf, p, have);
	}
	free(buf);
	return f ? f : latplot_end(lp, path, err, errlen);
}

enum failure latplot_write(const char *log_path, const char *out_path, FILE *log)
{
	enum failure rc = gp_check_path(out_path, "-o", log);
	if (rc)
		return rc;
	struct latplot lp;
	char err[1024];
	latplot_begin(&lp, LATPLOT_RAW_MAX);
	/* non-blocking: the open of a FIFO does not wait for a writer (stream_log does) */
	int fd = open(log_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		latplot_free(&lp);
		fprintf(log, "fsmix: --lat-log %s: %s\n", log_path, strerror(errno));
		return FAIL_INPUT;
	}
	rc = stream_log(&lp, fd, log_path, err, sizeof(err));
	close(fd);
	if (rc)
		fprintf(log, "fsmix: %s\n", err);
	struct gp_job j;
	if (!rc)
		rc = gp_open(&j, out_path, 1200, 700, log);
	if (!rc) {
		const char *base = strrchr(log_path, '/');
		char title[1024];
		snprintf(title, sizeof(title), "fsmix latency log: %s", base ? base + 1 : log_path);
		if (latplot_script(&lp, j.data_f, GP_DATA_NAME, j.script_f, title)) {
			fprintf(log, "fsmix: --lat-log %s: no operation to draw\n", log_path);
			gp_discard(&j);
			rc = FAIL_INPUT;
		} else {
			char desc[512];
			latplot_describe(&lp, desc, sizeof(desc));
			fprintf(log, "fsmix: %s: %s\n", log_path, desc);
			rc = gp_finish(&j, out_path, log);
		}
	}
	latplot_free(&lp);
	return rc;
}
