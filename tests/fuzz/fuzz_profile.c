/* fuzz_profile.c - libFuzzer target for the profile language: the input bytes are a profile.
 *
 * Each input is parsed with profile_parse_buffer(), gets a few command-line overrides chosen by
 * a hash of the input (so a corpus exercises overrides on many shapes of profile without the
 * override text stealing bytes from the profile), is formatted the way `fsmix check` shows it,
 * and is turned into a plan with plan_build(). Everything is freed, so LeakSanitizer sees any
 * leak on every path, including the error paths. Nothing is printed and nothing touches disk.
 *
 * Besides the sanitizers, one oracle: no input may produce an "internal error" diagnostic (the
 * parser's own consistency checks, e.g. inih and the lexer disagreeing on a line); the target
 * aborts with the message so libFuzzer records the input.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fuzz.h"
#include "overrides.h"
#include "plan.h"
#include "profile.h"

/* FNV-1a: a stable choice of overrides per input. */
static uint32_t hash_input(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < size; i++) {
		h ^= data[i];
		h *= 16777619u;
	}
	return h;
}

/* Overrides as the command line would give them; bit i of the hash enables entry i. */
static const struct {
	enum override_kind kind;
	const char *arg;
} fixed_overrides[] = {
    {OVR_TIME, "7"},
    {OVR_LOCATION, "/tmp/fsmix-fuzz"},
    {OVR_LOCATION, "0=/tmp/a=b"},
    {OVR_THREADS, "3"},
    {OVR_THREADS, "threadgroup1=2"},
    {OVR_SET, "threadgroup0.msec_range=0 1"},
    {OVR_SET, "threadgroup0.stats.msec_range=1 2"},
    {OVR_SET, "filesystem0.size_weight=4k 1"},
    {OVR_SET, "filesystem0.threadgroup.create_weight=1"},
    {OVR_SET, "seed=42"},
    {OVR_SEED, "18446744073709551615"},
    {OVR_SET, "filesystem1.clone=/mnt/"},
    {OVR_SET, "threadgroup0.bindfs=/mnt/"},
    {OVR_SET, "threadgroup0.ignore=read"},
    {OVR_SET, "nosuch.key=1"},
    {OVR_SET, "threadgroup0.num_thread=1"},
};

#define N_FIXED (sizeof(fixed_overrides) / sizeof(fixed_overrides[0]))

/* Touches every stored value the way `fsmix check` and diag_print do. */
static void format_all(const struct profile *p, const struct diag *d)
{
	char buf[2048];
	const struct section *secs[4];
	for (size_t i = 0; i < d->n; i++) {
		(void)diag_format(&d->v[i], buf, sizeof(buf));
		/* Internal errors carry no section or key, so the text starts with them; user text
		 * inside other messages may say "internal error" too. */
		if (!strncmp(d->v[i].text, "internal error", 14)) {
			fprintf(stderr, "fuzz_profile: %s\n", buf);
			abort();
		}
	}
	for (size_t i = 0; i < p->n_fs + p->n_tg + 1; i++) {
		const struct section *s =
		    i == 0 ? &p->global : (i <= p->n_fs ? p->fs[i - 1] : p->tg[i - 1 - p->n_fs]);
		secs[0] = s;
		secs[1] = s->age;
		secs[2] = s->stats;
		secs[3] = s->age ? s->age->stats : NULL;
		for (size_t j = 0; j < 4; j++) {
			if (!secs[j])
				continue;
			for (int k = 0; k < KEY_COUNT; k++)
				if (key_table[k].scopes & section_scope(secs[j]))
					setting_format(secs[j], (enum key_id)k, buf, sizeof(buf));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct plan pl;
	struct diag d;
	struct override ov[N_FIXED];
	size_t n_ov = 0;
	uint32_t h = hash_input(data, size);

	diag_init(&d);
	(void)profile_parse_buffer(&p, "fuzz.ffsb", (const char *)data, size, &d);
	/* A quarter of the inputs are planned exactly as written. */
	if ((h >> 30) != 0) {
		for (size_t i = 0; i < N_FIXED; i++)
			if (h & (1u << i))
				override_init(&ov[n_ov++], fixed_overrides[i].kind,
				              fixed_overrides[i].arg);
		(void)overrides_apply(&p, ov, n_ov, &d);
	}
	struct plan_opts o = {.strict_ffsb = (h >> 29) & 1};
	if (plan_build(&pl, &p, &o, &d) == 0)
		plan_free(&pl);
	format_all(&p, &d);
	profile_free(&p);
	diag_free(&d);
	return 0;
}
