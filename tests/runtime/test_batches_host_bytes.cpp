// The loader states exactly how many host bytes it holds, and holds no more as epochs go by.
// A global operator new hook counts every allocation in the process (doctest runs test cases one
// at a time, so while a loader runs here the only other threads are its own workers).
// ThreadSanitizer's runtime defines operator new itself, so under TSan the hook is left out and
// only the hand-computed sizes are checked.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "staticnet/runtime/batches/loader.hpp"
#include "test_batches_dataset.hpp"

#if defined(__SANITIZE_THREAD__)
#define STATICNET_TEST_COUNTS_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STATICNET_TEST_COUNTS_ALLOCATIONS 0
#endif
#endif
#ifndef STATICNET_TEST_COUNTS_ALLOCATIONS
#define STATICNET_TEST_COUNTS_ALLOCATIONS 1
#endif

namespace {
std::atomic<std::size_t> g_allocations{0};
std::atomic<std::size_t> g_allocated_bytes{0};
constexpr bool kCountsAllocations = STATICNET_TEST_COUNTS_ALLOCATIONS != 0;
}  // namespace

#if STATICNET_TEST_COUNTS_ALLOCATIONS
// noinline: inlined into a caller, g++ -O2 pairs operator new with the free() inside operator
// delete and warns (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t bytes) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_allocated_bytes.fetch_add(bytes, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes))
    return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t bytes) {
  return ::operator new(bytes);
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#endif

namespace sr = staticnet::runtime;
using sr::testing::MemoryDataset;

namespace {

sr::LoaderConfig augmented_config() {
  sr::LoaderConfig c;
  c.batch_size = 4;
  c.sample_shape = {3, 6, 6};
  c.augmentation = sr::Augmentation{2, true};
  c.workers = 3;
  c.slots = 2;
  return c;
}

}  // namespace

TEST_CASE("batches: host_bytes is the exact, hand-computed sum of the loader's buffers") {
  // 2 slots of (4 x 3x6x6 f32 inputs + 4 int32 labels) = 2 * (1728 + 16) = 3488
  // 3 workers' scratch samples of 3x6x6 f32                                = 1296
  // 2 epoch orders of 22 int64                                             =  352
  const auto config = augmented_config();
  CHECK(sr::BatchLoader::host_bytes_for(config, 22) == 3488 + 1296 + 352);

  // Regression, no augmentation (no scratch), natural order (no epoch orders):
  // 3 slots of (8 x 5 f32 inputs + 8 x 2 f32 targets) = 3 * (160 + 64) = 672
  sr::LoaderConfig regression;
  regression.batch_size = 8;
  regression.sample_shape = {5};
  regression.label_kind = sr::LabelKind::regression;
  regression.target_shape = {2};
  regression.shuffle = false;
  regression.workers = 2;
  regression.slots = 3;
  CHECK(sr::BatchLoader::host_bytes_for(regression, 1000) == 672);

  // CIFAR-10 as a trainer would plan it: batch 128, 2 workers, double buffering.
  //   2 * (128 * 3072 * 4 + 128 * 4) = 3146752; scratch 2 * 3072 * 4 = 24576;
  //   orders 2 * 50000 * 8 = 800000
  sr::LoaderConfig cifar = augmented_config();
  cifar.batch_size = 128;
  cifar.sample_shape = {3, 32, 32};
  cifar.workers = 2;
  CHECK(sr::BatchLoader::host_bytes_for(cifar, 50000) == 3146752 + 24576 + 800000);

  // A constructed loader reports the same, and that is what it allocates (plus a little
  // bookkeeping: the slot and worker arrays, the threads' start records, the gain table).
  MemoryDataset data(22, {3, 6, 6});
  const std::size_t before = g_allocated_bytes.load();
  sr::BatchLoader loader(data, config);
  const std::size_t allocated = g_allocated_bytes.load() - before;
  CHECK(loader.host_bytes() == 3488 + 1296 + 352);
  if (kCountsAllocations) {
    CHECK(allocated >= loader.host_bytes());
    CHECK(allocated < loader.host_bytes() + 2048);
  }
}

TEST_CASE("batches: no allocation per batch, sample or epoch") {
  MemoryDataset data(22, {3, 6, 6});
  for (int workers : {1, 3}) {
    auto config = augmented_config();
    config.workers = workers;
    sr::BatchLoader loader(data, config);
    std::vector<float> inputs(4 * 108);
    std::vector<std::int32_t> labels(4);
    loader.next(inputs, labels);  // workers running

    const std::size_t before = g_allocations.load();
    for (int b = 0; b < 5 * 60; ++b) {  // 60 epochs, through both buffers' reuse
      if (b % 2 == 0) {
        loader.next(inputs, labels);
      } else {
        const auto view = loader.acquire();
        CHECK(view.inputs.size() == inputs.size());
        loader.release();
      }
    }
    if (kCountsAllocations)
      CHECK(g_allocations.load() - before == 0);
    CHECK(loader.state().epoch == 60);
  }
}
