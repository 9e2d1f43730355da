/* metrics.c - headline figures from run JSON (see metrics.h). */
#include "metrics.h"

#include <math.h>
#include <string.h>

#include "tstat.h"

const struct metric_desc metric_table[METRIC_COUNT] = {
    [M_OPS_PER_S] = {"ops_per_s", "ops/s", true},
    [M_TRANS_PER_S] = {"trans_per_s", "trans/s", true},
    [M_MB_PER_S] = {"mb_per_s", "MB/s", true},
    [M_OP_P50_MS] = {"op_p50_ms", "op p50 ms", false},
    [M_OP_P99_MS] = {"op_p99_ms", "op p99 ms", false},
    [M_SYNC_P99_MS] = {"sync_p99_ms", "sync p99 ms", false},
    [M_FLUSHES_PER_S] = {"flushes_per_s", "flushes/s", false},
    [M_CPU_PERCENT] = {"cpu_percent", "CPU %", false},
};

static bool number(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

bool metric_get(const json_t *run, enum metric_id m, double *out)
{
	const json_t *total = json_object_get(run, "total");
	switch (m) {
	case M_OPS_PER_S:
		return number(json_object_get(total, "ops_per_s"), out);
	case M_TRANS_PER_S:
		return number(json_object_get(total, "trans_per_s"), out);
	case M_MB_PER_S:
		return number(json_object_get(total, "mb_per_s"), out);
	case M_OP_P50_MS:
		return number(json_object_get(json_object_get(total, "op_latency"), "p50_ms"), out);
	case M_OP_P99_MS:
		return number(json_object_get(json_object_get(total, "op_latency"), "p99_ms"), out);
	case M_SYNC_P99_MS: {
		/* The slowest of the sync family (fsync, fdatasync, sync, syncfs, ...). */
		bool any = false;
		size_t i;
		const json_t *sc;
		json_array_foreach(json_object_get(total, "syscalls"), i, sc)
		{
			double v;
			if (!json_is_true(json_object_get(sc, "sync")) ||
			    !number(json_object_get(json_object_get(sc, "latency"), "p99_ms"), &v))
				continue;
			if (!any || v > *out)
				*out = v;
			any = true;
		}
		return any;
	}
	case M_FLUSHES_PER_S: {
		bool any = false;
		double sum = 0;
		size_t i;
		const json_t *fs;
		json_array_foreach(json_object_get(run, "filesystems"), i, fs)
		{
			double v;
			if (number(json_object_get(json_object_get(fs, "device_counters"),
			                           "flushes_per_s"),
			           &v)) {
				sum += v;
				any = true;
			}
		}
		*out = sum;
		return any;
	}
	case M_CPU_PERCENT:
		return number(json_object_get(json_object_get(run, "cpu"), "percent_of_one_cpu"),
		              out);
	case METRIC_COUNT:
		break;
	}
	return false;
}

void metric_stat_of(json_t *const *runs, size_t n_runs, enum metric_id m, struct metric_stat *st)
{
	double sum = 0, sq = 0;
	memset(st, 0, sizeof(*st));
	st->ci95_half = NAN;
	for (size_t i = 0; i < n_runs; i++) {
		double v;
		if (!runs[i] || !metric_get(runs[i], m, &v))
			continue;
		st->n++;
		sum += v;
	}
	if (!st->n)
		return;
	st->mean = sum / (double)st->n;
	for (size_t i = 0; i < n_runs; i++) {
		double v;
		if (runs[i] && metric_get(runs[i], m, &v))
			sq += (v - st->mean) * (v - st->mean);
	}
	st->stddev = st->n > 1 ? sqrt(sq / (double)(st->n - 1)) : 0;
	struct tstat_sample ts = {st->n, st->mean, st->stddev};
	st->ci95_half = tstat_ci95_half(&ts);
}

double metric_ci95_pct(const struct metric_stat *st)
{
	if (st->n < 2 || st->mean == 0)
		return NAN;
	return 100 * st->ci95_half / fabs(st->mean);
}

char metric_mark(const struct metric_stat *base, const struct metric_stat *now)
{
	if (!base->n || !now->n)
		return '?';
	double margin = 2 * (base->stddev + now->stddev);
	if (now->mean - base->mean > margin)
		return '+';
	if (base->mean - now->mean > margin)
		return '-';
	return '0';
}
