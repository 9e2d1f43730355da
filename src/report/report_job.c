/* report_job.c - what a distributed run adds to the reports (report_job.h). */
#include "report_job.h"

#include <inttypes.h>

/* A rank's own outcome (enum failure) as a word. */
static const char *failure_name(int f)
{
	static const char *const names[] = {[FAIL_NONE] = "ok",
	                                    [FAIL_IO] = "io",
	                                    [FAIL_UNSUPPORTED] = "unsupported",
	                                    [FAIL_INPUT] = "input",
	                                    [FAIL_INTERRUPTED] = "interrupted"};
	return f >= 0 && f <= FAIL_INTERRUPTED ? names[f] : "?";
}

static const char *host_name(const struct jobsum *j, int host)
{
	return host >= 0 && host < j->n_hosts ? j->host_names[host] : "?";
}

static const char *fs_name(const struct results *r, unsigned fs)
{
	return fs < r->n_fs ? r->fs[fs].name : "?";
}

static void print_spread(FILE *out, const char *what, const struct jobsum_spread *s)
{
	fprintf(out, "  %-10s %12.1f %12.1f %12.1f %12.1f\n", what, s->min, s->mean, s->max,
	        s->stddev);
}

static void print_device(FILE *out, const struct jobsum *j, const struct jobsum_device *d,
                         const struct results *res)
{
	fprintf(out, "  %-20s %-12s ", host_name(j, d->host), fs_name(res, d->fs));
	if (!d->devname[0] || !d->delta.valid) {
		fprintf(out, "n/a (%s: no block device counters)\n",
		        d->fstype[0] ? d->fstype : "unknown");
		return;
	}
	fprintf(out, "%-10s reads %" PRIu64 ", writes %" PRIu64 ", flushes ", d->devname,
	        d->delta.read_ios, d->delta.write_ios);
	if (d->delta.has_flush)
		fprintf(out, "%" PRIu64 "\n", d->delta.flush_ios);
	else
		fprintf(out, "n/a\n");
}

void report_job_text(FILE *out, const struct jobsum *j, const struct results *res)
{
	fprintf(out, "Distributed run: %d rank%s on %d host%s (", j->n_ranks,
	        j->n_ranks == 1 ? "" : "s", j->n_hosts, j->n_hosts == 1 ? "" : "s");
	for (int h = 0; h < j->n_hosts; h++)
		fprintf(out, "%s%s", h ? ", " : "", j->host_names[h]);
	fprintf(out, ")\n");
	fprintf(out,
	        "Run time: longest rank %.3f s (the rates above are the whole job's), shortest "
	        "%.3f s\n",
	        j->runtime_s, j->stonewall_s);
	fprintf(out,
	        "Stonewall (every rank running: each rank's rate until it heard of the first "
	        "end, summed): %.1f ops/sec, %.1f trans/sec, %" PRIu64 " ops by then\n",
	        j->stonewall_ops_per_s, j->stonewall_trans_per_s, j->stonewall_ops);
	fprintf(out, "Spread over ranks  %12s %12s %12s %12s\n", "min", "mean", "max", "stddev");
	print_spread(out, "ops/sec", &j->ops_per_s);
	print_spread(out, "trans/sec", &j->trans_per_s);
	fprintf(out, "%6s %-20s %9s %12s %12s %12s %8s %-8s %9s %12s\n", "rank", "host", "run (s)",
	        "ops", "ops/sec", "trans/sec", "errors", "outcome", "wall (s)", "wall ops");
	for (int r = 0; r < j->n_ranks; r++) {
		const struct jobsum_rank *k = &j->ranks[r];
		fprintf(out,
		        "%6d %-20s %9.3f %12" PRIu64 " %12.1f %12.1f %8" PRIu64
		        " %-8s %9.3f %12" PRIu64 "\n",
		        k->rank, host_name(j, k->host), k->runtime_s, k->ops, k->ops_per_s,
		        k->trans_per_s, k->errors, failure_name(k->status), k->stonewall_s,
		        k->stonewall_ops);
	}
	if (j->n_devices) {
		fprintf(out, "Device counters per host (read by each host's lowest rank)\n");
		for (size_t i = 0; i < j->n_devices; i++)
			print_device(out, j, &j->devices[i], res);
	}
	fprintf(out, "\n");
}

/* json_pack's "o" steals a reference; NULL when anything failed. */
static json_t *spread_json(const struct jobsum_spread *s, double job, double stonewall)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "job", job, "stonewall", stonewall,
	                 "min", s->min, "mean", s->mean, "max", s->max, "stddev", s->stddev);
}

static json_t *device_json(const struct jobsum *j, const struct jobsum_device *d,
                           const struct results *res)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s?}", "host", host_name(j, d->host), "filesystem",
	                      fs_name(res, d->fs), "fstype", d->fstype, "device",
	                      d->devname[0] ? d->devname : NULL);
	if (!o || !d->devname[0] || !d->delta.valid)
		return o;
	json_t *c = json_pack("{s:I, s:I, s:I, s:I}", "read_ios", (json_int_t)d->delta.read_ios,
	                      "write_ios", (json_int_t)d->delta.write_ios, "read_sectors",
	                      (json_int_t)d->delta.read_sectors, "write_sectors",
	                      (json_int_t)d->delta.write_sectors);
	if (c && d->delta.has_flush)
		json_object_set_new(c, "flush_requests",
		                    json_integer((json_int_t)d->delta.flush_ios));
	if (!c || json_object_set_new(o, "counters", c)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *rank_json(const struct jobsum *j, const struct jobsum_rank *k)
{
	char seed[24];
	snprintf(seed, sizeof(seed), "%" PRIu64, k->seed); /* as the report's "seed": a string */
	return json_pack("{s:i, s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:s, s:s, s:f, s:I, "
	                 "s:I}",
	                 "rank", k->rank, "host", host_name(j, k->host), "runtime_s", k->runtime_s,
	                 "ops", (json_int_t)k->ops, "trans", (json_int_t)k->trans, "bytes_read",
	                 (json_int_t)k->bytes_read, "bytes_written", (json_int_t)k->bytes_written,
	                 "errors", (json_int_t)k->errors, "ops_per_s", k->ops_per_s, "trans_per_s",
	                 k->trans_per_s, "outcome", failure_name(k->status), "seed", seed,
	                 "stonewall_s", k->stonewall_s, "stonewall_ops",
	                 (json_int_t)k->stonewall_ops, "stonewall_trans",
	                 (json_int_t)k->stonewall_trans);
}

json_t *report_job_json(const struct jobsum *j, const struct results *res)
{
	double ops = 0, trans = 0;
	for (int r = 0; r < j->n_ranks; r++) {
		ops += (double)j->ranks[r].ops;
		trans += (double)j->ranks[r].trans;
	}
	double rt = j->runtime_s;
	json_t *hosts = json_array(), *ranks = json_array(), *devices = json_array();
	bool fail = !hosts || !ranks || !devices;
	for (int h = 0; !fail && h < j->n_hosts; h++)
		fail = json_array_append_new(hosts, json_string(j->host_names[h])) != 0;
	for (int r = 0; !fail && r < j->n_ranks; r++)
		fail = json_array_append_new(ranks, rank_json(j, &j->ranks[r])) != 0;
	for (size_t i = 0; !fail && i < j->n_devices; i++)
		fail = json_array_append_new(devices, device_json(j, &j->devices[i], res)) != 0;
	if (fail) {
		json_decref(hosts);
		json_decref(ranks);
		json_decref(devices);
		return NULL;
	}
	return json_pack(
	    "{s:i, s:i, s:o, s:f, s:f, s:I, s:I, s:o*, s:o*, s:o, s:o}", "ranks", j->n_ranks,
	    "n_hosts", j->n_hosts, "hosts", hosts, "runtime_s", rt, "stonewall_s", j->stonewall_s,
	    "stonewall_ops", (json_int_t)j->stonewall_ops, "stonewall_trans",
	    (json_int_t)j->stonewall_trans, "ops_per_s",
	    spread_json(&j->ops_per_s, rt > 0 ? ops / rt : 0, j->stonewall_ops_per_s),
	    "trans_per_s",
	    spread_json(&j->trans_per_s, rt > 0 ? trans / rt : 0, j->stonewall_trans_per_s),
	    "per_rank", ranks, "devices", devices);
}
