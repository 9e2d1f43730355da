/* dirlayout.h - the shape of a filesystem's data directories (dir_depth, dir_fanout) and the
 * arithmetic that names them; no I/O.
 *
 * Level 1 holds `top` directories data/d000 .. d<top-1> (num_dirs, FFSB's key). Each directory
 * of levels 1 .. depth-1 holds `fanout` subdirectories d000 .. d<fanout-1>. Files live in the
 * directories of the last level, the leaves: top * fanout^(depth-1) of them, numbered 0 ..
 * leaves-1 in path order, so that leaf i is the path of i's digits in base fanout (the first
 * digit in base top):
 *
 *   top 2, depth 3, fanout 4: leaf 0 = d000/d000/d000, leaf 5 = d000/d001/d001,
 *                             leaf 31 = d001/d003/d003 (32 leaves, 2 + 8 + 32 = 42 directories)
 *
 * depth 1 is FFSB's one level (leaf i = d<i>), and fanout is then unused. A directory of level
 * l (1 .. depth) has an index j below dirlayout_level_count(l), in the same path order.
 */
#ifndef FSMIX_DIRLAYOUT_H
#define FSMIX_DIRLAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The most directories a tree may have in all levels (num_dirs's own bound), and the deepest. */
#define DIRLAYOUT_MAX_DIRS  1048576u
#define DIRLAYOUT_MAX_DEPTH 16u
/* Longest relative path dirlayout_path writes, NUL included: per level "d" + at most 7 digits
 * (indexes below DIRLAYOUT_MAX_DIRS) and a "/". */
#define DIRLAYOUT_PATH_MAX (DIRLAYOUT_MAX_DEPTH * 9u + 1u)

struct dirlayout {
	uint32_t top;    /* directories of level 1 (num_dirs) */
	uint32_t depth;  /* levels, >= 1 */
	uint32_t fanout; /* subdirectories per directory above the last level (depth > 1) */
};

/* dirlayout_flat - FFSB's one level of n directories. */
static inline struct dirlayout dirlayout_flat(uint32_t n)
{
	return (struct dirlayout){.top = n, .depth = 1, .fanout = 0};
}

/* dirlayout_level_count - directories of level `level` (1 .. depth): top * fanout^(level-1),
 * saturating at UINT64_MAX. */
uint64_t dirlayout_level_count(const struct dirlayout *l, uint32_t level);

/* dirlayout_total - directories of every level together, saturating at UINT64_MAX. */
uint64_t dirlayout_total(const struct dirlayout *l);

/* dirlayout_leaves - directories of the last level (those holding files), saturating. */
static inline uint64_t dirlayout_leaves(const struct dirlayout *l)
{
	return dirlayout_level_count(l, l->depth ? l->depth : 1);
}

/* dirlayout_path - the path of directory `j` of level `level`, relative to data/ ("d001" at
 * level 1, "d001/d003/d000" at level 3), into buf. Returns the length, or -EINVAL for a level
 * or index out of the layout, -ENAMETOOLONG for a short buffer (DIRLAYOUT_PATH_MAX always
 * suffices). */
int dirlayout_path(const struct dirlayout *l, uint32_t level, uint64_t j, char *buf, size_t len);

#endif
