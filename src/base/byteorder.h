/* byteorder.h - fixed-width fields in byte buffers, named by their byte order, for the files
 * fsmix writes and reads back:
 *   le_*  little-endian on every host: the durability log (durlog.c), which another machine may
 *         read (docs/output.md, "Format");
 *   ne_*  the host's own order: the reuse manifest (tree_manifest.c), which records the order in
 *         its header (MANIFEST_BYTEORDER) and is refused on a host of the other order.
 * p need not be aligned. Changing a file's order changes its format: never swap one set for the
 * other in an existing format. */
#ifndef FSMIX_BYTEORDER_H
#define FSMIX_BYTEORDER_H

#include <stdint.h>
#include <string.h>

static inline void le_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void le_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void le_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t le_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le_get32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t le_get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void ne_put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void ne_put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint32_t ne_get32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t ne_get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

#endif
