// The background producer: worker-count independence, resumption bit for bit, exception
// propagation, and shutdown wherever the workers are.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "staticnet/runtime/batches/loader.hpp"
#include "test_batches_dataset.hpp"

namespace sr = staticnet::runtime;
using sr::testing::MemoryDataset;

namespace {

// 3x6x6 images, batches of 4 from 22 samples (5 batches an epoch, 2 left over), shuffled,
// augmented and normalised: everything that could depend on thread timing is on.
sr::LoaderConfig full_config(int workers, int slots) {
  sr::LoaderConfig c;
  c.batch_size = 4;
  c.sample_shape = {3, 6, 6};
  c.seed = 2024;
  c.augmentation = sr::Augmentation{2, true};
  c.normalization = sr::Normalization{1.0f / 255.0f, {0.5f, 0.4f, 0.3f}, {0.2f, 0.25f, 0.3f}};
  c.workers = workers;
  c.slots = slots;
  return c;
}

// A batch as bytes, so that comparisons are bit for bit (NaN-safe, -0.0 distinct).
struct BatchBytes {
  std::vector<unsigned char> bytes;
  sr::LoaderState position;
  bool operator==(const BatchBytes&) const = default;
};

BatchBytes take(sr::BatchLoader& loader) {
  const auto view = loader.acquire();
  BatchBytes b;
  b.position = view.position;
  b.bytes.resize(view.inputs.size_bytes() + view.labels.size_bytes());
  std::memcpy(b.bytes.data(), view.inputs.data(), view.inputs.size_bytes());
  std::memcpy(b.bytes.data() + view.inputs.size_bytes(), view.labels.data(),
              view.labels.size_bytes());
  loader.release();
  return b;
}

std::vector<BatchBytes> take(sr::BatchLoader& loader, int count) {
  std::vector<BatchBytes> out;
  for (int i = 0; i < count; ++i)
    out.push_back(take(loader));
  return out;
}

}  // namespace

TEST_CASE("batches: contents do not depend on worker or slot count") {
  MemoryDataset data(22, {3, 6, 6});
  std::vector<BatchBytes> reference;
  {
    sr::BatchLoader loader(data, full_config(1, 1));
    reference = take(loader, 13);
  }
  CHECK(reference[0].position == sr::LoaderState{2024, 0, 0});
  CHECK(reference[12].position == sr::LoaderState{2024, 2, 2});
  CHECK(reference[0] != reference[5]);  // epochs differ
  for (int workers : {1, 2, 3, 5}) {
    for (int slots : {1, 2, 4}) {
      CAPTURE(workers);
      CAPTURE(slots);
      sr::BatchLoader loader(data, full_config(workers, slots));
      CHECK(take(loader, 13) == reference);
    }
  }
}

TEST_CASE("batches: a resumed run yields the uninterrupted run's batches bit for bit") {
  MemoryDataset data(22, {3, 6, 6});
  const int total = 12;  // 2.4 epochs of 5 batches
  for (int workers : {1, 3}) {
    CAPTURE(workers);
    sr::BatchLoader uninterrupted(data, full_config(workers, 2));
    const auto expected = take(uninterrupted, total);

    for (int stop_after : {0, 3, 5, 7, 11}) {
      CAPTURE(stop_after);
      std::vector<BatchBytes> resumed;
      sr::LoaderState saved;
      {
        sr::BatchLoader first(data, full_config(workers, 2));
        resumed = take(first, stop_after);
        saved = first.state();
      }  // the first loader is destroyed with batches produced ahead, as a killed run would be
      CHECK(saved.epoch * 5 + saved.batch == static_cast<std::uint64_t>(stop_after));
      // The restarted trainer builds a fresh loader from the checkpoint's state; the seed in
      // the state wins over the config's.
      auto config = full_config(workers, 2);
      config.seed = 1;
      sr::BatchLoader second(data, config, saved);
      for (auto& b : take(second, total - stop_after))
        resumed.push_back(std::move(b));
      CHECK(resumed == expected);
    }

    // seek() on a running loader does the same, whatever it had produced ahead.
    sr::BatchLoader seeking(data, full_config(workers, 3));
    take(seeking, 4);
    seeking.seek(sr::LoaderState{2024, 1, 2});
    const auto tail = take(seeking, 5);
    CHECK(std::vector<BatchBytes>(expected.begin() + 7, expected.end()) == tail);
  }
}

TEST_CASE("batches: state() counts a held batch as handed out") {
  MemoryDataset data(22, {3, 6, 6});
  sr::BatchLoader loader(data, full_config(2, 2));
  const auto view = loader.acquire();
  CHECK(view.position == sr::LoaderState{2024, 0, 0});
  CHECK(loader.state() == sr::LoaderState{2024, 0, 1});
  CHECK_THROWS_AS(loader.acquire(), std::logic_error);
  loader.release();
  CHECK_THROWS_AS(loader.release(), std::logic_error);
  CHECK(loader.state() == sr::LoaderState{2024, 0, 1});
  CHECK_THROWS_AS(loader.seek(sr::LoaderState{2024, 0, 5}), sr::LoaderConfigError);
}

TEST_CASE("batches: a worker's exception reaches the consumer at the batch it broke") {
  for (int workers : {1, 3}) {
    CAPTURE(workers);
    MemoryDataset data(40, {1, 2, 2});
    data.corrupt(13);  // in batch 3 of epoch 0 (batches of 4, natural order)
    sr::LoaderConfig config;
    config.batch_size = 4;
    config.sample_shape = {1, 2, 2};
    config.shuffle = false;
    config.workers = workers;
    config.slots = 3;
    sr::BatchLoader loader(data, config);
    std::vector<float> inputs(16);
    std::vector<std::int32_t> labels(4);
    for (int b = 0; b < 3; ++b)
      loader.next(inputs, labels);  // the batches before it are fine
    CHECK_THROWS_WITH_AS(loader.next(inputs, labels),
                         "memory.bin: byte 52: expected a finite value, found NaN bits",
                         sr::FormatError);
    CHECK(loader.state() == sr::LoaderState{0, 0, 3});
    // It stays broken until the caller decides what to do...
    CHECK_THROWS_AS(loader.next(inputs, labels), sr::FormatError);
    // ... for example skip past it.
    loader.seek(sr::LoaderState{0, 0, 4});
    loader.next(inputs, labels);
    CHECK(labels == std::vector<std::int32_t>{6, 7, 8, 9});
  }  // destruction after a failure joins cleanly
}

TEST_CASE("batches: shutdown while workers are blocked or busy") {
  MemoryDataset data(64, {3, 6, 6});
  // Workers blocked on a full ring: nothing was consumed.
  for (int workers : {1, 3}) {
    sr::BatchLoader loader(data, full_config(workers, 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The consumer holds a slot and stops early.
  {
    sr::BatchLoader loader(data, full_config(3, 2));
    loader.acquire();
  }
  // Workers in the middle of slow reads: the destructor waits for the rows they are on, not for
  // the ring to fill (8 slots of 4 rows at 20 ms a row take over 200 ms with 3 workers).
  MemoryDataset slow(64, {3, 6, 6});
  slow.set_read_delay(std::chrono::milliseconds(20));
  const auto start = std::chrono::steady_clock::now();
  {
    sr::BatchLoader loader(slow, full_config(3, 8));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(slow.reads() < 32);
  CHECK(elapsed < std::chrono::seconds(2));  // generous: only a deadlock should fail this
  // Destroyed right after construction.
  for (int i = 0; i < 20; ++i)
    sr::BatchLoader(data, full_config(2, 2));
}

TEST_CASE("batches: a long run over many epochs with several workers") {
  MemoryDataset data(50, {1, 2, 2});
  sr::LoaderConfig config;
  config.batch_size = 7;  // 7 batches an epoch, 1 sample dropped
  config.sample_shape = {1, 2, 2};
  config.seed = 11;
  config.workers = 3;
  config.slots = 2;
  sr::BatchLoader loader(data, config);
  std::vector<float> inputs(28);
  std::vector<std::int32_t> labels(7);
  for (int epoch = 0; epoch < 40; ++epoch) {
    std::vector<int> seen(50, 0);
    for (int b = 0; b < 7; ++b) {
      loader.next(inputs, labels);
      for (int r = 0; r < 7; ++r) {
        const auto index = static_cast<std::size_t>(inputs[static_cast<std::size_t>(4 * r)] / 100);
        REQUIRE(labels[static_cast<std::size_t>(r)] == static_cast<std::int32_t>(index % 10));
        ++seen[index];
      }
    }
    int once = 0;
    for (int s : seen) {
      REQUIRE(s <= 1);  // no sample twice in an epoch
      once += s;
    }
    CHECK(once == 49);
  }
  CHECK(loader.state() == sr::LoaderState{11, 40, 0});
}
