/* cmd_study.c - the commands that read results: `fsmix compare` and `fsmix plot`. */
#include <jansson.h>
#include <stdio.h>

#include "commands.h"
#include "compare.h"
#include "docschema.h"
#include "latplot.h"
#include "plot.h"
#include "stopsig.h"

/* compare and plot block the stop signals (stopsig_block: gp_open, and plot --lat-log before
 * it reads the log): a Ctrl-C then stops gnuplot, the temporary files go, and the command exits
 * 130, also when it came while the log was read or the outputs were written. */
static enum failure settle(enum failure f, unsigned snapshot)
{
	if (f == FAIL_INTERRUPTED || !stopsig_arrived(snapshot))
		return f;
	fprintf(stderr, "fsmix: interrupted\n");
	return FAIL_INTERRUPTED;
}

enum failure cmd_compare(struct cli *c)
{
	unsigned snapshot = stopsig_count(); /* gp_open blocks them for --plot */
	struct compare_opts o = {.force = c->force,
	                         .csv_path = c->csv_path,
	                         .json_path = c->json_path,
	                         .plot_path = c->plot_path,
	                         .out = stdout,
	                         .log = stderr};
	if (stdout_outputs(c))
		o.out = stderr;
	return settle(compare_files((const char *const *)c->files, c->n_files, &o), snapshot);
}

enum failure cmd_plot(struct cli *c)
{
	unsigned snapshot = stopsig_count();
	if (c->lat_log_path) {
		stopsig_block(); /* the log is read in steps that look for a stop signal */
		return settle(latplot_write(c->lat_log_path, c->plot_path, stderr), snapshot);
	}
	/* (a document is read whole and small: a stop signal while it is read just ends fsmix) */
	json_error_t e;
	json_t *doc = json_load_file(c->files[0], 0, &e);
	if (!doc) {
		fprintf(stderr, "fsmix: %s:%d: not a JSON document: %s\n", c->files[0], e.line,
		        e.text);
		return settle(FAIL_INPUT, snapshot);
	}
	char why[MSG_MAX];
	if (doc_check(doc, why, sizeof(why))) { /* docschema.h: the documented schema */
		fprintf(stderr, "fsmix: %s: not a valid fsmix result: %s\n", c->files[0], why);
		json_decref(doc);
		return settle(FAIL_INPUT, snapshot);
	}
	enum failure f = plot_write(doc, NULL, c->plot_path, stderr);
	json_decref(doc);
	return settle(f, snapshot);
}
