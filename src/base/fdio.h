/* fdio.h - descriptor I/O helpers shared by the modules that read and write files of their own
 * (the tree's marker and manifest, the latency log), and the decimal formatter of their hot
 * paths. */
#ifndef FSMIX_FDIO_H
#define FSMIX_FDIO_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

/* fd_write_all - write all `len` bytes of buf to fd, retrying short writes and EINTR. Returns
 * 0, or -errno (-ENOSPC when write() makes no progress). */
MUST_CHECK int fd_write_all(int fd, const void *buf, size_t len);

/* fd_read_all - read from fd into buf until `len` bytes arrived or the end of the file,
 * retrying short reads and EINTR; *got is the count read (also on an error: what arrived
 * before it). Returns 0 (*got < len means the file ended first), or -errno. */
MUST_CHECK int fd_read_all(int fd, void *buf, size_t len, size_t *got);

/* tmpdir_make - a new private directory (mkdtemp, mode 0700) named PREFIX.XXXXXX in $TMPDIR,
 * or /tmp without it, into dir (size bytes), leaving room for `room` more bytes of names
 * below it. Returns 0; -ENAMETOOLONG when $TMPDIR is too long for that (err: "TMPDIR is too
 * long: ..."); or -errno of mkdtemp (err: "cannot create a temporary directory in ...: ...").
 * dir is "" on failure. */
MUST_CHECK int tmpdir_make(char *dir, size_t size, const char *prefix, size_t room, char *err,
                           size_t errlen);

/* Most characters put_decimal writes: the 20 digits of UINT64_MAX. */
#define DECIMAL_MAX 20

/* put_decimal - v in decimal at p, zero-padded to at least min_digits (at most DECIMAL_MAX),
 * without a terminator; returns the count written. On every operation's path (file names,
 * latency log lines): snprintf costs ~100 ns, this ~5 ns. */
static inline size_t put_decimal(char *p, uint64_t v, unsigned min_digits)
{
	char tmp[DECIMAL_MAX];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < min_digits && n < DECIMAL_MAX)
		tmp[n++] = '0';
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

#endif
