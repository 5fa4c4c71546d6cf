#include "staticnet/cpu/thread_pool.hpp"

#include <stdexcept>

#include "staticnet/cpu/gemm.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace staticnet::cpu {
namespace {

// About 50 µs of spinning before a worker sleeps: longer than the gap between two launches of one
// step, far shorter than the wait for the next batch.
constexpr int spins_before_sleep = 1 << 14;

inline void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads) {
  if (threads < 1)
    throw std::invalid_argument("ThreadPool: threads must be at least 1, got " +
                                std::to_string(threads));
  limit_blas_to_one_thread();
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i)
    workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& w : workers_)
    w.join();
}

void ThreadPool::dispatch(Call call, void* context) {
  if (threads_ == 1) {
    call(context, 0);
    return;
  }
  call_ = call;
  context_ = context;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);  // publishes call_ and context_
  generation_.notify_all();
  call(context, 0);
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < spins_before_sleep) {
      relax();
    } else {
      const int left = pending_.load(std::memory_order_acquire);
      if (left != 0)
        pending_.wait(left, std::memory_order_acquire);
    }
  }
}

void ThreadPool::worker(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t now = generation_.load(std::memory_order_acquire);
    for (int spin = 0; now == seen; ++spin) {
      if (spin < spins_before_sleep) {
        relax();
      } else {
        generation_.wait(seen, std::memory_order_acquire);
      }
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stopping_.load(std::memory_order_acquire))
      return;
    call_(context_, index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      pending_.notify_one();
  }
}

}  // namespace staticnet::cpu
