/* realism.h - the keys of realistic workloads (fsmix extensions): file_popularity, op_rate and
 * arrival of a thread group, size_dist of a filesystem. Parsers of their text (also for tests),
 * the rules plan.c applies to a group and a filesystem, and `fsmix check`'s figures of a size
 * distribution.
 */
#ifndef FSMIX_REALISM_H
#define FSMIX_REALISM_H

#include <stdio.h>

#include "plan.h"
#include "profile.h"
#include "value.h"

/* realism_parse_popularity - "uniform", "zipf:THETA" (0 < THETA <= 100), "pareto:H"
 * (0.5 < H < 1), "hotset:PCT_FILES:PCT_OPS" (0 < PCT_FILES < 100, 0 <= PCT_OPS <= 100) into
 * *d (initialised). NULL, or the message. */
const char *realism_parse_popularity(const char *text, struct popdist *d, char err[VALUE_ERR_LEN]);

/* realism_parse_sizedist - "lognormal:MEDIAN:SIGMA[:CAP]", "gamma:MEAN:SHAPE[:CAP]",
 * "exponential:MEAN[:CAP]", "uniform:MIN:MAX" (sizes with units) into *d. NULL, or the
 * message. */
const char *realism_parse_sizedist(const char *text, struct sizedist *d, char err[VALUE_ERR_LEN]);

/* realism_parse_rate - "N", "N/thread" or "N/group" (0 < N <= 10^9 operations per second):
 * *rate = N, *per_group. NULL, or the message. */
const char *realism_parse_rate(const char *text, double *rate, bool *per_group,
                               char err[VALUE_ERR_LEN]);

/* realism_group - the group's file_popularity, op_rate and arrival: parsed into g (pop,
 * rate_target, sched_period_ns), and their rules (with op_period, op_delay, aging groups). */
void realism_group(struct diag *d, const struct section *tg, struct plan_group *g);

/* realism_fs - the filesystem's size_dist (its setting sd, through clone): parsed into f, and
 * its rules (not with size_weight or min/max_filesize). */
void realism_fs(struct diag *d, const struct section *s, const struct setting *sd,
                const struct setting *sw, const struct setting *mn, const struct setting *mx,
                struct plan_fs *f);

/* realism_print_sizes - `fsmix check`'s summary: with size_dist, the mean, median and 99th
 * percentile of a file's size and the initial tree's expected total (lines indented by 4). */
void realism_print_sizes(FILE *out, const struct plan_fs *f);

/* realism_print_group - `fsmix check`'s summary: the group's popularity and schedule, if any. */
void realism_print_group(FILE *out, const struct plan_group *g);

#endif
