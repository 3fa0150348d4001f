// Declarations only: LLVMFuzzerRunDriver comes from the toolchain's libFuzzer (-sanitize=fuzzer).
#include "cfuzzer.h"
