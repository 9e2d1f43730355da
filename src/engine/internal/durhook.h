/* durhook.h - what the workers record into the journal of promises (--durability-log,
 * durlog.h; the cold functions are durhook.c's, the main thread's side is durjournal.c). Every
 * hook is one predictable branch when the journal is off (w->dl NULL):
 * `if (durhook_on(w)) durhook_add(...)`; with it on, a record goes into the worker's own ring
 * (no lock, no system call; a clock read). */
#ifndef FSMIX_DURHOOK_H
#define FSMIX_DURHOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "durlog.h"
#include "engine_int.h"

/* The content generation the pool records for file id (POOL_GEN_UNKNOWN, 0: unknown, a file
 * of an old manifest; the journal's 0 means the same). */
#define DURHOOK_POOL_GEN(pool, id) pool_gen(pool, id)
/* The content seed of fs's tree (content.h: the tree's own, whatever --seed). */
#define DURHOOK_CONTENT_SEED(fs) (engine_content_key(fs, 0).seed)

static inline bool durhook_on(const struct worker *w)
{
	return UNLIKELY(w->dl != NULL);
}

/* durhook_add - one record of kind (enum durlog_kind) into w's ring; t_end 0: now. */
void durhook_add(struct worker *w, uint8_t kind, uint8_t flags, const struct engine_fs *fs,
                 uint32_t file, uint32_t dir, uint64_t off, uint64_t len, uint64_t size,
                 uint32_t gen, uint64_t t_start, uint64_t t_end);

/* durhook_add_fallocated - the DL_FALLOCATE record (durhook_fallocate): its aux is the mode. */
void durhook_add_fallocated(struct worker *w, const struct engine_fs *fs, uint32_t id, uint32_t dir,
                            uint32_t mode, uint64_t off, uint64_t len, uint64_t size);

/* durhook_add_renamed - the DL_RENAME record (durhook_rename): its aux is the directory left. */
void durhook_add_renamed(struct worker *w, const struct engine_fs *fs, uint32_t id, uint32_t from,
                         uint32_t to);

/* durhook_add_linked - a record of kind whose dir is to and aux from (DL_RENAME: the directory
 * left; DL_LINK, DL_UNLINK: the second name's directory and the first name's). */
void durhook_add_linked(struct worker *w, uint8_t kind, const struct engine_fs *fs, uint32_t id,
                        uint32_t to, uint32_t from);

/* What a DL_DIRSYNC of meta/ names (no file lives there). */
#define DURHOOK_DIR_META (UINT32_MAX - 1)

/* durhook_dirsync - dirsync=1: fsync the directory dir of fs (data/ for TREE_DIR_TOP; meta/ when
 * meta), timed as the syscall fsync (which it is) and counted as sync time, journaled as
 * DL_DIRSYNC. 0, or
 * -errno (the caller latches it as a failure of SYS_fsync). */
int durhook_dirsync(struct worker *w, struct engine_fs *fs, uint32_t dir, bool meta);

/* durhook_sync_confirm - after sync(2), which reports no error: syncfs(2) on every tested
 * filesystem, which reports a writeback error since its last check (errseq, Linux >= 5.8) or a
 * dead (shut down) filesystem. 0: the sync's promise may be recorded; -errno with *bad the
 * filesystem whose syncfs failed: it may not. w->dl_t0, dl_t1 stay the sync's times. */
int durhook_sync_confirm(struct worker *w, struct engine_fs **bad);

/* A write op's records: its start (the generation it writes), each extent it wrote. */
static inline void durhook_wstart(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                  uint32_t gen)
{
	if (durhook_on(w))
		durhook_add(w, DL_WSTART, 0, fs, id, 0, 0, 0, 0, gen, 0, 0);
}

static inline void durhook_write(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                 uint32_t dir, uint32_t gen, uint64_t off, uint64_t len,
                                 uint64_t size)
{
	if (durhook_on(w))
		durhook_add(w, DL_WRITE, w->g->open_sync ? DLF_SYNC : 0, fs, id, dir, off, len,
		            size, gen, 0, 0);
}

/* An acknowledged fsync or fdatasync (sys: SYS_fsync or SYS_fdatasync) of file id, whose length
 * is size, at generation gen: the times of the call are w->dl_t0, dl_t1 (t_sync_call). */
static inline void durhook_synced(struct worker *w, const struct engine_fs *fs, enum sys_id sys,
                                  uint32_t id, uint32_t dir, uint64_t size, uint32_t gen)
{
	if (durhook_on(w))
		durhook_add(w, sys == SYS_fsync ? DL_FSYNC : DL_FDATASYNC, 0, fs, id, dir, 0, 0,
		            size, gen, w->dl_t0, w->dl_t1);
}

/* A name made or removed (DL_CREATE, DL_DELETE), and sync/syncfs acknowledged (DL_SYNC,
 * DL_SYNCFS: the times of the call from t_sync_call). */
static inline void durhook_name(struct worker *w, const struct engine_fs *fs, uint8_t kind,
                                uint32_t id, uint32_t dir)
{
	if (durhook_on(w))
		durhook_add(w, kind, dir == TREE_DIR_TOP ? DLF_TOP : 0, fs, id, dir, 0, 0, 0,
		            kind == DL_CREATE, 0, 0);
}

/* rename (DL_RENAME), logged once the rename(2) returned (or failed after --crash-after's
 * shutdown: it may have happened): file id left directory from for to. */
static inline void durhook_rename(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                  uint32_t from, uint32_t to)
{
	if (durhook_on(w))
		durhook_add_renamed(w, fs, id, from, to);
}

/* link, unlink (DL_LINK, DL_UNLINK), logged as durhook_rename: file id's second name l<id> in
 * directory ldir made or removed; its first name f<id> is in dir. */
static inline void durhook_link(struct worker *w, const struct engine_fs *fs, uint8_t kind,
                                uint32_t id, uint32_t ldir, uint32_t dir)
{
	if (durhook_on(w))
		durhook_add_linked(w, kind, fs, id, ldir, dir);
}

/* replace_fsync (DL_REPLACE), logged once its rename(2) returned (as durhook_rename): the
 * temporary file, generation gen, size bytes, fsynced, renamed over file id of dir, whose
 * length was old. Its times: the temporary file's fsync (t_sync_call's w->dl_t0) to now. */
static inline void durhook_replace(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                   uint32_t dir, uint32_t gen, uint64_t old, uint64_t size)
{
	if (durhook_on(w))
		durhook_add(w, DL_REPLACE, dir == TREE_DIR_TOP ? DLF_TOP : 0, fs, id, dir, old, 0,
		            size, gen, w->dl_t0, 0);
}

/* truncate (DL_TRUNCATE), logged as durhook_rename: file id of dir is now size bytes long (was
 * old). */
static inline void durhook_truncate(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                    uint32_t dir, uint64_t old, uint64_t size)
{
	if (durhook_on(w))
		durhook_add(w, DL_TRUNCATE, dir == TREE_DIR_TOP ? DLF_TOP : 0, fs, id, dir, old, 0,
		            size, 0, 0, 0);
}

/* fallocate, punch_hole, zero_range (DL_FALLOCATE): file id of dir had [off, off+len)
 * allocated in mode (enum durlog_falloc) and is size bytes long after it. */
static inline void durhook_fallocate(struct worker *w, const struct engine_fs *fs, uint32_t id,
                                     uint32_t dir, uint32_t mode, uint64_t off, uint64_t len,
                                     uint64_t size)
{
	if (durhook_on(w))
		durhook_add_fallocated(w, fs, id, dir, mode, off, len, size);
}

/* A directory made or removed (DL_MKDIR, DL_RMDIR): id under parent (DURHOOK_DIR_META: meta/m<id>;
 * TREE_DIR_TOP: createdir's data/d<id>), logged as durhook_rename. */
static inline void durhook_dir(struct worker *w, const struct engine_fs *fs, uint8_t kind,
                               uint32_t id, uint32_t parent)
{
	if (durhook_on(w))
		durhook_add(w, kind, parent == TREE_DIR_TOP ? DLF_TOP : 0, fs, id, parent, 0, 0, 0,
		            0, 0, 0);
}

static inline void durhook_fs_synced(struct worker *w, const struct engine_fs *fs, uint8_t kind)
{
	if (durhook_on(w))
		durhook_add(w, kind, 0, fs, 0, 0, 0, 0, 0, 0, w->dl_t0, w->dl_t1);
}

#endif
