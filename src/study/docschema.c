/* docschema.c - the result documents' schema as tables, and their check (docschema.h). */
#include "docschema.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* JSON types a key may have; T_REAL accepts an integer too. */
enum {
	T_STR = 1,
	T_INT = 2,
	T_REAL = 4,
	T_BOOL = 8,
	T_NULL = 16,
	T_OBJ = 32,
	T_ARR = 64,
};

struct field {
	const char *key;
	unsigned types;
	bool required;
	const struct field *obj; /* the object's fields, or (an array) each element's */
	unsigned elem;           /* an array's element types (0: any) */
};

#define REQ(k, t, ...)                                                                             \
	{                                                                                          \
		k, t, true, __VA_ARGS__                                                            \
	}
#define OPT(k, t, ...)                                                                             \
	{                                                                                          \
		k, t, false, __VA_ARGS__                                                           \
	}
#define END                                                                                        \
	{                                                                                          \
		NULL, 0, false, NULL, 0                                                            \
	}

static const struct field latency[] = {OPT("count", T_INT, NULL, 0),
                                       OPT("min_ns", T_INT, NULL, 0),
                                       OPT("max_ns", T_INT, NULL, 0),
                                       OPT("avg_ns", T_INT, NULL, 0),
                                       OPT("p50_ns", T_INT, NULL, 0),
                                       OPT("p99_ns", T_INT, NULL, 0),
                                       OPT("min_ms", T_REAL, NULL, 0),
                                       OPT("max_ms", T_REAL, NULL, 0),
                                       OPT("avg_ms", T_REAL, NULL, 0),
                                       OPT("p50_ms", T_REAL, NULL, 0),
                                       OPT("p90_ms", T_REAL, NULL, 0),
                                       OPT("p99_ms", T_REAL, NULL, 0),
                                       OPT("p99_9_ms", T_REAL, NULL, 0),
                                       OPT("p99_99_ms", T_REAL, NULL, 0),
                                       END};

static const struct field range[] = {REQ("lo_ms", T_REAL, NULL, 0), REQ("hi_ms", T_REAL, NULL, 0),
                                     REQ("count", T_INT, NULL, 0), END};

static const struct field syscall[] = {REQ("name", T_STR, NULL, 0),
                                       OPT("sync", T_BOOL, NULL, 0),
                                       OPT("latency", T_OBJ | T_NULL, latency, 0),
                                       OPT("msec_ranges", T_ARR | T_NULL, range, T_OBJ),
                                       OPT("outside", T_INT | T_NULL, NULL, 0),
                                       END};

static const struct field op[] = {REQ("name", T_STR, NULL, 0),
                                  OPT("count", T_INT, NULL, 0),
                                  OPT("ops_per_s", T_REAL | T_NULL, NULL, 0),
                                  OPT("trans_per_s", T_REAL | T_NULL, NULL, 0),
                                  OPT("mb_per_s", T_REAL | T_NULL, NULL, 0),
                                  OPT("latency", T_OBJ | T_NULL, latency, 0),
                                  END};

static const struct field interval[] = {REQ("t_s", T_REAL, NULL, 0),
                                        REQ("length_s", T_REAL, NULL, 0),
                                        OPT("ops", T_INT, NULL, 0),
                                        OPT("ops_per_s", T_REAL | T_NULL, NULL, 0),
                                        OPT("trans_per_s", T_REAL | T_NULL, NULL, 0),
                                        OPT("mb_per_s", T_REAL | T_NULL, NULL, 0),
                                        OPT("p99_op_ns", T_INT | T_NULL, NULL, 0),
                                        OPT("p99_op_ms", T_REAL | T_NULL, NULL, 0),
                                        END};

/* groups[] and total */
static const struct field group[] = {REQ("name", T_STR, NULL, 0),
                                     OPT("index", T_INT | T_NULL, NULL, 0),
                                     OPT("threads", T_INT, NULL, 0),
                                     OPT("operations", T_INT, NULL, 0),
                                     OPT("ops_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("transactions", T_INT, NULL, 0),
                                     OPT("trans_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("mb_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("errors", T_INT, NULL, 0),
                                     OPT("ops", T_ARR, op, T_OBJ),
                                     OPT("syscalls", T_ARR, syscall, T_OBJ),
                                     OPT("op_latency", T_OBJ | T_NULL, latency, 0),
                                     OPT("intervals", T_ARR, interval, T_OBJ),
                                     END};

/* phases[] (a run in phases): compare's "phaseN" points read their rates and op_latency */
static const struct field phase[] = {REQ("phase", T_INT, NULL, 0),
                                     OPT("runtime_s", T_REAL, NULL, 0),
                                     OPT("stop_reason", T_STR | T_NULL, NULL, 0),
                                     OPT("operations", T_INT, NULL, 0),
                                     OPT("ops_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("trans_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("mb_per_s", T_REAL | T_NULL, NULL, 0),
                                     OPT("ops", T_ARR, op, T_OBJ),
                                     OPT("op_latency", T_OBJ | T_NULL, latency, 0),
                                     END};

static const struct field counters[] = {OPT("available", T_BOOL, NULL, 0),
                                        OPT("flushes_per_s", T_REAL | T_NULL, NULL, 0), END};

static const struct field filesystem[] = {OPT("name", T_STR, NULL, 0),
                                          OPT("location", T_STR, NULL, 0),
                                          OPT("device_counters", T_OBJ, counters, 0), END};

static const struct field cpu[] = {OPT("percent_of_one_cpu", T_REAL | T_NULL, NULL, 0), END};

static const struct field run[] = {REQ("schema", T_STR, NULL, 0),
                                   REQ("schema_version", T_INT, NULL, 0),
                                   OPT("fsmix_version", T_STR, NULL, 0),
                                   REQ("exit_status", T_INT, NULL, 0),
                                   REQ("interrupted", T_BOOL, NULL, 0),
                                   REQ("measured", T_BOOL, NULL, 0),
                                   OPT("stop_reason", T_STR | T_NULL, NULL, 0),
                                   OPT("signal", T_STR | T_NULL, NULL, 0),
                                   OPT("error", T_STR | T_NULL, NULL, 0),
                                   OPT("seed", T_STR, NULL, 0),
                                   OPT("time_s", T_INT, NULL, 0),
                                   REQ("runtime_s", T_REAL, NULL, 0),
                                   OPT("command_line", T_ARR, NULL, T_STR),
                                   OPT("profile_path", T_STR | T_NULL, NULL, 0),
                                   OPT("environment", T_OBJ, NULL, 0),
                                   OPT("profile", T_OBJ | T_NULL, NULL, 0),
                                   OPT("cpu", T_OBJ, cpu, 0),
                                   OPT("filesystems", T_ARR, filesystem, T_OBJ),
                                   REQ("groups", T_ARR, group, T_OBJ),
                                   REQ("total", T_OBJ, group, 0),
                                   OPT("phases", T_ARR, phase, T_OBJ),
                                   OPT("errors", T_ARR, NULL, T_OBJ),
                                   OPT("intervals", T_ARR, interval, T_OBJ),
                                   END};

static const struct field dimension[] = {REQ("label", T_STR, NULL, 0),
                                         OPT("threads", T_BOOL, NULL, 0),
                                         OPT("values", T_ARR, NULL, T_STR), END};

/* points[].runs are run documents, checked as such (run_check). */
static const struct field point[] = {REQ("label", T_STR, NULL, 0), REQ("params", T_OBJ, NULL, 0),
                                     REQ("runs", T_ARR, NULL, T_OBJ), END};

static const struct field sweep[] = {
    REQ("schema", T_STR, NULL, 0),        REQ("schema_version", T_INT, NULL, 0),
    OPT("fsmix_version", T_STR, NULL, 0), OPT("profile_path", T_STR | T_NULL, NULL, 0),
    OPT("repeat", T_INT, NULL, 0),        OPT("interrupted", T_BOOL, NULL, 0),
    OPT("exit_status", T_INT, NULL, 0),   REQ("dimensions", T_ARR, dimension, T_OBJ),
    REQ("points", T_ARR, point, T_OBJ),   END};

static unsigned type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return T_STR;
	case JSON_INTEGER:
		return T_INT | T_REAL;
	case JSON_REAL:
		return T_REAL;
	case JSON_TRUE:
	case JSON_FALSE:
		return T_BOOL;
	case JSON_NULL:
		return T_NULL;
	case JSON_OBJECT:
		return T_OBJ;
	case JSON_ARRAY:
		return T_ARR;
	}
	return 0;
}

static const char *type_name(const json_t *v)
{
	static const char *const names[] = {
	    [JSON_OBJECT] = "an object",   [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
	    [JSON_INTEGER] = "an integer", [JSON_REAL] = "a real",    [JSON_TRUE] = "true",
	    [JSON_FALSE] = "false",        [JSON_NULL] = "null"};
	return names[json_typeof(v)];
}

/* "a string, an integer or null" for the types t. */
static void types_text(unsigned t, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {{T_OBJ, "an object"},  {T_ARR, "an array"},  {T_STR, "a string"},
	             {T_INT, "an integer"}, {T_REAL, "a number"}, {T_BOOL, "true or false"},
	             {T_NULL, "null"}};
	size_t n = 0, count = 0, total = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		total += (t & names[i].bit) != 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++) {
		if (!(t & names[i].bit))
			continue;
		count++;
		const char *sep = count == 1 ? "" : count == total ? " or " : ", ";
		n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, names[i].name);
	}
}

struct check {
	char path[512];
	char *err;
	size_t errlen;
};

static int fail(struct check *c, const char *fmt, const char *a, const char *b)
{
	char why[256];
	snprintf(why, sizeof(why), fmt, a, b);
	snprintf(c->err, c->errlen, "$%s: %s", c->path, why);
	return -1;
}

static int check_fields(struct check *c, const json_t *o, const struct field *fields);

/* The value v of field f at c->path. */
static int check_value(struct check *c, const json_t *v, const struct field *f)
{
	if (!(type_of(v) & f->types)) {
		char want[128];
		types_text(f->types, want, sizeof(want));
		return fail(c, "must be %s (is %s)", want, type_name(v));
	}
	if (json_is_object(v) && f->obj)
		return check_fields(c, v, f->obj);
	if (!json_is_array(v))
		return 0;
	size_t len = strlen(c->path), i;
	const json_t *e;
	json_array_foreach(v, i, e)
	{
		snprintf(c->path + len, sizeof(c->path) - len, "[%zu]", i);
		struct field ef = {NULL, f->elem ? f->elem : ~0u, true, f->obj, 0};
		if (check_value(c, e, &ef))
			return -1;
	}
	c->path[len] = '\0';
	return 0;
}

static int check_fields(struct check *c, const json_t *o, const struct field *fields)
{
	size_t len = strlen(c->path);
	for (const struct field *f = fields; f->key; f++) {
		const json_t *v = json_object_get(o, f->key);
		snprintf(c->path + len, sizeof(c->path) - len, ".%s", f->key);
		if (!v && f->required)
			return fail(c, "missing (%s%s)", "a document of this schema has it", "");
		if (v && check_value(c, v, f))
			return -1;
	}
	c->path[len] = '\0';
	return 0;
}

/* schema and schema_version of the document at c->path: `want`, DOCSCHEMA_VERSION. */
static int check_head(struct check *c, const json_t *doc, const char *want)
{
	size_t len = strlen(c->path);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const json_t *version = json_object_get(doc, "schema_version");
	if (schema && strcmp(schema, want)) {
		snprintf(c->path + len, sizeof(c->path) - len, ".schema");
		return fail(c, "\"%s\" where \"%s\" is expected", schema, want);
	}
	if (json_is_integer(version) && json_integer_value(version) != DOCSCHEMA_VERSION) {
		char v[32], have[32];
		snprintf(v, sizeof(v), "%d", DOCSCHEMA_VERSION);
		snprintf(have, sizeof(have), "%lld", (long long)json_integer_value(version));
		snprintf(c->path + len, sizeof(c->path) - len, ".schema_version");
		return fail(c, "%s is not a version this fsmix reads (%s)", have, v);
	}
	return 0;
}

static int run_check(struct check *c, const json_t *doc)
{
	return check_head(c, doc, "fsmix-report") || check_fields(c, doc, run) ? -1 : 0;
}

int doc_check(const json_t *doc, char *err, size_t errlen)
{
	struct check c = {.path = "", .err = err, .errlen = errlen};
	if (!json_is_object(doc))
		return fail(&c, "must be an object (is %s)%s", type_name(doc), "");
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, "fsmix-sweep"))
		return run_check(&c, doc);
	if (check_head(&c, doc, "fsmix-sweep") || check_fields(&c, doc, sweep))
		return -1;
	size_t i, k;
	const json_t *pt, *r;
	json_array_foreach(json_object_get(doc, "points"), i, pt)
	{
		json_array_foreach(json_object_get(pt, "runs"), k, r)
		{
			snprintf(c.path, sizeof(c.path), ".points[%zu].runs[%zu]", i, k);
			if (run_check(&c, r))
				return -1;
		}
	}
	return 0;
}
