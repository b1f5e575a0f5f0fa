// The few C symbols the Swift objects need that neither wasi-libc nor the
// embedded standard library define (Docs/web.md).
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// The stack protector's guard and failure handler.
unsigned long __stack_chk_guard = 0x5ea1ca4e;

__attribute__((noreturn)) void __stack_chk_fail(void) {
    __builtin_trap();
}

// Float(String) and Double(String) parse through these, as on other
// platforms: wasi-libc has only the C locale, so strtof and strtod are the
// "C locale" versions. "snan" (any case, signed) is Swift's signalling NaN.
static int is_signaling_nan(const char *text) {
    if (*text == '+' || *text == '-') text++;
    return strcasecmp(text, "snan") == 0;
}

const char *_swift_stdlib_strtof_clocale(const char *text, float *result) {
    if (is_signaling_nan(text)) {
        *result = __builtin_nansf("");
        return text + strlen(text);
    }
    char *end;
    *result = strtof(text, &end);
    return end;
}

const char *_swift_stdlib_strtod_clocale(const char *text, double *result) {
    if (is_signaling_nan(text)) {
        *result = __builtin_nans("");
        return text + strlen(text);
    }
    char *end;
    *result = strtod(text, &end);
    return end;
}

// 128-bit multiplication (wide multiplies in the standard library), which
// compiler-rt would provide; the toolchain ships none for wasm32. Built from
// 32-bit halves so that it calls nothing itself.
typedef unsigned long long u64;

__int128 __multi3(__int128 a, __int128 b) {
    u64 a_low = (u64)a, a_high = (u64)((unsigned __int128)a >> 64);
    u64 b_low = (u64)b, b_high = (u64)((unsigned __int128)b >> 64);
    u64 a0 = a_low & 0xffffffffu, a1 = a_low >> 32;
    u64 b0 = b_low & 0xffffffffu, b1 = b_low >> 32;
    u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    u64 middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    u64 low = (p00 & 0xffffffffu) | (middle << 32);
    u64 high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32) + a_low * b_high + a_high * b_low;
    return (__int128)(((unsigned __int128)high << 64) | low);
}
