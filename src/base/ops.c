/* ops.c - the operation and syscall tables, from ops.def and sys.def. */
#include "ops.h"

const struct op_desc op_table[OP_COUNT] = {
#define OP(name_, flags_, body_, help_)                                                            \
	[OP_##name_] = {.name = #name_, .flags = (flags_), .help = (help_)},
#include "ops.def"
#undef OP
};

const struct sys_desc sys_table[SYS_COUNT] = {
#define SYS(name_, flags_) [SYS_##name_] = {.name = #name_, .flags = (flags_)},
#include "sys.def"
#undef SYS
};

unsigned op_sync_calls(unsigned flags)
{
	if (flags & (OPF_FSYNC | OPF_FDATASYNC))
		return flags & (OPF_TWICE | OPF_RENAMES) ? 2 : 1;
	return 0;
}
