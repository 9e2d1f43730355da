/* job.c - the command line's side of a distributed run (job.h). */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "dist.h"
#include "distrun.h"
#include "jobpolicy.h"
#include "load.h"
#include "options.h"
#include "overrides.h"
#include "preflight.h"
#include "profile_json.h"
#include "tree.h"

static struct job {
	struct dist d;
	struct distrun run;
	struct jobpolicy_locks locks; /* rank 0: the locations' locks (jobpolicy.h) */
	char *options; /* the command line's options as every rank must give them (job_options) */
	size_t options_len;
} job;

static bool wants_mpi(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--mpi"))
			return true;
	return false;
}

enum failure job_start(int *argc, char ***argv)
{
	dist_single(&job.d);
	if (!dist_launched() && !wants_mpi(*argc, *argv))
		return FAIL_NONE; /* a single process, exactly as without MPI */
	char err[MSG_MAX];
	if (dist_init(&job.d, argc, argv, err, sizeof(err)) != FAIL_NONE) {
		if (job.d.rank == 0)
			fprintf(stderr, "fsmix: %s\n", err);
		return FAIL_UNSUPPORTED;
	}
	distrun_init(&job.run, &job.d);
	if (job.d.rank != 0) { /* one voice: rank 0's (job.h) */
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			fflush(NULL);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	return FAIL_NONE;
}

bool job_on(void)
{
	return job.d.on;
}

int job_rank(void)
{
	return job.d.rank;
}

/* The value of option NAME as c holds it, for job_describe; "on" for a flag. */
static void option_value(const struct cli *c, const char *name, char *buf, size_t len)
{
	const char *paths[][2] = {{"json", c->json_path},
	                          {"csv", c->csv_path},
	                          {"lat-log", c->lat_log_path},
	                          {"plot", c->plot_path},
	                          {"output", c->plot_path}};
	snprintf(buf, len, "on");
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!strcmp(name, paths[i][0]))
			snprintf(buf, len, "%s", paths[i][1] ? paths[i][1] : "on");
	if (!strcmp(name, "build-threads"))
		snprintf(buf, len, "%u", c->build_threads);
	else if (!strcmp(name, "repeat"))
		snprintf(buf, len, "%u", c->repeat);
	else if (!strcmp(name, "interval"))
		snprintf(buf, len, "%g", c->interval_s);
}

/* What job_describe writes (job.h): the command, every option given but the profile overrides
 * (their effect is in the resolved profile: "--threads 3" and "--set
 * threadgroup0.num_threads=3" agree) and --mpi, with its value, the sweep's dimensions and the
 * files. An option added to the table is in it (as given or not) without a change here; its value
 * is shown where option_value knows it. */
void job_describe(const struct cli *c, FILE *f)
{
	static const char *const actions[] = {[ACT_COMMAND] = "a command",
	                                      [ACT_USAGE] = "no command",
	                                      [ACT_HELP] = "--help",
	                                      [ACT_VERSION] = "--version",
	                                      [ACT_HELP_MAN] = "--help-man"};
	fprintf(f, "action=%s\ncommand=%s\n", actions[c->action],
	        c->command ? c->command->name : "");
	char val[PATH_MAX + 16];
	for (size_t i = 0; i < n_option_rows; i++) {
		const struct option_row *o = &option_rows[i];
		bool dup = false; /* an option of two rows (--json FILE and --json) once */
		for (size_t j = 0; j < i; j++)
			dup |= c->given[j] && !strcmp(option_rows[j].name, o->name);
		if (!c->given[i] || dup || !strcmp(o->name, "mpi") ||
		    (o->section == SEC_OVERRIDES && strcmp(o->name, "strict-ffsb")) ||
		    !strcmp(o->name, "threads") || !strcmp(o->name, "sweep"))
			continue;
		option_value(c, o->name, val, sizeof(val));
		fprintf(f, "--%s=%s\n", o->name, val);
	}
	for (size_t d = 0; d < c->n_dims; d++) {
		fprintf(f, "sweep %s=", c->dims[d].label);
		for (size_t v = 0; v < c->dims[d].n; v++)
			fprintf(f, "%s%s", v ? "," : "", c->dims[d].values[v]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < c->n_files; i++)
		fprintf(f, "file %zu=%s\n", i + 1, c->files[i]);
}

enum failure job_options(struct cli *c, char *err, size_t errlen)
{
	static struct jobpolicy_outputs o;
	if (!job.d.on)
		return FAIL_NONE;
	FILE *f = open_memstream(&job.options, &job.options_len);
	if (f) {
		job_describe(c, f);
		fclose(f);
	}
	o = (struct jobpolicy_outputs){.run = c->command && c->command->id == CMD_RUN,
	                               .interval_s = c->interval_s,
	                               .crash_after = c->crash,
	                               .durability = c->durability_log_path,
	                               .lat_log = c->lat_log_path,
	                               .json = c->json_path,
	                               .csv = c->csv_path,
	                               .plot = c->plot_path};
	enum failure rc = jobpolicy_outputs(&job.d, &o, err, errlen);
	if (rc == FAIL_NONE) {
		c->lat_log_path = o.lat_log;
		c->json_path = o.json;
		c->csv_path = o.csv;
		c->plot_path = o.plot;
	}
	return rc;
}

enum failure job_agree(enum failure mine, const char *msg, const char *suffix)
{
	if (!job.d.on)
		return mine;
	char err[MSG_MAX];
	enum failure f = dist_agree(&job.d, mine, msg ? msg : "", err, sizeof(err));
	if (f != FAIL_NONE && mine == FAIL_NONE && job.d.rank == 0)
		fprintf(stderr, "fsmix: %s%s\n", err, suffix ? suffix : "");
	return f;
}

/* What this rank is about to do, as text (dist_differ): the profile resolved with the command
 * line's overrides (when every rank could load it: otherwise job_profile reports the failure),
 * then the options. The seed each rank runs is not in it: rank R adds R to a given seed
 * (engine_opts.seed_offset), and without --seed every rank draws its own. */
static char *describe(const struct cli *c, size_t *len)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	bool loaded = false;
	if (c->profile) {
		loaded = load_profile(c, false, &p, &pl, &d) == 0;
		if (loaded)
			plan_free(&pl);
		diag_free(&d);
	}
	/* every rank calls it, whether its profile loaded or not */
	bool every = dist_min_double(&job.d, loaded ? 1 : 0) > 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (f && every)
		profile_print_settings(f, &p);
	if (f) {
		if (job.options)
			fwrite(job.options, 1, job.options_len, f);
		fclose(f);
	}
	if (c->profile)
		profile_free(&p);
	return text;
}

/* The line of text whose name (up to '=') is the n bytes at name; NULL when none. */
static const char *line_named(const char *text, const char *name, size_t n)
{
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
		if (!strncmp(l, name, n) && l[n] == '=')
			return l;
	return NULL;
}

/* "'VALUE' on rank R" of line l (its name is key bytes long), "not given on rank R" for none. */
static void value_on(const char *l, size_t key, int r, char *buf, size_t len)
{
	if (l)
		snprintf(buf, len, "'%.*s' on rank %d", (int)(strcspn(l, "\n") - key - 1),
		         l + key + 1, r);
	else
		snprintf(buf, len, "not given on rank %d", r);
}

/* The first difference between rank 0's description a and rank r's b (both NUL-terminated):
 * "KEY is X on rank 0 and Y on rank R", in a's order of keys, then b's. */
static void first_difference(const char *a, const char *b, int r, char *buf, size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *mine = pass ? b : a, *theirs = pass ? a : b;
		for (const char *l = mine; *l;) {
			size_t n = strcspn(l, "\n"), key = strcspn(l, "=");
			const char *o = key < n ? line_named(theirs, l, key) : NULL;
			size_t on = o ? strcspn(o, "\n") : 0;
			if (key < n && (!o || on != n || memcmp(o, l, n))) {
				const char *va = pass ? o : l, *vb = pass ? l : o;
				char a0[MSG_MAX / 4], b0[MSG_MAX / 4];
				value_on(va, key, 0, a0, sizeof(a0));
				value_on(vb, key, r, b0, sizeof(b0));
				snprintf(buf, len, "%.*s is %s and %s", (int)key, l, a0, b0);
				return;
			}
			l += n + (l[n] == '\n');
		}
	}
	snprintf(buf, len, "the same keys in another order on rank %d", r);
}

/* Rank 0: the ranks whose description differs from its own (text), named in msg. */
static bool ranks_differ(const char *text, const char *all, const size_t *lens, char *msg,
                         size_t len)
{
	int n = 0, first = -1;
	size_t at = 0, first_at = 0, used = 0;
	char list[128] = "";
	for (int r = 0; r < job.d.size; at += lens[r], r++) {
		if (!lens[r])
			continue;
		if (first < 0) {
			first = r;
			first_at = at;
		}
		if (n < 8 && used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
			                         n ? ", " : "", r);
		else if (n == 8 && used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, ", ...");
		n++;
	}
	if (first < 0)
		return false;
	char *theirs = strndup(all + first_at, lens[first]), diff[MSG_MAX / 2];
	if (theirs)
		first_difference(text, theirs, first, diff, sizeof(diff));
	else
		snprintf(diff, sizeof(diff), "(out of memory to show the first difference)");
	free(theirs);
	snprintf(msg, len,
	         "the ranks were not given the same profile and options: rank%s %s of %d "
	         "differ%s from rank 0: %s (every rank must run the same plan; a given --seed S "
	         "runs as S+R on rank R by itself)",
	         n > 1 ? "s" : "", list, job.d.size, n > 1 ? "" : "s", diff);
	return true;
}

/* Every rank was given the same profile and options (job_parsed). */
static enum failure same_plan(const struct cli *c)
{
	size_t len = 0;
	char *text = describe(c, &len), *all = NULL;
	if (!text) /* cannot take part in the comparison: end the job rather than hang it */
		dist_abort(&job.d, 1);
	size_t *lens = NULL;
	bool differs = false;
	int rc = dist_differ(&job.d, text, len, &differs, &all, &lens);
	char msg[MSG_MAX] = "";
	enum failure f = FAIL_NONE;
	if (job.d.rank == 0 && rc) {
		snprintf(msg, sizeof(msg), "cannot compare the ranks' profiles and options: %s",
		         strerror(-rc));
		f = FAIL_IO;
	} else if (job.d.rank == 0 && ranks_differ(text, all, lens, msg, sizeof(msg))) {
		f = FAIL_INPUT;
	} else if (differs) {
		snprintf(msg, sizeof(msg), "its profile or options differ from rank 0's");
		f = FAIL_INPUT;
	}
	if (f != FAIL_NONE && job.d.rank == 0)
		fprintf(stderr, "fsmix: %s; nothing was run\n", msg);
	free(text);
	free(all);
	free(lens);
	return job_agree(f, msg, "; nothing was run");
}

char *job_plan_text(const struct cli *c, size_t *len)
{
	return describe(c, len);
}

enum failure job_same_plan(const struct cli *c)
{
	return same_plan(c);
}

enum failure job_parsed(const struct cli *c, enum failure f, const char *err)
{
	if (!job.d.on)
		return f;
	enum failure g = job_agree(f, err, "; nothing was run");
	return g != FAIL_NONE ? g : same_plan(c);
}

/* The first line diag_print would print, without its end of line (a rank's message). */
static void diag_first_line(const struct diag *d, char *buf, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	snprintf(buf, len, "%zu error%s in the profile", d->errors, d->errors == 1 ? "" : "s");
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return;
	diag_print(d, f);
	fclose(f);
	if (text && n)
		snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}

enum failure job_profile(enum failure f, const struct diag *d)
{
	if (!job.d.on)
		return f;
	char msg[MSG_MAX];
	diag_first_line(d, msg, sizeof(msg));
	return job_agree(f, msg, "; nothing was run");
}

enum failure job_locations(const struct plan *pl, bool check)
{
	if (!job.d.on)
		return check ? preflight_locations(pl, stderr) : FAIL_NONE;
	char msg[MSG_MAX] = "";
	char *text = NULL;
	size_t n = 0;
	enum failure f = FAIL_NONE;
	FILE *mem = check ? open_memstream(&text, &n) : NULL;
	if (mem) { /* rank 0 prints it; any rank's first line is its message */
		f = preflight_locations(pl, mem);
		fclose(mem);
		if (text && n) {
			fputs(text, stderr);
			snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(text, "\n"), text);
		}
		free(text);
	} else if (check) {
		f = preflight_locations(pl, stderr);
	}
	if (f == FAIL_NONE && (f = jobpolicy_lock(&job.d, &job.locks, pl, msg, sizeof(msg))))
		fprintf(stderr, "fsmix: %s\n", msg);
	/* "fsmix: X" -> "X" inside the job's "rank R on HOST: X" */
	return job_agree(f, strncmp(msg, "fsmix: ", 7) ? msg : msg + 7, "; nothing was run");
}

const struct engine_hooks *job_hooks(void)
{
	return job.d.on ? &job.run.hooks : NULL;
}

bool job_rank0_says(bool mine)
{
	unsigned char v = mine;
	dist_bcast(&job.d, &v, 1); /* nothing without a job */
	return v != 0;
}

void job_said_report_time(void)
{
	if (job.d.on && job.d.rank == 0 && distrun_since_end(&job.run) >= 0)
		fprintf(stderr,
		        "fsmix: %d ranks' results merged and reported %.3f s after the last rank's "
		        "end\n",
		        job.d.size, distrun_since_end(&job.run));
}

void job_end(void)
{
	jobpolicy_unlock(&job.locks);
	free(job.options);
	job.options = NULL;
	if (job.d.on) {
		fflush(NULL);
		distrun_free(&job.run);
		dist_finalize(&job.d);
	}
}
