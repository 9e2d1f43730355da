/* instance.c - the names of a job's trees (instance.h). */
#include "instance.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tree_instance_name(char *buf, size_t len, unsigned fs_index, int rank)
{
	int n = rank < 0 ? snprintf(buf, len, "fsmix.fs%u", fs_index)
	                 : snprintf(buf, len, "fsmix.fs%u.r%d", fs_index, rank);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* The rank in "r<digits>[.new|.del]" (what follows "fsmix.fs<index>."), or -1: decimal digits as
 * tree_instance_name writes them (no leading zero but for 0 itself, at most INT_MAX). */
static int parse_rank(const char *s)
{
	if (s[0] != 'r' || s[1] < '0' || s[1] > '9')
		return -1;
	const char *p = s + 1;
	long long v = 0;
	while (*p >= '0' && *p <= '9' && p - s <= 10)
		v = v * 10 + (*p++ - '0');
	if ((s[1] == '0' && p - s > 2) || v > INT_MAX)
		return -1;
	if (*p && strcmp(p, ".new") && strcmp(p, ".del"))
		return -1;
	return (int)v;
}

bool tree_instance_is_name(const char *name)
{
	static const char prefix[] = "fsmix.fs";
	if (strncmp(name, prefix, sizeof(prefix) - 1))
		return false;
	const char *p = name + sizeof(prefix) - 1, *digits = p;
	unsigned long long v = 0;
	while (*p >= '0' && *p <= '9' && p - digits < 10)
		v = v * 10 + (unsigned)(*p++ - '0');
	/* no index, a leading zero or a value tree_instance_name never writes */
	if (p == digits || (digits[0] == '0' && p - digits > 1) || v > UINT_MAX)
		return false;
	if (!*p || !strcmp(p, ".new") || !strcmp(p, ".del"))
		return true;
	return p[0] == '.' && parse_rank(p + 1) >= 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int tree_instance_find(const char *location, unsigned fs_index, int **ranks)
{
	char prefix[32];
	int plen = snprintf(prefix, sizeof(prefix), "fsmix.fs%u.", fs_index);
	*ranks = NULL;
	DIR *d = opendir(location);
	if (!d)
		return -errno;
	int *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, (size_t)plen))
			continue;
		int r = parse_rank(de->d_name + plen);
		if (r < 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			int *nv = realloc(v, ncap * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = r;
	}
	closedir(d);
	if (rc) {
		free(v);
		return rc;
	}
	if (n) /* qsort's array may not be NULL, even for no element (C11 7.22.5) */
		qsort(v, n, sizeof(*v), cmp_int);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*ranks = v;
	return (int)k;
}
