/* fdio.h - descriptor I/O helpers shared by the modules that write files of their own (the
 * tree's marker and manifest, the latency log). */
#ifndef FSMIX_FDIO_H
#define FSMIX_FDIO_H

#include <stddef.h>

/* fd_write_all - write all `len` bytes of buf to fd, retrying short writes and EINTR. Returns
 * 0, or -errno (-ENOSPC when write() makes no progress). */
int fd_write_all(int fd, const void *buf, size_t len);

#endif
