/* fuzz_results.c - libFuzzer target for the JSON readers of `fsmix compare` and `fsmix plot`:
 * the input bytes are one result document (a run from `run --json` or a sweep), or two
 * separated by a NUL byte (BASE, then NEW; without a NUL the document is compared with itself).
 *
 * Each document is parsed with jansson exactly as the commands load files (json_loadb, flags 0),
 * then goes through doc_check() (the schema check the commands do first), compare_json()
 * (profile matching, per-point metrics, the table; it is given unchecked documents too) and
 * plot_script() for every chart kind: the document alone (sweep, run over time or msec_range
 * histogram) and the comparison chart of the two. Output goes to /dev/null; gnuplot is never
 * run and no file is created. Everything is freed, so LeakSanitizer sees leaks on every path.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "docschema.h"
#include "fuzz.h"
#include "plot.h"

static FILE *sink(void)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	return null;
}

static void plot_all(json_t *doc, json_t *base)
{
	FILE *s = sink();
	(void)plot_has_intervals(doc);
	(void)plot_script(doc, NULL, s, "data", s, s);
	(void)plot_script(doc, base, s, "data", s, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	json_error_t e;
	json_t *base = json_loadb((const char *)data, n1, 0, &e);
	json_t *now =
	    nul ? json_loadb((const char *)nul + 1, size - n1 - 1, 0, &e) : json_incref(base);
	struct compare_opts o = {.force = (size & 1) != 0, .out = sink(), .log = sink()};
	char err[512];
	if (base)
		(void)doc_check(base, err, sizeof(err));
	if (now)
		(void)doc_check(now, err, sizeof(err));
	if (base && now)
		(void)compare_json(base, "base.json", now, "new.json", &o);
	if (now)
		plot_all(now, base ? base : now);
	if (base && base != now)
		plot_all(base, now ? now : base);
	json_decref(base);
	json_decref(now);
	return 0;
}
