/* fuzz.h - the libFuzzer entry point shared by fuzz_profile (libFuzzer's main) and fuzz_replay
 * (replay_main.c, which runs a corpus without libFuzzer). */
#ifndef FSMIX_FUZZ_H
#define FSMIX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
