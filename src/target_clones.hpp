#pragma once
// DIFFCOL_TARGET_CLONES: on x86-64 with GCC, a second copy of a hot function for AVX2/FMA
// machines (x86-64-v3), picked at load time (function multiversioning). The library is built for
// baseline x86-64, so this is how its few hot kernels get 4-wide FMA without -march=native.
// Off under the sanitizers and with -DDIFFCOL_NO_TARGET_CLONES. Internal to src/.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(DIFFCOL_NO_TARGET_CLONES)
#define DIFFCOL_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DIFFCOL_TARGET_CLONES
#endif
