/* crashtest_report.h - fsmix crashtest's tally of the states explored, its progress line (on a
 * terminal only), final table and JSON document (docs/output.md, "fsmix crashtest"). */
#ifndef FSMIX_CLI_CRASHTEST_REPORT_H
#define FSMIX_CLI_CRASHTEST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "crashtest_states.h"
#include "durmodel.h"
#include "failure.h"

/* What each state's steps cost, summed (the bench reads them). */
enum ct_step {
	CT_STEP_SWITCH,
	CT_STEP_MOUNT,
	CT_STEP_VERIFY,
	CT_STEP_UMOUNT,
	CT_STEP_CHECKER,
	CT_STEP_COUNT
};

/* One state's outcome. */
struct ct_result {
	int verified;     /* 1 a promise broken, 0 all kept, -1 verify failed, -2 not verified */
	bool flagged;     /* the checker found a problem */
	bool unmountable; /* mount failed */
	bool error;       /* the state could not be served */
};

struct ct_tally {
	size_t explored, broken, flagged, unmountable, unverified, verify_failed;
	size_t kind_states[DM_KIND_COUNT]; /* states with a promise of this kind broken */
	uint64_t kinds_now[DM_KIND_COUNT]; /* the last verify's */
	uint64_t promises;                 /* promises checked, summed over the states */
	bool failed;
	size_t first_failing, current;
	double seconds; /* exploring */
	uint64_t step_ns[CT_STEP_COUNT];
	char verify_error[512];
};

/* ct_tally_add - state s's result r into t (the first failing state's story on stderr, with the
 * checker's output from checker_out). */
void ct_tally_add(struct ct_tally *t, const struct ct_state *s, const struct ct_result *r,
                  const char *checker_out);
/* ct_progress - the progress line, on a terminal (stderr) only; ct_progress_end ends it. */
void ct_progress(const struct ct_tally *t, const struct ct_list *l);
void ct_progress_end(const struct ct_tally *t);
/* ct_report - the table on stdout (stderr when --json is -) and --json's document; FAIL_NONE
 * when every state kept its promises and checked clean, FAIL_IO (exit 1) otherwise. */
enum failure ct_report(const struct cli *c, const struct ct_rec *r, const struct ct_list *l,
                       const struct ct_tally *t);

#endif
