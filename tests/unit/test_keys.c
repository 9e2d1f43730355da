/* test_keys.c - invariants of the key table (keys.def + ops.def), the did-you-mean, and where
 * every key's value lands in the plan (keys.def's dest column) and which words it accepts. */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "ops.h"
#include "plan.h"
#include "profile.h"
#include "test.h"

static void test_names_unique(void)
{
	for (int i = 0; i < KEY_COUNT; i++) {
		CHECK(key_table[i].name && key_table[i].name[0]);
		for (int j = i + 1; j < KEY_COUNT; j++)
			if (!strcmp(key_table[i].name, key_table[j].name))
				TEST_FAIL("key '%s' appears twice", key_table[i].name);
		/* a sequence's and its steps' weights are no keys of the language (sequence=) */
		CHECK_EQ_I(key_by_name(key_table[i].name),
		           (key_table[i].flags & KF_HIDDEN) ? -1 : i);
		CHECK_EQ_I(!!(key_table[i].flags & KF_HIDDEN),
		           (key_table[i].flags & KF_WEIGHT) &&
		               (op_table[key_op((enum key_id)i)].flags & (OPF_STEP | OPF_SEQ)));
	}
	CHECK_EQ_I(key_by_name("sequence_weight"), -1);
	CHECK_EQ_I(key_by_name("seq_append_weight"), -1);
	CHECK_EQ_I(key_by_name("bufferedio"), KEY_bufferio);
	CHECK_EQ_I(key_by_name("TIME"), -1);
	CHECK_EQ_I(key_by_name(""), -1);
}

static void test_help_and_scope(void)
{
	for (int i = 0; i < KEY_COUNT; i++) {
		const struct key_desc *k = &key_table[i];
		if (!k->help || !k->help[0])
			TEST_FAIL("key '%s' has no help text", k->name);
		/* One section kind per key: messages name "the" section a key belongs in. */
		unsigned s = k->scopes;
		if (!s || (s & (s - 1)))
			TEST_FAIL("key '%s' has scopes 0x%x, expected exactly one", k->name, s);
		if (k->lo > k->hi)
			TEST_FAIL("key '%s': lo %" PRIu64 " > hi %" PRIu64, k->name, k->lo, k->hi);
		if ((k->flags & KF_LIST) !=
		    (k->type == KT_SIZE_WEIGHT || k->type == KT_RANGE || k->type == KT_SYSCALL
		         ? KF_LIST
		         : 0u))
			TEST_FAIL("key '%s': KF_LIST does not match its list type", k->name);
		if (k->type == KT_U32 && k->hi > UINT32_MAX)
			TEST_FAIL("key '%s': a 32-bit key with hi %" PRIu64, k->name, k->hi);
	}
}

/* Every default goes through the parser of file values and lies within the key's bounds. */
static void test_defaults_parse(void)
{
	for (int i = 0; i < KEY_COUNT; i++) {
		const struct key_desc *k = &key_table[i];
		char err[VALUE_ERR_LEN];
		uint64_t u = 0;
		double d = 0;
		if (!k->def)
			continue;
		CHECK(!(k->flags & KF_LIST));
		const char *e = key_parse_scalar((enum key_id)i, k->def, &u, &d, err);
		if (e) {
			TEST_FAIL("default '%s' of key '%s' does not parse: %s", k->def, k->name,
			          e);
			continue;
		}
		if (k->type == KT_DOUBLE)
			CHECK(d >= (double)k->lo && d <= (double)k->hi);
		else if (k->type != KT_STRING)
			CHECK(u >= k->lo && u <= k->hi);
		test_passed_checks++;
	}
}

static void test_required_and_deprecated(void)
{
	for (int i = 0; i < KEY_COUNT; i++) {
		const struct key_desc *k = &key_table[i];
		if ((k->flags & KF_DEPRECATED) && k->def)
			TEST_FAIL("deprecated key '%s' has a default", k->name);
		if ((k->flags & KF_REQUIRED) && k->def)
			TEST_FAIL("required key '%s' has a default", k->name);
	}
	CHECK(key_table[KEY_num_filesystems].flags & KF_DEPRECATED);
	CHECK(key_table[KEY_num_threadgroups].flags & KF_DEPRECATED);
	CHECK(key_table[KEY_fsync_file].flags & KF_DEPRECATED);
	CHECK(key_table[KEY_location].flags & KF_REQUIRED);
	CHECK(key_table[KEY_num_threads].flags & KF_REQUIRED);
}

static void test_one_weight_per_op(void)
{
	for (int op = 0; op < OP_COUNT; op++) {
		char name[64];
		int found = 0;
		snprintf(name, sizeof(name), "%s_weight", op_table[op].name);
		for (int i = 0; i < KEY_COUNT; i++)
			if (!strcmp(key_table[i].name, name))
				found++;
		if (found != 1)
			TEST_FAIL("op '%s': %d keys named %s, expected 1", op_table[op].name, found,
			          name);
		enum key_id k = key_weight_of((enum op_id)op);
		CHECK_STR(key_table[k].name, name);
		CHECK_EQ_I(key_op(k), op);
		CHECK(key_table[k].flags & KF_WEIGHT);
		CHECK_EQ_U(key_table[k].scopes, SC_TG);
	}
	int weights = 0;
	for (int i = 0; i < KEY_COUNT; i++)
		weights += (key_table[i].flags & KF_WEIGHT) != 0;
	CHECK_EQ_I(weights, OP_COUNT);
}

static void test_parse_scalar_bounds(void)
{
	char err[VALUE_ERR_LEN];
	uint64_t u = 0;
	double d = 0;
	CHECK(key_parse_scalar(KEY_num_threads, "65536", &u, &d, err) == NULL);
	CHECK_EQ_U(u, 65536);
	CHECK_STR(key_parse_scalar(KEY_num_threads, "0", &u, &d, err),
	          "0 is out of range (1..65536)");
	CHECK_STR(key_parse_scalar(KEY_num_threads, "-1", &u, &d, err),
	          "-1 is negative (the range is 1..65536)");
	CHECK_STR(key_parse_scalar(KEY_num_threads, "18446744073709551616", &u, &d, err),
	          "18446744073709551616 is out of range (1..65536)");
	CHECK_STR(key_parse_scalar(KEY_read_blocksize, "2GB", &u, &d, err),
	          "2GB is out of range (0B..1GB)");
	CHECK_STR(key_parse_scalar(KEY_max_filesize, "16777216TB", &u, &d, err),
	          "16777216TB is out of range (0B..1PB)");
	CHECK(key_parse_scalar(KEY_seed, "18446744073709551615", &u, &d, err) == NULL);
	CHECK_EQ_U(u, UINT64_MAX);
	CHECK_STR(key_parse_scalar(KEY_desired_util, "1.5", &u, &d, err),
	          "1.5 is out of range (0..1)");
	CHECK(key_parse_scalar(KEY_desired_util, "0.25", &u, &d, err) == NULL);
	CHECK_NEAR(d, 0.25, 1e-12);
	CHECK_CONTAINS(key_parse_scalar(KEY_time, "10abc", &u, &d, err), "not a whole number");
	CHECK_CONTAINS(key_parse_scalar(KEY_directio, "2", &u, &d, err), "not a boolean");
	CHECK_STR(key_parse_scalar(KEY_location, "", &u, &d, err), "missing value");
	CHECK_CONTAINS(key_parse_scalar(KEY_size_weight, "4k 1", &u, &d, err), "list key");
}

static void test_suggest(void)
{
	CHECK_STR(key_suggest("create_fsyncweight"), "create_fsync_weight");
	CHECK_STR(key_suggest("num_thread"), "num_threads");
	CHECK_STR(key_suggest("TIME"), "time");
	CHECK_STR(key_suggest("readall_wieght"), "readall_weight");
	CHECK(key_suggest("zzzzzzzz") == NULL);
	CHECK(key_suggest("frobnicate") == NULL);
	/* a short name is allowed 2 edits, though a third of it is 1 */
	CHECK_STR(key_suggest("tiem"), "time");
}

/* The reference's ranges as users read them: 2^64-1 for the largest bound, sizes in binary
 * units where exact. */
static void test_reference_ranges(void)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	CHECK(f != NULL);
	if (!f)
		return;
	keys_print_markdown(f);
	fclose(f);
	CHECK_CONTAINS(text, "| `seed` | integer | unset | 0..2^64-1 |");
	CHECK_CONTAINS(text, "| `num_ops` | integer | 0 | 0..2^64-1 |");
	free(text);
}

/* ---- destinations: every key's value arrives in the plan field named here ---- */

/* The profile every destination case starts from: valid, with every value a case sets being
 * different from both this and the key's default, so a key that stores nothing (or stores it
 * elsewhere) is caught. */
static const char base_profile[] = "time=1\n"
                                   "[filesystem0]\n"
                                   "location=/nonexistent/base\n"
                                   "num_files=1\n"
                                   "num_dirs=2\n"
                                   "dir_fanout=2\n"
                                   "max_filesize=64k\n"
                                   "desired_util=0.5\n"
                                   "[threadgroup]\n"
                                   "num_threads=1\n"
                                   "create_weight=1\n"
                                   "write_blocksize=4k\n"
                                   "write_size=4k\n"
                                   "[end]\n"
                                   "[end0]\n"
                                   "[threadgroup0]\n"
                                   "num_threads=1\n"
                                   "read_weight=1\n"
                                   "read_size=4k\n"
                                   "read_blocksize=4k\n"
                                   "write_weight=1\n"
                                   "write_size=4k\n"
                                   "write_blocksize=4k\n"
                                   "[end0]\n";

enum in { IN_NONE, IN_PLAN, IN_FS, IN_TG, IN_STATS };
enum want_kind { W_U32, W_U64, W_BOOL, W_DOUBLE, W_TEXT, W_INT, W_SIZES, W_RANGES, W_MASK };

struct dest_case {
	enum key_id key;
	enum in in;
	size_t off, size; /* of the field, by name here (not from keys.def) */
	const char *text; /* the value set (as --set does) */
	enum want_kind kind;
	double want;  /* W_TEXT: the text itself; lists: the first item's first half */
	double want2; /* lists: the first item's second half */
};

#define AT(type, f) offsetof(type, f), sizeof(((type *)0)->f)
#define P(k, f, text, kind, want)                                                                  \
	{                                                                                          \
		KEY_##k, IN_PLAN, AT(struct plan, f), text, kind, want, 0                          \
	}
#define F(k, f, text, kind, want)                                                                  \
	{                                                                                          \
		KEY_##k, IN_FS, AT(struct plan_fs, f), text, kind, want, 0                         \
	}
#define G(k, f, text, kind, want)                                                                  \
	{                                                                                          \
		KEY_##k, IN_TG, AT(struct plan_group, f), text, kind, want, 0                      \
	}
#define S(k, f, text, kind, want)                                                                  \
	{                                                                                          \
		KEY_##k, IN_STATS, AT(struct plan_group, f), text, kind, want, 0                   \
	}
#define NONE(k)                                                                                    \
	{                                                                                          \
		KEY_##k, IN_NONE, 0, 0, NULL, W_U32, 0, 0                                          \
	}

static const struct dest_case dest_cases[] = {
    P(time, time_s, "9", W_U32, 9),
    P(directio, directio, "1", W_BOOL, 1),
    P(alignio, alignio, "1", W_BOOL, 1),
    P(bufferio, bufferio, "1", W_BOOL, 1),
    P(verbose, verbose, "1", W_BOOL, 1),
    P(verify, verify, "1", W_BOOL, 1),
    P(callout, callout, "echo hi", W_TEXT, 0),
    P(content, content, "dedupe:30", W_TEXT, 0),
    NONE(num_filesystems),
    NONE(num_threadgroups),
    P(seed, seed, "18446744073709551615", W_U64, 18446744073709551615.0),
    P(fidelity, fidelity, "ffsb6", W_INT, FIDELITY_FFSB6),
    P(ramp_time, ramp_s, "7", W_U32, 7),
    F(location, location, "/nonexistent/other", W_TEXT, 0),
    F(num_files, num_files, "77", W_U32, 77),
    F(num_dirs, num_dirs, "5", W_U32, 5),
    F(dir_depth, dir_depth, "3", W_U32, 3),
    F(dir_fanout, dir_fanout, "4", W_U32, 4),
    F(dir_files, dir_files_text, "gamma:1.5", W_TEXT, 0),
    F(dir_per_thread, dir_per_thread, "1", W_BOOL, 1),
    F(reuse, reuse, "1", W_BOOL, 1),
    F(min_filesize, min_filesize, "8k", W_U64, 8192),
    F(max_filesize, max_filesize, "1m", W_U64, 1 << 20),
    {KEY_size_weight, IN_FS, AT(struct plan_fs, sizes), "8k 3", W_SIZES, 8192, 3},
    F(create_blocksize, create_blocksize, "8k", W_U64, 8192),
    F(age_blocksize, age_blocksize, "16k", W_U64, 16384),
    F(agefs, agefs, "1", W_BOOL, 1),
    F(desired_util, desired_util, "0.25", W_DOUBLE, 0.25),
    F(init_util, init_util, "0.125", W_DOUBLE, 0.125),
    F(init_size, init_size, "2m", W_U64, 2 << 20),
    F(create_method, create_method, "sparse", W_INT, CREATE_SPARSE),
    F(size_dist, size_dist_text, "lognormal:16k:1.5", W_TEXT, 0),
    NONE(clone),
    NONE(bindfs),
    G(num_threads, num_threads, "3", W_U32, 3),
    G(read_random, read_random, "1", W_BOOL, 1),
    G(read_skip, read_skip, "1", W_BOOL, 1),
    G(read_size, read_size, "12k", W_U64, 12288),
    G(read_blocksize, read_blocksize, "2k", W_U64, 2048),
    G(read_skipsize, read_skipsize, "1k", W_U64, 1024),
    G(write_random, write_random, "1", W_BOOL, 1),
    G(write_size, write_size, "20k", W_U64, 20480),
    G(write_blocksize, write_blocksize, "1k", W_U64, 1024),
    G(op_delay, op_delay_ms, "11", W_U32, 11),
    G(num_ops, num_ops, "13", W_U64, 13),
    G(start_delay, start_delay_ms, "17", W_U32, 17),
    G(phase, phase, "0", W_U32, 0), /* one group: phase 0 (test_phases.c sets others) */
    G(phase_time, phase_time_s, "19", W_U32, 19),
    G(stonewall, stonewall, "1", W_BOOL, 1),
    G(op_period, op_period_ms, "19", W_U32, 19),
    G(write_stride, write_stride, "4k", W_U64, 4096),
    G(op_rate, op_rate, "100/group", W_TEXT, 0),
    G(arrival, arrival, "poisson", W_INT, ARRIVAL_POISSON),
    G(arrival_backlog, arrival_backlog, "queue", W_INT, BACKLOG_QUEUE),
    G(arrival_backlog_max, arrival_backlog_max, "7", W_U32, 7),
    G(file_order, file_order, "sequential", W_INT, ORDER_SEQUENTIAL),
    G(file_popularity, file_popularity, "zipf:1.2", W_TEXT, 0),
    G(write_bssplit, write_bssplit, "4k/50:64k", W_TEXT, 0),
    G(write_bsrange, write_bsrange, "4k-64k", W_TEXT, 0),
    G(read_bssplit, read_bssplit, "4k/50:64k", W_TEXT, 0),
    G(read_bsrange, read_bsrange, "4k-64k", W_TEXT, 0),
    G(random_distribution, random_distribution, "zipf:1.2", W_TEXT, 0),
    G(percentage_random, percentage_random, "30", W_U32, 30),
    G(open_sync, open_sync, "dsync", W_INT, O_DSYNC),
    G(engine, io_engine, "io_uring", W_INT, IOENG_URING),
    G(iodepth, iodepth, "1", W_U32, 1), /* above 1 needs engine=io_uring (realism.c) */
    G(dirsync, dirsync, "1", W_BOOL, 1),
    G(sequence, sequence, "open,readall,close", W_TEXT, 0),
    G(sequence_hold, sequence_hold, "1", W_BOOL, 1),
    G(shared_writes, shared_writes, "1", W_BOOL, 1), /* does nothing at depth 1 */
    G(sqpoll, sqpoll, "1", W_BOOL, 1),
    NONE(fsync_file),
    S(enable_stats, enable_stats, "1", W_BOOL, 1),
    S(enable_range, enable_range, "1", W_BOOL, 1),
    S(ignore, ignore_mask, "close", W_MASK, 1u << SYS_close),
    {KEY_msec_range, IN_STATS, AT(struct plan_group, ranges), "0.5 2", W_RANGES, 0.5, 2},
};

static enum key_target target_of(enum in in)
{
	return in == IN_PLAN ? KD_PLAN : in == IN_FS ? KD_FS : in == IN_NONE ? KD_NONE : KD_GROUP;
}

/* The case of key k: from dest_cases, or for an <op>_weight key its weight[op]. */
static bool case_of(enum key_id k, struct dest_case *out)
{
	for (size_t i = 0; i < sizeof(dest_cases) / sizeof(dest_cases[0]); i++)
		if (dest_cases[i].key == k) {
			*out = dest_cases[i];
			return true;
		}
	if (!(key_table[k].flags & KF_WEIGHT))
		return false;
	enum op_id op = key_op(k);
	*out = (struct dest_case){k,
	                          IN_TG,
	                          offsetof(struct plan_group, weight) + op * sizeof(uint32_t),
	                          sizeof(uint32_t),
	                          "7",
	                          W_U32,
	                          7,
	                          0};
	return true;
}

/* Whether the field at c->off of `field_base` holds what c expects. */
static bool field_holds(const struct dest_case *c, const char *base)
{
	const char *f = base + c->off;
	uint32_t u32;
	uint64_t u64;
	bool b;
	double dv;
	int iv;
	const char *text;
	switch (c->kind) {
	case W_U32:
	case W_MASK:
		memcpy(&u32, f, sizeof(u32));
		return u32 == (uint32_t)c->want;
	case W_U64:
		memcpy(&u64, f, sizeof(u64));
		return c->want >= 1.8e19 ? u64 == UINT64_MAX : u64 == (uint64_t)c->want;
	case W_BOOL:
		memcpy(&b, f, sizeof(b));
		return b == (c->want != 0);
	case W_DOUBLE:
		memcpy(&dv, f, sizeof(dv));
		return dv == c->want;
	case W_INT:
		memcpy(&iv, f, sizeof(iv));
		return iv == (int)c->want;
	case W_TEXT:
		memcpy(&text, f, sizeof(text));
		return text && !strcmp(text, c->text);
	case W_SIZES: {
		const struct plan_fs *fs = (const void *)base;
		return fs->n_sizes == 1 && fs->sizes[0].size == (uint64_t)c->want &&
		       fs->sizes[0].weight == (uint64_t)c->want2;
	}
	case W_RANGES: {
		const struct plan_group *g = (const void *)base;
		return g->n_ranges == 1 && g->ranges[0].lo_ms == c->want &&
		       g->ranges[0].hi_ms == c->want2;
	}
	}
	return false;
}

/* Parses base_profile, sets the case's key as --set would, builds the plan and checks the
 * field (found by name in this file, not through keys.def). */
static void check_dest_lands(const struct dest_case *c)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	const char *name = key_table[c->key].name;
	diag_init(&d);
	CHECK_EQ_I(profile_parse_buffer(&p, "t.ffsb", base_profile, strlen(base_profile), &d), 0);
	struct section *sec = c->in == IN_PLAN ? &p.global
	                      : c->in == IN_FS ? p.fs[0]
	                      : c->in == IN_TG ? p.tg[0]
	                                       : profile_stats_section(p.tg[0]);
	bool list = key_table[c->key].flags & KF_LIST;
	CHECK_EQ_I(profile_set(sec, name, c->text, !list, (struct src_loc){"test", 0}, true, &d),
	           0);
	/* keys that need another to be valid: it is set too (phases.c's and iokeys.c's rules) */
	const char *need = c->key == KEY_stonewall    ? "num_ops"
	                   : c->key == KEY_phase_time ? "phase"
	                   : c->key == KEY_sqpoll     ? "engine"
	                                              : NULL;
	const char *need_val = !need            ? NULL
	                       : need[0] == 'n' ? "5"
	                       : need[0] == 'p' ? "0"
	                                        : "io_uring";
	if (need)
		CHECK_EQ_I(
		    profile_set(sec, need, need_val, true, (struct src_loc){"test", 0}, true, &d),
		    0);
	if (plan_build(&pl, &p, NULL, &d)) {
		TEST_FAIL("%s=%s: the plan was not built", name, c->text);
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "    %s\n", d.v[i].text);
	} else {
		const char *base = c->in == IN_PLAN ? (const char *)&pl
		                   : c->in == IN_FS ? (const char *)&pl.fs[0]
		                                    : (const char *)&pl.groups[0];
		if (field_holds(c, base))
			test_passed_checks++;
		else
			TEST_FAIL("%s=%s did not arrive in its plan field", name, c->text);
		plan_free(&pl);
	}
	profile_free(&p);
	diag_free(&d);
}

/* Every key has a case here; keys.def's dest names the same field; the value set in a profile
 * arrives there. A key added without a destination, or with the wrong one, fails. */
static void test_every_key_has_its_destination(void)
{
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		struct dest_case c;
		if (!case_of((enum key_id)k, &c)) {
			TEST_FAIL("key '%s' has no case in dest_cases: add one", kd->name);
			continue;
		}
		if (kd->dest.in != target_of(c.in) ||
		    (c.in != IN_NONE && (kd->dest.off != c.off || kd->dest.size != c.size))) {
			TEST_FAIL(
			    "key '%s': keys.def gives destination %d+%zu (%zu bytes), expected "
			    "%d+%zu (%zu bytes)",
			    kd->name, (int)kd->dest.in, kd->dest.off, kd->dest.size,
			    (int)target_of(c.in), c.off, c.size);
			continue;
		}
		test_passed_checks++;
		/* hidden weights are set by sequence=, which refuses the base profile's weights
		 * (test_seqkeys checks that it and sequence_hold, which needs it, land) */
		if ((kd->flags & KF_HIDDEN) || k == KEY_sequence || k == KEY_sequence_hold)
			continue;
		/* Only deprecated keys and the references plan.c resolves go nowhere. */
		if (c.in == IN_NONE) {
			CHECK((kd->flags & KF_DEPRECATED) || k == KEY_clone || k == KEY_bindfs);
			continue;
		}
		check_dest_lands(&c);
	}
}

/* The width plan.c's store_key writes for a key of type t. */
static size_t stored_width(enum key_type t)
{
	switch (t) {
	case KT_U32:
	case KT_SYSCALL: /* a uint32_t mask */
		return sizeof(uint32_t);
	case KT_U64:
	case KT_SIZE:
		return sizeof(uint64_t);
	case KT_BOOL:
		return sizeof(bool);
	case KT_DOUBLE:
		return sizeof(double);
	case KT_WORD:
		return sizeof(int);
	case KT_STRING:
	case KT_SIZE_WEIGHT:
	case KT_RANGE:
		return sizeof(void *);
	}
	return 0;
}

/* Every destination is as wide as what its type stores, and inside its struct. */
static void test_destination_widths(void)
{
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_dest *dst = &key_table[k].dest;
		static const size_t struct_size[] = {[KD_NONE] = 0,
		                                     [KD_PLAN] = sizeof(struct plan),
		                                     [KD_FS] = sizeof(struct plan_fs),
		                                     [KD_GROUP] = sizeof(struct plan_group)};
		if (dst->in == KD_NONE)
			continue;
		if (dst->size != stored_width(key_table[k].type))
			TEST_FAIL("key '%s': field of %zu bytes for a value of %zu",
			          key_table[k].name, dst->size, stored_width(key_table[k].type));
		CHECK(dst->off + dst->size <= struct_size[dst->in]);
		if (key_table[k].type == KT_SIZE_WEIGHT || key_table[k].type == KT_RANGE)
			CHECK(dst->count_off + sizeof(size_t) <= struct_size[dst->in]);
	}
}

/* No two keys write the same bytes of the same struct. */
static void test_destinations_disjoint(void)
{
	for (int a = 0; a < KEY_COUNT; a++)
		for (int b = a + 1; b < KEY_COUNT; b++) {
			const struct key_dest *x = &key_table[a].dest, *y = &key_table[b].dest;
			if (x->in == KD_NONE || x->in != y->in)
				continue;
			if (x->off < y->off + y->size && y->off < x->off + x->size)
				TEST_FAIL("keys '%s' and '%s' share plan bytes", key_table[a].name,
				          key_table[b].name);
		}
}

/* ---- words: a KT_WORD key takes exactly its words ---- */

struct word_case {
	enum key_id key;
	const char *words[4]; /* exactly these, in this order */
	int values[4];
};

static const struct word_case word_cases[] = {
    {KEY_open_sync, {"none", "sync", "dsync"}, {0, O_SYNC, O_DSYNC}},
    {KEY_fidelity, {"exact", "ffsb6"}, {FIDELITY_EXACT, FIDELITY_FFSB6}},
    {KEY_create_method,
     {"write", "fallocate", "sparse"},
     {CREATE_WRITE, CREATE_FALLOCATE, CREATE_SPARSE}},
    {KEY_arrival, {"fixed", "poisson"}, {ARRIVAL_FIXED, ARRIVAL_POISSON}},
    {KEY_arrival_backlog, {"drop", "queue"}, {BACKLOG_DROP, BACKLOG_QUEUE}},
    {KEY_engine, {"sync", "io_uring"}, {IOENG_SYNC, IOENG_URING}},
    {KEY_file_order, {"random", "sequential"}, {ORDER_RANDOM, ORDER_SEQUENTIAL}},
};

/* Builds base_profile with key k set to `text`; returns the field's value (int), or -1 when
 * the plan was refused, with the first message in msg. */
static int plan_word(enum key_id k, const char *text, char *msg, size_t len)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	int v = -1;
	diag_init(&d);
	(void)profile_parse_buffer(&p, "t.ffsb", base_profile, strlen(base_profile), &d);
	struct section *sec = key_table[k].scopes & SC_FS       ? p.fs[0]
	                      : key_table[k].scopes & SC_GLOBAL ? &p.global
	                                                        : p.tg[0];
	(void)profile_set(sec, key_table[k].name, text, true, (struct src_loc){"test", 0}, true,
	                  &d);
	msg[0] = '\0';
	if (plan_build(&pl, &p, NULL, &d) == 0) {
		v = k == KEY_open_sync         ? pl.groups[0].open_sync
		    : k == KEY_fidelity        ? (int)pl.fidelity
		    : k == KEY_arrival         ? pl.groups[0].arrival
		    : k == KEY_arrival_backlog ? pl.groups[0].arrival_backlog
		    : k == KEY_engine          ? pl.groups[0].io_engine
		    : k == KEY_file_order      ? pl.groups[0].file_order
		                               : (int)pl.fs[0].create_method;
		plan_free(&pl);
	} else {
		for (size_t i = 0; i < d.n; i++)
			if (d.v[i].level == DIAG_ERROR) {
				snprintf(msg, len, "%s", d.v[i].text);
				CHECK_EQ_I(d.v[i].code, DIAG_BAD_VALUE);
				break;
			}
	}
	profile_free(&p);
	diag_free(&d);
	return v;
}

static void test_words_exactly(void)
{
	int word_keys = 0;
	for (int k = 0; k < KEY_COUNT; k++) {
		const struct key_desc *kd = &key_table[k];
		CHECK_EQ_I(kd->type == KT_WORD, kd->words != NULL);
		word_keys += kd->type == KT_WORD;
	}
	CHECK_EQ_I(word_keys, (int)(sizeof(word_cases) / sizeof(word_cases[0])));
	for (size_t i = 0; i < sizeof(word_cases) / sizeof(word_cases[0]); i++) {
		const struct word_case *wc = &word_cases[i];
		const struct key_desc *kd = &key_table[wc->key];
		char msg[512], want[512];
		CHECK_EQ_I(kd->type, KT_WORD);
		size_t n = 0, want_n = 0;
		while (kd->words && kd->words[n].word)
			n++;
		while (want_n < 4 && wc->words[want_n])
			want_n++;
		CHECK_EQ_U(n, want_n);
		char list[128] = "";
		for (size_t w = 0; w < want_n; w++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			         w ? ", " : "", wc->words[w]);
		for (size_t w = 0; w < want_n && w < n; w++) {
			CHECK_STR(kd->words[w].word, wc->words[w]);
			CHECK_EQ_I(kd->words[w].value, wc->values[w]);
			CHECK_EQ_I(plan_word(wc->key, wc->words[w], msg, sizeof(msg)),
			           wc->values[w]);
		}
		/* The default is one of the words and gives the first word's value. */
		CHECK_STR(kd->def, wc->words[0]);
		/* Anything else is refused, naming the words. */
		static const char *const not_words[] = {
		    "SYNC", "Write", "o_sync", "none,", "x", "sparse1", "fallocate sparse"};
		for (size_t j = 0; j < sizeof(not_words) / sizeof(not_words[0]); j++) {
			CHECK_EQ_I(plan_word(wc->key, not_words[j], msg, sizeof(msg)), -1);
			snprintf(want, sizeof(want), "[%s] %s: '%s' is not one of %s",
			         kd->scopes & SC_FS       ? "filesystem0"
			         : kd->scopes & SC_GLOBAL ? "global"
			                                  : "threadgroup0",
			         kd->name, not_words[j], list);
			CHECK_STR(msg, want);
		}
	}
}

/* The key reference (docs/profile.md) lists every other name accepted, the first one too. */
static void test_markdown_aliases(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	keys_print_markdown(f);
	fclose(f);
	CHECK(strstr(text, "\n- `bufferedio` for `bufferio`\n") != NULL);
	CHECK(
	    strstr(text, "\n- `meta_weight` for `metaop_weight` (the FFSB 5 name; a warning)\n") !=
	    NULL);
	free(text);
}

int main(void)
{
	RUN(test_names_unique);
	RUN(test_markdown_aliases);
	RUN(test_help_and_scope);
	RUN(test_defaults_parse);
	RUN(test_required_and_deprecated);
	RUN(test_one_weight_per_op);
	RUN(test_parse_scalar_bounds);
	RUN(test_suggest);
	RUN(test_reference_ranges);
	RUN(test_every_key_has_its_destination);
	RUN(test_destination_widths);
	RUN(test_destinations_disjoint);
	RUN(test_words_exactly);
	return test_summary();
}
