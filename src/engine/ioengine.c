/* ioengine.c - the list of I/O engines (ioengine.h) and the check, before a run builds
 * anything, that the engines its groups name can run here. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine_int.h"
#include "ioengine.h"

/* The one list: enum io_engine_kind -> engine. NULL: not in this build. */
static const struct io_engine_ops *const io_engines[IOENG_COUNT] = {
    [IOENG_SYNC] = &io_engine_sync,
#if FSMIX_HAVE_URING
    [IOENG_URING] = &io_engine_uring,
#endif
};

const struct io_engine_ops *io_engine_of(int k)
{
	return k >= 0 && k < IOENG_COUNT ? io_engines[k] : NULL;
}

#define C(x)    (1u << IOC_##x)
#define FILE_IO (C(OPENAT) | C(CLOSE))
/* The call kinds each operation's body can make (the warning of a call made synchronously
 * names the operations that make it: an _fsync operation makes no fdatasync, an _fdatasync
 * one no fsync); dirsync=1 adds an open, fsync and close of a directory
 * to the namespace operations (dirsync_calls). */
static const uint32_t op_calls[OP_COUNT] = {
    [OP_read] = FILE_IO | C(READ) | C(LSEEK),
    [OP_readall] = FILE_IO | C(READ),
    [OP_write] = FILE_IO | C(WRITE) | C(LSEEK),
    [OP_create] = FILE_IO | C(WRITE) | C(UNLINKAT),
    [OP_append] = FILE_IO | C(WRITE),
    [OP_delete] = C(UNLINKAT),
    [OP_metaop] = C(MKDIRAT) | C(UNLINKAT) | C(RENAMEAT),
    [OP_createdir] = C(MKDIRAT),
    [OP_stat] = C(STAT),
    [OP_writeall] = FILE_IO | C(WRITE),
    [OP_writeall_fsync] = FILE_IO | C(WRITE) | C(FSYNC),
    [OP_open_close] = FILE_IO,
    [OP_write_fsync] = FILE_IO | C(WRITE) | C(LSEEK) | C(FSYNC),
    [OP_create_fsync] = FILE_IO | C(WRITE) | C(UNLINKAT) | C(FSYNC),
    [OP_append_fsync] = FILE_IO | C(WRITE) | C(FSYNC),
    [OP_write_fdatasync] = FILE_IO | C(WRITE) | C(LSEEK) | C(FDATASYNC),
    [OP_writeall_fdatasync] = FILE_IO | C(WRITE) | C(FDATASYNC),
    [OP_create_fdatasync] = FILE_IO | C(WRITE) | C(UNLINKAT) | C(FDATASYNC),
    [OP_append_fdatasync] = FILE_IO | C(WRITE) | C(FDATASYNC),
    [OP_append_fsync2] = FILE_IO | C(WRITE) | C(FSYNC),
    [OP_sync] = C(SYNC) | C(SYNCFS),
    [OP_syncfs] = C(SYNCFS),
    [OP_rename] = C(RENAMEAT),
    [OP_replace_fsync] = FILE_IO | C(WRITE) | C(FSYNC) | C(RENAMEAT) | C(UNLINKAT),
    [OP_truncate] = FILE_IO | C(FTRUNCATE),
    [OP_fallocate] = FILE_IO | C(FALLOCATE),
    [OP_punch_hole] = FILE_IO | C(FALLOCATE),
    [OP_zero_range] = FILE_IO | C(FALLOCATE),
    [OP_link] = C(LINKAT),
    [OP_unlink] = C(UNLINKAT),
    [OP_mkdir] = C(MKDIRAT),
    [OP_rmdir] = C(UNLINKAT),
    /* a sequence makes its steps' calls (weight[step], plan.h) */
    [OP_seq_create] = C(OPENAT) | C(UNLINKAT),
    [OP_seq_open] = C(OPENAT),
    [OP_seq_write] = C(WRITE) | C(LSEEK),
    [OP_seq_writeall] = C(WRITE) | C(LSEEK),
    [OP_seq_append] = C(WRITE) | C(LSEEK),
    [OP_seq_read] = C(READ) | C(LSEEK),
    [OP_seq_readall] = C(READ) | C(LSEEK),
    [OP_seq_fsync] = C(FSYNC),
    [OP_seq_fdatasync] = C(FDATASYNC),
    [OP_seq_close] = C(CLOSE),
    [OP_seq_stat] = C(STAT),
    [OP_seq_rename] = C(RENAMEAT),
    [OP_seq_delete] = C(UNLINKAT),
};
static const uint32_t dirsync_calls = FILE_IO | C(FSYNC);
#undef C
#undef FILE_IO

static const char *const io_call_names[IOC_COUNT] = {
    [IOC_OPENAT] = "openat",       [IOC_READ] = "read",       [IOC_WRITE] = "write",
    [IOC_LSEEK] = "lseek",         [IOC_CLOSE] = "close",     [IOC_STAT] = "statx",
    [IOC_UNLINKAT] = "unlinkat",   [IOC_MKDIRAT] = "mkdirat", [IOC_RENAMEAT] = "renameat",
    [IOC_LINKAT] = "linkat",       [IOC_FSYNC] = "fsync",     [IOC_FDATASYNC] = "fdatasync",
    [IOC_SYNCFS] = "syncfs",       [IOC_SYNC] = "sync",       [IOC_FTRUNCATE] = "ftruncate",
    [IOC_FALLOCATE] = "fallocate",
};

/* Group i of the run: the [threadgroupN] sections, then the filesystems' aging groups (NULL
 * for a filesystem without one); i < n_groups + n_fs. */
static const struct plan_group *group_at(const struct plan *pl, size_t i)
{
	return i < pl->n_groups ? &pl->groups[i] : pl->fs[i - pl->n_groups].age;
}

/* The calls operation op of group g makes: its own, and dirsync=1's for those that make,
 * remove or move names. */
static uint32_t calls_of(const struct plan_group *g, int op)
{
	const unsigned names = OPF_CREATES | OPF_DELETES | OPF_RENAMES | OPF_LINKS | OPF_META;
	return op_calls[op] | (g->dirsync && (op_table[op].flags & names) ? dirsync_calls : 0);
}

/* The calls group g's weighted operations make. */
static uint32_t group_calls(const struct plan_group *g)
{
	uint32_t m = 0;
	for (int op = 0; op < OP_COUNT; op++)
		if (g->weight[op])
			m |= calls_of(g, op);
	return m;
}

/* One warning for call kind c that engine k makes synchronously, naming the operations of
 * k's groups that make it; nothing when no such group weights one. */
static void warn_sync_call(struct engine *e, int k, enum io_call c)
{
	char ops[512] = "";
	size_t n = 0, count = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		bool uses = false;
		for (size_t gi = 0; gi < e->plan->n_groups + e->plan->n_fs; gi++) {
			const struct plan_group *g = group_at(e->plan, gi);
			uses |= g && g->io_engine == k && g->weight[op] &&
			        (calls_of(g, op) & (1u << c));
		}
		if (uses && n < sizeof(ops)) {
			n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s%s", n ? ", " : "",
			                      op_table[op].name);
			count++;
		}
	}
	if (n)
		fprintf(e->opts->log,
		        "fsmix: warning: engine=%s: %s cannot go through %s on this kernel; "
		        "operation%s %s make%s it synchronously\n",
		        io_engine_word(k), io_call_names[c], io_engine_word(k),
		        count > 1 ? "s" : "", ops, count > 1 ? "" : "s");
}

/* Every call entry of an engine is set (a missing one would crash at the first such call,
 * maybe hours into a run): the bodies call through them without a test. */
static bool ops_complete(const struct io_engine_ops *io)
{
	return io->name && io->openat && io->read && io->write && io->lseek && io->close &&
	       io->stat && io->unlinkat && io->mkdirat && io->renameat && io->linkat && io->fsync &&
	       io->syncfs && io->sync && io->ftruncate && io->fallocate;
}

enum failure io_engine_check(struct engine *e, char *err, size_t errlen)
{
	for (int k = 0; k < IOENG_COUNT; k++)
		FSMIX_ASSERT_MSG(!io_engine_of(k) || ops_complete(io_engine_of(k)),
		                 "engine %s: a call entry is NULL", io_engine_word(k));
	for (int k = 0; k < IOENG_COUNT; k++) {
		uint32_t used = 0;
		for (size_t gi = 0; gi < e->plan->n_groups + e->plan->n_fs; gi++) {
			const struct plan_group *g = group_at(e->plan, gi);
			if (g && g->io_engine == k)
				used |= group_calls(g);
		}
		if (!used)
			continue;
		const struct io_engine_ops *io = io_engine_of(k);
		if (!io) {
			snprintf(err, errlen,
			         "engine=%s: this fsmix was built without it (liburing-dev; "
			         "docs/engines.md)",
			         io_engine_word(k));
			return FAIL_UNSUPPORTED;
		}
		bool missing[IOC_COUNT] = {0};
		enum failure f = io->check ? io->check(missing, err, errlen) : FAIL_NONE;
		if (f)
			return f;
		for (int c = 0; c < IOC_COUNT; c++)
			if (missing[c] && (used & (1u << c)))
				warn_sync_call(e, k, (enum io_call)c);
	}
	return FAIL_NONE;
}
