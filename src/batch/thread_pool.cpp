// Persistent worker pool with dynamically scheduled chunks.
#include "diffcol/batch/thread_pool.hpp"

#include <sched.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace diffcol::batch {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or ThreadPool::kYieldMicroseconds have passed, yielding the CPU after
// kSpinMicroseconds; returns done().
template <class Done>
bool spin_until(Done done) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto yield_from = start + std::chrono::microseconds(ThreadPool::kSpinMicroseconds);
  const auto deadline = start + std::chrono::microseconds(ThreadPool::kYieldMicroseconds);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    const auto now = Clock::now();
    if (now >= deadline) return done();
    if (now >= yield_from) std::this_thread::yield();
  }
}

}  // namespace

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads < 0 || num_threads > 1024)
    throw std::invalid_argument("ThreadPool: num_threads must be in [0, 1024] (0 = all cores), got " +
                                std::to_string(num_threads));
  const int n = num_threads == 0 ? available_cores() : num_threads;
  workers_.reserve(static_cast<size_t>(n - 1));
  for (int i = 0; i + 1 < n; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::take_chunks() {
  for (;;) {
    const long b = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (b >= count_) return;
    const long e = b + grain_ < count_ ? b + grain_ : count_;
    try {
      fn_(context_, b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(count_, std::memory_order_relaxed);  // skip the chunks not yet started
    }
  }
}

void ThreadPool::worker_loop() {
  long seen = 0;
  for (;;) {
    // the loop fields are written before generation_ is incremented (release)
    const auto changed = [&] {
      return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(changed)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, changed);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    take_chunks();
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);  // the caller may be between its check and its wait
      done_.notify_one();
    }
  }
}

void ThreadPool::run(long count, long grain, RangeFn fn, void* context) {
  if (count < 0) throw std::invalid_argument("ThreadPool::run: count must be >= 0");
  if (grain < 1) throw std::invalid_argument("ThreadPool::run: grain must be >= 1");
  if (count == 0) return;
  // one chunk or no workers: inline, no hand-off
  if (workers_.empty() || count <= grain) {
    for (long b = 0; b < count; b += grain) fn(context, b, b + grain < count ? b + grain : count);
    return;
  }
  std::lock_guard<std::mutex> serial(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    context_ = context;
    count_ = count;
    grain_ = grain;
    next_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  take_chunks();
  const auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  std::exception_ptr error;
  {
    if (!spin_until(finished)) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, finished);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace diffcol::batch
