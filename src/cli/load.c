/* load.c - loading a command's profile (load.h). */
#include "load.h"

#include "overrides.h"
#include "preflight.h"

struct plan_opts plan_opts_of(const struct cli *c)
{
	return (struct plan_opts){.strict_ffsb = c->strict_ffsb,
	                          .content_checked = c->durability_log_path != NULL};
}

int load_profile(const struct cli *c, bool nesting, struct profile *p, struct plan *pl,
                 struct diag *d)
{
	struct plan_opts po = plan_opts_of(c);
	diag_init(d);
	int rc = profile_load(c->profile, c->ovr, c->n_ovr, &po, p, pl, d);
	if (rc == 0 && nesting && preflight_nesting(p, pl, d)) { /* nested locations */
		plan_free(pl);
		rc = -1;
	}
	return rc;
}
