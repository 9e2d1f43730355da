/* test_keys.c - invariants of the key table (keys.def + ops.def) and the did-you-mean. */
#include <stdbool.h>
#include <stdint.h>

#include "keys.h"
#include "ops.h"
#include "test.h"

static void test_names_unique(void)
{
	for (int i = 0; i < KEY_COUNT; i++) {
		CHECK(key_table[i].name && key_table[i].name[0]);
		for (int j = i + 1; j < KEY_COUNT; j++)
			if (!strcmp(key_table[i].name, key_table[j].name))
				TEST_FAIL("key '%s' appears twice", key_table[i].name);
		CHECK_EQ_I(key_by_name(key_table[i].name), i);
	}
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
}

int main(void)
{
	RUN(test_names_unique);
	RUN(test_help_and_scope);
	RUN(test_defaults_parse);
	RUN(test_required_and_deprecated);
	RUN(test_one_weight_per_op);
	RUN(test_parse_scalar_bounds);
	RUN(test_suggest);
	return test_summary();
}
