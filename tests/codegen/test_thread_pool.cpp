// The CPU's thread pool: every share of every task runs exactly once and the task ends only after
// all of them, whichever thread claims them. That holds with more threads than this machine has
// cores (the shares of workers not scheduled are taken by the threads that run), after the workers
// have gone to sleep, and when the pool is destroyed while they sleep.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <staticnet/cpu/thread_pool.hpp>

namespace c = staticnet::cpu;

namespace {

// Runs `tasks` tasks back to back; each share adds its task's number to its own counter (so a share
// run twice, or not at all, or a task that returned before its shares ended, shows in the sums),
// and the caller reads every counter as soon as the task returns.
void check_every_share_once(int threads, int tasks) {
  c::ThreadPool pool(threads);
  std::vector<std::atomic<long>> sums(static_cast<std::size_t>(threads));
  long expected = 0;
  int mismatches = 0;
  for (int task = 1; task <= tasks; ++task) {
    pool.run([&](int share) {
      sums[static_cast<std::size_t>(share)].fetch_add(task, std::memory_order_relaxed);
    });
    expected += task;
    for (const auto& sum : sums)
      mismatches += sum.load(std::memory_order_relaxed) != expected;
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("thread pool: every share of every task runs once, before the task returns") {
  for (int threads : {1, 2, 3})
    check_every_share_once(threads, 20000);
}

TEST_CASE("thread pool: more threads than cores still runs every share once") {
  // 16 threads on this 2-core machine: most workers are not running when their task starts.
  check_every_share_once(16, 2000);
}

TEST_CASE("thread pool: tasks after the workers went to sleep, and destruction while they sleep") {
  c::ThreadPool pool(3);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // far past the spin: asleep
    std::atomic<int> shares_run{0};
    pool.run([&](int) { shares_run.fetch_add(1); });
    CHECK(shares_run.load() == 3);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // The destructor must wake them to return; a hang here fails the test by its timeout.
}

TEST_CASE("thread pool: the shares of one task run side by side") {
  // Share 0 waits until share 1 has run: share 1 must run on the other thread while share 0 holds
  // its own (a thread takes a share only once it has finished the last).
  c::ThreadPool pool(2);
  for (int i = 0; i < 100; ++i) {
    std::atomic<bool> second_done{false};
    std::atomic<int> first_runs{0};
    pool.run([&](int share) {
      if (share == 1) {
        second_done.store(true);
        return;
      }
      first_runs.fetch_add(1);
      while (!second_done.load())
        std::this_thread::yield();
    });
    CHECK(first_runs.load() == 1);
  }
}
