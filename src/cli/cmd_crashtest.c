/* cmd_crashtest.c - `fsmix crashtest PROFILE --fs FS ...` (docs/durability.md, "Every crash
 * state"): the profile run once on a recording fsmix-powercut disk with a durability log, then
 * every chosen crash state served, attached, mounted (journal recovery), verified against the
 * promises acknowledged before it (engine_verify_cut) and checked read-only by the filesystem's
 * checker. Exit 0: every state kept its promises and checked clean; 1: one did not; 2: bad
 * input; 3: the environment lacks something; 130: stopped. Everything it made is undone on
 * every exit (crashtest_env.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "crashtest.h"
#include "crashtest_report.h"
#include "crashtest_states.h"
#include "diag.h"
#include "durmodel.h"
#include "engine.h"
#include "load.h"
#include "overrides.h"
#include "plan.h"
#include "profile.h"
#include "stopsig.h"
#include "subproc.h"

/* Where the run's record, base image and log are. */
struct ct_files {
	char rec[CT_PATH], base[CT_PATH], log[CT_PATH], inspect[CT_PATH];
	char mnt[CT_PATH], fuse[CT_PATH], disk[CT_PATH];
	bool reuse; /* --run-dir of an earlier crashtest: no run */
};

static uint64_t ct_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int crashtest_rules(const struct cli *c, char *err, size_t errlen)
{
	const struct ct_opts *o = &c->ct;
	if (c->json && !c->json_path)
		snprintf(err, errlen, "crashtest --json needs a file: --json FILE, or --json -");
	else if (!o->fs)
		snprintf(err, errlen, "crashtest needs --fs ext4|xfs|btrfs");
	else if (o->one_state && !o->image)
		snprintf(err, errlen, "crashtest --state N needs --image FILE (the image to make)");
	else if (!o->one_state && (o->image || o->keep))
		snprintf(err, errlen, "--image and --keep go with --state N");
	else
		return 0;
	return -1;
}

/* The run's seed (--seed), which also draws the random subsets; 1 without it. */
static uint64_t run_seed(const struct cli *c)
{
	uint64_t s = 1;
	for (size_t i = 0; i < c->n_ovr; i++)
		if (c->ovr[i].kind == OVR_SEED)
			s = strtoull(c->ovr[i].arg, NULL, 10);
	return s;
}

static int files_place(const struct cli *c, struct ct_env *e, struct ct_files *f)
{
	const char *d = e->dir;
	struct stat st;
	if (c->ct.run_dir) {
		d = c->ct.run_dir;
		if (!stat(d, &st)) {
			f->reuse = true;
		} else if (mkdir(d, 0700)) {
			fprintf(stderr, "fsmix: crashtest: --run-dir %s: %s\n", d, strerror(errno));
			return -1;
		}
	}
	snprintf(f->rec, sizeof(f->rec), "%s/run.rec", d);
	snprintf(f->base, sizeof(f->base), "%s/base.img", d);
	snprintf(f->log, sizeof(f->log), "%s/durability.log", d);
	snprintf(f->inspect, sizeof(f->inspect), "%s/inspect", e->dir);
	snprintf(f->mnt, sizeof(f->mnt), "%s/mnt", e->dir);
	snprintf(f->fuse, sizeof(f->fuse), "%s/disk", e->dir);
	snprintf(f->disk, sizeof(f->disk), "%s/disk.img", e->dir);
	if (f->reuse && (access(f->rec, R_OK) || access(f->base, R_OK) || access(f->log, R_OK))) {
		fprintf(stderr,
		        "fsmix: crashtest: --run-dir %s exists but holds no run of crashtest "
		        "(run.rec, base.img, durability.log); give a new directory\n",
		        d);
		return -1;
	}
	if (mkdir(f->mnt, 0700) || mkdir(f->fuse, 0700)) {
		fprintf(stderr, "fsmix: crashtest: %s: %s\n", e->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* fsmix run PROFILE on the mounted recording disk, with the command line's overrides. */
static int profile_run(const struct cli *c, struct ct_env *e, const struct ct_files *f)
{
	char *argv[8 + 2 * MAX_OVERRIDES];
	size_t n = 0;
	argv[n++] = e->self;
	argv[n++] = "run";
	argv[n++] = (char *)c->profile;
	argv[n++] = "--location";
	argv[n++] = (char *)f->mnt;
	argv[n++] = "--durability-log";
	argv[n++] = (char *)f->log;
	for (size_t i = 0; i < c->n_ovr; i++) {
		argv[n++] = (char *)override_option(c->ovr[i].kind);
		argv[n++] = (char *)c->ovr[i].arg;
	}
	argv[n] = NULL;
	int rc = ct_cmd(e, argv);
	if (rc == 0)
		return 0;
	char line[512];
	ct_cmd_tail(e, line, sizeof(line));
	fprintf(stderr, "fsmix: crashtest: the run failed (exit %d): %s\n", rc, line);
	return -1;
}

/* The record is complete once the daemon, unmounted, has written its end: inspect accepts it. */
static int record_wait(struct ct_env *e, const struct ct_files *f)
{
	char *argv[] = {e->powercut, "inspect", "--states", (char *)f->rec, NULL};
	for (int i = 0; i < 300 && !ct_stop_seen(e); i++) {
		int rc = ct_cmd_to(e, argv, f->inspect);
		if (rc == 0)
			return 0;
		struct timespec ts = {0, 100000000L};
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "fsmix: crashtest: the record %s did not complete\n", f->rec);
	return -1;
}

/* The image made, copied as the base, recorded under the run. */
static int record_run(const struct cli *c, struct ct_env *e, const struct ct_files *f)
{
	const struct ct_opts *o = &c->ct;
	char size[32], *cp[] = {"cp", "--sparse=always", (char *)f->disk, (char *)f->base, NULL};
	snprintf(size, sizeof(size), "%" PRIu64, o->size);
	char *trunc[] = {"truncate", "-s", size, (char *)f->disk, NULL};
	if (ct_cmd(e, trunc) || ct_mkfs(e, o->fs, o->mkfs_opts, f->disk) || ct_cmd(e, cp)) {
		fprintf(stderr, "fsmix: crashtest: cannot make the image %s\n", f->disk);
		return -1;
	}
	char *pc[16] = {e->powercut, "--record", (char *)f->rec, "--destage-delay", "off"};
	size_t n = 5;
	pc[n++] = (char *)f->disk;
	pc[n++] = (char *)f->fuse;
	pc[n] = NULL;
	char dimg[CT_PATH + 16];
	snprintf(dimg, sizeof(dimg), "%s/disk.img", f->fuse);
	int rc = -1;
	if (ct_fuse_up(e, 0, pc) || ct_attach(e, 0, dimg, true))
		return -1;
	int m = ct_mount(e, 0, e->loop[0], f->mnt, o->fs, o->mount_opts);
	if (m)
		fprintf(stderr, "fsmix: crashtest: mount -t %s -o '%s' %s: %s\n", o->fs,
		        o->mount_opts ? o->mount_opts : "", e->loop[0], strerror(-m));
	else if (!profile_run(c, e, f))
		rc = 0;
	if (ct_umount(e, 0))
		rc = -1;
	ct_detach(e, 0);
	if (ct_fuse_down(e, 0) || e->loop[0][0])
		rc = -1;
	return rc || ct_stop_seen(e) ? -1 : record_wait(e, f);
}

/* Verify one mounted state: 1 broken (kinds into t), 0 kept, -1 verify failed (message). */
static int state_verify(const struct cli *c, const struct plan *pl, const struct ct_files *f,
                        const struct ct_state *s, struct ct_tally *t)
{
	static struct dm_report rep;
	memset(&rep, 0, sizeof(rep));
	FILE *log = tmpfile();
	enum failure fl =
	    engine_verify_cut(pl, f->log, c->model, s->cut_ns, &rep, log ? log : stderr);
	free(rep.verdicts);
	if (fl != FAIL_NONE) {
		char line[512] = "", last[512] = "";
		if (log) {
			rewind(log);
			while (fgets(line, sizeof(line), log))
				snprintf(last, sizeof(last), "%s", line);
		}
		snprintf(t->verify_error, sizeof(t->verify_error), "%s", last);
	}
	if (log) /* (closed on both paths: one per state, and a run has thousands) */
		fclose(log);
	if (fl != FAIL_NONE)
		return -1;
	t->promises += rep.checked;
	for (int k = 0; k < DM_KIND_COUNT; k++)
		t->kinds_now[k] = rep.by_kind[k];
	return rep.broken > 0;
}

/* One state: switch, mount, verify, unmount, check. */
static void state_explore(const struct cli *c, struct ct_env *e, const struct plan *pl,
                          const struct ct_files *f, const struct ct_state *s, struct ct_tally *t)
{
	char ctl[CT_PATH + 16], line[128], sub[64];
	ct_state_subset(s, sub, sizeof(sub));
	snprintf(ctl, sizeof(ctl), "%s/control", f->fuse);
	int len = snprintf(line, sizeof(line), "state %zu %s%s\n", s->serve_k, sub,
	                   s->lose ? " lose " CT_LOSE_WORD : "");
	uint64_t t0 = ct_now_ns();
	FILE *cf = fopen(ctl, "w");
	bool switched = cf && fwrite(line, 1, (size_t)len, cf) == (size_t)len;
	switched = cf && !fclose(cf) && switched;
	int dc = switched ? ct_drop_cache(e->loop[1]) : 0; /* a foreign opener keeps old pages */
	if (dc) {
		switched = false;
		fprintf(stderr, "fsmix: crashtest: cannot drop the cache of %s: %s\n", e->loop[1],
		        strerror(-dc));
	}
	uint64_t t1 = ct_now_ns();
	t->step_ns[CT_STEP_SWITCH] += t1 - t0;
	struct ct_result r = {.verified = -2};
	if (!switched) {
		r.error = true;
		snprintf(t->verify_error, sizeof(t->verify_error), "cannot switch to %s", line);
	} else if (ct_mount(e, 1, e->loop[1], f->mnt, c->ct.fs, c->ct.mount_opts)) {
		r.unmountable = true;
	} else {
		uint64_t t2 = ct_now_ns();
		t->step_ns[CT_STEP_MOUNT] += t2 - t1;
		memset(t->kinds_now, 0, sizeof(t->kinds_now));
		r.verified = s->verify ? state_verify(c, pl, f, s, t) : -2;
		uint64_t t3 = ct_now_ns();
		t->step_ns[CT_STEP_VERIFY] += t3 - t2;
		ct_umount(e, 1);
		t->step_ns[CT_STEP_UMOUNT] += ct_now_ns() - t3;
	}
	uint64_t t4 = ct_now_ns();
	if (switched)
		r.flagged = ct_checker(e, c->ct.fs, e->loop[1]) == 1;
	t->step_ns[CT_STEP_CHECKER] += ct_now_ns() - t4;
	ct_tally_add(t, s, &r, e->out);
}

/* Serve state 0, attach it, then every state of the list through the control file. */
static int explore(const struct cli *c, struct ct_env *e, const struct plan *pl,
                   const struct ct_files *f, const struct ct_list *l, struct ct_tally *t)
{
	char *sv[] = {e->powercut,     "serve",   "--record", (char *)f->rec,  "--base",
	              (char *)f->base, "--state", "0",        (char *)f->fuse, NULL};
	char dimg[CT_PATH + 16];
	snprintf(dimg, sizeof(dimg), "%s/disk.img", f->fuse);
	if (ct_fuse_up(e, 1, sv) || ct_attach(e, 1, dimg, true))
		return -1;
	uint64_t start = ct_now_ns();
	for (size_t i = 0; i < l->n && !ct_stop_seen(e); i++) {
		t->current = i;
		state_explore(c, e, pl, f, &l->states[i], t);
		t->seconds = (double)(ct_now_ns() - start) / 1e9;
		ct_progress(t, l);
	}
	ct_progress_end(t);
	return 0;
}

/* --state N: that state materialized as --image, and with --keep attached and mounted. */
static int rebuild(const struct cli *c, struct ct_env *e, const struct ct_files *f,
                   const struct ct_list *l)
{
	const struct ct_opts *o = &c->ct;
	if (o->state >= l->n) {
		fprintf(stderr, "fsmix: crashtest: --state %zu: this run has states 0 to %zu\n",
		        o->state, l->n - 1);
		return -2;
	}
	const struct ct_state *s = &l->states[o->state];
	char k[32], sub[64];
	snprintf(k, sizeof(k), "%zu", s->serve_k);
	ct_state_subset(s, sub, sizeof(sub));
	char *mat[] = {e->powercut,
	               "serve",
	               "--record",
	               (char *)f->rec,
	               "--base",
	               (char *)f->base,
	               "--state",
	               k,
	               "--subset",
	               sub,
	               "--materialize",
	               (char *)o->image,
	               s->lose ? "--lose" : NULL,
	               CT_LOSE_WORD,
	               NULL};
	int rc = ct_cmd(e, mat);
	if (rc) {
		char line[512];
		ct_cmd_tail(e, line, sizeof(line));
		fprintf(stderr, "fsmix: crashtest: cannot make %s: %s\n", o->image, line);
		return rc == 2 ? -2 : -1; /* 2: an existing file (never written over) */
	}
	printf("state %zu: flush point %zu, subset %s: %s\n", o->state, s->k, sub, o->image);
	if (!o->keep)
		return 0;
	char mnt[CT_PATH + 8];
	snprintf(mnt, sizeof(mnt), "%s.mnt", o->image);
	if ((mkdir(mnt, 0700) && errno != EEXIST) || ct_attach(e, 0, o->image, false) ||
	    ct_mount(e, 0, e->loop[0], mnt, o->fs, o->mount_opts)) {
		fprintf(stderr, "fsmix: crashtest: cannot mount %s at %s\n", o->image, mnt);
		return -1;
	}
	printf("mounted at %s on %s (journal replayed); to remove: umount %s; losetup -d %s\n", mnt,
	       e->loop[0], mnt, e->loop[0]);
	e->loop[0][0] = e->mnt[0][0] = '\0'; /* the human's now */
	return 0;
}

/* The plan verify checks against: the profile, its overrides, the location f->mnt. */
static int plan_load(struct cli *c, const struct ct_files *f, struct profile *p, struct plan *pl)
{
	struct diag d;
	if (c->n_ovr >= MAX_OVERRIDES)
		return -1;
	override_init(&c->ovr[c->n_ovr++], OVR_LOCATION, f->mnt);
	c->durability_log_path = f->log; /* content is checked: as verify loads it */
	int rc = load_profile(c, false, p, pl, &d);
	c->n_ovr--;
	diag_print(&d, stderr);
	diag_free(&d);
	if (rc)
		profile_free(p);
	return rc;
}

static enum failure crashtest(struct cli *c, struct ct_env *e, struct ct_files *f)
{
	struct profile p;
	struct plan pl;
	char err[512];
	if (files_place(c, e, f) || plan_load(c, f, &p, &pl))
		return FAIL_INPUT;
	enum failure fl = FAIL_IO;
	struct ct_rec r = {0};
	struct ct_list l = {0};
	struct ct_tally t = {0};
	char *insp[] = {e->powercut, "inspect", "--states", f->rec, NULL};
	if (!f->reuse && record_run(c, e, f))
		goto out;
	if (f->reuse && ct_cmd_to(e, insp, f->inspect)) {
		fprintf(stderr, "fsmix: crashtest: %s/run.rec is no record\n", c->ct.run_dir);
		goto out;
	}
	uint64_t setup = ct_setup_done(f->log, err, sizeof(err));
	if (!setup)
		fprintf(stderr, "fsmix: crashtest: %s\n", err);
	else if (ct_rec_read(f->inspect, &r) || ct_states_make(&r, &c->ct, run_seed(c), setup, &l))
		fprintf(stderr, "fsmix: crashtest: cannot read the record's flush points\n");
	else if (c->ct.one_state) {
		int rc = rebuild(c, e, f, &l);
		fl = rc == 0 ? FAIL_NONE : rc == -2 ? FAIL_INPUT : FAIL_IO;
	} else if (!explore(c, e, &pl, f, &l, &t)) {
		fl = ct_report(c, &r, &l, &t);
	}
out:
	if (ct_stop_seen(e))
		fl = FAIL_INTERRUPTED;
	free(r.pt);
	free(l.states);
	plan_free(&pl);
	profile_free(&p);
	return fl;
}

/* The image's size without --size: one mkfs of each filesystem accepts (mkfs.btrfs refuses
 * below 109 MiB, mkfs.xfs below 300 MB) with room for a CI-sized run; sparse, so unwritten
 * space costs nothing. */
static uint64_t default_size(const char *fs)
{
	if (fs && !strcmp(fs, "btrfs"))
		return 256ull << 20;
	if (fs && !strcmp(fs, "xfs"))
		return 320ull << 20;
	return 64ull << 20;
}

enum failure cmd_crashtest(struct cli *c)
{
	struct ct_env e;
	struct ct_files f;
	char err[1024];
	memset(&f, 0, sizeof(f));
	if (!c->ct.size)
		c->ct.size = default_size(c->ct.fs);
	stopsig_block(); /* a Ctrl-C is seen between the steps, and everything is undone */
	enum failure fl = ct_env_open(&e, c->ct.fs, err, sizeof(err));
	if (fl) {
		fprintf(stderr, "fsmix: crashtest: %s; nothing was run\n", err);
		return fl;
	}
	fl = crashtest(c, &e, &f);
	ct_env_close(&e);
	if (fl == FAIL_INTERRUPTED)
		fprintf(stderr, "fsmix: crashtest: stopped; everything it made was removed\n");
	return fl;
}
