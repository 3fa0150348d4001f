// libFuzzer's entry point for a program that has its own main (SwiftPM links every executable target with
// its own main, so the fuzz targets call libFuzzer instead of letting libFuzzer's main call them).
#ifndef CFUZZER_H
#define CFUZZER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
