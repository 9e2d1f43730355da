/* report_outputs.c - writing --json and --csv after a run (see report_data.h). */
#include "report_data.h"

#include <errno.h>

enum failure report_write_outputs(const struct results *r, const struct report_run *run,
                                  const char *json_path, const char *csv_path, FILE *log)
{
	char why[MSG_MAX];
	enum failure f = FAIL_NONE;
	int wrc = csv_path ? report_csv_write(r, csv_path, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(log, "fsmix: %s\n", why);
		f = failure_first(f, wrc == -EINTR ? FAIL_INTERRUPTED : FAIL_IO);
	}
	wrc = json_path ? report_json_write(r, run, json_path, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(log, "fsmix: %s\n", why);
		f = failure_first(f, wrc == -EINTR ? FAIL_INTERRUPTED : FAIL_IO);
	}
	return f;
}
