/* gnuplot.c - gnuplot jobs (see gnuplot.h). */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"
#include "outfile.h"
#include "stopsig.h"
#include "subproc.h"

static const char *path_ext(const char *path)
{
	size_t n = strlen(path);
	if (n >= 4 && !strcasecmp(path + n - 4, ".png"))
		return "png";
	if (n >= 4 && !strcasecmp(path + n - 4, ".svg"))
		return "svg";
	return NULL;
}

int gp_check_output(const char *path, char *err, size_t errlen)
{
	if (!path_ext(path)) {
		snprintf(err, errlen, "%s: the file name must end in .png or .svg", path);
		return -1;
	}
	return outfile_check(path, err, errlen) ? -1 : 0;
}

enum failure gp_check_path(const char *path, const char *opt, FILE *log)
{
	char why[MSG_MAX];
	if (!gp_check_output(path, why, sizeof(why)))
		return FAIL_NONE;
	fprintf(log, "fsmix: %s %s\n", opt, why);
	return FAIL_INPUT;
}

/* Bytes written as they are inside a double-quoted gnuplot string: none of them is special
 * there (not \, ", `, @, %, a quote or a control character). */
static bool gp_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr(" _.,:;()/+=-", c);
}

/* s as a double-quoted string, every other byte as an octal escape; a tic label (used as a
 * format for the tic's value) also has its '%' doubled. */
static void gp_quote(FILE *g, const char *s, bool tic)
{
	fputc('"', g);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c && gp_plain(c))
			fputc(c, g);
		else
			fprintf(g, c == '%' && tic ? "\\%03o\\%03o" : "\\%03o", c, c);
	}
	fputc('"', g);
}

void gp_str(FILE *g, const char *s)
{
	gp_quote(g, s, false);
}

void gp_tic(FILE *g, const char *s)
{
	gp_quote(g, s, true);
}

void gp_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("NaN", f);
}

void gp_discard(struct gp_job *j)
{
	if (j->data_f)
		fclose(j->data_f);
	if (j->script_f)
		fclose(j->script_f);
	j->data_f = j->script_f = NULL;
	if (!j->dir[0])
		return;
	unlink(j->data);
	unlink(j->script);
	unlink(j->image);
	rmdir(j->dir);
	j->dir[0] = '\0';
}

enum failure gp_open(struct gp_job *j, const char *path, int width, int height, FILE *log)
{
	memset(j, 0, sizeof(*j));
	/* From here a stop signal waits (for run_gnuplot, or the caller's check): it cannot kill
	 * fsmix between mkdtemp and gp_discard and leave the directory behind. */
	stopsig_block();
	const char *ext = path_ext(path);
	if (!ext)
		return gp_check_path(path, "plot", log);
	char err[MSG_MAX];
	int rc = tmpdir_make(j->dir, sizeof(j->dir), "fsmix-plot", sizeof("/image.png"), err,
	                     sizeof(err));
	if (rc) {
		fprintf(log, "fsmix: %s\n", err);
		return rc == -ENAMETOOLONG ? FAIL_INPUT : FAIL_IO;
	}
	snprintf(j->data, sizeof(j->data), "%s/" GP_DATA_NAME, j->dir);
	snprintf(j->script, sizeof(j->script), "%s/plot.gp", j->dir); /* run_gnuplot's name */
	snprintf(j->image, sizeof(j->image), "%s/image.%s", j->dir, ext);
	j->data_f = fopen(j->data, "w");
	j->script_f = fopen(j->script, "w");
	if (!j->data_f || !j->script_f) {
		fprintf(log, "fsmix: cannot write in %s: %s\n", j->dir, strerror(errno));
		gp_discard(j);
		return FAIL_IO;
	}
	FILE *g = j->script_f;
	if (!strcmp(ext, "png"))
		fprintf(g, "set terminal pngcairo size %d,%d font 'sans,10' noenhanced\n", width,
		        height);
	else
		fprintf(g, "set terminal svg size %d,%d dynamic noenhanced\n", width, height);
	/* gnuplot runs in the job's directory: the script names its files relatively, so no path
	 * (TMPDIR is the user's) ever appears in it. */
	fprintf(g, "set output ");
	gp_str(g, strrchr(j->image, '/') + 1);
	fprintf(g, "\nset datafile missing 'NaN'\n");
	return FAIL_NONE;
}

/* gnuplot plot.gp in the job's directory dir. */
static enum failure run_gnuplot(const char *dir, FILE *log)
{
	char *argv[] = {"gnuplot", "plot.gp", NULL};
	/* fsmix's stop signals are blocked (after a run, and by gp_open): one that comes while
	 * gnuplot draws stops gnuplot (subproc.h), and means "interrupted", not "gnuplot
	 * failed". */
	unsigned signals_before = stopsig_count();
	struct subproc_end end;
	/* wait status, or -errno when gnuplot did not start */
	int st = subproc_run(argv, dir, &end);
	int start_errno = st < 0 ? -st : 0;
	if (end.stopped || stopsig_arrived(signals_before)) {
		fprintf(log, "fsmix: interrupted while plotting; no picture written\n");
		return FAIL_INTERRUPTED;
	}
	if (start_errno == ENOENT) {
		fprintf(log, "fsmix: plotting needs gnuplot, which is not installed "
		             "(apt-get install gnuplot-nox)\n");
		return FAIL_UNSUPPORTED;
	}
	if (start_errno) {
		fprintf(log, "fsmix: cannot start gnuplot: %s\n", strerror(start_errno));
		return FAIL_IO;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(log, "fsmix: gnuplot failed (status %d)\n",
		        WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return FAIL_IO;
	}
	return FAIL_NONE;
}

/* Copies the image gnuplot drew in the private directory to `path` (outfile.h's rules: never
 * replacing a device, FIFO or symbolic link; a regular file is replaced atomically). */
static enum failure copy_image(const char *image, const char *path, FILE *log)
{
	char why[MSG_MAX];
	struct outfile out;
	int in = open(image, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(log, "fsmix: gnuplot wrote no image: %s\n", strerror(errno));
		return FAIL_IO;
	}
	if (outfile_open(&out, path, 0, why, sizeof(why))) {
		fprintf(log, "fsmix: %s\n", why);
		close(in);
		return FAIL_IO;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if ((rc = fd_write_all(out.fd, buf, (size_t)n)))
			break;
	if (n < 0)
		rc = -errno;
	close(in);
	if (rc) {
		fprintf(log, "fsmix: %s: cannot write: %s\n", path, strerror(-rc));
		outfile_abort(&out);
		return FAIL_IO;
	}
	if (outfile_commit(&out, why, sizeof(why))) {
		fprintf(log, "fsmix: %s\n", why);
		return FAIL_IO;
	}
	return FAIL_NONE;
}

enum failure gp_finish(struct gp_job *j, const char *path, FILE *log)
{
	int bad = ferror(j->data_f) | ferror(j->script_f);
	bad |= fclose(j->data_f) | fclose(j->script_f);
	j->data_f = j->script_f = NULL;
	enum failure rc = FAIL_NONE;
	if (bad) {
		fprintf(log, "fsmix: cannot write in %s: %s\n", j->dir, strerror(errno));
		rc = FAIL_IO;
	}
	if (!rc)
		rc = run_gnuplot(j->dir, log);
	struct stat sb;
	if (!rc && (stat(j->image, &sb) || sb.st_size == 0)) {
		fprintf(log, "fsmix: gnuplot wrote no image\n");
		rc = FAIL_IO;
	}
	/* The output file is opened here, and only here. */
	if (!rc)
		rc = copy_image(j->image, path, log);
	if (!rc)
		fprintf(log, "fsmix: plot written to %s\n", path);
	gp_discard(j);
	return rc;
}
