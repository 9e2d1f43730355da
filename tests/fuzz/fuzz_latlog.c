/* fuzz_latlog.c - libFuzzer target for the latency-log reader of `fsmix plot --lat-log`: the
 * input bytes are a log (latlog.h). Each is read with latplot_read(), described, and written as
 * a gnuplot script and data to /dev/null (gnuplot is never run). Everything is freed. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "latplot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	struct latplot lp;
	char err[256], desc[512];
	/* odd sizes are thinned after 8 points, so the grid is fuzzed too */
	size_t raw_max = size & 1 ? 8 : LATPLOT_RAW_MAX;
	if (latplot_read_max(&lp, (const char *)data, size, "fuzz.log", raw_max, err,
	                     sizeof(err)) == 0) {
		latplot_describe(&lp, desc, sizeof(desc));
		(void)latplot_script(&lp, null, "data", null, desc);
	}
	latplot_free(&lp);
	return 0;
}
