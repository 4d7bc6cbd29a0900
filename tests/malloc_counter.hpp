#pragma once
/// @file malloc_counter.hpp
/// Counts heap allocations of the whole test binary, for "hot paths allocate nothing" tests.
///
/// Include from exactly one translation unit per test executable (it defines malloc). On glibc
/// without sanitizers malloc is interposed, so Eigen's allocations and operator new are both
/// counted, and DIFFCOL_TEST_COUNTS_MALLOC is defined; elsewhere (sanitizers replace malloc
/// themselves) the counter stays 0 and the tests that use it skip.

#include <atomic>
#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define DIFFCOL_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DIFFCOL_TEST_SANITIZED 1
#endif

namespace {
/// Number of malloc calls so far (only counted when DIFFCOL_TEST_COUNTS_MALLOC is defined).
std::atomic<long> g_allocations{0};
}  // namespace

#if defined(__GLIBC__) && !defined(DIFFCOL_TEST_SANITIZED)
#define DIFFCOL_TEST_COUNTS_MALLOC 1
extern "C" void* __libc_malloc(std::size_t);
extern "C" void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
#endif
