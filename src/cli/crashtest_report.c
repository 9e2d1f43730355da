/* crashtest_report.c - fsmix crashtest's tally, progress line, table and JSON
 * (crashtest_report.h). */
#include "crashtest_report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

static const char *const step_name[CT_STEP_COUNT] = {
    [CT_STEP_SWITCH] = "switch", [CT_STEP_MOUNT] = "mount",     [CT_STEP_VERIFY] = "verify",
    [CT_STEP_UMOUNT] = "umount", [CT_STEP_CHECKER] = "checker",
};

static void kinds_text(const uint64_t *by, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int k = 0; k < DM_KIND_COUNT && n < len; k++)
		if (by[k])
			n += (size_t)snprintf(buf + n, len - n, "%s%s %" PRIu64, n ? ", " : "",
			                      dm_kind_name((enum dm_kind)k), by[k]);
}

static void first_story(const struct ct_tally *t, const struct ct_state *s,
                        const struct ct_result *r, const char *checker_out)
{
	char kinds[512];
	fprintf(stderr,
	        "fsmix: crashtest: state %zu (flush point %zu%s, subset %s) fails:", t->current,
	        s->k, s->serve_k != s->k ? ", served as an earlier one" : "",
	        s->random ? "random"
	        : s->lose ? "all, those the last 4 flushes acknowledged lost"
	                  : "none");
	if (r->error || r->verified == -1)
		fprintf(stderr, " %s", t->verify_error);
	if (r->unmountable)
		fprintf(stderr, " does not mount;");
	if (r->verified == 1) {
		kinds_text(t->kinds_now, kinds, sizeof(kinds));
		fprintf(stderr, " promises broken (%s);", kinds);
	}
	if (r->flagged)
		fprintf(stderr, " the checker flagged it:");
	fprintf(stderr, "\n");
	FILE *f = r->flagged ? fopen(checker_out, "r") : NULL;
	char line[256];
	for (int i = 0; f && i < 6 && fgets(line, sizeof(line), f); i++)
		fprintf(stderr, "     %s", line);
	if (f)
		fclose(f);
}

void ct_tally_add(struct ct_tally *t, const struct ct_state *s, const struct ct_result *r,
                  const char *checker_out)
{
	t->explored++;
	t->broken += r->verified == 1;
	t->verify_failed += r->verified == -1 || r->error;
	t->unverified += r->verified == -2 && !r->unmountable && !r->error;
	t->flagged += r->flagged;
	t->unmountable += r->unmountable;
	if (r->verified == 1)
		for (int k = 0; k < DM_KIND_COUNT; k++)
			t->kind_states[k] += t->kinds_now[k] > 0;
	bool fail =
	    r->verified == 1 || r->verified == -1 || r->error || r->flagged || r->unmountable;
	if (fail && !t->failed) {
		t->failed = true;
		t->first_failing = t->current;
		first_story(t, s, r, checker_out);
	}
}

void ct_progress(const struct ct_tally *t, const struct ct_list *l)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rstate %zu/%zu  %.1f states/s  broken %zu  flagged %zu ", t->explored,
	        l->n, t->seconds > 0 ? (double)t->explored / t->seconds : 0.0, t->broken,
	        t->flagged);
}

void ct_progress_end(const struct ct_tally *t)
{
	if (t->explored && isatty(STDERR_FILENO))
		fprintf(stderr, "\n");
}

struct ct_doc {
	const struct cli *c;
	const struct ct_rec *r;
	const struct ct_list *l;
	const struct ct_tally *t;
};

static double rate(const struct ct_tally *t)
{
	return t->seconds > 0 ? (double)t->explored / t->seconds : 0.0;
}

/* A step's mean time per state explored, in ms (0 before any). */
static double step_ms(const struct ct_tally *t, int s)
{
	return t->explored ? (double)t->step_ns[s] / 1e6 / (double)t->explored : 0.0;
}

static void print_table(FILE *o, const struct ct_doc *d)
{
	const struct ct_tally *t = d->t;
	const struct ct_opts *ct = &d->c->ct;
	char kinds[512], buf[64];
	fprintf(o, "crashtest: %s", ct->fs);
	if (ct->mount_opts)
		fprintf(o, " -o %s", ct->mount_opts);
	if (ct->fault)
		fprintf(o, ", disk fault %s",
		        ct->fault == CT_FAULT_REORDER ? "reorder-across-flush" : "ignore-flush");
	fprintf(o, ", %s: %zu flushes, %" PRIu64 " writes (%" PRIu64 " bytes) recorded in %.2f s\n",
	        d->c->profile, d->r->nflush, d->r->writes, d->r->write_bytes,
	        (double)(d->r->end_ns - d->r->start_ns) / 1e9);
	fprintf(o, "  %-34s %zu\n", "states explored", t->explored);
	fprintf(o, "  %-34s %.2f\n", "states per second", rate(t));
	uint64_t ks[DM_KIND_COUNT];
	for (int k = 0; k < DM_KIND_COUNT; k++)
		ks[k] = t->kind_states[k];
	kinds_text(ks, kinds, sizeof(kinds));
	fprintf(o, "  %-34s %zu%s%s%s\n", "states with broken promises", t->broken,
	        kinds[0] ? " (by kind: " : "", kinds, kinds[0] ? ")" : "");
	fprintf(o, "  %-34s %zu\n", "states the checker flagged", t->flagged);
	fprintf(o, "  %-34s %zu\n", "states that did not mount", t->unmountable);
	if (t->verify_failed)
		fprintf(o, "  %-34s %zu\n", "states verify could not check", t->verify_failed);
	fprintf(o, "  %-34s %zu\n", "states before the run's setup", t->unverified);
	fprintf(o, "  %-34s %" PRIu64 "\n", "promises checked (all states)", t->promises);
	snprintf(buf, sizeof(buf), "%zu", t->first_failing);
	fprintf(o, "  %-34s %s\n", "first failing state", t->failed ? buf : "none");
	fprintf(o, "  %-34s", "ms per state:");
	for (int s = 0; s < CT_STEP_COUNT; s++)
		fprintf(o, " %s %.1f", step_name[s], step_ms(t, s));
	fprintf(o, "\n");
}

static int fill_json(FILE *o, void *arg)
{
	const struct ct_doc *d = arg;
	const struct ct_tally *t = d->t;
	json_t *j = json_object(), *kinds = json_object(), *steps = json_object();
	json_object_set_new(j, "fs", json_string(d->c->ct.fs));
	json_object_set_new(j, "disk_size", json_integer((json_int_t)d->c->ct.size));
	json_object_set_new(j, "mount_options",
	                    json_string(d->c->ct.mount_opts ? d->c->ct.mount_opts : ""));
	json_object_set_new(j, "flushes", json_integer((json_int_t)d->r->nflush));
	json_object_set_new(j, "record_writes", json_integer((json_int_t)d->r->writes));
	json_object_set_new(j, "record_write_bytes", json_integer((json_int_t)d->r->write_bytes));
	json_object_set_new(j, "record_bytes", json_integer((json_int_t)d->r->record_bytes));
	json_object_set_new(j, "states_explored", json_integer((json_int_t)t->explored));
	json_object_set_new(j, "states_per_second", json_real(rate(t)));
	json_object_set_new(j, "states_broken", json_integer((json_int_t)t->broken));
	json_object_set_new(j, "states_fsck_flagged", json_integer((json_int_t)t->flagged));
	json_object_set_new(j, "states_unmountable", json_integer((json_int_t)t->unmountable));
	json_object_set_new(j, "states_unverifiable", json_integer((json_int_t)t->verify_failed));
	json_object_set_new(j, "states_before_setup", json_integer((json_int_t)t->unverified));
	json_object_set_new(j, "promises_checked", json_integer((json_int_t)t->promises));
	for (int k = 0; k < DM_KIND_COUNT; k++)
		if (t->kind_states[k])
			json_object_set_new(kinds, dm_kind_name((enum dm_kind)k),
			                    json_integer((json_int_t)t->kind_states[k]));
	json_object_set_new(j, "broken_by_kind", kinds);
	json_object_set_new(j, "first_failing_state",
	                    t->failed ? json_integer((json_int_t)t->first_failing) : json_null());
	for (int s = 0; s < CT_STEP_COUNT; s++)
		json_object_set_new(steps, step_name[s], json_real(step_ms(t, s)));
	json_object_set_new(j, "ms_per_state", steps);
	json_object_set_new(j, "seconds", json_real(t->seconds));
	int rc = json_dumpf(j, o, JSON_INDENT(2));
	fputc('\n', o);
	json_decref(j);
	return rc ? -EIO : 0;
}

enum failure ct_report(const struct cli *c, const struct ct_rec *r, const struct ct_list *l,
                       const struct ct_tally *t)
{
	struct ct_doc d = {c, r, l, t};
	bool json_stdout = c->json_path && !strcmp(c->json_path, "-");
	print_table(json_stdout ? stderr : stdout, &d);
	enum failure f = t->failed ? FAIL_IO : FAIL_NONE;
	char err[MSG_MAX + 64];
	if (c->json_path && outfile_write(c->json_path, fill_json, &d, err, sizeof(err))) {
		fprintf(stderr, "fsmix: --json %s\n", err);
		f = FAIL_IO;
	}
	return f;
}
