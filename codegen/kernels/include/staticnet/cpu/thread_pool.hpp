#pragma once
// A fixed set of threads that run one task at a time, each thread its share, with no allocation
// and no system call on the way in or out while the threads are busy: the workers spin briefly
// on an atomic before they sleep, because a training step hands them dozens of short tasks back to
// back (one per kernel launch), and a condition variable's wake-up would cost more than many of
// those tasks take.
//
// Every launcher built on it (launch.hpp, conv2d.hpp, linear.hpp) splits its work by output
// ranges, so each element is computed by one thread in a fixed order: results do not depend on
// timing, and for a given thread count they are the same on every run (what bit-exact resumption
// needs).
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace staticnet::cpu {

class ThreadPool {
 public:
  // `threads` >= 1 runs the caller plus threads − 1 workers. Also limits the BLAS library to one
  // thread per call: the pool is where parallelism comes from.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls task(t) for every t in [0, threads()), t = 0 on the calling thread, and returns when
  // every call has returned. `task` must not throw.
  template <class Task>
  void run(Task&& task) {
    using T = std::remove_reference_t<Task>;
    dispatch([](void* context, int t) { (*static_cast<T*>(context))(t); },
             const_cast<void*>(static_cast<const void*>(&task)));
  }

 private:
  using Call = void (*)(void*, int);
  void dispatch(Call call, void* context);
  void worker(int index);

  int threads_;
  std::vector<std::thread> workers_;
  Call call_ = nullptr;
  void* context_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};  // bumped once per task; workers watch it
  std::atomic<int> pending_{0};               // workers still running the current task
  std::atomic<bool> stopping_{false};
};

}  // namespace staticnet::cpu
