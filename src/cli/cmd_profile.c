/* cmd_profile.c - the commands about the profile language: `fsmix check` (validate a profile
 * and show every key's value and origin) and `fsmix keys` (the reference of every key). */
#include <stdio.h>

#include "profile_json.h"
#include "commands.h"
#include "diag.h"
#include "keys.h"
#include "load.h"
#include "plan.h"
#include "profile.h"

enum failure cmd_check(struct cli *c)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	/* check takes no --durability-log (run and verify do, and refuse content=fixed with it
	 * there, before anything is built); --verify is an override, which check sees. Nested
	 * locations are a check-time error. */
	int rc = load_profile(c, true, &p, &pl, &d);
	if (c->json) {
		if (p.file)
			profile_json_print(stdout, &p, rc ? NULL : &pl, &d);
		else
			diag_print(&d, stderr);
	} else {
		diag_print(&d, stderr);
		if (rc == 0) {
			profile_print_text(stdout, &p, &pl);
			fflush(
			    stdout); /* the report before the verdict, when both go to one file */
			fprintf(stderr, "%s: OK (%zu warning%s)\n", c->profile, d.warnings,
			        d.warnings == 1 ? "" : "s");
		}
	}
	if (rc)
		fprintf(stderr, "fsmix: %zu error%s in %s; nothing was run\n", d.errors,
		        d.errors == 1 ? "" : "s", c->profile);
	if (rc == 0)
		plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	return rc ? FAIL_INPUT : FAIL_NONE;
}

enum failure cmd_keys(struct cli *c)
{
	if (c->markdown) {
		keys_print_markdown(stdout);
		return FAIL_NONE;
	}
	if (keys_print_reference(stdout, c->key)) {
		const char *hint = key_suggest(c->key);
		fprintf(stderr, "fsmix: unknown key '%s'%s%s%s\n", c->key,
		        hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
		return FAIL_INPUT;
	}
	return FAIL_NONE;
}
