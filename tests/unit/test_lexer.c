/* test_lexer.c - the FFSB line lexer in front of stock libinih (design notes section 1): what
 * reaches the handler, at which physical line, for indented, commented, CRLF, BOM, list,
 * section, overlong and malformed lines. This is the regression guard against a libinih
 * upgrade changing how the normalised lines are read: every case goes through the system
 * library's ini_parse_stream() exactly as profile.c does. */
#include <ini.h>
#include <stdbool.h>

#include "diag.h"
#include "lexer.h"
#include "test.h"

#define MAX_EVENTS 256

struct event {
	char key[LEXER_MAX_LINE + 1];
	char value[LEXER_MAX_LINE + 1];
	uint32_t line;
	bool is_section, had_equals;
};

struct recording {
	struct lexer lx;
	struct diag d;
	struct event ev[MAX_EVENTS];
	size_t n;
	int rc;             /* ini_parse_stream's result */
	int name_mismatch;  /* inih handed a name that is not a prefix of the lexer's key */
	int empty_key_hits; /* handler called while the lexer had no token */
};

static int record(void *user, const char *section, const char *name, const char *value)
{
	struct recording *r = user;
	(void)section;
	(void)value;
	if (r->lx.key[0] == '\0') {
		r->empty_key_hits++;
		return 1;
	}
	if (strncmp(name, r->lx.key, strlen(name)) != 0)
		r->name_mismatch++;
	if (r->n == MAX_EVENTS)
		return 1;
	struct event *e = &r->ev[r->n++];
	snprintf(e->key, sizeof(e->key), "%s", r->lx.key);
	snprintf(e->value, sizeof(e->value), "%s", r->lx.value);
	e->line = r->lx.lineno;
	e->is_section = r->lx.is_section;
	e->had_equals = r->lx.had_equals;
	return 1;
}

/* Lexes `len` bytes of `text` through inih into a fresh recording (free with rec_free). */
static struct recording *lex_n(const char *text, size_t len)
{
	struct recording *r = calloc(1, sizeof(*r));
	if (!r) {
		TEST_FAIL("out of memory");
		exit(1);
	}
	diag_init(&r->d);
	lexer_init(&r->lx, "t.ffsb", text, len, &r->d);
	r->rc = ini_parse_stream(lexer_read, &r->lx, record, r);
	return r;
}

static struct recording *lex(const char *text)
{
	return lex_n(text, strlen(text));
}

static void rec_free(struct recording *r)
{
	diag_free(&r->d);
	free(r);
}

/* Checks the sanity every recording must have: inih accepted every normalised line and split
 * each key the way the lexer did. */
static void check_clean_run(const struct recording *r)
{
	CHECK_EQ_I(r->rc, 0);
	CHECK_EQ_I(r->name_mismatch, 0);
	CHECK_EQ_I(r->empty_key_hits, 0);
}

static void check_event(const struct recording *r, size_t i, const char *key, const char *value,
                        uint32_t line)
{
	if (i >= r->n) {
		TEST_FAIL("event %zu (%s=%s at line %u) missing: only %zu events", i, key, value,
		          line, r->n);
		return;
	}
	CHECK_STR(r->ev[i].key, key);
	CHECK_STR(r->ev[i].value, value);
	CHECK_EQ_U(r->ev[i].line, line);
}

/* The error at index i of the diagnostics: at `line`, containing `text`. */
static void check_error(const struct recording *r, size_t i, uint32_t line, const char *text)
{
	if (i >= r->d.n) {
		TEST_FAIL("diagnostic %zu (line %u, \"%s\") missing: only %zu", i, line, text,
		          r->d.n);
		return;
	}
	CHECK_EQ_I(r->d.v[i].level, DIAG_ERROR);
	CHECK_EQ_U(r->d.v[i].loc.line, line);
	CHECK_STR(r->d.v[i].loc.file, "t.ffsb");
	CHECK_CONTAINS(r->d.v[i].text, text);
}

static bool events_equal(const struct recording *a, const struct recording *b)
{
	if (a->n != b->n) {
		TEST_FAIL("%zu events vs %zu", a->n, b->n);
		return false;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct event *x = &a->ev[i], *y = &b->ev[i];
		if (strcmp(x->key, y->key) || strcmp(x->value, y->value) || x->line != y->line ||
		    x->is_section != y->is_section || x->had_equals != y->had_equals) {
			TEST_FAIL("event %zu differs: %s=\"%s\" line %u vs %s=\"%s\" line %u", i,
			          x->key, x->value, x->line, y->key, y->value, y->line);
			return false;
		}
	}
	return true;
}

/* FFSB's profile_everything layout: keys indented with tabs and blanks inside sections. */
static const char indented[] = "time=10\n"
                               "[filesystem0]\n"
                               "\tlocation=/mnt/test1\n"
                               "\tnum_dirs\t= 100\n"
                               "\tsize_weight\t4k\t33\n"
                               "  size_weight 8k 21\n"
                               "\n"
                               "\t[threadgroup]\n"
                               "\t\tnum_threads=2\n"
                               "\t\tcreate_weight = 1\n"
                               "\t[end]\n"
                               "[end0]\n"
                               "[threadgroup0]\n"
                               "\tnum_threads = 4\n"
                               "\t[stats]\n"
                               "\t\tenable_stats=1\n"
                               "\t\tmsec_range 0.00 0.01\n"
                               "\t[end]\n"
                               "[end0]\n";

static const char flush[] = "time=10\n"
                            "[filesystem0]\n"
                            "location=/mnt/test1\n"
                            "num_dirs\t= 100\n"
                            "size_weight\t4k\t33\n"
                            "size_weight 8k 21\n"
                            "\n"
                            "[threadgroup]\n"
                            "num_threads=2\n"
                            "create_weight = 1\n"
                            "[end]\n"
                            "[end0]\n"
                            "[threadgroup0]\n"
                            "num_threads = 4\n"
                            "[stats]\n"
                            "enable_stats=1\n"
                            "msec_range 0.00 0.01\n"
                            "[end]\n"
                            "[end0]\n";

static void test_indented_equals_flush_left(void)
{
	struct recording *a = lex(indented), *b = lex(flush);
	check_clean_run(a);
	check_clean_run(b);
	CHECK_EQ_U(a->d.n, 0);
	CHECK_EQ_U(b->d.n, 0);
	CHECK(events_equal(a, b));
	/* Not just equal: right. Stock inih would have made these continuation lines. */
	CHECK_EQ_U(a->n, 18);
	check_event(a, 0, "time", "10", 1);
	check_event(a, 1, "@section", "filesystem0", 2);
	check_event(a, 2, "location", "/mnt/test1", 3);
	check_event(a, 3, "num_dirs", "100", 4);
	check_event(a, 4, "size_weight", "4k 33", 5);
	check_event(a, 5, "size_weight", "8k 21", 6);
	check_event(a, 6, "@section", "threadgroup", 8);
	check_event(a, 7, "num_threads", "2", 9);
	check_event(a, 8, "create_weight", "1", 10);
	check_event(a, 9, "@section", "end", 11);
	check_event(a, 10, "@section", "end0", 12);
	check_event(a, 11, "@section", "threadgroup0", 13);
	check_event(a, 12, "num_threads", "4", 14);
	check_event(a, 13, "@section", "stats", 15);
	check_event(a, 14, "enable_stats", "1", 16);
	check_event(a, 15, "msec_range", "0.00 0.01", 17);
	check_event(a, 16, "@section", "end", 18);
	check_event(a, 17, "@section", "end0", 19);
	if (a->n == 18) {
		CHECK(a->ev[1].is_section && !a->ev[2].is_section);
		CHECK(a->ev[3].had_equals);
		CHECK(!a->ev[4].had_equals);
	}
	rec_free(a);
	rec_free(b);
}

static void test_comments(void)
{
	struct recording *r = lex("# whole line\n"
	                          "   # indented whole line\n"
	                          "time=1 # trailing\n"
	                          "size_weight 4k 33# no blank before\n"
	                          "[stats] # after a header\n"
	                          "#[end]\n"
	                          "callout=echo a#b\n"
	                          "location = # only a comment\n"
	                          "[end]\n");
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	CHECK_EQ_U(r->n, 6);
	check_event(r, 0, "time", "1", 3);
	check_event(r, 1, "size_weight", "4k 33", 4);
	check_event(r, 2, "@section", "stats", 5);
	check_event(r, 3, "callout", "echo a", 7); /* FFSB: '#' starts a comment anywhere */
	check_event(r, 4, "location", "", 8);
	check_event(r, 5, "@section", "end", 9);
	rec_free(r);
}

static void test_crlf(void)
{
	struct recording *r = lex("time=1\r\n"
	                          "\r\n"
	                          "[filesystem0]\r\n"
	                          "\tlocation=/a b\r\n"
	                          "size_weight 4k 33\r\n"
	                          "# comment\r\n"
	                          "[end0]\r\n"
	                          "reuse=1"); /* no line end at the end of the file */
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	CHECK_EQ_U(r->n, 6);
	check_event(r, 0, "time", "1", 1);
	check_event(r, 1, "@section", "filesystem0", 3);
	check_event(r, 2, "location", "/a b", 4);
	check_event(r, 3, "size_weight", "4k 33", 5);
	check_event(r, 4, "@section", "end0", 7);
	check_event(r, 5, "reuse", "1", 8);
	rec_free(r);
}

static void test_bom(void)
{
	struct recording *r = lex("\xEF\xBB\xBFtime=1\n[filesystem0]\n");
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	check_event(r, 0, "time", "1", 1);
	check_event(r, 1, "@section", "filesystem0", 2);
	rec_free(r);

	/* Only a BOM at the very start is one; a BOM-only file is empty. */
	r = lex("\xEF\xBB\xBF");
	check_clean_run(r);
	CHECK_EQ_U(r->n, 0);
	CHECK_EQ_U(r->d.n, 0);
	rec_free(r);
}

static void test_sections_in_order(void)
{
	/* The 2010 profile: [stats], [end], [end0] arrive in file order with their lines. */
	char path[4096];
	const char *srcdir = getenv("FSMIX_SOURCE_DIR");
	snprintf(path, sizeof(path), "%s/profiles/ext4-barrier-2010.ffsb", srcdir ? srcdir : ".");
	FILE *f = fopen(path, "rb");
	if (!f) {
		TEST_FAIL("cannot open %s", path);
		return;
	}
	static char buf[65536];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	struct recording *r = lex_n(buf, len);
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	static const struct {
		const char *name;
		uint32_t line;
	} want[] = {{"filesystem0", 5}, {"end0", 25}, {"threadgroup0", 27},
	            {"stats", 49},      {"end", 72},  {"end0", 73}};
	size_t k = 0, n_size = 0, n_range = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (!strcmp(r->ev[i].key, "size_weight"))
			n_size++;
		if (!strcmp(r->ev[i].key, "msec_range"))
			n_range++;
		if (!r->ev[i].is_section)
			continue;
		if (k < sizeof(want) / sizeof(want[0])) {
			CHECK_STR(r->ev[i].value, want[k].name);
			CHECK_EQ_U(r->ev[i].line, want[k].line);
		}
		k++;
	}
	CHECK_EQ_U(k, 6);
	CHECK_EQ_U(n_size, 11);
	CHECK_EQ_U(n_range, 19);
	/* The last event is the last line. */
	if (r->n)
		CHECK_EQ_U(r->ev[r->n - 1].line, 73);
	rec_free(r);
}

static void test_list_lines(void)
{
	struct recording *r = lex("size_weight\t4k \t 33\n"
	                          "msec_range   0.00\t\t0.01   \n"
	                          "ignore read\n"
	                          "size_weight=4k  33\n");
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	CHECK_EQ_U(r->n, 4);
	check_event(r, 0, "size_weight", "4k 33", 1);
	check_event(r, 1, "msec_range", "0.00 0.01", 2);
	check_event(r, 2, "ignore", "read", 3);
	/* With '=' the value is kept as written (the value parser rejects the double blank). */
	check_event(r, 3, "size_weight", "4k  33", 4);
	if (r->n == 4) {
		CHECK(!r->ev[0].had_equals);
		CHECK(!r->ev[2].had_equals);
		CHECK(r->ev[3].had_equals);
	}
	rec_free(r);
}

/* A line of `n` characters: "location=/aaaa...". */
static char *long_line(size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		exit(1);
	memcpy(s, "location=/", 10);
	memset(s + 10, 'a', n - 10);
	s[n] = '\0';
	return s;
}

static void test_line_length_limit(void)
{
	char *l1023 = long_line(LEXER_MAX_LINE), *l1024 = long_line(LEXER_MAX_LINE + 1);
	size_t cap = 3 * 1100;
	char *text = malloc(cap);
	if (!text)
		exit(1);
	snprintf(text, cap, "time=1\n%s\n%s\r\n%s\ntime=2\n", l1023, l1023, l1024);
	struct recording *r = lex(text);
	check_clean_run(r);
	CHECK_EQ_U(r->n, 4);
	check_event(r, 0, "time", "1", 1);
	check_event(r, 1, "location", l1023 + 9, 2);
	check_event(r, 2, "location", l1023 + 9, 3); /* the CR is not counted */
	check_event(r, 3, "time", "2", 5);
	CHECK_EQ_U(r->d.errors, 1);
	check_error(r, 0, 4, "line is too long (1024 characters; the limit is 1023)");
	rec_free(r);

	/* Blanks and comments count: the limit is on the physical line. */
	snprintf(text, cap, "%s#\n", l1023);
	r = lex(text);
	CHECK_EQ_U(r->n, 0);
	CHECK_EQ_U(r->d.errors, 1);
	check_error(r, 0, 1, "line is too long");
	rec_free(r);
	free(text);
	free(l1023);
	free(l1024);
}

static void test_value_longer_than_inih_buffer(void)
{
	char value[401];
	value[0] = '/';
	for (int i = 1; i < 400; i++)
		value[i] = (char)('a' + i % 26);
	value[400] = '\0';
	char text[600];
	snprintf(text, sizeof(text), "[filesystem0]\nlocation = %s\nnum_files=3\n", value);
	struct recording *r = lex(text);
	check_clean_run(r);
	CHECK_EQ_U(r->d.n, 0);
	CHECK_EQ_U(r->n, 3);
	check_event(r, 1, "location", value, 2);
	check_event(r, 2, "num_files", "3", 3);
	rec_free(r);
}

static void test_key_longer_than_inih_buffer(void)
{
	/* A 300-character key is no key fsmix knows, but it must reach the handler (which reports
	 * it as unknown with its line) rather than make inih fail the line. */
	char key[301];
	memset(key, 'k', 300);
	key[300] = '\0';
	char text[400];
	snprintf(text, sizeof(text), "time=1\n%s=1\ntime=2\n", key);
	struct recording *r = lex(text);
	check_clean_run(r);
	CHECK_EQ_U(r->n, 3);
	check_event(r, 1, key, "1", 2);
	check_event(r, 2, "time", "2", 3);
	rec_free(r);
}

static void test_malformed_lines(void)
{
	struct recording *r = lex("time=1\n"
	                          "=5\n"
	                          "\n"
	                          "[abc\n"
	                          "# comment\n"
	                          "[]\n"
	                          "\t[ \t]\n"
	                          "num-files=3\n"
	                          "num_files=4\n");
	check_clean_run(r);
	CHECK_EQ_U(r->n, 2);
	check_event(r, 0, "time", "1", 1);
	check_event(r, 1, "num_files", "4", 9);
	CHECK_EQ_U(r->d.errors, 5);
	CHECK_EQ_U(r->d.warnings, 0);
	check_error(r, 0, 2, "malformed line '=5'");
	check_error(r, 1, 4, "malformed section header '[abc': missing ']'");
	check_error(r, 2, 6, "empty section header '[]'");
	check_error(r, 3, 7, "empty section header '[]'");
	check_error(r, 4, 8, "'num-files' is not a key name; did you mean 'num_files'?");
	rec_free(r);
}

static void test_blank_and_comment_lines(void)
{
	struct recording *r = lex("\n\n   \n\t\t\n# a\n  # b\n\r\n\f\v\n");
	check_clean_run(r);
	CHECK_EQ_U(r->n, 0);
	CHECK_EQ_U(r->d.n, 0);
	CHECK_EQ_U(r->lx.lineno, 8);
	rec_free(r);

	r = lex("");
	check_clean_run(r);
	CHECK_EQ_U(r->n, 0);
	CHECK_EQ_U(r->lx.lineno, 0);
	rec_free(r);
}

/* Everything at once: the line of every event is its physical line. */
static void test_line_counting_across_everything(void)
{
	char *l1024 = long_line(LEXER_MAX_LINE + 1);
	char big[400];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	size_t cap = 4096;
	char *text = malloc(cap);
	if (!text)
		exit(1);
	snprintf(text, cap,
	         "\xEF\xBB\xBF# 1\n"       /* 1 */
	         "time=1\r\n"              /* 2 */
	         "\n"                      /* 3 */
	         "[abc\n"                  /* 4: error */
	         "\t[filesystem0]  # c\n"  /* 5 */
	         "%s\n"                    /* 6: too long */
	         "\tsize_weight 1k\t2\r\n" /* 7 */
	         "\tcallout=%s\n"          /* 8 */
	         "=x\n"                    /* 9: error */
	         "\t\t# c\n"               /* 10 */
	         "[end0]\n"                /* 11 */
	         "\r\n"                    /* 12 */
	         "threadgroup0\n"          /* 13: list form of an unknown key */
	         "last = value with = sign" /* 14 */,
	         l1024, big);
	struct recording *r = lex(text);
	check_clean_run(r);
	CHECK_EQ_U(r->n, 7);
	check_event(r, 0, "time", "1", 2);
	check_event(r, 1, "@section", "filesystem0", 5);
	check_event(r, 2, "size_weight", "1k 2", 7);
	check_event(r, 3, "callout", big, 8);
	check_event(r, 4, "@section", "end0", 11);
	check_event(r, 5, "threadgroup0", "", 13);
	check_event(r, 6, "last", "value with = sign", 14);
	CHECK_EQ_U(r->d.errors, 3);
	check_error(r, 0, 4, "missing ']'");
	check_error(r, 1, 6, "line is too long");
	check_error(r, 2, 9, "malformed line '=x'");
	CHECK_EQ_U(r->lx.lineno, 14);
	rec_free(r);
	free(text);
	free(l1024);
}

static void test_check_text(void)
{
	struct diag d;
	diag_init(&d);
	CHECK_EQ_I(lexer_check_text("t.ffsb", "a=1\r\n\tb=2\f\v\n\xc3\xa9\n", 14, &d), 0);
	CHECK_EQ_U(d.n, 0);
	CHECK_EQ_I(lexer_check_text("t.ffsb", "a=1\nb=2\n\x01", 9, &d), -1);
	CHECK_EQ_U(d.errors, 1);
	if (d.n == 1) {
		CHECK_EQ_U(d.v[0].loc.line, 3);
		CHECK_CONTAINS(d.v[0].text, "control byte 0x01");
	}
	CHECK_EQ_I(lexer_check_text("t.ffsb", "a\0b", 3, &d), -1);
	CHECK_EQ_I(lexer_check_text("t.ffsb", "\n\x7f", 2, &d), -1);
	CHECK_EQ_U(d.errors, 3);
	if (d.n == 3)
		CHECK_EQ_U(d.v[2].loc.line, 2);
	diag_free(&d);
}

int main(void)
{
	RUN(test_indented_equals_flush_left);
	RUN(test_comments);
	RUN(test_crlf);
	RUN(test_bom);
	RUN(test_sections_in_order);
	RUN(test_list_lines);
	RUN(test_line_length_limit);
	RUN(test_value_longer_than_inih_buffer);
	RUN(test_key_longer_than_inih_buffer);
	RUN(test_malformed_lines);
	RUN(test_blank_and_comment_lines);
	RUN(test_line_counting_across_everything);
	RUN(test_check_text);
	return test_summary();
}
