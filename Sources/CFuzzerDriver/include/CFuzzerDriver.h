#ifndef EASEL_CFUZZERDRIVER_H
#define EASEL_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer on `test_one_input` when the program was linked with
/// `-sanitize=fuzzer`; returns -1 at once when it was not.
int easel_run_fuzzer(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
