#include "staticnet/cpu/thread_pool.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "staticnet/cpu/gemm.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace staticnet::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// How long a waiting thread spins before it sleeps: longer than the gap between two launches of one
// step, far shorter than the wait for the next batch. Counted in time, since a pause instruction
// takes from 10 to 150 cycles depending on the CPU.
constexpr auto spin_time = std::chrono::microseconds(50);

// While it spins, a waiting thread gives its CPU away every so many pauses (and reads the clock):
// on a machine with fewer free cores than threads, the thread it waits for may need that very CPU.
constexpr int pauses_between_yields = 64;

inline void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Returns once `busy()` is false: spins for spin_time, yielding now and then, then calls `sleep()`
// (a blocking wait for the value `busy` reads to change) until it is.
template <class Busy, class Sleep>
void wait_while(Busy busy, Sleep sleep) {
  const Clock::time_point deadline = Clock::now() + spin_time;
  for (int spin = 1; busy(); ++spin) {
    if (spin % pauses_between_yields != 0)
      relax();
    else if (Clock::now() < deadline)
      std::this_thread::yield();
    else
      sleep();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads)
    : threads_(threads),
      claims_(std::make_unique<std::atomic<std::uint32_t>[]>(
          static_cast<std::size_t>(threads < 1 ? 1 : threads))) {
  if (threads < 1)
    throw std::invalid_argument("ThreadPool: threads must be at least 1, got " +
                                std::to_string(threads));
  limit_blas_to_one_thread();
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i)
    workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  stopping_.store(true, std::memory_order_relaxed);
  task_.fetch_add(1, std::memory_order_release);  // wakes the workers, which see stopping_
  task_.notify_all();
  for (auto& w : workers_)
    w.join();
}

void ThreadPool::dispatch(Call call, void* context) {
  if (threads_ == 1) {
    call(context, 0);
    return;
  }
  // The previous task has ended (every share finished), so no thread reads call_ now.
  call_ = call;
  context_ = context;
  pending_.store(threads_, std::memory_order_relaxed);
  const std::uint32_t task = task_.load(std::memory_order_relaxed) + 1;
  task_.store(task, std::memory_order_release);  // publishes call_, context_ and pending_
  task_.notify_all();
  run_shares(task, 0);
  // Shares that workers took and still run.
  wait_while([&] { return pending_.load(std::memory_order_acquire) != 0; },
             [&] {
               const int left = pending_.load(std::memory_order_acquire);
               if (left != 0)
                 pending_.wait(left, std::memory_order_acquire);
             });
}

void ThreadPool::run_shares(std::uint32_t task, int own) {
  for (int i = 0; i < threads_; ++i) {
    const int share = (own + i) % threads_;
    std::uint32_t before = task - 1;
    if (!claims_[static_cast<std::size_t>(share)].compare_exchange_strong(
            before, task, std::memory_order_acq_rel, std::memory_order_relaxed))
      continue;  // taken by another thread, or `task` has ended
    call_(context_, share);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      pending_.notify_one();  // the last share: the caller may be asleep waiting for it
  }
}

void ThreadPool::worker(int index) {
  std::uint32_t done = 0;  // the last task this worker has looked at
  for (;;) {
    wait_while([&] { return task_.load(std::memory_order_acquire) == done; },
               [&] { task_.wait(done, std::memory_order_acquire); });
    done = task_.load(std::memory_order_acquire);
    if (stopping_.load(std::memory_order_relaxed))
      return;
    run_shares(done, index);
  }
}

}  // namespace staticnet::cpu
