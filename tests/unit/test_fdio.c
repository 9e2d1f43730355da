/* test_fdio.c - fd_write_all and fd_read_all (fdio.c): whole buffers arrive, errors come back as
 * -errno; put_decimal (fdio.h) against printf; hash_fnv1a (hash.h) against the published FNV-1a
 * test vectors, which the manifests and spec hashes of earlier runs were written with. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "hash.h"
#include "test.h"

static void test_whole_buffer(void)
{
	char path[] = "/tmp/fsmix-test-fdio.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	size_t n = 3 << 20; /* big enough for several write() calls on some filesystems */
	char *buf = malloc(n), *back = malloc(n);
	CHECK(buf && back);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 7);
	CHECK_EQ_I(fd_write_all(fd, buf, n), 0);
	CHECK_EQ_I(fd_write_all(fd, buf, 0), 0);
	CHECK_EQ_I((long)pread(fd, back, n, 0), (long)n);
	CHECK(memcmp(buf, back, n) == 0);
	close(fd);
	unlink(path);
	free(buf);
	free(back);
}

static void test_errors(void)
{
	int fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		CHECK_EQ_I(fd_write_all(fd, "x", 1), -ENOSPC);
		close(fd);
	}
	CHECK_EQ_I(fd_write_all(-1, "x", 1), -EBADF);
	int rd = open("/dev/null", O_RDONLY);
	CHECK(rd >= 0);
	CHECK_EQ_I(fd_write_all(rd, "x", 1), -EBADF);
	close(rd);
}

static void test_read_all(void)
{
	char path[] = "/tmp/fsmix-test-fdio.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	size_t n = 3 << 20;
	char *buf = malloc(n), *back = malloc(n + 16);
	CHECK(buf && back);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 13 + 1);
	CHECK_EQ_I(fd_write_all(fd, buf, n), 0);
	size_t got = 1;
	/* The whole file, then a request past its end: what is there, and 0. */
	CHECK_EQ_I(lseek(fd, 0, SEEK_SET), 0);
	CHECK_EQ_I(fd_read_all(fd, back, n, &got), 0);
	CHECK_EQ_U(got, n);
	CHECK(memcmp(buf, back, n) == 0);
	CHECK_EQ_I(lseek(fd, 10, SEEK_SET), 10);
	CHECK_EQ_I(fd_read_all(fd, back, n + 16, &got), 0);
	CHECK_EQ_U(got, n - 10);
	CHECK(memcmp(buf + 10, back, n - 10) == 0);
	CHECK_EQ_I(fd_read_all(fd, back, 16, &got), 0);
	CHECK_EQ_U(got, 0);
	CHECK_EQ_I(fd_read_all(fd, back, 0, &got), 0);
	CHECK_EQ_U(got, 0);
	close(fd);
	unlink(path);
	/* A pipe delivers in pieces: all of them are collected. */
	int p[2];
	CHECK_EQ_I(pipe(p), 0);
	CHECK_EQ_I(write(p[1], "abc", 3), 3);
	CHECK_EQ_I(write(p[1], "defg", 4), 4);
	close(p[1]);
	CHECK_EQ_I(fd_read_all(p[0], back, 16, &got), 0);
	CHECK_EQ_U(got, 7);
	CHECK(memcmp(back, "abcdefg", 7) == 0);
	close(p[0]);
	CHECK_EQ_I(fd_read_all(-1, back, 1, &got), -EBADF);
	CHECK_EQ_U(got, 0);
	int wr = open("/dev/null", O_WRONLY);
	CHECK(wr >= 0);
	CHECK_EQ_I(fd_read_all(wr, back, 1, &got), -EBADF);
	close(wr);
	free(buf);
	free(back);
}

/* put_decimal(v, min) must write what printf("%0*llu") writes, without a terminator. */
static void check_decimal(uint64_t v, unsigned min_digits)
{
	char want[64], got[DECIMAL_MAX + 2];
	int n = snprintf(want, sizeof(want), "%0*llu", (int)min_digits, (unsigned long long)v);
	memset(got, '#', sizeof(got));
	size_t len = put_decimal(got, v, min_digits);
	if (len != (size_t)n || memcmp(got, want, len) != 0 || got[len] != '#')
		TEST_FAIL("put_decimal(%llu, %u) = '%.*s', want '%s'", (unsigned long long)v,
		          min_digits, (int)len, got, want);
	else
		test_passed_checks++;
}

static void test_decimal(void)
{
	static const uint64_t values[] = {0,
	                                  1,
	                                  9,
	                                  10,
	                                  99,
	                                  100,
	                                  4294967295u,
	                                  4294967296u,
	                                  1000000000000000000u,
	                                  UINT64_MAX - 1,
	                                  UINT64_MAX};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		for (unsigned m = 0; m <= DECIMAL_MAX; m++)
			check_decimal(values[i], m);
	/* More digits than DECIMAL_MAX are not padded further (the caller's buffer holds 20). */
	char buf[DECIMAL_MAX + 1];
	CHECK_EQ_U(put_decimal(buf, 7, 25), DECIMAL_MAX);
	CHECK(memcmp(buf, "00000000000000000007", DECIMAL_MAX) == 0);
}

static void test_hash(void)
{
	/* Published FNV-1a 64-bit vectors (Fowler, Noll, Vo: test_fnv.c). */
	CHECK_EQ_U(hash_fnv1a(HASH_FNV1A_SEED, "", 0), 0xcbf29ce484222325ull);
	CHECK_EQ_U(hash_fnv1a(HASH_FNV1A_SEED, "a", 1), 0xaf63dc4c8601ec8cull);
	CHECK_EQ_U(hash_fnv1a(HASH_FNV1A_SEED, "foobar", 6), 0x85944171f73967e8ull);
	/* In pieces as in one call (the manifest is hashed buffer by buffer). */
	uint64_t h = hash_fnv1a(HASH_FNV1A_SEED, "foo", 3);
	CHECK_EQ_U(hash_fnv1a(h, "bar", 3), 0x85944171f73967e8ull);
	CHECK(hash_fnv1a(HASH_FNV1A_SEED, "fooba", 5) != hash_fnv1a(HASH_FNV1A_SEED, "foobar", 6));
}

/* hash_fnv1a_4 gives hash_fnv1a's four values (the durability log's record checks: a log it
 * sealed must read back, and read as the logs of earlier fsmix did), for pieces packed end to
 * end, overlapping and apart, of every length to past a record's 72 bytes. */
static void test_hash4(void)
{
	unsigned char data[4 * 96];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 131 + 7);
	const size_t strides[] = {0, 1, 72, 80, 96};
	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++)
		for (size_t len = 0; len <= 96 && 3 * strides[s] + len <= sizeof(data); len++) {
			uint64_t h[4];
			hash_fnv1a_4(data, strides[s], len, h);
			for (size_t k = 0; k < 4; k++)
				CHECK_EQ_U(h[k],
				           hash_fnv1a(HASH_FNV1A_SEED, data + k * strides[s], len));
		}
	uint64_t v[4];
	hash_fnv1a_4("foobar", 0, 6, v); /* a published vector, as above */
	CHECK_EQ_U(v[3], 0x85944171f73967e8ull);
}

int main(void)
{
	RUN(test_whole_buffer);
	RUN(test_errors);
	RUN(test_read_all);
	RUN(test_decimal);
	RUN(test_hash);
	RUN(test_hash4);
	return test_summary();
}
