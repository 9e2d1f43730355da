/* seqkeys.h - the group key sequence= (fsmix extension): filebench's flowops in order on one
 * file kept open between steps. Its text parsed into the group's steps (plan.h: struct
 * plan_step), the rules of a sequence (a step that needs an open file, one that needs none, a
 * sequence that ends with a file open), what its steps need of the other keys, and `fsmix
 * check`'s description of it as it will run. Every error names the file, line and key (diag).
 */
#ifndef FSMIX_SEQKEYS_H
#define FSMIX_SEQKEYS_H

#include <stdio.h>

#include "plan.h"
#include "profile.h"

/* seqkeys_parse - the steps of `text` into g->seq and g->n_seq ("create,append*2,close"):
 * names of seqkeys_steps, each with an optional *N (1..1000000) where the step allows it,
 * checked in order (open/close). Returns NULL, or the message in err (g->n_seq is then 0). */
const char *seqkeys_parse(const char *text, struct plan_group *g, char *err, size_t errlen);

/* seqkeys_group - sequence= of thread group tg: parsed into g, its weights set (weight[OP_sequence]
 * and total_weight 1, weight[step] the number of such steps: the group picks only the sequence),
 * and checked against the rest of the group (no op weights, not in an aging group, the size and
 * block-size keys its steps need, the keys its steps do not use). Nothing when the key is not set.
 */
void seqkeys_group(struct diag *d, const struct section *tg, struct plan_group *g);

/* seqkeys_plan - sequence_hold=1 of every group against the others of the plan (after every
 * group is built and phases_build set their phases): refused where a group of the same phase
 * that may use the same filesystem deletes, renames or links files (a file kept open between
 * loops is out of the pool's hold there). */
void seqkeys_plan(struct diag *d, const struct profile *p, const struct plan *pl);

/* seqkeys_print_group - `fsmix check`: the sequence as it will run, one step a line with its
 * system calls and sizes; nothing for a group without one. */
void seqkeys_print_group(FILE *out, const struct plan_group *g);

#endif
