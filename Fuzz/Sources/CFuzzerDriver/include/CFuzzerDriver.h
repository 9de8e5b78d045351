#ifndef AUTHHUB_CFUZZERDRIVER_H
#define AUTHHUB_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, FuzzerDriver.cpp), linked by `-sanitize=fuzzer`. SwiftPM gives
/// an executable target its own entry point, so `main` calls this instead of libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
