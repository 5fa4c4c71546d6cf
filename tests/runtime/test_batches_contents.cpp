// What a BatchLoader puts in a batch: order, last-batch policy, normalisation, augmentation,
// labels and targets, against expectations worked out from the tiny data set's known values.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/batches/shuffle.hpp"
#include "test_batches_dataset.hpp"

namespace sr = staticnet::runtime;
using sr::testing::MemoryDataset;

namespace {

sr::LoaderConfig plain_config(std::int64_t batch, std::vector<std::int64_t> shape) {
  sr::LoaderConfig c;
  c.batch_size = batch;
  c.sample_shape = std::move(shape);
  c.shuffle = false;
  return c;
}

// The inputs a batch of these samples would hold without normalisation or augmentation.
std::vector<float> raw_rows(const std::vector<std::int64_t>& indices, std::int64_t elements) {
  std::vector<float> out;
  for (auto i : indices) {
    for (std::int64_t k = 0; k < elements; ++k)
      out.push_back(MemoryDataset::value(i, k));
  }
  return out;
}

std::vector<std::int32_t> labels_of(const std::vector<std::int64_t>& indices) {
  std::vector<std::int32_t> out;
  for (auto i : indices)
    out.push_back(static_cast<std::int32_t>(i % 10));
  return out;
}

struct Batch {
  std::vector<float> inputs;
  std::vector<std::int32_t> labels;
};

Batch next_batch(sr::BatchLoader& loader) {
  Batch b;
  const auto view = loader.acquire();
  b.inputs.assign(view.inputs.begin(), view.inputs.end());
  b.labels.assign(view.labels.begin(), view.labels.end());
  loader.release();
  return b;
}

}  // namespace

TEST_CASE("batches: natural order, last partial batch dropped") {
  MemoryDataset data(5, {1, 2, 2});
  sr::BatchLoader loader(data, plain_config(2, {1, 2, 2}));
  CHECK(loader.batches_per_epoch() == 2);

  std::vector<float> inputs(8);
  std::vector<std::int32_t> labels(2);
  loader.next(inputs, labels);
  CHECK(inputs == std::vector<float>{0, 1, 2, 3, 100, 101, 102, 103});
  CHECK(labels == std::vector<std::int32_t>{0, 1});
  loader.next(inputs, labels);
  CHECK(inputs == raw_rows({2, 3}, 4));
  CHECK(loader.state() == sr::LoaderState{0, 1, 0});
  loader.next(inputs, labels);  // sample 4 was dropped; epoch 1 starts over
  CHECK(inputs == raw_rows({0, 1}, 4));
  CHECK(labels == labels_of({0, 1}));
}

TEST_CASE("batches: wrap completes the last batch from the start of the epoch's order") {
  MemoryDataset data(5, {1, 2, 2});
  auto config = plain_config(2, {1, 2, 2});
  config.last_batch = sr::LastBatch::wrap;
  sr::BatchLoader loader(data, config);
  CHECK(loader.batches_per_epoch() == 3);
  CHECK(next_batch(loader).inputs == raw_rows({0, 1}, 4));
  CHECK(next_batch(loader).inputs == raw_rows({2, 3}, 4));
  const auto last = next_batch(loader);
  CHECK(last.inputs == raw_rows({4, 0}, 4));
  CHECK(last.labels == labels_of({4, 0}));
  CHECK(next_batch(loader).inputs == raw_rows({0, 1}, 4));

  // A data set smaller than a batch wraps more than once.
  MemoryDataset tiny(3, {1, 2, 2});
  config.batch_size = 5;
  sr::BatchLoader small(tiny, config);
  CHECK(small.batches_per_epoch() == 1);
  CHECK(next_batch(small).labels == labels_of({0, 1, 2, 0, 1}));

  // ... which drop refuses, naming the sizes.
  config.last_batch = sr::LastBatch::drop;
  CHECK_THROWS_WITH_AS(sr::BatchLoader(tiny, config), doctest::Contains("3 samples"),
                       sr::LoaderConfigError);
}

TEST_CASE("batches: shuffled batches follow epoch_order(seed, epoch)") {
  MemoryDataset data(10, {1, 2, 2});
  auto config = plain_config(3, {1, 2, 2});
  config.shuffle = true;
  config.seed = 17;
  config.workers = 2;
  sr::BatchLoader loader(data, config);
  for (std::uint64_t epoch = 0; epoch < 3; ++epoch) {
    const auto order = sr::epoch_order(17, epoch, 10);
    for (std::size_t b = 0; b < 3; ++b) {
      const std::vector<std::int64_t> rows(order.begin() + static_cast<std::ptrdiff_t>(3 * b),
                                           order.begin() + static_cast<std::ptrdiff_t>(3 * b + 3));
      const auto batch = next_batch(loader);
      CHECK(batch.inputs == raw_rows(rows, 4));
      CHECK(batch.labels == labels_of(rows));
    }
  }
}

TEST_CASE("batches: normalisation in the loader") {
  // scale 0.5, mean 1, stddev 2: y = x/4 - 1/2, exact in f32 for these values.
  MemoryDataset data(4, {1, 2, 2});
  auto config = plain_config(2, {1, 2, 2});
  config.normalization = sr::Normalization{0.5f, {1.0f}, {2.0f}};
  sr::BatchLoader loader(data, config);
  CHECK(next_batch(loader).inputs ==
        std::vector<float>{-0.5f, -0.25f, 0.0f, 0.25f, 24.5f, 24.75f, 25.0f, 25.25f});
}

TEST_CASE("batches: augmentation in the loader uses (seed, epoch, data set index)") {
  MemoryDataset data(6, {2, 4, 4});
  auto config = plain_config(3, {2, 4, 4});
  config.shuffle = true;
  config.seed = 3;
  config.augmentation = sr::Augmentation{2, true};
  config.normalization = sr::Normalization{1.0f / 255.0f, {0.25f, 0.5f}, {0.5f, 0.25f}};
  config.workers = 3;
  sr::BatchLoader loader(data, config);
  const sr::ChannelAffine affine(config.normalization, config.sample_shape);
  for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
    const auto order = sr::epoch_order(3, epoch, 6);
    for (std::size_t b = 0; b < 2; ++b) {
      const auto batch = next_batch(loader);
      for (std::size_t r = 0; r < 3; ++r) {
        const std::int64_t index = order[3 * b + r];
        const auto raw = raw_rows({index}, 32);
        std::vector<float> expected(32);
        sr::augment_and_normalize(raw.data(), expected.data(), {2, 4, 4}, 2,
                                  sr::draw_augmentation(config.augmentation, 3, epoch, index),
                                  affine);
        const std::vector<float> row(
            batch.inputs.begin() + static_cast<std::ptrdiff_t>(32 * r),
            batch.inputs.begin() + static_cast<std::ptrdiff_t>(32 * r + 32));
        CHECK(row == expected);
      }
    }
  }
}

TEST_CASE("batches: regression targets") {
  MemoryDataset data(4, {3});
  data.make_regression({2});
  auto config = plain_config(2, {3});
  config.label_kind = sr::LabelKind::regression;
  config.target_shape = {2};
  sr::BatchLoader loader(data, config);
  std::vector<float> inputs(6), targets(4);
  loader.next(inputs, targets);
  loader.next(inputs, targets);
  CHECK(inputs == std::vector<float>{200, 201, 202, 300, 301, 302});
  CHECK(targets == std::vector<float>{2, -2, 3, -3});
  const auto view = loader.acquire();
  CHECK(view.labels.empty());
  CHECK(view.targets.size() == 4);
  loader.release();

  std::vector<std::int32_t> labels(2);
  CHECK_THROWS_AS(loader.next(inputs, labels), sr::LoaderConfigError);
}

TEST_CASE("batches: unlabelled data: inputs only, wrapped like any other") {
  MemoryDataset data(3, {2});
  data.make_unlabelled();
  auto config = plain_config(2, {2});
  config.label_kind = sr::LabelKind::none;
  config.last_batch = sr::LastBatch::wrap;
  sr::BatchLoader loader(data, config);
  CHECK(loader.batches_per_epoch() == 2);
  std::vector<float> inputs(4);
  loader.next(inputs);
  CHECK(inputs == std::vector<float>{0, 1, 100, 101});
  const auto view = loader.acquire();  // sample 2, then sample 0 completing the batch
  CHECK(std::vector<float>(view.inputs.begin(), view.inputs.end()) ==
        std::vector<float>{200, 201, 0, 1});
  CHECK(view.labels.empty());
  CHECK(view.targets.empty());
  loader.release();

  std::vector<std::int32_t> labels(2);
  CHECK_THROWS_WITH_AS(loader.next(inputs, labels),
                       "next(inputs, labels) on a loader without class labels",
                       sr::LoaderConfigError);
  // A trainer's loader (class labels) refuses the unlabelled set by name.
  config.label_kind = sr::LabelKind::class_index;
  CHECK_THROWS_WITH_AS(sr::BatchLoader(data, config),
                       "memory data set 'memory.bin' has no labels but the trainer was planned for "
                       "class_index labels",
                       sr::LoaderConfigError);
}

TEST_CASE("batches: a data set or buffer that does not fit the plan is refused by name") {
  MemoryDataset data(8, {1, 28, 28});
  auto config = plain_config(4, {3, 32, 32});
  CHECK_THROWS_WITH_AS(
      sr::BatchLoader(data, config),
      "memory data set 'memory.bin' has sample shape (1, 28, 28) but the trainer was planned for "
      "sample shape (3, 32, 32)",
      sr::LoaderConfigError);

  config.sample_shape = {1, 28, 28};
  config.label_kind = sr::LabelKind::regression;
  config.target_shape = {1};
  CHECK_THROWS_WITH_AS(sr::BatchLoader(data, config),
                       "memory data set 'memory.bin' has class_index labels but the trainer was "
                       "planned for regression targets (regression targets are floats: save "
                       "them as a float array, e.g. numpy's targets.astype(np.float32))",
                       sr::LoaderConfigError);

  config.label_kind = sr::LabelKind::class_index;
  sr::BatchLoader loader(data, config);
  std::vector<float> inputs(4 * 784);
  std::vector<std::int32_t> labels(4);
  std::vector<float> short_inputs(4 * 783);
  CHECK_THROWS_WITH_AS(loader.next(short_inputs, labels),
                       "the caller's inputs buffer has 3132 elements but the planned inputs "
                       "(4, 1, 28, 28) need 3136",
                       sr::LoaderConfigError);
  std::vector<std::int32_t> long_labels(5);
  CHECK_THROWS_WITH_AS(loader.next(inputs, long_labels), doctest::Contains("labels (4,) need 4"),
                       sr::LoaderConfigError);
  loader.next(inputs, labels);  // the loader is still usable
  CHECK(loader.state() == sr::LoaderState{0, 0, 1});

  auto bad = config;
  bad.augmentation.horizontal_flip = true;
  bad.sample_shape = {784};
  MemoryDataset flat(8, {784});
  CHECK_THROWS_WITH_AS(sr::BatchLoader(flat, bad), doctest::Contains("(C, H, W)"),
                       sr::LoaderConfigError);
  bad = config;
  bad.workers = 0;
  CHECK_THROWS_AS(sr::BatchLoader(data, bad), sr::LoaderConfigError);
}

TEST_CASE("batches: a class label out of range is a FormatError naming the sample") {
  MemoryDataset data(4, {1, 2, 2});
  data.set_label_override(2, 10);  // 10 classes: 10 is one past the end
  sr::BatchLoader loader(data, plain_config(2, {1, 2, 2}));
  next_batch(loader);
  CHECK_THROWS_WITH_AS(next_batch(loader),
                       "memory.bin: expected a class label in [0, 10), found 10 for sample 2",
                       sr::FormatError);
}
