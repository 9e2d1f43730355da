/* option_ct.c - the setters of fsmix crashtest's own options (options.c's "Crashtest options"
 * rows): each value checked and stored in struct cli's ct. */
#include <string.h>

#include "option_set.h"
#include "value.h"

/* A whole number from lo to hi: the profile's syntax (digits only, value.h). */
static bool ct_number(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char why[VALUE_ERR_LEN];
	uint64_t n;
	if (value_parse_uint(v, &n, why) || n < lo || n > hi)
		return false;
	*out = n;
	return true;
}

enum set_result set_ct_fs(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "ext4") || !strcmp(v, "xfs") || !strcmp(v, "btrfs")) {
		c->ct.fs = v;
		return SET_OK;
	}
	snprintf(err, errlen, "--fs takes ext4, xfs or btrfs, not '%s'", v);
	return SET_BAD;
}

/* A size as the profile writes one (value.h: K, M or G, binary; KB, MB, GB the same); from 16 MiB
 * (mkfs.xfs's and mkfs.btrfs's least is about that) to 64 GiB (a test disk: the record holds what
 * is written to it). */
enum set_result set_ct_size(struct cli *c, const char *v, char *err, size_t errlen)
{
	char why[VALUE_ERR_LEN];
	uint64_t n;
	if (!value_parse_size(v, &n, why) && n >= (16ull << 20) && n <= (64ull << 30)) {
		c->ct.size = n;
		return SET_OK;
	}
	snprintf(err, errlen, "--size takes a size from 16M to 64G (K, M or G), not '%s'", v);
	return SET_BAD;
}

enum set_result set_ct_mkfs(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->ct.mkfs_opts = v;
	return SET_OK;
}

enum set_result set_ct_mount(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	c->ct.mount_opts = v;
	return SET_OK;
}

enum set_result set_ct_states(struct cli *c, const char *v, char *err, size_t errlen)
{
	uint64_t n;
	if (!strcmp(v, "all")) {
		c->ct.states = 0;
		return SET_OK;
	}
	if (ct_number(v, 1, 10000000, &n)) {
		c->ct.states = (size_t)n;
		return SET_OK;
	}
	snprintf(err, errlen, "--states takes all or a number from 1, not '%s'", v);
	return SET_BAD;
}

enum set_result set_ct_reorder(struct cli *c, const char *v, char *err, size_t errlen)
{
	uint64_t n;
	if (ct_number(v, 0, 1000, &n)) {
		c->ct.reorder = (unsigned)n;
		return SET_OK;
	}
	snprintf(err, errlen, "--reorder takes a number from 0 to 1000, not '%s'", v);
	return SET_BAD;
}

enum set_result set_ct_state(struct cli *c, const char *v, char *err, size_t errlen)
{
	uint64_t n;
	if (ct_number(v, 0, UINT32_MAX, &n)) {
		c->ct.one_state = true;
		c->ct.state = (size_t)n;
		return SET_OK;
	}
	snprintf(err, errlen, "--state takes a state's number (0, 1, ...), not '%s'", v);
	return SET_BAD;
}

enum set_result set_ct_image(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!*v || !strcmp(v, "-")) {
		snprintf(err, errlen, "--image needs a file (not standard output)");
		return SET_BAD;
	}
	c->ct.image = v;
	return SET_OK;
}

enum set_result set_ct_keep(struct cli *c, const char *v, char *err, size_t errlen)
{
	(void)v, (void)err, (void)errlen;
	c->ct.keep = true;
	return SET_OK;
}

enum set_result set_ct_run_dir(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "--run-dir needs a directory");
		return SET_BAD;
	}
	c->ct.run_dir = v;
	return SET_OK;
}

enum set_result set_ct_fault(struct cli *c, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "ignore-flush")) {
		c->ct.fault = CT_FAULT_IGNORE_FLUSH;
		return SET_OK;
	}
	if (!strcmp(v, "reorder-across-flush")) {
		c->ct.fault = CT_FAULT_REORDER;
		return SET_OK;
	}
	snprintf(err, errlen, "--disk-fault takes ignore-flush or reorder-across-flush, not '%s'",
	         v);
	return SET_BAD;
}
