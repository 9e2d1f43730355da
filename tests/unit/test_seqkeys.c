/* test_seqkeys.c - sequence=: its text parsed into steps (seqkeys_parse), the order's rules, and
 * the rules across the group's keys (plan_build: errors at the key's line, with its code). */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "keys.h"
#include "plan.h"
#include "profile.h"
#include "seqkeys.h"
#include "test.h"

static const char *parse_seq(const char *text, struct plan_group *g)
{
	static char err[512];
	memset(g, 0, sizeof(*g));
	return seqkeys_parse(text, g, err, sizeof(err));
}

static void test_varmail_parses(void)
{
	struct plan_group g;
	const char *e =
	    parse_seq("delete,create,append,fsync,close,open,readall,append,fsync,close,"
	              "open,readall,close",
	              &g);
	CHECK(e == NULL);
	CHECK_EQ_U(g.n_seq, 13);
	static const enum op_id want[] = {
	    OP_seq_delete, OP_seq_create,  OP_seq_append, OP_seq_fsync, OP_seq_close,
	    OP_seq_open,   OP_seq_readall, OP_seq_append, OP_seq_fsync, OP_seq_close,
	    OP_seq_open,   OP_seq_readall, OP_seq_close};
	for (unsigned i = 0; i < 13; i++) {
		CHECK_EQ_I(g.seq[i].op, want[i]);
		CHECK_EQ_U(g.seq[i].times, 1);
	}
	/* the first open's steps write (append, fsync): held alone; the second's only read */
	CHECK(g.seq[5].writes);
	CHECK(!g.seq[10].writes);
	CHECK(g.seq[1].op == OP_seq_create);
}

static void test_times_and_spaces(void)
{
	struct plan_group g;
	CHECK(parse_seq(" open , write*4,read*2 ,readall*1, close", &g) == NULL);
	CHECK_EQ_U(g.n_seq, 5);
	CHECK_EQ_U(g.seq[1].times, 4);
	CHECK_EQ_U(g.seq[2].times, 2);
	CHECK_EQ_U(g.seq[3].times, 1);
	CHECK(g.seq[0].writes);
	CHECK(parse_seq("stat,rename,delete", &g) == NULL); /* no file needed */
	CHECK_EQ_U(g.n_seq, 3);
}

/* Each bad text: the message names the step and why; n_seq is 0. */
static void test_bad_texts(void)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
	    {"open,wrte,close", "step 2 'wrte' is no step"},
	    {"write,close", "step 1 'write' needs an open file"},
	    {"close", "step 1 'close' needs an open file"},
	    {"open,open,close", "step 2 'open' with a file open (step 1 'open')"},
	    {"create,delete,close", "step 2 'delete' with a file open"},
	    {"create,append", "ends with the file of step 1 'create' open"},
	    {"open,write*0,close", "N of *N must be 1..1000000"},
	    {"open,write*x,close", "N of *N must be"},
	    {"open,write*2000000,close", "N of *N must be"},
	    {"open,fsync*2,close", "only write, append, read and readall take *N"},
	    {"", "no step"},
	    {"open,,close", "an empty step"},
	    {"open,close,", "an empty step"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct plan_group g;
		const char *e = parse_seq(bad[i].text, &g);
		if (!e) {
			TEST_FAIL("'%s' was accepted", bad[i].text);
			continue;
		}
		CHECK_CONTAINS(e, bad[i].says);
		CHECK_EQ_U(g.n_seq, 0);
	}
	/* more than PLAN_SEQ_MAX steps */
	char many[1024] = "";
	for (int i = 0; i < PLAN_SEQ_MAX / 2 + 1; i++)
		strcat(many, i ? ",open,close" : "open,close");
	struct plan_group g;
	const char *e = parse_seq(many, &g);
	CHECK(e != NULL);
	if (e)
		CHECK_CONTAINS(e, "more than 64 steps");
}

static const char head[] = "time=1\n[filesystem0]\nlocation=/nonexistent/x\nnum_files=4\n"
                           "max_filesize=4k\n[end0]\n[threadgroup0]\nnum_threads=1\n";

/* Builds head + group lines + [end0]; returns plan_build's rc, d filled. */
static int build(const char *group, struct profile *p, struct plan *pl, struct diag *d)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s%s[end0]\n", head, group);
	diag_init(d);
	if (profile_parse_buffer(p, "t.ffsb", text, strlen(text), d))
		return -1;
	return plan_build(pl, p, NULL, d);
}

static void test_plan_weights(void)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	int rc = build("sequence=delete,create,append,fsync,close,open,readall,close\n"
	               "write_size=8k\nwrite_blocksize=1m\nread_blocksize=1m\n",
	               &p, &pl, &d);
	CHECK_EQ_I(rc, 0);
	if (!rc) {
		const struct plan_group *g = &pl.groups[0];
		CHECK_EQ_U(g->weight[OP_sequence], 1);
		CHECK_EQ_U(g->weight[OP_seq_close], 2);
		CHECK_EQ_U(g->weight[OP_seq_delete], 1);
		CHECK_EQ_U(g->weight[OP_read], 0);
		CHECK_EQ_U(g->total_weight, 1);
		CHECK_EQ_U(g->n_seq, 8);
		CHECK_STR(g->sequence, "delete,create,append,fsync,close,open,readall,close");
		plan_free(&pl);
	}
	CHECK_EQ_U(d.n, 0);
	profile_free(&p);
	diag_free(&d);
}

/* A rule across keys: an error of `code` naming `key`, at `line`. */
static void expect_error(const char *group, enum diag_code code, const char *key, unsigned line)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	int rc = build(group, &p, &pl, &d);
	const struct diag_entry *e = diag_find(&d, DIAG_ERROR, code, "threadgroup0", key);
	if (rc == 0) {
		TEST_FAIL("accepted: %s", group);
		plan_free(&pl);
	} else if (!e) {
		TEST_FAIL("no error of code %d for %s: %s", (int)code, key, group);
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "    %s\n", d.v[i].text);
	} else {
		CHECK_EQ_U(e->loc.line, line);
	}
	profile_free(&p);
	diag_free(&d);
}

static void test_rules(void)
{
	/* the group's lines start at line 9 */
	expect_error("sequence=open,wrte,close\n", DIAG_BAD_VALUE, "sequence", 9);
	expect_error("read_blocksize=4k\nsequence=open,readall\n", DIAG_BAD_VALUE, "sequence", 10);
	expect_error("sequence=open,readall,close\nread_blocksize=4k\nreadall_weight=1\n",
	             DIAG_CONFLICT, "readall_weight", 11);
	expect_error("sequence=open,readall,close\n", DIAG_MISSING, "read_blocksize", 9);
	expect_error("write_size=0\nwrite_blocksize=4k\nsequence=open,append,close\n", DIAG_MISSING,
	             "write_size", 9);
	expect_error("sequence=open,read,close\nread_blocksize=4k\n", DIAG_MISSING, "read_size", 9);
	expect_error("sequence=open,write,close\nwrite_size=4k\nwrite_blocksize=4k\n"
	             "write_random=1\n",
	             DIAG_CONFLICT, "write_random", 12);
	/* a mix replaces the size keys of append */
	struct profile p;
	struct plan pl;
	struct diag d;
	CHECK_EQ_I(build("sequence=create,append,close\nwrite_bsrange=1-16k\n", &p, &pl, &d), 0);
	plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
}

static void test_strict_ffsb(void)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	char text[512];
	snprintf(text, sizeof(text), "%ssequence=open,readall,close\nread_blocksize=4k\n[end0]\n",
	         head);
	diag_init(&d);
	CHECK_EQ_I(profile_parse_buffer(&p, "t.ffsb", text, strlen(text), &d), 0);
	struct plan_opts o = {.strict_ffsb = true};
	CHECK(plan_build(&pl, &p, &o, &d) != 0);
	const struct diag_entry *e =
	    diag_find(&d, DIAG_ERROR, DIAG_COMPAT, "threadgroup0", "sequence");
	CHECK(e != NULL);
	if (e)
		CHECK_EQ_U(e->loc.line, 9);
	profile_free(&p);
	diag_free(&d);
}

/* sequence_hold=1: a plan of one or two groups (the second after [end0], in text2). */
static int build2(const char *group, const char *text2, struct profile *p, struct plan *pl,
                  struct diag *d, const struct plan_opts *o)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s%s[end0]\n%s", head, group, text2);
	diag_init(d);
	if (profile_parse_buffer(p, "t.ffsb", text, strlen(text), d))
		return -1;
	return plan_build(pl, p, o, d);
}

static const char hold_ok[] = "sequence=open,write*100,close\nsequence_hold=1\n"
                              "write_size=2k\nwrite_blocksize=2k\nopen_sync=dsync\n";

static void test_hold(void)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	CHECK_EQ_I(build2(hold_ok, "", &p, &pl, &d, NULL), 0);
	CHECK_EQ_U(d.n, 0);
	if (d.n == 0) {
		CHECK(pl.groups[0].sequence_hold);
		CHECK_EQ_U(pl.groups[0].seq[1].times, 100);
		plan_free(&pl);
	}
	profile_free(&p);
	diag_free(&d);
	/* readers and writers of the same files beside it: a hold shares the pool */
	CHECK_EQ_I(build2(hold_ok,
	                  "[threadgroup1]\nnum_threads=2\nread_weight=1\nread_size=2k\n"
	                  "read_blocksize=2k\nwrite_weight=1\nwrite_size=2k\n"
	                  "write_blocksize=2k\n[end1]\n",
	                  &p, &pl, &d, NULL),
	           0);
	if (d.errors == 0)
		plan_free(&pl);
	profile_free(&p);
	diag_free(&d);
	/* the group's lines start at line 9; sequence_hold is line 10 in hold_ok */
	expect_error("sequence=open,write,close\nsequence_hold=2\nwrite_size=2k\n"
	             "write_blocksize=2k\n",
	             DIAG_BAD_VALUE, "sequence_hold", 10);
	expect_error("read_size=2k\nread_blocksize=2k\nsequence_hold=1\nread_weight=1\n",
	             DIAG_MISSING, "sequence_hold", 11);
	expect_error("sequence=create,append,close\nsequence_hold=1\nwrite_bsrange=1-16k\n",
	             DIAG_CONFLICT, "sequence_hold", 10);
	expect_error("sequence=open,read,close,open,read,close\nsequence_hold=1\n"
	             "read_size=2k\nread_blocksize=2k\n",
	             DIAG_CONFLICT, "sequence_hold", 10);
	expect_error("sequence=stat,open,read,close\nsequence_hold=1\nread_size=2k\n"
	             "read_blocksize=2k\n",
	             DIAG_CONFLICT, "sequence_hold", 10);
	expect_error("sequence=open,read,close\nsequence_hold=1\nread_size=2k\n"
	             "read_blocksize=2k\nengine=io_uring\niodepth=4\n",
	             DIAG_CONFLICT, "sequence_hold", 10);
	/* a deleter of the same filesystem in the same phase: refused, at sequence_hold's line */
	CHECK(build2(hold_ok, "[threadgroup1]\nnum_threads=1\ndelete_weight=1\n[end1]\n", &p, &pl,
	             &d, NULL) != 0);
	const struct diag_entry *e =
	    diag_find(&d, DIAG_ERROR, DIAG_CONFLICT, "threadgroup0", "sequence_hold");
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U(e->loc.line, 10);
		CHECK(strstr(e->text, "[threadgroup1] (line 15) may delete them (its delete)") !=
		      NULL);
	}
	profile_free(&p);
	diag_free(&d);
	/* --strict-ffsb: an extension, refused at its line */
	struct plan_opts o = {.strict_ffsb = true};
	CHECK(build2(hold_ok, "", &p, &pl, &d, &o) != 0);
	e = diag_find(&d, DIAG_ERROR, DIAG_COMPAT, "threadgroup0", "sequence_hold");
	CHECK(e != NULL);
	if (e)
		CHECK_EQ_U(e->loc.line, 10);
	profile_free(&p);
	diag_free(&d);
}

int main(void)
{
	RUN(test_varmail_parses);
	RUN(test_times_and_spaces);
	RUN(test_bad_texts);
	RUN(test_plan_weights);
	RUN(test_rules);
	RUN(test_strict_ffsb);
	RUN(test_hold);
	return test_summary();
}
