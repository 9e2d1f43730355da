/* cmd_study.c - the commands that read results: `fsmix compare` and `fsmix plot`. */
#include <jansson.h>
#include <stdio.h>

#include "commands.h"
#include "compare.h"
#include "latplot.h"
#include "plot.h"

enum failure cmd_compare(struct cli *c)
{
	struct compare_opts o = {.force = c->force,
	                         .csv_path = c->csv_path,
	                         .json_path = c->json_path,
	                         .plot_path = c->plot_path,
	                         .out = stdout,
	                         .log = stderr};
	if (stdout_outputs(c))
		o.out = stderr;
	return compare_files((const char *const *)c->files, c->n_files, &o);
}

enum failure cmd_plot(struct cli *c)
{
	if (c->lat_log_path)
		return latplot_write(c->lat_log_path, c->plot_path, stderr);
	json_error_t e;
	json_t *doc = json_load_file(c->files[0], 0, &e);
	if (!doc) {
		fprintf(stderr, "fsmix: %s:%d: not a JSON document: %s\n", c->files[0], e.line,
		        e.text);
		return FAIL_INPUT;
	}
	enum failure f = plot_write(doc, NULL, c->plot_path, stderr);
	json_decref(doc);
	return f;
}
