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

// libFuzzer's driver refers to the entry point of a classic fuzzer, which
// this one never uses: the callback passed to LLVMFuzzerRunDriver is what
// runs. A debug build's link keeps that reference and needs it defined.
__attribute__((weak)) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)data;
    (void)size;
    return 0;
}
