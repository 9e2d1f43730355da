/* durmodel.c - the durability model's replay: a journal of promises replayed, by the table of
 * promises (durpromise.def), into per-file promises (durmodel.h); durmodel_check.c checks them.
 *
 * Cost: the records sorted once (O(n log n)); then each record O(1) amortised, but for the
 * settled writes (durrange.c: O(log n) amortised) and the covering calls, which walk only the
 * files they may change (the lists of a filesystem: files with pending writes, with a name not
 * yet durable, with an unlink not yet durable) and drop the ones they settle. File ids are
 * found through a hash table: nothing is sized by an id, an offset or a generation. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "durcheck.h"
#include "durmodel_int.h"
#include "durpromise.h"

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * size);
	if (!q)
		return false;
	*p = q;
	*cap = nc;
	return true;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct durlog_rec *x = a, *y = b;
	if (x->t_end != y->t_end)
		return x->t_end < y->t_end ? -1 : 1;
	if (x->worker != y->worker)
		return x->worker < y->worker ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct dm_ref ref_of(const struct durlog_rec *r)
{
	return (struct dm_ref){
	    .kind = r->kind, .worker = r->worker, .seq = r->seq, .t_ns = r->t_end};
}

/* Fibonacci hashing: the product's top bits, which every bit of the id moves (ids that differ
 * only in their high bits do not crowd one slot). n_slots: a power of two, 2 or more. */
static size_t slot_of(uint32_t id, size_t n_slots)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(n_slots)));
}

/* Double the hash table (a power of two, at most half full). */
static bool rehash(struct dm_fs *d)
{
	size_t n = d->n_slots ? 2 * d->n_slots : 256;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return false;
	for (uint32_t i = 0; i < d->n_files; i++) {
		size_t k = slot_of(d->files[i].id, n);
		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = i + 1;
	}
	free(d->slots);
	d->slots = s;
	d->n_slots = n;
	return true;
}

/* The file of id on filesystem fs, made (empty) when the log names it first: NULL when out of
 * memory. The pointer holds until the next new file. */
static struct dm_file *entry_of(struct durmodel *m, struct dm_fs *d, uint32_t id)
{
	size_t k = 0;
	if (d->n_slots) {
		for (k = slot_of(id, d->n_slots); d->slots[k]; k = (k + 1) & (d->n_slots - 1))
			if (d->files[d->slots[k] - 1].id == id)
				return &d->files[d->slots[k] - 1];
	}
	if (d->n_files == UINT32_MAX - 1) {
		m->oom = true;
		return NULL;
	}
	if (2 * ((size_t)d->n_files + 1) > d->n_slots) {
		if (!rehash(d)) {
			m->oom = true;
			return NULL;
		}
		for (k = slot_of(id, d->n_slots); d->slots[k]; k = (k + 1) & (d->n_slots - 1))
			;
	}
	size_t cap = d->cap_files;
	if (!grow((void **)&d->files, &cap, (size_t)d->n_files + 1, sizeof(*d->files))) {
		m->oom = true;
		return NULL;
	}
	d->cap_files = (uint32_t)(cap < UINT32_MAX ? cap : UINT32_MAX);
	struct dm_file *f = &d->files[d->n_files];
	memset(f, 0, sizeof(*f));
	f->id = id;
	d->slots[k] = ++d->n_files;
	return f;
}

static struct dm_file *file_of(struct durmodel *m, uint32_t fs, uint32_t id)
{
	return entry_of(m, &m->fs[fs], id);
}

struct dm_file *dm_find(const struct dm_fs *d, uint32_t id)
{
	if (!d->n_slots)
		return NULL;
	for (size_t k = slot_of(id, d->n_slots); d->slots[k]; k = (k + 1) & (d->n_slots - 1))
		if (d->files[d->slots[k] - 1].id == id)
			return &d->files[d->slots[k] - 1];
	return NULL;
}

static void list_add(struct durmodel *m, struct dm_list *l, bool *in, uint32_t idx)
{
	if (*in)
		return;
	if (!grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v))) {
		m->oom = true;
		return;
	}
	l->v[l->n++] = idx;
	*in = true;
}

static uint32_t index_of(const struct dm_fs *d, const struct dm_file *f)
{
	return (uint32_t)(f - d->files);
}

/* A new incarnation (or none): every promise of the old one dropped; its places on the lists
 * kept (the lists drop what no longer belongs when they are walked). */
static void reset(struct dm_file *f)
{
	struct dm_file keep = {.id = f->id,
	                       .in_dirty = f->in_dirty,
	                       .in_unnamed = f->in_unnamed,
	                       .in_unlinked = f->in_unlinked};
	free(f->pend);
	durrange_free(&f->rng);
	*f = keep;
}

static void promise(struct durmodel *m, struct dm_file *f, uint64_t off, uint64_t end, uint32_t gen,
                    struct dm_ref ref)
{
	if (end > off && durrange_put(&f->rng, off, end, gen, ref))
		m->oom = true;
	if (end > f->min_len) {
		f->min_len = end;
		f->len_ref = ref;
	}
}

/* The file's pending writes that ended before t (all: UINT64_MAX) become promises of ref. */
static void settle(struct durmodel *m, struct dm_file *f, uint64_t t, struct dm_ref ref)
{
	for (; f->head < f->n_pend && f->pend[f->head].t_end < t; f->head++) {
		const struct dm_pend *p = &f->pend[f->head];
		promise(m, f, p->off, p->end, p->gen, ref);
		if (p->size > f->min_len) { /* the acknowledged length (durpromise.def) */
			f->min_len = p->size;
			f->len_ref = ref;
		}
	}
	if (f->head == f->n_pend) {
		f->head = f->n_pend = 0;
	} else if (f->head >= 64 && f->head >= f->n_pend / 2) { /* O(1) amortised */
		memmove(f->pend, f->pend + f->head, (f->n_pend - f->head) * sizeof(*f->pend));
		f->n_pend -= f->head;
		f->head = 0;
	}
}

static void add_pending(struct durmodel *m, struct dm_fs *d, struct dm_file *f, uint64_t off,
                        uint64_t end, uint64_t size, uint64_t t_end, uint32_t gen)
{
	if (!grow((void **)&f->pend, &f->cap_pend, f->n_pend + 1, sizeof(*f->pend))) {
		m->oom = true;
		return;
	}
	FSMIX_ASSERT_MSG(f->n_pend == f->head || f->pend[f->n_pend - 1].t_end <= t_end,
	                 "pending writes out of t_end order");
	f->pend[f->n_pend++] = (struct dm_pend){off, end, t_end, size, gen};
	list_add(m, &d->dirty, &f->in_dirty, index_of(d, f));
}

static void name_durable(struct dm_file *f, struct dm_ref ref)
{
	if (f->live && !f->name_durable) {
		f->name_durable = true;
		f->name_ref = ref;
	}
}

/* A name in data directory dir of filesystem fs was promised (ref): where the mkdir row says so
 * (durpromise.def; linux: the journal or log commits in order, and nothing went into the
 * directory before its mkdir returned), the directory's own entry in data/ too, when the run
 * made it (createdir). */
static void parent_durable(struct durmodel *m, uint32_t fs, uint32_t dir, struct dm_ref ref)
{
	struct dm_file *x = m->dir_names ? dm_find(&m->datadirs[fs], dir) : NULL;
	if (x)
		name_durable(x, ref);
}

/* The files of list l that still need cov (keep), the others dropped from it. */
typedef bool (*dm_keep_fn)(struct durmodel *m, struct dm_file *f, const struct durlog_rec *r);

static void walk(struct durmodel *m, struct dm_fs *d, struct dm_list *l, size_t in_off,
                 dm_keep_fn keep, const struct durlog_rec *r)
{
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct dm_file *f = &d->files[l->v[i]];
		bool *in = (bool *)((char *)f + in_off);
		if (keep(m, f, r))
			l->v[k++] = l->v[i];
		else
			*in = false;
	}
	l->n = k;
}

static bool in_reach(const struct dm_file *f, const struct durlog_rec *r)
{
	return r->kind != DL_DIRSYNC || f->dir == r->dir;
}

static bool cover_data(struct durmodel *m, struct dm_file *f, const struct durlog_rec *r)
{
	if (f->live)
		settle(m, f, r->t_start, ref_of(r));
	return f->live && f->head < f->n_pend;
}

/* A name created, or made anew by a rename or a replace (t_create: its t_end), before r
 * started: durable where it is now (durmodel_ns.h: no longer under a directory it left, a
 * replace's window closed). */
static bool cover_name(struct durmodel *m, struct dm_file *f, const struct durlog_rec *r)
{
	(void)m;
	if (f->live && f->t_create < r->t_start && in_reach(f, r)) {
		name_durable(f, ref_of(r));
		dm_ns_synced(&f->ns);
	}
	/* a second name, by its own directory (a directory fsync reaches its own) */
	bool link = f->live && dm_ns_link_cover(&f->ns, DM_LINK_MADE, r->kind != DL_DIRSYNC, r->dir,
	                                        r->t_start, ref_of(r));
	return f->live && (!f->name_durable || dm_ns_pending(&f->ns) || link);
}

static bool cover_unlink(struct durmodel *m, struct dm_file *f, const struct durlog_rec *r)
{
	(void)m;
	if (f->gone && !f->gone_durable && f->t_delete < r->t_start && in_reach(f, r)) {
		f->gone_durable = true;
		f->gone_ref = ref_of(r);
	}
	/* the entries renames removed, by in_reach's rule: a directory fsync reaches its own */
	dm_ns_left(&f->ns, r->kind != DL_DIRSYNC, r->dir, r->t_start, ref_of(r));
	bool link = dm_ns_link_cover(&f->ns, DM_LINK_GONE, r->kind != DL_DIRSYNC, r->dir,
	                             r->t_start, ref_of(r));
	return (f->gone && !f->gone_durable) || dm_ns_leaving(&f->ns) || link;
}

/* The names and unlinks of table d (files, or directories) a covering call reaches. */
static void cover_names(struct durmodel *m, struct dm_fs *d, const struct dp_rule *u,
                        const struct durlog_rec *r)
{
	if (u->names)
		walk(m, d, &d->unnamed, offsetof(struct dm_file, in_unnamed), cover_name, r);
	if (u->unlinks)
		walk(m, d, &d->unlinked, offsetof(struct dm_file, in_unlinked), cover_unlink, r);
}

/* A covering call (sync, syncfs, a directory fsync) on filesystem fs, by its rule: the files'
 * writes and names, and the directories made and removed (in_reach: a directory fsync reaches
 * the ones its directory is the parent of). */
static void cover(struct durmodel *m, uint32_t fs, const struct dp_rule *u,
                  const struct durlog_rec *r)
{
	struct dm_fs *d = &m->fs[fs];
	if (u->data == DPD_WHOLE)
		walk(m, d, &d->dirty, offsetof(struct dm_file, in_dirty), cover_data, r);
	cover_names(m, d, u, r);
	cover_names(m, &m->metas[fs], u, r);
	cover_names(m, &m->datadirs[fs], u, r);
	if (u->names && r->kind == DL_DIRSYNC)
		parent_durable(m, fs, r->dir, ref_of(r));
}

/* A call on one file (fsync, fdatasync, an O_SYNC write), by its rule. */
static void cover_file(struct durmodel *m, struct dm_file *f, const struct dp_rule *u,
                       const struct durlog_rec *r)
{
	struct dm_ref ref = ref_of(r);
	if (!f->live)
		return;
	if (u->data == DPD_EXTENT)
		promise(m, f, r->off, r->off + r->len, r->gen, ref);
	if (u->data == DPD_WHOLE) {
		/* an fsync or fdatasync: the writes that completed before it started (a write
		 * of the file that completed while it ran, shared_writes=1 at depth: another
		 * operation's, in flight beside it, may have reached the file after the
		 * flush); a replace: its own write, journaled with it */
		bool sync = r->kind == DL_FSYNC || r->kind == DL_FDATASYNC;
		settle(m, f, sync ? r->t_start : UINT64_MAX, ref);
		if (r->size > f->min_len) {
			f->min_len = r->size;
			f->len_ref = ref;
		}
	}
	if (u->names) {
		name_durable(f, ref);
		/* a name a rename made is not promised by the file's own call (durmodel_ns.h), so
		 * neither is the entry of the directory it was renamed into */
		if (!dm_ns_moved(&f->ns))
			parent_durable(m, r->fs, f->dir, ref);
	}
}

/* A write of generation gen began or completed on f: the newest generation it may hold, on the
 * 32-bit circle (content.h: the counter goes on from 1 after UINT32_MAX). */
static void gen_seen(struct dm_file *f, uint32_t gen)
{
	if (gen_after(gen, f->gen_max)) {
		f->wrapped |= gen < f->gen_max;
		f->gen_max = gen;
	}
}

static void born(struct durmodel *m, struct dm_fs *d, struct dm_file *f, const struct durlog_rec *r)
{
	/* l<id> is no part of an incarnation: a create never makes it, so the unlink of the old
	 * one's second name (a delete's first step) stays its last change, to be covered and kept
	 * (resurrected), until a link record of the new one says otherwise (durmodel_ns.h) */
	struct dm_ns was = f->ns;
	reset(f);
	if (was.link == DM_LINK_GONE) {
		f->ns.link = was.link;
		f->ns.link_durable = was.link_durable;
		f->ns.link_dir = was.link_dir;
		f->ns.link_t = was.link_t;
		f->ns.link_ref = was.link_ref;
	}
	f->live = true;
	f->created = r->kind == DL_CREATE;
	f->dir = r->dir;
	f->t_create = r->t_end;
	f->gen_unknown = r->kind == DL_BASE && r->gen == 0; /* an old manifest's file */
	f->gen_max = r->gen ? r->gen : 1;
	/* a reused file's blocks hold any generation up to its own (each writing op wrote only its
	 * extent at the file's next generation): 1..gen_max is promised */
	if (r->kind == DL_BASE && r->size)
		add_pending(m, d, f, 0, r->size, r->size, r->t_end, 1);
	m->created += f->created;
	list_add(m, &d->unnamed, &f->in_unnamed, index_of(d, f));
}

/* rename and replace_fsync (durmodel_ns.h): the file's name is made anew now; a rename's
 * removal from the directory it left is an unlink of its own. A replace drops every promise
 * of the old content: the new one is the temporary file's write, pending here, which the
 * replace's row (durpromise.def: the temporary file's fsync) settles whole; that the file holds
 * the old content or the new whole is durmodel_ns.c's rule. */
static void replay_ns(struct durmodel *m, struct dm_fs *d, struct dm_file *f,
                      const struct durlog_rec *r)
{
	if (!f->live)
		return;
	f->t_create = r->t_end;
	list_add(m, &d->unnamed, &f->in_unnamed, index_of(d, f));
	if (r->kind == DL_RENAME) {
		dm_ns_rename(&f->ns, r->aux, r->dir, r->t_end);
		f->dir = r->dir;
		list_add(m, &d->unlinked, &f->in_unlinked, index_of(d, f));
		return;
	}
	m->acks[DL_REPLACE]++;
	dm_ns_replace(&f->ns, r, f->min_len);
	free(f->pend);
	f->pend = NULL;
	f->head = f->n_pend = f->cap_pend = 0;
	durrange_free(&f->rng);
	f->min_len = 0;
	f->gen_unknown = false; /* the new content's generations are known */
	gen_seen(f, r->gen);
	if (f->ns.replaced && r->size) /* (DLF_UNSURE: no row, nothing promised) */
		add_pending(m, d, f, 0, r->size, r->size, r->t_end, r->gen);
}

/* truncate (DL_TRUNCATE) to r->size bytes: nothing at or beyond it is promised any more,
 * neither content (the settled ranges and the pending writes are cut there) nor length; a
 * crash may keep the old length, whose tail no promise covers then. A longer file gains a
 * hole, promised nothing until a later promise's length covers it. */
static void replay_truncate(struct dm_file *f, const struct durlog_rec *r)
{
	uint64_t len = r->size;
	if (!f->live)
		return;
	durrange_cut(&f->rng, len);
	size_t k = f->head;
	for (size_t i = f->head; i < f->n_pend; i++)
		if (f->pend[i].off < len) { /* (the order of t_end kept) */
			f->pend[k] = f->pend[i];
			f->pend[k].end = f->pend[k].end < len ? f->pend[k].end : len;
			f->pend[k].size = f->pend[k].size < len ? f->pend[k].size : len;
			k++;
		}
	f->n_pend = k;
	f->min_len = f->min_len < len ? f->min_len : len;
	dm_ns_truncate(&f->ns, len);
}

/* punch_hole and zero_range (DL_FALLOCATE, durlog_falloc) of [off, end): the extent reads as
 * zeroes, which no generation describes, and a crash may keep the old content or the zeroes,
 * so nothing in it is promised any more (settled ranges and pending writes cut there; a pending
 * write across both edges keeps only its part before the hole -- less checked, never a false
 * alarm); what later writes put there is promised as usual. The length is as before: a zero
 * range that grew the file promises its new length only once a later fsync or sync does.
 * fallocate with keep size changes no byte: nothing to replay. */
static void replay_fallocate(struct durmodel *m, struct dm_file *f, const struct durlog_rec *r)
{
	if (!f->live || r->aux == DL_FALLOC_KEEP || !r->len)
		return;
	uint64_t off = r->off, end = r->off + r->len; /* (durcheck bounds both below 2^63) */
	if (durrange_punch(&f->rng, off, end))
		m->oom = true;
	size_t k = f->head;
	for (size_t i = f->head; i < f->n_pend; i++) {
		struct dm_pend p = f->pend[i];
		if (p.end <= off || p.off >= end) {
			f->pend[k++] = p; /* (the order of t_end kept) */
			continue;
		}
		if (p.off < off)
			p.end = off;
		else if (p.end > end)
			p.off = end;
		else
			continue; /* inside the hole */
		f->pend[k++] = p;
	}
	f->n_pend = k;
}

static void replay_file_rec(struct durmodel *m, const struct durlog_rec *r,
                            const struct dp_row *row)
{
	struct dm_fs *d = &m->fs[r->fs];
	struct dm_file *f = file_of(m, r->fs, r->file);
	if (!f)
		return;
	switch (r->kind) {
	case DL_BASE:
	case DL_CREATE:
		born(m, d, f, r);
		break;
	case DL_WSTART:
		gen_seen(f, r->gen);
		break;
	case DL_WRITE:
		if (r->len > UINT64_MAX - r->off) {
			m->bad = true; /* an extent past 2^64: no write made it */
			break;
		}
		if (!f->live)
			break;
		gen_seen(f, r->gen);
		if (!row) /* a buffered write: pending until a promise covers it */
			add_pending(m, d, f, r->off, r->off + r->len, r->size, r->t_end, r->gen);
		else
			m->osync++;
		break;
	case DL_DELETE: {
		struct dm_ns ns = f->ns; /* the directories renames left: it must not be there */
		reset(f);
		f->ns = ns;
		dm_ns_deleted(&f->ns);
		f->gone = true;
		f->dir = r->dir;
		f->t_delete = r->t_end;
		list_add(m, &d->unlinked, &f->in_unlinked, index_of(d, f));
		break;
	}
	case DL_RENAME:
	case DL_REPLACE:
		replay_ns(m, d, f, r);
		break;
	case DL_TRUNCATE:
		replay_truncate(f, r);
		break;
	case DL_FALLOCATE:
		replay_fallocate(m, f, r);
		break;
	case DL_LINK:   /* a second name made: durable once a names row covers its directory */
	case DL_UNLINK: /* ...removed: durable once an unlinks row does */
		if (!f->live)
			break;
		dm_ns_link(&f->ns, r);
		if (r->kind == DL_LINK)
			list_add(m, &d->unnamed, &f->in_unnamed, index_of(d, f));
		else
			list_add(m, &d->unlinked, &f->in_unlinked, index_of(d, f));
		break;
	default:
		break;
	}
	if (row)
		cover_file(m, f, &row->rule[m->model == DM_POSIX], r);
}

/* mkdir and rmdir (DL_MKDIR, DL_RMDIR): a directory's entry made or removed, nothing promised by
 * itself (durpromise.def's rows): the covering calls make it durable, as a file's name or its
 * unlink. */
static void replay_dir(struct durmodel *m, const struct durlog_rec *r)
{
	struct dm_fs *d = r->dir == DURLOG_DIR_META ? &m->metas[r->fs] : &m->datadirs[r->fs];
	struct dm_file *x = entry_of(m, d, r->file);
	if (!x)
		return;
	m->acks[r->kind]++;
	reset(x);
	x->dir = r->dir;
	if (r->kind == DL_MKDIR) {
		x->live = x->created = true;
		x->t_create = r->t_end;
		list_add(m, &d->unnamed, &x->in_unnamed, index_of(d, x));
	} else {
		x->gone = true;
		x->t_delete = r->t_end;
		list_add(m, &d->unlinked, &x->in_unlinked, index_of(d, x));
	}
}

static void replay(struct durmodel *m, const struct durlog_rec *r)
{
	if (r->kind == DL_MKDIR || r->kind == DL_RMDIR) {
		replay_dir(m, r);
		return;
	}
	const struct dp_row *row = durpromise_of(r);
	if (row && row->reach != DPR_FILE)
		m->acks[r->kind]++;
	if (r->kind == DL_FSYNC || r->kind == DL_FDATASYNC)
		m->acks[r->kind]++;
	if (!row || row->reach == DPR_FILE) {
		replay_file_rec(m, r, row);
		return;
	}
	const struct dp_rule *u = &row->rule[m->model == DM_POSIX];
	if (row->reach == DPR_ALL)
		for (uint32_t i = 0; i < m->h.n_fs && i < DURLOG_MAX_FS; i++)
			cover(m, i, u, r);
	else
		cover(m, r->fs, u, r);
}

struct durmodel *durmodel_build(const struct durlog_header *h, struct durlog_rec *recs, size_t n,
                                bool complete, enum dm_model model)
{
	struct durmodel *m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->model = model;
	m->dir_names = durpromise_row(DP_MKDIR)->rule[model == DM_POSIX].names;
	m->tail_lost = !complete;
	m->h = *h;
	m->records = n;
	if (n) /* (recs may be NULL for an empty log: qsort's pointer must not be) */
		qsort(recs, n, sizeof(*recs), cmp_rec);
	uint32_t n_fs = h->n_fs < DURLOG_MAX_FS ? h->n_fs : DURLOG_MAX_FS;
	for (size_t i = 0; i < n && !m->oom && !m->bad; i++)
		if (recs[i].fs < n_fs || recs[i].kind == DL_SYNC)
			replay(m, &recs[i]);
	for (uint32_t i = 0; i < n_fs && !m->oom && !m->bad; i++)
		for (uint32_t k = 0; k < m->fs[i].n_files && !m->oom; k++)
			m->oom = durrange_finish(&m->fs[i].files[k].rng) != 0;
	if (m->oom || m->bad) {
		int e = m->oom ? ENOMEM : EINVAL;
		durmodel_free(m);
		errno = e;
		return NULL;
	}
	return m;
}

void durmodel_known_tail(struct durmodel *m, const struct durlog_rec *tail, size_t n)
{
	bool deletes = false, creates = false;
	m->tail_known = true;
	for (size_t i = 0; i < n; i++) {
		const struct durlog_rec *r = &tail[i];
		switch (r->kind) {
		case DL_DELETE:
		case DL_RENAME:
		case DL_UNLINK:
			deletes = true;
			break;
		case DL_CREATE:
		case DL_REPLACE:
		case DL_TRUNCATE:
		case DL_FALLOCATE: /* a shorter file, or zeroes: counted as a create
		                      (durmodel_check) */
		case DL_LINK:
			deletes = deletes || r->kind == DL_REPLACE;
			creates = true;
			break;
		default: /* writes (later generations: check_data's), syncs, directories */
			continue;
		}
		struct dm_file *f = r->fs < m->h.n_fs && r->fs < DURLOG_MAX_FS
		                        ? dm_find(&m->fs[r->fs], r->file)
		                        : NULL;
		if (f)
			f->tail_touched = true;
	}
	if (!deletes)
		m->h.flags |= DLH_NO_DELETES;
	if (!creates)
		m->h.flags |= DLH_NO_CREATES;
}

void durmodel_free(struct durmodel *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < 3 * DURLOG_MAX_FS; i++) {
		struct dm_fs *d = i < DURLOG_MAX_FS       ? &m->fs[i]
		                  : i < 2 * DURLOG_MAX_FS ? &m->metas[i - DURLOG_MAX_FS]
		                                          : &m->datadirs[i - 2 * DURLOG_MAX_FS];
		for (uint32_t k = 0; k < d->n_files; k++)
			reset(&d->files[k]);
		free(d->files);
		free(d->slots);
		free(d->dirty.v);
		free(d->unnamed.v);
		free(d->unlinked.v);
	}
	free(m);
}
