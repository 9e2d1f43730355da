/* test_value.c - the typed value parsers (value.c), table-driven: each row is an input and
 * either the expected value or a substring of the expected error. */
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "keys.h"
#include "test.h"
#include "value.h"

struct u_case {
	const char *in;
	uint64_t want; /* when err is NULL */
	const char *err;
};

static void test_uint(void)
{
	static const struct u_case cases[] = {
	    {"0", 0, NULL},
	    {"1", 1, NULL},
	    {"007", 7, NULL},
	    {"4294967296", 4294967296ull, NULL},
	    {"18446744073709551615", UINT64_MAX, NULL},
	    {"18446744073709551616", 0, "'18446744073709551616' is too large"},
	    {"99999999999999999999999", 0, "is too large"},
	    {"", 0, "missing value"},
	    {"-1", 0, "'-1' is negative"},
	    {"+1", 0, "'+1' is not a whole number"},
	    {"10abc", 0, "'10abc' is not a whole number"},
	    {"1 0", 0, "'1 0' is not a whole number"},
	    {"0x10", 0, "'0x10' is not a whole number"},
	    {"1.5", 0, "'1.5' is not a whole number"},
	    {" 1", 0, "is not a whole number"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[VALUE_ERR_LEN];
		uint64_t v = 12345;
		const char *e = value_parse_uint(cases[i].in, &v, err);
		if (cases[i].err) {
			CHECK_CONTAINS(e, cases[i].err);
		} else {
			CHECK_STR(e ? e : "ok", "ok");
			CHECK_EQ_U(v, cases[i].want);
		}
	}
}

static void test_size(void)
{
	static const struct u_case cases[] = {
	    {"0", 0, NULL},
	    {"4096", 4096, NULL},
	    {"512B", 512, NULL},
	    {"512b", 512, NULL},
	    {"4k", 4096, NULL},
	    {"4K", 4096, NULL},
	    {"4KB", 4096, NULL},
	    {"4kb", 4096, NULL},
	    {"4Kb", 4096, NULL},
	    {"3m", 3ull << 20, NULL},
	    {"3M", 3ull << 20, NULL},
	    {"3MB", 3ull << 20, NULL},
	    {"3mb", 3ull << 20, NULL},
	    {"2g", 2ull << 30, NULL},
	    {"2G", 2ull << 30, NULL},
	    {"2GB", 2ull << 30, NULL},
	    {"2gb", 2ull << 30, NULL},
	    {"1t", 1ull << 40, NULL},
	    {"1T", 1ull << 40, NULL},
	    {"1TB", 1ull << 40, NULL},
	    {"1tb", 1ull << 40, NULL},
	    {"16777215TB", 16777215ull << 40, NULL},
	    {"18446744073709551615", UINT64_MAX, NULL},
	    {"18446744073709551615B", UINT64_MAX, NULL},
	    {"16777216TB", 0, "'16777216TB' is too large"},
	    {"17179869184GB", 0, "is too large"},
	    {"18446744073709551616", 0, "is too large"},
	    {"", 0, "missing value"},
	    {"-16k", 0, "'-16k' is negative"},
	    {"1.5MB", 0, "fractional sizes are not supported"},
	    {"4KiB", 0, "'4KiB' has an unknown unit"},
	    {"4PB", 0, "has an unknown unit"},
	    {"4 KB", 0, "has an unknown unit"},
	    {"KB", 0, "'KB' is not a size"},
	    {"4kbb", 0, "has an unknown unit"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[VALUE_ERR_LEN];
		uint64_t v = 12345;
		const char *e = value_parse_size(cases[i].in, &v, err);
		if (cases[i].err) {
			CHECK_CONTAINS(e, cases[i].err);
		} else {
			if (e)
				TEST_FAIL("size '%s': %s", cases[i].in, e);
			CHECK_EQ_U(v, cases[i].want);
		}
	}
}

static void test_bool(void)
{
	static const struct {
		const char *in;
		int want; /* 0, 1, or -1 for an error */
		const char *err;
	} cases[] = {
	    {"0", 0, NULL},
	    {"1", 1, NULL},
	    {"2", -1, "'2' is not a boolean (use 0 or 1)"},
	    {"yes", -1, "'yes' is not a boolean"},
	    {"01", -1, "is not a boolean"},
	    {"", -1, "missing value"},
	    {"true", -1, "is not a boolean"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[VALUE_ERR_LEN];
		bool v = false;
		const char *e = value_parse_bool(cases[i].in, &v, err);
		if (cases[i].want < 0) {
			CHECK_CONTAINS(e, cases[i].err);
		} else {
			CHECK(e == NULL);
			CHECK_EQ_I(v, cases[i].want);
		}
	}
}

static void test_double(void)
{
	static const struct {
		const char *in;
		double want;
		const char *err;
	} cases[] = {
	    {"0", 0, NULL},
	    {"0.01", 0.01, NULL},
	    {"1e3", 1000, NULL},
	    {"-0.5", -0.5, NULL},
	    {".5", 0.5, NULL},
	    {"", 0, "missing value"},
	    {"half", 0, "'half' is not a number"},
	    {"inf", 0, "is not a number"},
	    {"nan", 0, "is not a number"},
	    {"0x1p3", 0, "is not a number"},
	    {"1.5.2", 0, "is not a number"},
	    {"1e999", 0, "'1e999' is out of range"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[VALUE_ERR_LEN];
		double v = -99;
		const char *e = value_parse_double(cases[i].in, &v, err);
		if (cases[i].err) {
			CHECK_CONTAINS(e, cases[i].err);
		} else {
			CHECK(e == NULL);
			CHECK_NEAR(v, cases[i].want, 1e-12);
		}
	}
}

static void test_split2(void)
{
	static const struct {
		const char *in, *a, *b, *err;
	} cases[] = {
	    {"4k 33", "4k", "33", NULL},
	    {"0.00 0.01", "0.00", "0.01", NULL},
	    {"4k", NULL, NULL, "must be two values"},
	    {"4k 33 1", NULL, NULL, "must be two values"},
	    {" 4k", NULL, NULL, "must be two values"},
	    {"4k ", NULL, NULL, "must be two values"},
	    {"", NULL, NULL, "must be two values"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[VALUE_ERR_LEN], a[16], b[16];
		const char *e = value_split2(cases[i].in, a, b, sizeof(a), err);
		if (cases[i].err) {
			CHECK_CONTAINS(e, cases[i].err);
		} else {
			CHECK(e == NULL);
			CHECK_STR(a, cases[i].a);
			CHECK_STR(b, cases[i].b);
		}
	}
	char err[VALUE_ERR_LEN], a[4], b[4];
	CHECK_CONTAINS(value_split2("12345 1", a, b, sizeof(a), err), "is too long");
}

static void test_format_size(void)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
	    {0, "0B"},           {1536, "1536B"},        {4096, "4KB"},
	    {1ull << 20, "1MB"}, {1ull << 30, "1GB"},    {1ull << 40, "1TB"},
	    {1ull << 50, "1PB"}, {1ull << 60, "1024PB"}, {UINT64_MAX, "18446744073709551615B"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		value_format_size(cases[i].v, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
}

/* ---- the per-type entries: parse, format and JSON of a key's value ---- */

struct typed_case {
	enum key_id key;
	const char *in;
	const char *shown; /* value_format / value_format_item, or NULL when parsing fails */
	const char *json;  /* value_json / value_item_json (line 5), compact */
	const char *err;   /* substring of the error when shown is NULL */
};

static const struct typed_case typed_cases[] = {
    {KEY_num_files, "12", "12", "12", NULL},
    {KEY_seed, "18446744073709551615", "18446744073709551615", NULL, NULL},
    {KEY_num_files, "67108865", NULL, NULL, "67108865 is out of range (0..67108864)"},
    {KEY_num_threads, "99999999999999999999", NULL, NULL,
     "99999999999999999999 is out of range (1..65536)"},
    {KEY_num_threads, "-3", NULL, NULL, "-3 is negative (the range is 1..65536)"},
    {KEY_num_threads, "3x", NULL, NULL, "'3x' is not a whole number"},
    {KEY_min_filesize, "4k", "4096 (4KB)", "4096", NULL},
    {KEY_min_filesize, "99999999TB", NULL, NULL, "99999999TB is out of range (0B..1PB)"},
    {KEY_min_filesize, "1.5k", NULL, NULL, "fractional sizes"},
    {KEY_directio, "1", "1", "true", NULL},
    {KEY_directio, "yes", NULL, NULL, "'yes' is not a boolean"},
    {KEY_desired_util, "0.25", "0.25", "0.25", NULL},
    {KEY_desired_util, "2", NULL, NULL, "2 is out of range (0..1)"},
    {KEY_callout, "echo a  b", "echo a  b", "\"echo a  b\"", NULL},
    {KEY_callout, "", NULL, NULL, "missing value"},
    /* A word is text here; the plan checks it against the key's words. */
    {KEY_open_sync, "dsync", "dsync", "\"dsync\"", NULL},
    {KEY_size_weight, "4k  33", "4KB 33", "{\"size\":4096,\"weight\":33,\"line\":5}", NULL},
    {KEY_size_weight, "4k 0", NULL, NULL, "weight 0 is out of range (1..4294967295): leave out"},
    {KEY_size_weight, "4k 99999999999999999999", NULL, NULL,
     "weight 99999999999999999999 is out of range (1..4294967295)"},
    {KEY_size_weight, "4k x", NULL, NULL, "weight 'x' is not a whole number"},
    {KEY_size_weight, "4k -1", NULL, NULL, "weight -1 is negative"},
    {KEY_size_weight, "4k", NULL, NULL, "expected a size and a weight"},
    {KEY_msec_range, "0   0.01", "0.000 0.010", "{\"lo_ms\":0.0,\"hi_ms\":0.01,\"line\":5}", NULL},
    {KEY_msec_range, "2 1", NULL, NULL, "the low end 2 must be below the high end 1"},
    {KEY_msec_range, "0 86400001", NULL, NULL, "is beyond 86400000 ms"},
    {KEY_ignore, "CLO", "close", "{\"syscall\":\"close\",\"line\":5}", NULL},
    {KEY_ignore, "x", NULL, NULL, "unknown system call 'x'"},
};

static void test_typed_values(void)
{
	for (size_t i = 0; i < sizeof(typed_cases) / sizeof(typed_cases[0]); i++) {
		const struct typed_case *c = &typed_cases[i];
		const struct key_desc *kd = &key_table[c->key];
		char err[VALUE_ERR_LEN], shown[256];
		union key_value v = {0};
		union item_value it;
		memset(&it, 0, sizeof(it));
		const char *e = value_parse(kd, c->in, &v, &it, err);
		if (!c->shown) {
			CHECK_CONTAINS(e, c->err);
			continue;
		}
		if (e) {
			TEST_FAIL("%s=%s: %s", kd->name, c->in, e);
			continue;
		}
		bool list = kd->flags & KF_LIST;
		if (kd->type == KT_STRING || kd->type == KT_WORD)
			v.s = (char *)c->in; /* the setting keeps the text itself */
		if (list)
			value_format_item(kd, &it, shown, sizeof(shown));
		else
			value_format(kd, &v, false, shown, sizeof(shown));
		CHECK_STR(shown, c->shown);
		if (!c->json)
			continue;
		json_t *j = list ? value_item_json(kd, &it, 5) : value_json(kd, &v, false);
		char *text =
		    j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
		CHECK_STR(text ? text : "(null)", c->json);
		free(text);
		json_decref(j);
	}
}

/* Unset keys without a default show as "(unset)" and null; sizes always show their bytes. */
static void test_unset_values(void)
{
	union key_value v = {0};
	char buf[64];
	value_format(&key_table[KEY_seed], &v, true, buf, sizeof(buf));
	CHECK_STR(buf, "(unset)");
	value_format(&key_table[KEY_location], &v, true, buf, sizeof(buf));
	CHECK_STR(buf, "(unset)");
	value_format(&key_table[KEY_init_size], &v, true, buf, sizeof(buf));
	CHECK_STR(buf, "0 (0B)");
	json_t *j = value_json(&key_table[KEY_seed], &v, true);
	CHECK(json_is_null(j));
	json_decref(j);
	j = value_json(&key_table[KEY_callout], &v, true);
	CHECK(json_is_null(j));
	json_decref(j);
}

static void test_words(void)
{
	char err[VALUE_ERR_LEN];
	const struct key_desc *os = &key_table[KEY_open_sync];
	CHECK_EQ_I(value_word(os, "none", err), 0);
	CHECK_EQ_I(value_word(os, "sync", err), 1);
	CHECK_EQ_I(value_word(os, "dsync", err), 2);
	CHECK_EQ_I(value_word(os, "Sync", err), -1);
	CHECK_STR(err, "'Sync' is not one of none, sync, dsync");
	CHECK_EQ_I(value_word(&key_table[KEY_create_method], "", err), -1);
	CHECK_STR(err, "'' is not one of write, fallocate, sparse");
}

static void test_type_labels(void)
{
	CHECK_STR(value_type_label(KT_U32), "integer");
	CHECK_STR(value_type_label(KT_SIZE), "size");
	CHECK_STR(value_type_label(KT_BOOL), "0 or 1");
	CHECK_STR(value_type_label(KT_WORD), "word");
	CHECK_STR(value_type_label(KT_SYSCALL), "syscall");
	CHECK_STR(value_type_label((enum key_type)99), "?");
}

int main(void)
{
	RUN(test_uint);
	RUN(test_size);
	RUN(test_bool);
	RUN(test_double);
	RUN(test_split2);
	RUN(test_format_size);
	RUN(test_typed_values);
	RUN(test_unset_values);
	RUN(test_words);
	RUN(test_type_labels);
	return test_summary();
}
