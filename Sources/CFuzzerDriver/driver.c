#include "CFuzzerDriver.h"

// Weak: present only when libFuzzer is linked. SwiftPM gives every
// executable its own main, so the fuzzer is started from there rather than
// from libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size))
    __attribute__((weak));

int easel_run_fuzzer(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size)) {
    if (!LLVMFuzzerRunDriver) {
        return -1;
    }
    return LLVMFuzzerRunDriver(argc, argv, test_one_input);
}
