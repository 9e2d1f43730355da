/* durmodel_ns.c - the durability model's namespace rules (durmodel_ns.h). */
#include "durmodel_ns.h"

#include <errno.h>
#include <string.h>

/* dir no longer one the file left: it came back there. */
static void back_in(struct dm_ns *ns, uint32_t dir)
{
	size_t k = 0;
	for (size_t i = 0; i < ns->n_rm; i++)
		if (ns->rm[i].dir != dir)
			ns->rm[k++] = ns->rm[i];
	ns->n_rm = (uint8_t)k;
	k = 0;
	for (size_t i = 0; i < ns->n_left; i++)
		if (ns->left[i].dir != dir)
			ns->left[k++] = ns->left[i];
	ns->n_left = (uint8_t)k;
}

/* Append v to a DM_NS_ALT array of n, the oldest dropped when full (forgotten: never checked,
 * so never a false finding). */
#define PUSH_NEWEST(a, n, v)                                                                       \
	do {                                                                                       \
		if ((n) == DM_NS_ALT) {                                                            \
			memmove(&(a)[0], &(a)[1], (DM_NS_ALT - 1) * sizeof((a)[0]));               \
			(n)--;                                                                     \
		}                                                                                  \
		(a)[(n)++] = (v);                                                                  \
	} while (0)

void dm_ns_rename(struct dm_ns *ns, uint32_t from, uint32_t to, uint64_t t)
{
	size_t k = 0;
	for (size_t i = 0; i < ns->n_alt; i++) /* back where it was: no longer elsewhere */
		if (ns->alt[i] != to && ns->alt[i] != from)
			ns->alt[k++] = ns->alt[i];
	ns->n_alt = (uint8_t)k;
	if (from == to)
		return;
	back_in(ns, to);
	back_in(ns, from); /* (its newest removal from there is the one that counts) */
	PUSH_NEWEST(ns->rm, ns->n_rm, ((struct dm_ns_rm){.dir = from, .t = t}));
	if (ns->n_alt == DM_NS_ALT) {
		ns->lost_track = true;
		return;
	}
	ns->alt[ns->n_alt++] = from;
}

void dm_ns_left(struct dm_ns *ns, bool all, uint32_t dir, uint64_t t, struct dm_ref ref)
{
	size_t k = 0;
	for (size_t i = 0; i < ns->n_rm; i++) {
		if (ns->rm[i].t < t && (all || dir == ns->rm[i].dir))
			PUSH_NEWEST(ns->left, ns->n_left,
			            ((struct dm_ns_rm){ns->rm[i].dir, t, ref}));
		else
			ns->rm[k++] = ns->rm[i];
	}
	ns->n_rm = (uint8_t)k;
}

bool dm_ns_leaving(const struct dm_ns *ns)
{
	return ns->n_rm != 0;
}

void dm_ns_deleted(struct dm_ns *ns)
{
	ns->n_alt = 0;
	ns->lost_track = ns->replaced = ns->rep_open = false;
}

void dm_ns_replace(struct dm_ns *ns, const struct durlog_rec *r, uint64_t old_min)
{
	if (r->flags & DLF_UNSURE) { /* nothing promised: no rule of its own */
		ns->replaced = ns->rep_open = false;
		return;
	}
	ns->rep_gen = r->gen;
	ns->rep_len = r->size;
	/* an earlier replace still open: a file without the new generation may hold its old
	 * content or the one before: the shorter promised length holds */
	ns->old_min = ns->rep_open && ns->old_min < old_min ? ns->old_min : old_min;
	ns->replaced = ns->rep_open = true;
	ns->rep_ref =
	    (struct dm_ref){.kind = r->kind, .worker = r->worker, .seq = r->seq, .t_ns = r->t_end};
}

void dm_ns_truncate(struct dm_ns *ns, uint64_t len)
{
	ns->rep_len = ns->rep_len < len ? ns->rep_len : len;
	ns->old_min = ns->old_min < len ? ns->old_min : len;
}

void dm_ns_synced(struct dm_ns *ns)
{
	ns->n_alt = 0;
	ns->lost_track = false;
	ns->rep_open = false;
}

bool dm_ns_pending(const struct dm_ns *ns)
{
	return ns->n_alt || ns->lost_track || ns->rep_open;
}

bool dm_ns_moved(const struct dm_ns *ns)
{
	return ns->n_alt || ns->lost_track;
}

bool dm_ns_named(const struct dm_ns *ns)
{
	return !ns->lost_track;
}

int64_t dm_ns_locate(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs, uint32_t id,
                     uint32_t dir, uint32_t *found)
{
	/* a name that is no regular file (-EEXIST) holds none of the file: as if not there; a
	 * lookup that fails (EIO, EBADMSG) does not end the search: found whole elsewhere, where it
	 * may be, the file keeps its promises; found nowhere, the first failure is the answer */
	int64_t size = files->size(files->ctx, fs, dir, id), err = 0;
	uint32_t at = dir;
	for (size_t i = ns->n_alt + 1; i > 0; i--) {
		if (i <= ns->n_alt) {
			at = ns->alt[i - 1];
			size = files->size(files->ctx, fs, at, id);
		}
		if (size >= 0) {
			*found = at;
			return size;
		}
		if (size != -ENOENT && size != -EEXIST && !err) {
			err = size;
			*found = at;
		}
	}
	if (!err)
		*found = dir;
	return err ? err : -ENOENT;
}

/* Blocks of the replace's generation or later (*n_new) and of older ones (*n_old) in the
 * file, 512-byte block by block (content_newest: the newest generation a whole word of it
 * holds; none, zeroes or foreign bytes, counts as neither): n[0] older, n[1] new; first[] the
 * offset of the first of each, gen[] its generation. 0, or -errno. */
static int count_gens(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs,
                      uint32_t dir, uint32_t id, const struct content_key *key, uint64_t size,
                      unsigned char *buf, size_t cap, uint64_t first[2], uint32_t gen[2],
                      uint64_t n[2])
{
	first[0] = first[1] = UINT64_MAX;
	n[0] = n[1] = 0;
	for (uint64_t off = 0; off < size;) {
		size_t len = size - off < cap ? (size_t)(size - off) : cap;
		int64_t got = files->read(files->ctx, fs, dir, id, off, buf, len);
		if (got < 0)
			return (int)got;
		if (got == 0)
			break;
		for (size_t b = 0; b < (size_t)got; b += 512) {
			size_t bl = (size_t)got - b < 512 ? (size_t)got - b : 512;
			uint32_t g = content_newest(buf + b, bl, key, off + b);
			if (!g)
				continue;
			int is_new = g == ns->rep_gen || gen_after(g, ns->rep_gen); /* the circle */
			n[is_new]++;
			if (first[is_new] == UINT64_MAX)
				first[is_new] = off + b, gen[is_new] = g;
		}
		off += (uint64_t)got;
	}
	return 0;
}

int dm_ns_check_replace(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs,
                        uint32_t dir, uint32_t id, const struct content_key *key, uint64_t size,
                        unsigned char *buf, size_t cap, struct dm_finding *fd)
{
	fd->ref = ns->rep_ref;
	fd->gen_min = ns->rep_gen;
	if (size == 0 && ns->rep_len) {
		if (ns->rep_open && !ns->old_min)
			return 2; /* the old content, which may have been empty */
		fd->kind = DM_EMPTIED;
		fd->off = 0;
		fd->expected_len = ns->rep_len;
		return 1;
	}
	uint64_t first[2], n[2]; /* [0]: older than the replace, [1]: its generation or later */
	uint32_t gen[2] = {0, 0};
	int rc = count_gens(ns, files, fs, dir, id, key, size, buf, cap, first, gen, n);
	if (rc < 0)
		return rc;
	if (n[0] && n[1]) {
		fd->kind = DM_MIXED;
		int second = first[0] > first[1] ? 0 : 1; /* where the second kind starts */
		fd->off = first[second];
		fd->gen_found = gen[second];
		fd->expected_len = ns->rep_len;
		return 1;
	}
	return !n[1] && ns->rep_open ? 2 : 0;
}

void dm_ns_link(struct dm_ns *ns, const struct durlog_rec *r)
{
	ns->link = r->kind == DL_LINK ? DM_LINK_MADE : DM_LINK_GONE;
	ns->link_durable = false;
	ns->link_dir = r->dir;
	ns->link_t = r->t_end;
}

bool dm_ns_link_cover(struct dm_ns *ns, enum dm_link made, bool all, uint32_t dir, uint64_t t,
                      struct dm_ref ref)
{
	if (ns->link != made || ns->link_durable)
		return false;
	if (ns->link_t < t && (all || dir == ns->link_dir)) {
		ns->link_durable = true;
		ns->link_ref = ref;
		return false;
	}
	return true;
}

bool dm_ns_link_promised(const struct dm_ns *ns)
{
	return ns->link != DM_LINK_NONE && ns->link_durable;
}

int dm_ns_check_link(const struct dm_ns *ns, const struct dm_files *files, uint32_t fs, uint32_t id,
                     uint32_t dir, bool found, struct dm_finding *fd)
{
	int64_t size = files->size(files->ctx, fs, ns->link_dir, id | DM_SECOND_NAME);
	fd->dir = ns->link_dir;
	fd->second = true;
	fd->ref = ns->link_ref;
	if (ns->link == DM_LINK_GONE) {
		fd->kind = DM_RESURRECTED;
		/* back as anything (-EEXIST: a directory, a symlink) is back; one that cannot be
		 * opened tells nothing of it */
		return size >= 0 || size == -EEXIST;
	}
	if (size == -ENOENT) {
		fd->kind = DM_MISSING;
		return 1;
	}
	if (size == -EEXIST) { /* no regular file holds the name: not f<id>'s inode, where found */
		fd->kind = DM_SPLIT;
		return found;
	}
	if (size < 0)
		return (int)size;
	if (!found || !files->same)
		return 0;
	int same = files->same(files->ctx, fs, ns->link_dir, id | DM_SECOND_NAME, dir, id);
	if (same < 0)
		return same;
	fd->kind = DM_SPLIT;
	return !same;
}
