/* test_dirlayout.c - the arithmetic of a deep directory tree (dirlayout.h): directories per
 * level and in all (saturating), the leaves, each directory's path from its index (digits in
 * base fanout, distinct, parent before child), and dir_files's parser (dirtree.h). */
#include <errno.h>
#include <string.h>

#include "dirlayout.h"
#include "dirtree.h"
#include "test.h"

static void test_counts(void)
{
	struct dirlayout l = {.top = 4, .depth = 3, .fanout = 4};
	CHECK_EQ_U(dirlayout_level_count(&l, 1), 4);
	CHECK_EQ_U(dirlayout_level_count(&l, 2), 16);
	CHECK_EQ_U(dirlayout_level_count(&l, 3), 64);
	CHECK_EQ_U(dirlayout_leaves(&l), 64);
	CHECK_EQ_U(dirlayout_total(&l), 84);
	struct dirlayout flat = dirlayout_flat(7);
	CHECK_EQ_U(dirlayout_leaves(&flat), 7);
	CHECK_EQ_U(dirlayout_total(&flat), 7);
	struct dirlayout none = dirlayout_flat(0);
	CHECK_EQ_U(dirlayout_total(&none), 0);
	/* mdtest -b 10 -z 5 below one top directory: 1 + 10 + ... + 10^5 */
	struct dirlayout md = {.top = 1, .depth = 6, .fanout = 10};
	CHECK_EQ_U(dirlayout_total(&md), 111111);
	CHECK_EQ_U(dirlayout_leaves(&md), 100000);
	/* Saturation instead of a wrap: 2^20 per level over 16 levels. */
	struct dirlayout huge = {.top = 1048576, .depth = 16, .fanout = 1048576};
	CHECK_EQ_U(dirlayout_leaves(&huge), UINT64_MAX);
	CHECK_EQ_U(dirlayout_total(&huge), UINT64_MAX);
}

static void test_paths(void)
{
	struct dirlayout l = {.top = 2, .depth = 3, .fanout = 4};
	char b[DIRLAYOUT_PATH_MAX];
	CHECK_EQ_I(dirlayout_path(&l, 3, 0, b, sizeof(b)), 14);
	CHECK_STR(b, "d000/d000/d000");
	CHECK(dirlayout_path(&l, 3, 5, b, sizeof(b)) > 0);
	CHECK_STR(b, "d000/d001/d001");
	CHECK(dirlayout_path(&l, 3, 31, b, sizeof(b)) > 0);
	CHECK_STR(b, "d001/d003/d003");
	CHECK(dirlayout_path(&l, 2, 6, b, sizeof(b)) > 0);
	CHECK_STR(b, "d001/d002");
	CHECK(dirlayout_path(&l, 1, 1, b, sizeof(b)) > 0);
	CHECK_STR(b, "d001");
	/* Out of the layout, and a short buffer. */
	CHECK_EQ_I(dirlayout_path(&l, 3, 32, b, sizeof(b)), -EINVAL);
	CHECK_EQ_I(dirlayout_path(&l, 0, 0, b, sizeof(b)), -EINVAL);
	CHECK_EQ_I(dirlayout_path(&l, 4, 0, b, sizeof(b)), -EINVAL);
	CHECK_EQ_I(dirlayout_path(&l, 3, 0, b, 14), -ENAMETOOLONG);
	CHECK_EQ_I(dirlayout_path(&l, 3, 0, b, 15), 14);
	/* Wide levels keep their digits: index 1234 of a fanout of 2000. */
	struct dirlayout w = {.top = 3, .depth = 2, .fanout = 2000};
	CHECK(dirlayout_path(&w, 2, 2000 + 1234, b, sizeof(b)) > 0);
	CHECK_STR(b, "d001/d1234");
	/* The deepest, widest path fits DIRLAYOUT_PATH_MAX. */
	struct dirlayout deep = {.top = 1048575, .depth = 16, .fanout = 1048575};
	memset(b, 'x', sizeof(b));
	CHECK(dirlayout_path(&deep, 16, 1048574, b, sizeof(b)) > 0);
	CHECK(strlen(b) < DIRLAYOUT_PATH_MAX);
}

/* Every directory of a small tree has its own path, and each one's parent is the directory of
 * the level above at index j / fanout. */
static void test_distinct_and_parents(void)
{
	struct dirlayout l = {.top = 3, .depth = 4, .fanout = 3};
	static char seen[200][DIRLAYOUT_PATH_MAX];
	size_t n = 0;
	for (uint32_t level = 1; level <= l.depth; level++)
		for (uint64_t j = 0; j < dirlayout_level_count(&l, level); j++) {
			char *p = seen[n++];
			CHECK(dirlayout_path(&l, level, j, p, DIRLAYOUT_PATH_MAX) > 0);
			if (level > 1) {
				char parent[DIRLAYOUT_PATH_MAX];
				CHECK(dirlayout_path(&l, level - 1, j / l.fanout, parent,
				                     sizeof(parent)) > 0);
				CHECK(strncmp(p, parent, strlen(parent)) == 0);
				CHECK(p[strlen(parent)] == '/');
			}
		}
	CHECK_EQ_U(n, dirlayout_total(&l));
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			if (!strcmp(seen[i], seen[k]))
				TEST_FAIL("directories %zu and %zu share the path %s", i, k,
				          seen[i]);
	test_passed_checks++;
}

static void test_parse_files(void)
{
	char err[VALUE_ERR_LEN];
	double k = -1;
	CHECK(dirtree_parse_files("uniform", &k, err) == NULL);
	CHECK(k == 0);
	CHECK(dirtree_parse_files("gamma:1.5", &k, err) == NULL);
	CHECK(k == 1.5);
	CHECK(dirtree_parse_files("gamma:0", &k, err) != NULL);
	CHECK_CONTAINS(err, "0.01 to 1000");
	CHECK(dirtree_parse_files("gamma:", &k, err) != NULL);
	CHECK(dirtree_parse_files("gamma:2x", &k, err) != NULL);
	CHECK(dirtree_parse_files("gamma:0x1p1", &k, err) != NULL); /* hex: not a plain decimal */
	CHECK(dirtree_parse_files("gamma: 2", &k, err) != NULL);
	CHECK(dirtree_parse_files("zipf:1", &k, err) != NULL);
	CHECK_CONTAINS(err, "uniform or gamma:SHAPE");
}

int main(void)
{
	RUN(test_counts);
	RUN(test_paths);
	RUN(test_distinct_and_parents);
	RUN(test_parse_files);
	return test_summary();
}
