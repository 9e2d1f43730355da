/* jobsum.c - the figures of a distributed run derived from its ranks' totals (jobsum.h). */
#include "jobsum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct jobsum_spread jobsum_spread_of(const double *v, size_t n)
{
	struct jobsum_spread s = {0};
	if (!n)
		return s;
	s.min = s.max = v[0];
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		s.min = v[i] < s.min ? v[i] : s.min;
		s.max = v[i] > s.max ? v[i] : s.max;
		sum += v[i];
	}
	s.mean = sum / (double)n;
	double sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s.mean) * (v[i] - s.mean);
	s.stddev = sqrt(sq / (double)n);
	return s;
}

void jobsum_finish(struct jobsum *j)
{
	double *ops = calloc((size_t)j->n_ranks + 1, sizeof(double));
	double *trans = calloc((size_t)j->n_ranks + 1, sizeof(double));
	j->runtime_s = 0;
	j->stonewall_s = j->n_ranks ? INFINITY : 0;
	j->stonewall_ops_per_s = j->stonewall_trans_per_s = 0;
	j->stonewall_ops = j->stonewall_trans = 0;
	for (int r = 0; r < j->n_ranks; r++) {
		struct jobsum_rank *k = &j->ranks[r];
		k->ops_per_s = k->runtime_s > 0 ? (double)k->ops / k->runtime_s : 0;
		k->trans_per_s = k->runtime_s > 0 ? (double)k->trans / k->runtime_s : 0;
		j->runtime_s = k->runtime_s > j->runtime_s ? k->runtime_s : j->runtime_s;
		j->stonewall_s = k->runtime_s < j->stonewall_s ? k->runtime_s : j->stonewall_s;
		if (k->stonewall_s > 0) {
			j->stonewall_ops_per_s += (double)k->stonewall_ops / k->stonewall_s;
			j->stonewall_trans_per_s += (double)k->stonewall_trans / k->stonewall_s;
		}
		j->stonewall_ops += k->stonewall_ops;
		j->stonewall_trans += k->stonewall_trans;
		if (ops && trans) {
			ops[r] = k->ops_per_s;
			trans[r] = k->trans_per_s;
		}
	}
	if (ops && trans) {
		j->ops_per_s = jobsum_spread_of(ops, (size_t)j->n_ranks);
		j->trans_per_s = jobsum_spread_of(trans, (size_t)j->n_ranks);
	}
	free(ops);
	free(trans);
}

void jobsum_free(struct jobsum *j)
{
	free(j->host_names);
	free(j->ranks);
	free(j->devices);
	memset(j, 0, sizeof(*j));
}
