#pragma once
/// @file malloc_counter.hpp
/// Counts heap allocations of the whole test binary, for "hot paths allocate nothing" tests.
///
/// Include from exactly one translation unit per test executable. On glibc without sanitizers
/// malloc is interposed; under AddressSanitizer (which owns malloc) the count comes from its
/// allocator hooks. Either way Eigen's allocations and operator new are both counted, also those of
/// uninstrumented code in the binary (the Release library that sanitized tests link against), and
/// DIFFCOL_TEST_COUNTS_MALLOC is defined; elsewhere the counter stays 0 and the tests that use it
/// skip.

#include <atomic>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define DIFFCOL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DIFFCOL_TEST_ASAN 1
#elif __has_feature(memory_sanitizer)
#define DIFFCOL_TEST_SANITIZED 1
#endif
#endif
#if defined(DIFFCOL_TEST_ASAN)
#define DIFFCOL_TEST_SANITIZED 1
#endif

namespace {
/// Number of malloc calls so far (only counted when DIFFCOL_TEST_COUNTS_MALLOC is defined).
std::atomic<long> g_allocations{0};
}  // namespace

#if defined(DIFFCOL_TEST_ASAN)
// From the sanitizer runtime (compiler-rt's sanitizer/allocator_interface.h, which GCC does not ship).
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
#define DIFFCOL_TEST_COUNTS_MALLOC 1
namespace {
void count_allocation(const volatile void*, std::size_t) { g_allocations.fetch_add(1, std::memory_order_relaxed); }
void ignore_free(const volatile void*) {}
// Installed before main (static initialization of this translation unit).
[[maybe_unused]] const int g_allocation_hooks =
    __sanitizer_install_malloc_and_free_hooks(count_allocation, ignore_free);
}  // namespace
#elif defined(__GLIBC__) && !defined(DIFFCOL_TEST_SANITIZED)
#define DIFFCOL_TEST_COUNTS_MALLOC 1
extern "C" void* __libc_malloc(std::size_t);
extern "C" void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
#endif
