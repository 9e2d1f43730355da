/* content_mode.c - the values of the key `content` (content.h: content_parse, content_name):
 * the content modes by name, each with or without a percentage. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"

int content_parse(const char *text, uint8_t *mode, uint8_t *pct, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum content_mode mode;
		bool pct;
	} modes[] = {
	    {"random", CONTENT_MODE_RANDOM, false},        {"zero", CONTENT_MODE_ZERO, false},
	    {"compressible", CONTENT_MODE_COMPRESS, true}, {"dedupe", CONTENT_MODE_DEDUPE, true},
	    {"header", CONTENT_MODE_HEADER, false},        {"fixed", CONTENT_MODE_FIXED, false}};
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (strlen(modes[m].name) != n || strncmp(text, modes[m].name, n))
			continue;
		if (!modes[m].pct) {
			if (colon) {
				snprintf(err, errlen, "'%s' takes no percentage (content = %s)",
				         text, modes[m].name);
				return -1;
			}
			*mode = (uint8_t)modes[m].mode;
			*pct = 0;
			return 0;
		}
		char *end = NULL;
		unsigned long v = colon && colon[1] >= '0' && colon[1] <= '9'
		                      ? strtoul(colon + 1, &end, 10)
		                      : 101;
		if (v > 100 || !end || *end) {
			snprintf(err, errlen, "'%s': %s needs a percentage 0..100 (%s:PCT)", text,
			         modes[m].name, modes[m].name);
			return -1;
		}
		*mode = (uint8_t)modes[m].mode;
		*pct = (uint8_t)v;
		return 0;
	}
	snprintf(
	    err, errlen,
	    "'%s' is not a content mode (auto, header, random, fixed, zero, compressible:PCT or "
	    "dedupe:PCT)",
	    text);
	return -1;
}

void content_name(uint8_t mode, uint8_t pct, char *buf, size_t len)
{
	switch (mode) {
	case CONTENT_MODE_ZERO:
		snprintf(buf, len, "zero");
		return;
	case CONTENT_MODE_COMPRESS:
		snprintf(buf, len, "compressible:%u", (unsigned)pct);
		return;
	case CONTENT_MODE_DEDUPE:
		snprintf(buf, len, "dedupe:%u", (unsigned)pct);
		return;
	case CONTENT_MODE_HEADER:
		snprintf(buf, len, "header");
		return;
	case CONTENT_MODE_FIXED:
		snprintf(buf, len, "fixed");
		return;
	default:
		snprintf(buf, len, "random");
		return;
	}
}
