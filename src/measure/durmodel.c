/* durmodel.c - the durability model: a journal replayed into per-file promises, and the check
 * of those promises against the files (durmodel.h). */
#include "durmodel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A byte range whose content is promised: generation gen or later. */
struct dm_range {
	uint64_t off, end;
	uint32_t gen;
	struct dm_ref ref;
};

/* A completed write not yet covered by a promise. */
struct dm_pend {
	uint64_t off, end, t_end;
	uint32_t gen;
};

/* One file id's current incarnation. */
struct dm_file {
	bool live, created, name_durable, listed, gen_unknown;
	bool wrapped; /* its generation counter passed UINT32_MAX (to 1) in the run */
	uint32_t dir, gen_max;
	uint64_t t_create, min_len;
	struct dm_ref len_ref, name_ref;
	struct dm_pend *pend;
	size_t n_pend, cap_pend;
	struct dm_range *rng;
	size_t n_rng, cap_rng;
};

struct dm_fs {
	struct dm_file *files;
	uint32_t n_files;
	uint32_t *dirty; /* files with pending writes or a pending name */
	size_t n_dirty, cap_dirty;
};

struct durmodel {
	enum dm_model model;
	struct durlog_header h;
	struct dm_fs fs[DURLOG_MAX_FS];
	uint64_t records, acks[DL_KIND_COUNT], osync, created;
	bool oom;
	bool tail_lost; /* no end record: what the run did after the last record is unknown */
};

const char *dm_kind_name(enum dm_kind k)
{
	static const char *const names[DM_KIND_COUNT] = {
	    [DM_MISSING] = "missing",       [DM_SHORT] = "short", [DM_WRONG] = "wrong",
	    [DM_STALE] = "stale",           [DM_TORN] = "torn",   [DM_ZEROED] = "zeroed",
	    [DM_UNREADABLE] = "unreadable",
	};
	return (unsigned)k < DM_KIND_COUNT ? names[k] : "?";
}

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

static struct dm_file *file_of(struct durmodel *m, uint32_t fs, uint32_t id)
{
	if (fs >= DURLOG_MAX_FS)
		return NULL;
	struct dm_fs *f = &m->fs[fs];
	if (id >= f->n_files) {
		uint32_t n = f->n_files ? f->n_files : 64;
		while (n <= id)
			n *= 2;
		struct dm_file *p = realloc(f->files, (size_t)n * sizeof(*p));
		if (!p) {
			m->oom = true;
			return NULL;
		}
		memset(p + f->n_files, 0, (size_t)(n - f->n_files) * sizeof(*p));
		f->files = p;
		f->n_files = n;
	}
	return &f->files[id];
}

static void list_dirty(struct durmodel *m, uint32_t fs, uint32_t id, struct dm_file *f)
{
	struct dm_fs *d = &m->fs[fs];
	if (f->listed)
		return;
	if (!grow((void **)&d->dirty, &d->cap_dirty, d->n_dirty + 1, sizeof(*d->dirty))) {
		m->oom = true;
		return;
	}
	d->dirty[d->n_dirty++] = id;
	f->listed = true;
}

static void reset(struct dm_file *f)
{
	bool listed = f->listed;
	free(f->pend);
	free(f->rng);
	memset(f, 0, sizeof(*f));
	f->listed = listed;
}

/* Content [off, end) is promised at generation gen or later (replacing what was promised of
 * those bytes before). */
static void map_put(struct durmodel *m, struct dm_file *f, uint64_t off, uint64_t end, uint32_t gen,
                    struct dm_ref ref)
{
	if (end <= off)
		return;
	size_t n = f->n_rng, k = 0;
	struct dm_range *out = malloc((n + 2) * sizeof(*out));
	if (!out) {
		m->oom = true;
		return;
	}
	bool placed = false;
	for (size_t i = 0; i < n; i++) {
		struct dm_range r = f->rng[i];
		if (!placed && r.off >= off) {
			out[k++] = (struct dm_range){off, end, gen, ref};
			placed = true;
		}
		if (r.end <= off || r.off >= end) {
			out[k++] = r;
			continue;
		}
		if (r.off < off)
			out[k++] = (struct dm_range){r.off, off, r.gen, r.ref};
		if (r.end > end) {
			if (!placed) {
				out[k++] = (struct dm_range){off, end, gen, ref};
				placed = true;
			}
			out[k++] = (struct dm_range){end, r.end, r.gen, r.ref};
		}
	}
	if (!placed)
		out[k++] = (struct dm_range){off, end, gen, ref};
	free(f->rng);
	f->rng = out;
	f->n_rng = k;
	f->cap_rng = n + 2;
}

/* The file's pending writes that ended before t (all: UINT64_MAX) become promises of ref. */
static void settle(struct durmodel *m, struct dm_file *f, uint64_t t, struct dm_ref ref)
{
	size_t i = 0;
	for (; i < f->n_pend && f->pend[i].t_end < t; i++) {
		const struct dm_pend *p = &f->pend[i];
		map_put(m, f, p->off, p->end, p->gen, ref);
		if (p->end > f->min_len) {
			f->min_len = p->end;
			f->len_ref = ref;
		}
	}
	if (i && i < f->n_pend) /* (f->pend is NULL while nothing was ever pending) */
		memmove(f->pend, f->pend + i, (f->n_pend - i) * sizeof(*f->pend));
	f->n_pend -= i;
}

static void name_durable(struct dm_file *f, struct dm_ref ref)
{
	if (f->live && !f->name_durable) {
		f->name_durable = true;
		f->name_ref = ref;
	}
}

static void add_pending(struct durmodel *m, struct dm_file *f, uint64_t off, uint64_t end,
                        uint64_t t_end, uint32_t gen)
{
	if (!grow((void **)&f->pend, &f->cap_pend, f->n_pend + 1, sizeof(*f->pend))) {
		m->oom = true;
		return;
	}
	f->pend[f->n_pend++] = (struct dm_pend){off, end, t_end, gen};
}

/* sync / syncfs started at t on filesystem fs: everything completed before t is durable. */
static void sync_fs(struct durmodel *m, uint32_t fs, uint64_t t, struct dm_ref ref,
                    const struct durlog_rec *dirsync)
{
	struct dm_fs *d = &m->fs[fs];
	size_t k = 0;
	for (size_t i = 0; i < d->n_dirty; i++) {
		uint32_t id = d->dirty[i];
		struct dm_file *f = &d->files[id];
		if (f->live && f->t_create < t && (!dirsync || f->dir == dirsync->dir))
			name_durable(f, ref);
		if (!dirsync && f->live)
			settle(m, f, t, ref);
		if (f->live && (f->n_pend || !f->name_durable))
			d->dirty[k++] = id;
		else
			f->listed = false;
	}
	d->n_dirty = k;
}

static void replay_file_rec(struct durmodel *m, const struct durlog_rec *r)
{
	struct dm_file *f = file_of(m, r->fs, r->file);
	if (!f)
		return;
	struct dm_ref ref = ref_of(r);
	switch (r->kind) {
	case DL_BASE:
	case DL_CREATE:
		reset(f);
		f->live = true;
		f->created = r->kind == DL_CREATE;
		f->dir = r->dir;
		f->t_create = r->t_end;
		f->gen_unknown = r->kind == DL_BASE && r->gen == 0; /* an old manifest's file */
		f->gen_max = r->gen ? r->gen : 1;
		/* a reused file's blocks hold any generation up to its own (each writing op wrote
		 * only its extent at the file's next generation): 1..gen_max is promised */
		if (r->kind == DL_BASE && r->size)
			add_pending(m, f, 0, r->size, r->t_end, 1);
		m->created += f->created;
		list_dirty(m, r->fs, r->file, f);
		break;
	case DL_WSTART:
		if (gen_after(r->gen, f->gen_max)) {
			f->wrapped |= r->gen < f->gen_max;
			f->gen_max = r->gen;
		}
		break;
	case DL_WRITE:
		if (!f->live)
			break;
		if (gen_after(r->gen, f->gen_max)) {
			f->wrapped |= r->gen < f->gen_max;
			f->gen_max = r->gen;
		}
		add_pending(m, f, r->off, r->off + r->len, r->t_end, r->gen);
		list_dirty(m, r->fs, r->file, f);
		if (r->flags & DLF_SYNC) {
			m->osync++;
			settle(m, f, UINT64_MAX, ref);
			if (m->model == DM_LINUX)
				name_durable(f, ref);
		}
		break;
	case DL_FSYNC:
	case DL_FDATASYNC:
		m->acks[r->kind]++;
		if (!f->live)
			break;
		settle(m, f, UINT64_MAX, ref);
		if (r->size > f->min_len) {
			f->min_len = r->size;
			f->len_ref = ref;
		}
		if (m->model == DM_LINUX)
			name_durable(f, ref);
		break;
	case DL_DELETE:
		reset(f);
		break;
	default:
		break;
	}
}

static void replay(struct durmodel *m, const struct durlog_rec *r)
{
	switch (r->kind) {
	case DL_SYNCFS:
		m->acks[r->kind]++;
		if (r->fs < m->h.n_fs)
			sync_fs(m, r->fs, r->t_start, ref_of(r), NULL);
		break;
	case DL_SYNC:
		m->acks[r->kind]++;
		for (uint32_t i = 0; i < m->h.n_fs; i++)
			sync_fs(m, i, r->t_start, ref_of(r), NULL);
		break;
	case DL_DIRSYNC:
		m->acks[r->kind]++;
		if (r->fs < m->h.n_fs)
			sync_fs(m, r->fs, r->t_start, ref_of(r), r);
		break;
	default:
		replay_file_rec(m, r);
		break;
	}
}

struct durmodel *durmodel_build(const struct durlog_header *h, struct durlog_rec *recs, size_t n,
                                bool complete, enum dm_model model)
{
	struct durmodel *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->model = model;
	m->tail_lost = !complete;
	m->h = *h;
	m->records = n;
	if (n) /* (recs may be NULL for an empty log: qsort's pointer must not be) */
		qsort(recs, n, sizeof(*recs), cmp_rec);
	for (size_t i = 0; i < n && !m->oom; i++)
		if (recs[i].fs < h->n_fs || recs[i].kind == DL_SYNC)
			replay(m, &recs[i]);
	if (m->oom) {
		durmodel_free(m);
		return NULL;
	}
	return m;
}

void durmodel_free(struct durmodel *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < DURLOG_MAX_FS; i++) {
		for (uint32_t k = 0; k < m->fs[i].n_files; k++)
			reset(&m->fs[i].files[k]);
		free(m->fs[i].files);
		free(m->fs[i].dirty);
	}
	free(m);
}

/* ---- the check ---- */

/* A log whose tail is lost (no end record): what a change after its last record may have done
 * to file f. Vanish: a delete removed it (a create that fails removes its own new file). Renew:
 * its id was deleted and created anew, so it holds the new file: of any length, of generations
 * from 1 (older than promised), its writes perhaps cut short by the crash (zeroes). Later
 * writes (newer generations) are check_data's. */
static bool may_vanish(const struct durmodel *m, const struct dm_file *f)
{
	bool deletes = !(m->h.flags & DLH_NO_DELETES), creates = !(m->h.flags & DLH_NO_CREATES);
	return m->tail_lost && (deletes || (creates && f->created));
}

static bool may_renew(const struct durmodel *m, const struct dm_file *f)
{
	return may_vanish(m, f) && !(m->h.flags & DLH_NO_CREATES);
}

/* A finding that breaks n promises, or (lost) that a lost tail may explain. */
static void add_finding(struct dm_report *rep, const struct dm_finding *fd, uint64_t n, bool lost)
{
	if (lost) {
		rep->lost_tail += n;
		rep->lost_by_kind[fd->kind]++;
		if (rep->n_lost_examples[fd->kind] < DM_EXAMPLES)
			rep->lost_examples[fd->kind][rep->n_lost_examples[fd->kind]++] = *fd;
		return;
	}
	rep->broken += n;
	rep->by_kind[fd->kind]++;
	if (rep->n_examples[fd->kind] < DM_EXAMPLES)
		rep->examples[fd->kind][rep->n_examples[fd->kind]++] = *fd;
}

static enum dm_kind kind_of(enum content_verdict v)
{
	switch (v) {
	case CONTENT_ZERO:
		return DM_ZEROED;
	case CONTENT_STALE:
		return DM_STALE;
	case CONTENT_TORN:
		return DM_TORN;
	default:
		return DM_WRONG;
	}
}

#define CHECK_CHUNK (256 * 1024)

/* Generations above the newest found in a file that a log whose tail is lost still accepts:
 * writes the crash cut short, of which no whole word landed. */
#define DM_LOST_GENS 64u

static struct content_key key_of(const struct durmodel *m, uint32_t fs, uint32_t id)
{
	return (struct content_key){.seed = m->h.fs[fs].content_seed,
	                            .fs = m->h.fs[fs].index,
	                            .file = id,
	                            .mode = m->h.fs[fs].content_mode,
	                            .pct = m->h.fs[fs].content_pct};
}

/* The newest generation a whole word of f's promised ranges (up to size) holds, into *top: 0,
 * or -errno when it cannot be read. */
static int newest_gen(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                      uint32_t id, const struct dm_file *f, uint64_t size, unsigned char *buf,
                      uint32_t *top)
{
	struct content_key key = key_of(m, fs, id);
	*top = 0;
	for (size_t i = 0; i < f->n_rng; i++)
		for (uint64_t off = f->rng[i].off; off < f->rng[i].end && off < size;) {
			uint64_t end = f->rng[i].end < size ? f->rng[i].end : size;
			size_t len = end - off < CHECK_CHUNK ? (size_t)(end - off) : CHECK_CHUNK;
			int64_t got = files->read(files->ctx, fs, f->dir, id, off, buf, len);
			if (got <= 0)
				return (int)got;
			uint32_t g = content_newest(buf, (size_t)got, &key, off);
			*top = g > *top ? g : *top;
			off += (uint64_t)got;
		}
	return 0;
}

/* The content of every promised range of f (up to size), of generations from the promised one
 * (any_gen: from 1) up to gen_max: 1 with *fd filled at the first bad place, 0 when all is as
 * promised, -errno when it cannot be read. */
static int check_content(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                         uint32_t id, const struct dm_file *f, uint64_t size, uint32_t gen_max,
                         bool any_gen, unsigned char *buf, struct dm_finding *fd)
{
	struct content_key key = key_of(m, fs, id);
	for (size_t i = 0; i < f->n_rng; i++) {
		const struct dm_range *r = &f->rng[i];
		uint32_t gen_min = f->gen_unknown || any_gen ? 1 : r->gen;
		for (uint64_t off = r->off; off < r->end && off < size;) {
			uint64_t end = r->end < size ? r->end : size;
			size_t len = end - off < CHECK_CHUNK ? (size_t)(end - off) : CHECK_CHUNK;
			int64_t got = files->read(files->ctx, fs, f->dir, id, off, buf, len);
			if (got < 0)
				return (int)got;
			if (got == 0)
				break; /* shrank meanwhile: the length check said so */
			struct content_finding cf;
			/* a window from 1 (all the file had up to gen_max) is, once the file's
			 * counter wrapped, every generation (content.h) */
			if (content_check(buf, (size_t)got, &key, off, gen_min, gen_max, &cf) &&
			    (gen_min != 1 || !f->wrapped ||
			     content_check(buf, (size_t)got, &key, off, gen_next(gen_max), gen_max,
			                   NULL))) {
				fd->kind = kind_of(cf.verdict);
				fd->off = cf.off;
				fd->gen_min = gen_min;
				fd->gen_max = gen_max;
				fd->gen_found = cf.gen_found;
				fd->shown = cf.shown;
				memcpy(fd->expected, cf.expected, sizeof(fd->expected));
				memcpy(fd->found, cf.found, sizeof(fd->found));
				fd->ref = r->ref;
				return 1;
			}
			off += (uint64_t)got;
		}
	}
	return 0;
}

/* f's content (check_content), and where the log's tail is lost what later changes may explain:
 * the generations up to the newest the file holds (and DM_LOST_GENS more: writes the crash cut
 * short, of which no whole word landed) are acceptable; and where its id may have been made anew
 * (may_renew), a finding is *lost when the content is of generations from 1 on (or zeroes). */
static int check_data(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                      uint32_t id, const struct dm_file *f, uint64_t size, unsigned char *buf,
                      struct dm_finding *fd, bool *lost)
{
	uint32_t hi = f->gen_unknown ? UINT32_MAX : f->gen_max, top;
	int rc = check_content(m, files, fs, id, f, size, hi, false, buf, fd);
	if (rc != 1 || !m->tail_lost)
		return rc;
	if (!f->gen_unknown) {
		if ((rc = newest_gen(m, files, fs, id, f, size, buf, &top)))
			return rc;
		top = gen_after(top, hi) ? top : hi;
		hi = gen_add(top, DM_LOST_GENS);
		if ((rc = check_content(m, files, fs, id, f, size, hi, false, buf, fd)) != 1)
			return rc;
	}
	if (may_renew(m, f)) {
		struct dm_finding any = *fd;
		int k = check_content(m, files, fs, id, f, size, hi, true, buf, &any);
		if (k < 0)
			return k;
		*lost = k == 0 || any.kind == DM_ZEROED;
	}
	return 1;
}

/* A file that cannot be opened or read (-errno e) where its promises say it is: each of them
 * broken, as one finding of kind unreadable. */
static void unreadable(struct dm_report *rep, struct dm_finding *fd, int e, struct dm_ref ref,
                       uint64_t broken)
{
	fd->kind = DM_UNREADABLE;
	fd->err = e;
	fd->ref = ref;
	add_finding(rep, fd, broken, false);
}

/* The record that promised f's data: its length's, else its first range's. */
static struct dm_ref data_ref(const struct dm_file *f)
{
	return f->min_len || !f->n_rng ? f->len_ref : f->rng[0].ref;
}

/* One file's promises: its name, its length and content. */
static void check_file(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                       uint32_t id, const struct dm_file *f, unsigned char *buf,
                       struct dm_report *rep)
{
	bool data = f->n_rng || f->min_len;
	struct dm_finding fd = {.fs = fs, .file = id, .dir = f->dir};
	rep->files_expected++;
	rep->checked += f->name_durable + data;
	rep->name_promises += f->name_durable;
	rep->data_promises += data;
	rep->names_created_promised += f->name_durable && f->created;
	int64_t size = files->size(files->ctx, fs, f->dir, id);
	if (size == -ENOENT) {
		if (!f->name_durable) {
			rep->absent_unpromised++;
			rep->kept += data; /* the model allows it: the name was never promised */
			return;
		}
		fd.kind = DM_MISSING;
		fd.ref = f->name_ref;
		add_finding(rep, &fd, 1 + data, may_vanish(m, f));
		return;
	}
	if (size < 0) {
		unreadable(rep, &fd, (int)-size, f->name_durable ? f->name_ref : data_ref(f),
		           f->name_durable + data);
		return;
	}
	if (!data) {
		rep->kept += f->name_durable;
		return;
	}
	int rc = 0;
	bool lost = false;
	if ((uint64_t)size < f->min_len) {
		lost = may_renew(m, f);
		fd.kind = DM_SHORT;
		fd.off = (uint64_t)size;
		fd.expected_len = f->min_len;
		fd.ref = f->len_ref;
		rc = 1;
	} else {
		rc = check_data(m, files, fs, id, f, (uint64_t)size, buf, &fd, &lost);
		if (rc < 0) {
			/* its name was found (the open worked); its content cannot be read */
			rep->kept += f->name_durable;
			fd.off = 0;
			unreadable(rep, &fd, -rc, data_ref(f), 1);
			return;
		}
	}
	rep->kept += f->name_durable;
	if (rc)
		add_finding(rep, &fd, 1, lost);
	else
		rep->kept++;
}

int durmodel_check(struct durmodel *m, const struct dm_files *files, struct dm_report *rep,
                   char *err, size_t errlen)
{
	memset(rep, 0, sizeof(*rep));
	rep->model = m->model;
	rep->records = m->records;
	memcpy(rep->acks, m->acks, sizeof(rep->acks));
	rep->osync_writes = m->osync;
	rep->created = m->created;
	rep->tail_lost = m->tail_lost;
	unsigned char *buf = malloc(CHECK_CHUNK);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t fs = 0; fs < m->h.n_fs; fs++)
		for (uint32_t id = 0; id < m->fs[fs].n_files; id++) {
			const struct dm_file *f = &m->fs[fs].files[id];
			if (f->live && (f->name_durable || f->n_rng || f->min_len))
				check_file(m, files, fs, id, f, buf, rep);
		}
	free(buf);
	return 0;
}
