// Exact resumption: a stand-in trainer (softmax regression updated by SGD with momentum, with
// dropout-like input noise from a std::mt19937_64) reads synthetic data through the real
// BatchLoader (shuffle and crop/flip augmentation on, 2 workers). One run trains straight to
// step N, saving a checkpoint (weights, momentum, step, epoch, RNG state, data position) on the
// way with the real checkpoint API; a second run loads that checkpoint into fresh objects and
// trains to step N. The weights must agree bit for bit and the losses after the checkpoint must
// be the same sequence, whether the checkpoint falls mid-epoch, on the last batch of an epoch or
// on an epoch boundary.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "staticnet/runtime/batches/loader.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"
#include "test_checkpoint_support.hpp"  // TempDir

namespace {

using namespace staticnet::runtime;
namespace fs = std::filesystem;

constexpr std::int64_t classes = 4;
constexpr std::int64_t batch_size = 16;
const std::vector<std::int64_t> sample_shape{3, 6, 6};
constexpr std::int64_t features = 3 * 6 * 6;
constexpr std::int64_t dataset_size = 200;  // 12 batches of 16 per epoch (the last 8 dropped)

std::unique_ptr<Dataset> make_data() {
  SyntheticOptions options;
  options.sample_shape = sample_shape;
  options.size = dataset_size;
  options.seed = 11;
  options.num_classes = classes;
  options.class_separation = 0.5;
  return make_synthetic(options);
}

LoaderConfig loader_config() {
  LoaderConfig config;
  config.batch_size = batch_size;
  config.sample_shape = sample_shape;
  config.shuffle = true;
  config.seed = 1234;
  config.normalization.mean = {0.1f, 0.0f, -0.1f};
  config.normalization.stddev = {1.5f};
  config.augmentation.crop_padding = 2;
  config.augmentation.horizontal_flip = true;
  config.workers = 2;
  config.slots = 3;
  return config;
}

// Softmax regression, SGD with momentum, inputs dropped with probability 1/10 (kept ones scaled
// by 10/9) by a mersenne twister whose state is part of the training state.
class Trainer {
 public:
  std::vector<float> weight = std::vector<float>(classes * features, 0.0f);
  std::vector<float> bias = std::vector<float>(classes, 0.0f);
  std::vector<float> weight_velocity = std::vector<float>(classes * features, 0.0f);
  std::vector<float> bias_velocity = std::vector<float>(classes, 0.0f);
  std::mt19937_64 rng{2024};
  std::uint64_t step = 0;

  // One step on a batch; returns the mean cross-entropy before the update.
  float train(std::span<const float> inputs, std::span<const std::int32_t> labels) {
    constexpr float learning_rate = 0.05f;
    constexpr float momentum = 0.9f;
    std::vector<float> grad_w(weight.size(), 0.0f);
    std::vector<float> grad_b(bias.size(), 0.0f);
    std::vector<float> x(features);
    double loss = 0.0;
    for (std::int64_t n = 0; n < batch_size; ++n) {
      for (std::int64_t j = 0; j < features; ++j) {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // raw bits: portable
        x[j] = u < 0.1 ? 0.0f : inputs[n * features + j] * (10.0f / 9.0f);
      }
      float logits[classes];
      float top = -INFINITY;
      for (std::int64_t k = 0; k < classes; ++k) {
        float z = bias[k];
        for (std::int64_t j = 0; j < features; ++j)
          z += weight[k * features + j] * x[j];
        logits[k] = z;
        top = std::max(top, z);
      }
      float total = 0.0f;
      for (float& z : logits) {
        z = std::exp(z - top);
        total += z;
      }
      const auto label = labels[n];
      loss -= std::log(logits[label] / total);
      for (std::int64_t k = 0; k < classes; ++k) {
        const float g = (logits[k] / total - (k == label ? 1.0f : 0.0f)) / batch_size;
        grad_b[k] += g;
        for (std::int64_t j = 0; j < features; ++j)
          grad_w[k * features + j] += g * x[j];
      }
    }
    for (std::size_t i = 0; i < weight.size(); ++i) {
      weight_velocity[i] = momentum * weight_velocity[i] + grad_w[i];
      weight[i] -= learning_rate * weight_velocity[i];
    }
    for (std::size_t i = 0; i < bias.size(); ++i) {
      bias_velocity[i] = momentum * bias_velocity[i] + grad_b[i];
      bias[i] -= learning_rate * bias_velocity[i];
    }
    ++step;
    return static_cast<float>(loss / batch_size);
  }

  std::string rng_state() const {
    std::ostringstream out;
    out << rng;
    return out.str();
  }
};

template <class T>
std::span<const std::byte> bytes(const std::vector<T>& values) {
  return std::as_bytes(std::span<const T>(values));
}

void save(const fs::path& path, const Trainer& trainer, const BatchLoader& loader) {
  const std::vector<SafetensorsTensorRef> tensors{
      {"fc.weight", Dtype::f32, {classes, features}, bytes(trainer.weight)},
      {"fc.bias", Dtype::f32, {classes}, bytes(trainer.bias)},
      {optimizer_state_name("sgd", "momentum", "fc.weight"),
       Dtype::f32,
       {classes, features},
       bytes(trainer.weight_velocity)},
      {optimizer_state_name("sgd", "momentum", "fc.bias"),
       Dtype::f32,
       {classes},
       bytes(trainer.bias_velocity)},
  };
  // The loader's position is the batch it hands out next: at an epoch boundary that is batch 0
  // of the next epoch, so the state's epoch is the one training continues in.
  const LoaderState position = loader.state();
  TrainingState state;
  state.step = trainer.step;
  state.epoch = position.epoch;
  state.rng_state = trainer.rng_state();
  state.data_order.epoch_seed = position.seed;
  state.data_order.index_in_epoch = position.batch * batch_size;
  save_checkpoint(path, tensors, state, {{"test", "resume"}});
}

void copy_tensor(const Checkpoint& checkpoint, const std::string& name, std::vector<float>& to) {
  const CheckpointTensor* tensor = checkpoint.find(name);
  REQUIRE(tensor != nullptr);
  REQUIRE(tensor->data.size() == to.size() * sizeof(float));
  std::memcpy(to.data(), tensor->data.data(), tensor->data.size());
}

struct Restored {
  Trainer trainer;
  LoaderState position;
};

Restored restore(const fs::path& path) {
  CheckpointExpectations expected;
  expected.tensors = {
      {"fc.weight", Dtype::f32, {classes, features}},
      {"fc.bias", Dtype::f32, {classes}},
      {optimizer_state_name("sgd", "momentum", "fc.weight"), Dtype::f32, {classes, features}},
      {optimizer_state_name("sgd", "momentum", "fc.bias"), Dtype::f32, {classes}},
  };
  const Checkpoint checkpoint = load_checkpoint(path, expected);
  Restored r;
  copy_tensor(checkpoint, "fc.weight", r.trainer.weight);
  copy_tensor(checkpoint, "fc.bias", r.trainer.bias);
  copy_tensor(checkpoint, optimizer_state_name("sgd", "momentum", "fc.weight"),
              r.trainer.weight_velocity);
  copy_tensor(checkpoint, optimizer_state_name("sgd", "momentum", "fc.bias"),
              r.trainer.bias_velocity);
  std::istringstream in(checkpoint.state.rng_state);
  in >> r.trainer.rng;
  REQUIRE_FALSE(in.fail());
  r.trainer.step = checkpoint.state.step;
  REQUIRE(checkpoint.state.data_order.index_in_epoch % batch_size == 0);
  r.position = LoaderState{checkpoint.state.data_order.epoch_seed, checkpoint.state.epoch,
                           checkpoint.state.data_order.index_in_epoch / batch_size};
  return r;
}

// Trains `trainer` until step `until`, appending each loss.
void train_until(Trainer& trainer, BatchLoader& loader, std::uint64_t until,
                 std::vector<float>& losses) {
  std::vector<float> inputs(static_cast<std::size_t>(batch_size * features));
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch_size));
  while (trainer.step < until) {
    loader.next(inputs, labels);
    losses.push_back(trainer.train(inputs, labels));
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

using ScratchDir = staticnet::runtime::test::TempDir;

// The straight run: to `total` steps, with a checkpoint saved after step `save_at`.
struct StraightRun {
  Trainer trainer;
  std::vector<float> losses;  // losses[i] is the loss of step i + 1
  TrainingState saved_state;
};

StraightRun run_straight(const Dataset& data, const fs::path& checkpoint, std::uint64_t save_at,
                         std::uint64_t total) {
  StraightRun run;
  BatchLoader loader(data, loader_config());
  train_until(run.trainer, loader, save_at, run.losses);
  save(checkpoint, run.trainer, loader);
  train_until(run.trainer, loader, total, run.losses);
  run.saved_state = load_checkpoint(checkpoint).state;
  return run;
}

void check_resumes_exactly(std::uint64_t save_at, std::uint64_t total) {
  const auto data = make_data();
  ScratchDir dir;
  const fs::path path = dir / "step.safetensors";
  const StraightRun straight = run_straight(*data, path, save_at, total);
  REQUIRE(straight.losses.size() == total);
  CHECK(straight.saved_state.step == save_at);
  CHECK(straight.saved_state.epoch == save_at / 12);
  CHECK(straight.saved_state.data_order.index_in_epoch == save_at % 12 * batch_size);

  // Fresh objects: a new data set, a new loader at the saved position, a new trainer.
  const auto fresh_data = make_data();
  Restored restored = restore(path);
  BatchLoader loader(*fresh_data, loader_config(), restored.position);
  std::vector<float> resumed_losses;
  train_until(restored.trainer, loader, total, resumed_losses);

  REQUIRE(resumed_losses.size() == total - save_at);
  CHECK(std::memcmp(resumed_losses.data(), straight.losses.data() + save_at,
                    resumed_losses.size() * sizeof(float)) == 0);
  CHECK(same_bits(restored.trainer.weight, straight.trainer.weight));
  CHECK(same_bits(restored.trainer.bias, straight.trainer.bias));
  CHECK(same_bits(restored.trainer.weight_velocity, straight.trainer.weight_velocity));
  CHECK(same_bits(restored.trainer.bias_velocity, straight.trainer.bias_velocity));
  CHECK(restored.trainer.rng == straight.trainer.rng);
  CHECK(loader.state() == LoaderState{1234, total / 12, total % 12});
}

}  // namespace

TEST_CASE("resume: a checkpoint saved mid-epoch resumes bit for bit, across later epochs") {
  check_resumes_exactly(5, 30);  // saved in epoch 0 at batch 5; resumed through epochs 1 and 2
}

TEST_CASE("resume: a checkpoint on the last batch of an epoch resumes across the boundary") {
  check_resumes_exactly(11, 20);  // the next batch is batch 11 of epoch 0, then epoch 1 starts
}

TEST_CASE("resume: a checkpoint exactly at an epoch boundary resumes in the next epoch") {
  check_resumes_exactly(12, 26);  // the state says epoch 1, batch 0
}

TEST_CASE("resume: the comparison is sensitive to each part of the state") {
  // Without this, a test that compared two runs which never depended on the checkpoint would
  // pass too. Each part left out must change the weights.
  const auto data = make_data();
  ScratchDir dir;
  const fs::path path = dir / "step.safetensors";
  const StraightRun straight = run_straight(*data, path, 7, 16);
  CHECK(straight.losses.front() != straight.losses.back());

  {  // the RNG state not restored
    Restored r = restore(path);
    r.trainer.rng.seed(2024);
    BatchLoader loader(*data, loader_config(), r.position);
    std::vector<float> losses;
    train_until(r.trainer, loader, 16, losses);
    CHECK_FALSE(same_bits(r.trainer.weight, straight.trainer.weight));
  }
  {  // the data position not restored (restarting the epoch)
    Restored r = restore(path);
    BatchLoader loader(*data, loader_config(), LoaderState{r.position.seed, r.position.epoch, 0});
    std::vector<float> losses;
    train_until(r.trainer, loader, 16, losses);
    CHECK_FALSE(same_bits(r.trainer.weight, straight.trainer.weight));
  }
  {  // the optimizer state not restored
    Restored r = restore(path);
    std::fill(r.trainer.weight_velocity.begin(), r.trainer.weight_velocity.end(), 0.0f);
    BatchLoader loader(*data, loader_config(), r.position);
    std::vector<float> losses;
    train_until(r.trainer, loader, 16, losses);
    CHECK_FALSE(same_bits(r.trainer.weight, straight.trainer.weight));
  }
}
