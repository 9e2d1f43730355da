/* durmodel_check.c - the durability model's check: every promise the replay made (durmodel.c)
 * against the files as they are, read through callbacks (durmodel.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "durcheck.h"
#include "durmodel_int.h"
#include "tree.h"

const char *dm_kind_name(enum dm_kind k)
{
	static const char *const names[DM_KIND_COUNT] = {
	    [DM_MISSING] = "missing",
	    [DM_SHORT] = "short",
	    [DM_WRONG] = "wrong",
	    [DM_STALE] = "stale",
	    [DM_TORN] = "torn",
	    [DM_ZEROED] = "zeroed",
	    [DM_UNREADABLE] = "unreadable",
	    [DM_RESURRECTED] = "resurrected",
	    [DM_MIXED] = "mixed",
	    [DM_EMPTIED] = "emptied",
	    [DM_SPLIT] = "split",
	};
	return (unsigned)k < DM_KIND_COUNT ? names[k] : "?";
}

/* Whether the lost tail may have changed f: by_flags, what the header says the run does, when
 * the tail is unknown; when it is known (durmodel_known_tail), only what a record after the cut
 * did to f itself. */
static bool tail_may(const struct durmodel *m, const struct dm_file *f, bool by_flags)
{
	if (!m->tail_lost)
		return false;
	return m->tail_known ? f->tail_touched : by_flags;
}

/* A log whose tail is lost (no end record): what a change after its last record may have done
 * to file f. Vanish: a delete removed it (a create that fails removes its own new file). Renew:
 * its id was deleted and created anew, so it holds the new file: of any length, of generations
 * from 1 (older than promised), its writes perhaps cut short by the crash (zeroes). Later
 * writes (newer generations) are check_data's. */
static bool may_vanish(const struct durmodel *m, const struct dm_file *f)
{
	bool deletes = !(m->h.flags & DLH_NO_DELETES), creates = !(m->h.flags & DLH_NO_CREATES);
	return tail_may(m, f, deletes || (creates && f->created));
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
	for (size_t i = 0; i < f->rng.n; i++)
		for (uint64_t off = f->rng.r[i].off; off < f->rng.r[i].end && off < size;) {
			uint64_t end = f->rng.r[i].end < size ? f->rng.r[i].end : size;
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
	for (size_t i = 0; i < f->rng.n; i++) {
		const struct dm_range *r = &f->rng.r[i];
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
	return f->min_len || !f->rng.n ? f->len_ref : f->rng.r[0].ref;
}

/* A replaced file (durmodel_ns.h), size bytes long where it was found, against the replace's
 * rules: true when they decided (a broken promise, or its old content in the open window),
 * false when the file's usual checks decide. */
static bool check_replaced(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                           const struct dm_file *f, int64_t size, unsigned char *buf,
                           struct dm_finding *fd, struct dm_report *rep)
{
	struct content_key key = key_of(m, fs, f->id);
	int rc = dm_ns_check_replace(&f->ns, files, fs, f->dir, f->id, &key, (uint64_t)size, buf,
	                             CHECK_CHUNK, fd);
	if (rc < 0) {
		rep->kept += f->name_durable;
		fd->off = 0;
		unreadable(rep, fd, -rc, data_ref(f), 1);
		return true;
	}
	if (rc) /* 1 broken, 2 kept */
		rep->kept += f->name_durable + (rc == 2);
	if (rc == 1) /* (a lost tail: the id deleted and made anew may explain it) */
		add_finding(rep, fd, 1, may_renew(m, f));
	return rc != 0;
}

/* Whether a name promised in data directory dir of fs holds: the directory was not made in the
 * run, or its entry is promised too, or it is there (durmodel.h: a name in a directory the run
 * made is promised only with the directory's own entry; lost with it, it broke nothing). */
static bool dir_named(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                      uint32_t dir)
{
	const struct dm_file *x = dm_find(&m->datadirs[fs], dir);
	if (!x || !x->live || x->name_durable || !files->dir)
		return true;
	int rc = files->dir(files->ctx, fs, TREE_DIR_TOP, dir);
	return rc != -ENOENT && rc != -EEXIST; /* (a file in its place: no directory of it) */
}

/* One file's promises: its name, its length and content, where it is (a rename not yet durable
 * may have been lost: durmodel_ns.h). */
static void check_file(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                       uint32_t id, const struct dm_file *file, unsigned char *buf,
                       struct dm_report *rep)
{
	struct dm_file here = *file;
	const struct dm_file *f = &here;
	bool data = f->rng.n || f->min_len;
	rep->files_expected++;
	rep->checked += f->name_durable + data;
	rep->name_promises += f->name_durable;
	rep->data_promises += data;
	rep->names_created_promised += f->name_durable && f->created;
	int64_t size = dm_ns_locate(&f->ns, files, fs, id, file->dir, &here.dir);
	struct dm_finding fd = {.fs = fs, .file = id, .dir = f->dir};
	if (size < 0 &&
	    (!f->name_durable || !dm_ns_named(&f->ns) || !dir_named(m, files, fs, file->dir))) {
		rep->absent_unpromised++;
		/* the model allows it: the name was never promised (or the file moved more often
		 * than durmodel_ns tracks: its place is unknown; or it was made in a directory the
		 * run made whose entry, not promised, is lost: judged where the name is now, not
		 * where a lookup failed), so it may be absent, and a lookup that fails (EIO,
		 * EBADMSG, ENOTDIR) tells nothing: the file may be absent behind it */
		rep->kept += data + f->name_durable;
		return;
	}
	if (size == -ENOENT) {
		fd.kind = DM_MISSING;
		fd.ref = f->name_ref;
		add_finding(rep, &fd, 1 + data, may_vanish(m, f));
		return;
	}
	if (size < 0) { /* its name promised: found nowhere, looked up in vain somewhere */
		unreadable(rep, &fd, (int)-size, f->name_ref, 1 + data);
		return;
	}
	if (!data) {
		rep->kept += f->name_durable;
		return;
	}
	if (f->ns.replaced && check_replaced(m, files, fs, f, size, buf, &fd, rep))
		return;
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

/* A name whose unlink a later call made durable (durpromise.def's unlinks) in dir: it must stay
 * gone. Found: resurrected, unless the log's tail is lost and the run created files (a create
 * of the id after the log's last record). Found as something that is not a regular file
 * (-EEXIST: a directory, after a cut that lost the unlink and reused the inode) is found too:
 * the name is back. A name that cannot be looked up tells nothing of it. */
static void check_gone_in(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                          const struct dm_file *f, uint32_t dir, struct dm_ref ref,
                          struct dm_report *rep)
{
	rep->checked++;
	rep->unlink_promises++;
	int64_t size = files->size(files->ctx, fs, dir, f->id);
	if (size < 0 && size != -EEXIST) {
		rep->kept++;
		return;
	}
	struct dm_finding fd = {
	    .kind = DM_RESURRECTED, .fs = fs, .file = f->id, .dir = dir, .ref = ref};
	add_finding(rep, &fd, 1, tail_may(m, f, !(m->h.flags & DLH_NO_CREATES)));
}

/* A deleted file: gone from the directory of its unlink once that is durable, and from every
 * directory a rename durably left (durmodel_ns.h), whatever became of its unlink. */
static void check_gone(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                       const struct dm_file *f, struct dm_report *rep)
{
	if (f->gone_durable)
		check_gone_in(m, files, fs, f, f->dir, f->gone_ref, rep);
	for (size_t i = 0; i < f->ns.n_left; i++)
		if (f->ns.left[i].dir != f->dir)
			check_gone_in(m, files, fs, f, f->ns.left[i].dir, f->ns.left[i].ref, rep);
}

/* The second name of f (durmodel_ns.h), whose last change (link or unlink) is durable: one
 * promise, a name's or an unlink's. A missing or other-inode second name (against an f<id>
 * whose current name is durable), or one back, is broken -- or lost tail, when the log's tail is
 * lost and the run removes names (an unlink or delete after its last record may explain it). */
static void check_link(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                       const struct dm_file *f, struct dm_report *rep)
{
	bool made = f->ns.link == DM_LINK_MADE;
	if (made && !f->live)
		return; /* (a delete removes the second name first: a log that says otherwise) */
	rep->checked++;
	rep->name_promises += made;
	rep->unlink_promises += !made;
	rep->link_promises++;
	uint32_t dir = f->dir;
	int64_t size = made ? dm_ns_locate(&f->ns, files, fs, f->id, f->dir, &dir) : -ENOENT;
	struct dm_finding fd = {.fs = fs, .file = f->id};
	/* the f<id> found is the inode l<id> must name only once its current name is durable and
	 * no replace is open: else it may be an earlier one (a delete before the id was made anew,
	 * or a replace's rename, that no call covered) */
	bool current = size >= 0 && f->name_durable && !f->ns.rep_open;
	int rc = dm_ns_check_link(&f->ns, files, fs, f->id, dir, current, &fd);
	if (rc < 0) {
		unreadable(rep, &fd, -rc, fd.ref, 1);
		return;
	}
	if (rc == 0) {
		rep->kept++;
		return;
	}
	/* (l<id> changes by a link or unlink, and by a delete or replace, which unlink it first) */
	bool names =
	    (m->h.flags & (DLH_NO_DELETES | DLH_NO_LINKS)) != (DLH_NO_DELETES | DLH_NO_LINKS);
	add_finding(rep, &fd, 1, tail_may(m, f, names));
}

static int cmp_id(const void *a, const void *b)
{
	const struct dm_file *x = *(const struct dm_file *const *)a,
	                     *y = *(const struct dm_file *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The verdict of the file just checked: the first kind whose count grew since before (kept when
 * none did), for a per-file listing (verify's JSON "files"). */
static void add_verdict(struct dm_report *rep, const struct dm_file *f, uint32_t fs,
                        const uint64_t before[DM_KIND_COUNT], const uint64_t lost[DM_KIND_COUNT],
                        bool is_dir)
{
	struct dm_verdict *v = &rep->verdicts[rep->n_verdicts++];
	*v = (struct dm_verdict){
	    .fs = fs, .file = f->id, .kind = DM_KIND_COUNT, .is_dir = is_dir, .parent = f->dir};
	for (int k = 0; k < DM_KIND_COUNT && v->kind == DM_KIND_COUNT; k++)
		if (rep->by_kind[k] != before[k] || rep->lost_by_kind[k] != lost[k]) {
			v->kind = (uint8_t)k;
			v->lost = rep->by_kind[k] == before[k];
		}
}

/* A directory the run made or removed (x: its entry in a table of directories, durmodel_int.h):
 * made with its entry promised, it must be there (missing); removed with its removal promised,
 * it must not (resurrected: its name found as anything, a file or a symlink too). A log whose
 * tail is lost: an rmdir, or a mkdir of the id, after its last record may explain either of
 * meta/ (lost tail; a missing one only where the run removes directories: DLH_NO_RMDIRS). One that
 * cannot be looked up: unreadable where it must be, nothing told where it must not. False when
 * nothing of it is promised. */
static bool check_dir(const struct durmodel *m, const struct dm_files *files, uint32_t fs,
                      const struct dm_file *x, struct dm_report *rep)
{
	bool made = x->live && x->name_durable, gone = x->gone && x->gone_durable;
	if (!made && !gone)
		return false;
	rep->checked++;
	rep->dir_promises++;
	int rc = files->dir(files->ctx, fs, x->dir, x->id);
	struct dm_finding fd = {.fs = fs, .file = x->id, .dir = x->dir, .is_dir = true};
	/* removed: its name back as anything (-EEXIST: a file, a symlink) is back, as a deleted
	 * file's name (check_gone_in); one that cannot be looked up tells nothing */
	if ((made && rc == 0) || (gone && rc < 0 && rc != -EEXIST)) {
		rep->kept++;
	} else if (made && rc != -ENOENT && rc != -EEXIST) {
		unreadable(rep, &fd, -rc, x->name_ref, 1);
	} else {
		fd.kind = made ? DM_MISSING : DM_RESURRECTED;
		fd.ref = made ? x->name_ref : x->gone_ref;
		/* (createdir's directories of data/ are never removed: nothing lost explains one;
		 * one of meta/ missing only an rmdir after the last record does) */
		bool lost = x->dir == DURLOG_DIR_META && (!made || !(m->h.flags & DLH_NO_RMDIRS));
		add_finding(rep, &fd, 1, m->tail_lost && lost);
	}
	return true;
}

/* How far files->prefetch runs ahead of the checks: the reads of many files queued at once,
 * but not so many that the first are evicted before they are checked (a large tree). */
#define PREFETCH_WINDOW (64ull << 20)

/* The bytes of f check_file reads (its promised ranges, up to its length), 0 when it reads
 * none: what files->prefetch is asked for. */
static uint64_t prefetched(const struct dm_file *f)
{
	if (!f->live || !(f->rng.n || f->min_len))
		return 0;
	uint64_t end = f->min_len;
	for (size_t i = 0; i < f->rng.n; i++)
		end = f->rng.r[i].end > end ? f->rng.r[i].end : end;
	return end ? end : 1;
}

int durmodel_check(struct durmodel *m, const struct dm_files *files, struct dm_report *rep,
                   char *err, size_t errlen)
{
	free(rep->verdicts);
	memset(rep, 0, sizeof(*rep));
	size_t n_all = 1;
	for (uint32_t fs = 0; fs < m->h.n_fs && fs < DURLOG_MAX_FS; fs++)
		n_all += (size_t)m->fs[fs].n_files + m->metas[fs].n_files + m->datadirs[fs].n_files;
	rep->verdicts = malloc(n_all * sizeof(*rep->verdicts));
	rep->model = m->model;
	rep->records = m->records;
	memcpy(rep->acks, m->acks, sizeof(rep->acks));
	rep->osync_writes = m->osync;
	rep->created = m->created;
	rep->tail_lost = m->tail_lost;
	unsigned char *buf = rep->verdicts ? malloc(CHECK_CHUNK) : NULL;
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t fs = 0; fs < m->h.n_fs && fs < DURLOG_MAX_FS; fs++) {
		const struct dm_fs *d = &m->fs[fs];
		/* in the order of their ids (the examples too) */
		const struct dm_file **by_id = malloc(((size_t)d->n_files + 1) * sizeof(*by_id));
		if (!by_id) {
			free(buf);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < d->n_files; i++)
			by_id[i] = &d->files[i];
		qsort(by_id, d->n_files, sizeof(*by_id), cmp_id);
		uint32_t ahead_to = 0; /* files before it: prefetched (or nothing to read) */
		uint64_t ahead = 0;    /* bytes prefetched and not yet checked */
		for (uint32_t i = 0; i < d->n_files; i++) {
			const struct dm_file *f = by_id[i];
			for (; files->prefetch && ahead_to < d->n_files &&
			       (ahead_to <= i || ahead < PREFETCH_WINDOW);
			     ahead_to++) {
				const struct dm_file *g = by_id[ahead_to];
				uint64_t bytes = prefetched(g);
				if (bytes)
					files->prefetch(files->ctx, fs, g->dir, g->id);
				ahead += bytes;
			}
			/* ahead: the bytes of files i to ahead_to - 1, f among them, once f is
			 * prefetched; f, checked next, leaves the window */
			uint64_t now = files->prefetch ? prefetched(f) : 0;
			FSMIX_ASSERT_MSG(!files->prefetch || (ahead_to > i && ahead >= now),
			                 "file %u of %u: prefetched to %u, %" PRIu64
			                 " bytes ahead, %" PRIu64 " now",
			                 i, d->n_files, ahead_to, ahead, now);
			ahead -= now;
			uint64_t before[DM_KIND_COUNT], lost[DM_KIND_COUNT];
			memcpy(before, rep->by_kind, sizeof(before));
			memcpy(lost, rep->lost_by_kind, sizeof(lost));
			bool link = dm_ns_link_promised(&f->ns);
			if (f->live && (f->name_durable || f->rng.n || f->min_len))
				check_file(m, files, fs, f->id, f, buf, rep);
			else if (f->gone && (f->gone_durable || f->ns.n_left))
				check_gone(m, files, fs, f, rep);
			else if (!link)
				continue;
			if (link)
				check_link(m, files, fs, f, rep);
			add_verdict(rep, f, fs, before, lost, false);
		}
		free(by_id);
		for (int t = 0; t < 2 && files->dir; t++) { /* meta/'s, then data/'s */
			const struct dm_fs *dd = t ? &m->datadirs[fs] : &m->metas[fs];
			for (uint32_t i = 0; i < dd->n_files; i++) { /* (in the order made) */
				uint64_t before[DM_KIND_COUNT], lost[DM_KIND_COUNT];
				memcpy(before, rep->by_kind, sizeof(before));
				memcpy(lost, rep->lost_by_kind, sizeof(lost));
				if (check_dir(m, files, fs, &dd->files[i], rep))
					add_verdict(rep, &dd->files[i], fs, before, lost, true);
			}
		}
	}
	free(buf);
	return 0;
}
