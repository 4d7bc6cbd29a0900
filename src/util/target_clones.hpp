#pragma once
// DIFFCOL_TARGET_CLONES: on x86-64 with GCC, a second copy of a hot function for AVX2/FMA
// machines (x86-64-v3), picked at load time (function multiversioning). The library is built for
// baseline x86-64, so this is how its few hot kernels get 4-wide FMA without -march=native.
// Off under the sanitizers and with -DDIFFCOL_NO_TARGET_CLONES. Internal to src/.
//
// A clone must not call a helper of its own file that is compiled for the baseline: GCC knows
// which registers such a helper touches, may keep a 256-bit register live across the call and
// then cannot clear the upper halves (vzeroupper) first, and on Intel cores every SSE instruction
// of the helper then pays the AVX-SSE transition penalty (DCOL derivatives ran 2.4x slower on a
// Xeon for one 3x6 helper). Make such helpers [[gnu::always_inline]] or clones themselves; calls
// into other files are safe (the compiler assumes the ABI there and clears the upper halves).
// tests/check_target_clones.py checks the built library for this.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(DIFFCOL_NO_TARGET_CLONES)
#define DIFFCOL_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DIFFCOL_TARGET_CLONES
#endif
