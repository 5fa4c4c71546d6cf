#pragma once
// A fixed set of threads that run one task at a time, split into one share per thread, with no
// allocation and no system call on the way in or out while the threads are busy: a waiting thread
// spins briefly on an atomic before it sleeps, because a training step hands the pool dozens of
// short tasks back to back (one per kernel launch), and a condition variable's wake-up would cost
// more than many of those tasks take.
//
// Shares are claimed, not assigned: each thread, the caller included, takes its own share (the
// caller share 0, worker t share t, so that a thread keeps working on the same part of the data,
// in its own cache, from one task to the next), then any share not yet taken, until none is left.
// Where the machine has fewer free cores than the pool has threads (a busy CI runner, a board
// running other work), a worker the OS has not scheduled yet leaves its share to a thread that
// runs, instead of the whole pool waiting for it.
//
// Every launcher built on it (launch.hpp, conv2d.hpp, linear.hpp) splits its work by output
// ranges, share t computing range t, so each element is computed in a fixed order whichever thread
// runs the share: results do not depend on timing, and for a given thread count they are the same
// on every run (what bit-exact resumption needs).
#include <atomic>
#include <cstdint>
#include <memory>
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

  // Calls task(t) once for every share t in [0, threads()), on the calling thread or a worker, and
  // returns when every call has returned. `task` must not throw, and must depend on t only, never
  // on which thread runs it.
  template <class Task>
  void run(Task&& task) {
    using T = std::remove_reference_t<Task>;
    dispatch([](void* context, int t) { (*static_cast<T*>(context))(t); },
             const_cast<void*>(static_cast<const void*>(&task)));
  }

 private:
  using Call = void (*)(void*, int);
  void dispatch(Call call, void* context);
  void run_shares(std::uint32_t task, int own);
  void worker(int index);

  int threads_;
  std::vector<std::thread> workers_;
  Call call_ = nullptr;
  void* context_ = nullptr;
  // The current task's number, counting from 1 (wrapping); workers wait for it to change.
  std::atomic<std::uint32_t> task_{0};
  // claims_[t]: the last task whose share t a thread has taken. Task n's share t is taken by
  // moving it from n − 1 to n, which only one thread can, and no thread still looking at an earlier
  // task can (every share of that task has been taken).
  std::unique_ptr<std::atomic<std::uint32_t>[]> claims_;
  std::atomic<int> pending_{0};  // shares of the current task not yet finished
  std::atomic<bool> stopping_{false};
};

}  // namespace staticnet::cpu
