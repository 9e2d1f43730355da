/* tree_names.c - fsmix's naming scheme inside its tree (tree.h): making the names of files,
 * directories and metadata directories, recognising them for removal, and locating a file for
 * the *at() calls of the workers (on every operation's path: no snprintf there). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fdio.h"
#include "tree_impl.h"

void tree_seterr(char *err, size_t len, const char *fmt, ...)
{
	if (!err || len == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int tree_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

/* Writes letter + decimal v (at least min_digits, zero-padded) at p; returns the length. */
static size_t put_number(char *p, char letter, uint32_t v, unsigned min_digits)
{
	p[0] = letter;
	return 1 + put_decimal(p + 1, v, min_digits);
}

int tree_file_name(uint32_t id, char *buf, size_t len)
{
	if (len < 12) /* "f" + 10 digits + NUL */
		return tree_fmt(buf, len, "f%u", id);
	size_t n = put_number(buf, 'f', id, 1);
	buf[n] = '\0';
	return (int)n;
}

int tree_dir_name(uint32_t dir, char *buf, size_t len)
{
	return tree_fmt(buf, len, "d%03u", dir);
}

int tree_meta_name(uint32_t id, uint32_t gen, char *buf, size_t len)
{
	if (gen == 0)
		return tree_fmt(buf, len, "m%u", id);
	return tree_fmt(buf, len, "m%u.%u", id, gen);
}

int tree_data_dirfd(const struct tree *t, uint32_t dir)
{
	if (dir == TREE_DIR_TOP)
		return t->datafd;
	if (dir < t->num_dirfds)
		return t->dirfds[dir];
	return -1;
}

int tree_meta_dirfd(const struct tree *t)
{
	return t->metafd;
}

int tree_dir_path(const struct dirlayout *l, uint32_t dir, char *buf, size_t len)
{
	if (dir < dirlayout_leaves(l) && l->depth > 1)
		return dirlayout_path(l, l->depth, dir, buf, len) < 0 ? -ENAMETOOLONG
		                                                      : (int)strlen(buf);
	if (len < 12) /* "d" + 10 digits + NUL */
		return tree_dir_name(dir, buf, len);
	size_t n = put_number(buf, 'd', dir, 3);
	buf[n] = '\0';
	return (int)n;
}

int tree_file_at(const struct tree *t, uint32_t dir, uint32_t id, char *name, size_t len)
{
	int rc;
	if (dir == TREE_DIR_TOP) {
		rc = tree_file_name(id, name, len);
		return rc < 0 ? rc : t->datafd;
	}
	if (dir >= t->num_dirs)
		return -EINVAL;
	if (dir < t->num_dirfds) {
		rc = tree_file_name(id, name, len);
		return rc < 0 ? rc : t->dirfds[dir];
	}
	rc = tree_dir_path(&t->layout, dir, name, len);
	if (rc < 0 || (size_t)rc + 1 >= len)
		return -ENAMETOOLONG;
	name[rc] = '/';
	rc = tree_file_name(id, name + rc + 1, len - (size_t)rc - 1);
	return rc < 0 ? rc : t->datafd;
}

int tree_file_path(const struct tree *t, uint32_t dir, uint32_t id, char *buf, size_t len)
{
	if (dir == TREE_DIR_TOP)
		return tree_fmt(buf, len, "%s/data/f%u", t->root, id);
	char d[TREE_NAME_MAX];
	if (tree_dir_path(&t->layout, dir, d, sizeof(d)) < 0)
		return -ENAMETOOLONG;
	return tree_fmt(buf, len, "%s/data/%s/f%u", t->root, d, id);
}

bool tree_is_numbered(const char *s, char letter)
{
	if (s[0] != letter)
		return false;
	size_t n = 0;
	for (s++; *s; s++, n++)
		if (*s < '0' || *s > '9' || n >= 10)
			return false;
	return n > 0;
}

bool tree_is_file_tmp(const char *s)
{
	char name[TREE_NAME_MAX];
	size_t n = strlen(s), k = sizeof(TREE_TMP_SUFFIX) - 1;
	if (n <= k || n >= sizeof(name) || strcmp(s + n - k, TREE_TMP_SUFFIX))
		return false;
	memcpy(name, s, n - k);
	name[n - k] = 0;
	return tree_is_numbered(name, 'f');
}

bool tree_is_meta_name(const char *s)
{
	if (s[0] != 'm' || s[1] < '0' || s[1] > '9')
		return false;
	size_t n = 0;
	for (s++; *s >= '0' && *s <= '9'; s++)
		if (++n > 10)
			return false;
	if (*s == 0)
		return true;
	if (*s != '.' || s[1] == 0)
		return false;
	n = 0;
	for (s++; *s; s++)
		if (*s < '0' || *s > '9' || ++n > 10)
			return false;
	return true;
}
