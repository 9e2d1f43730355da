/* test_latlog.c - the latency log's lines (latlog.h): the header, then per operation
 * "t_s group thread op lat_ns bytes sync_ns resp_ns" with t_s in seconds and 6 decimals. */
#include <stdlib.h>
#include <unistd.h>

#include "latlog.h"
#include "test.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[4096];
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

static void test_lines(void)
{
	char path[] = "/tmp/fsmix-latlog-XXXXXX", err[256];
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	unlink(path); /* latlog_open creates it (a regular file: committed by latlog_close) */
	struct latlog l;
	struct latlog_buf b;
	CHECK_EQ_I(latlog_open(&l, path, err, sizeof(err)), 0);
	CHECK_EQ_I(latlog_buf_init(&b, &l, 2, 10), 0);
	/* under a second (the whole seconds still written: "0."), exactly 1 s, and over 10 s */
	latlog_add(&b, 500000, "read", 1234, 4096, 0, 1234);
	latlog_add(&b, 1000000000, "write_fsync", 20, 0, 7, 25);
	latlog_add(&b, 12345678901, "stat", 0, 0, 0, 0);
	latlog_flush(&b);
	latlog_buf_free(&b);
	CHECK_EQ_I(latlog_close(&l, err, sizeof(err)), 0);
	const char *text = slurp(path), *body = strchr(text, '\n');
	CHECK(text[0] == '#' && body);
	CHECK_STR(body ? body + 1 : "", "0.000500 2 10 read 1234 4096 0 1234\n"
	                                "1.000000 2 10 write_fsync 20 0 7 25\n"
	                                "12.345678 2 10 stat 0 0 0 0\n");
	unlink(path);
}

int main(void)
{
	RUN(test_lines);
	return test_summary();
}
