#pragma once
/// @file thread_pool.hpp
/// A persistent pool of worker threads for data-parallel loops (used by ContactBatch).
///
/// The calling thread takes part in every loop, so a pool of n threads starts n − 1 workers;
/// a pool of 1 thread runs everything inline. Between loops a worker waits in three stages: it
/// spins (kSpinMicroseconds), then spins yielding its CPU to any other runnable thread
/// (kYieldMicroseconds in all), then sleeps on a condition variable; the caller waits for the
/// workers the same way. Loops issued back to back with a little serial work between them (a
/// scene query's broad and narrow phases, a simulation step, an MPC rollout) then pay no futex
/// wake-up, which on a virtual machine costs tens of microseconds. Workers are joined by the
/// destructor. Work is handed out in chunks of `grain` consecutive
/// indices from a shared atomic counter (dynamic scheduling), so which thread runs an index is
/// not deterministic: loop bodies must make their results independent of that (ContactBatch does:
/// each index writes only its own outputs).

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace diffcol::batch {

/// Number of CPUs this process may run on (its affinity mask), at least 1.
int available_cores();

class ThreadPool {
 public:
  /// @param num_threads threads taking part in a loop, the caller included; 0 = available_cores().
  /// @throws std::invalid_argument if num_threads < 0 or > 1024.
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// How long a waiting thread spins before it starts yielding.
  static constexpr int kSpinMicroseconds = 50;
  /// How long a waiting thread spins (yielding after kSpinMicroseconds) before it blocks.
  static constexpr int kYieldMicroseconds = 2000;

  /// Threads taking part in a loop, the caller included (≥ 1).
  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  /// A loop body: processes the indices [begin, end).
  using RangeFn = void (*)(void* context, long begin, long end);

  /// Calls fn(context, b, e) over [0, count) in chunks of at most `grain` indices, on all threads,
  /// and returns when every chunk is done. If a call throws, the chunks not yet started are
  /// skipped and the first exception is rethrown here. Calls from several threads at once are
  /// serialized. Allocates nothing.
  /// @throws std::invalid_argument if count < 0 or grain < 1.
  void run(long count, long grain, RangeFn fn, void* context);

  /// run() with any callable body(begin, end) (called by reference, not copied).
  template <class Body>
  void parallel_for(long count, long grain, Body& body) {
    run(count, grain, [](void* c, long b, long e) { (*static_cast<Body*>(c))(b, e); }, &body);
  }

 private:
  void worker_loop();
  void take_chunks();

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // serializes run()
  std::mutex mutex_;      // guards error_; waits on the condition variables
  std::condition_variable wake_, done_;
  std::atomic<long> generation_{0};  // incremented (under mutex_) per loop; workers wait for a change
  std::atomic<int> pending_{0};      // workers still in the current loop
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;

  // the current loop (written under mutex_ before generation_ changes)
  RangeFn fn_ = nullptr;
  void* context_ = nullptr;
  long count_ = 0, grain_ = 1;
  std::atomic<long> next_{0};
};

}  // namespace diffcol::batch
