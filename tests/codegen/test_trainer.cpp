// The training loop through its library API (the program's own tests are in trainer/): what the
// command line cannot easily show.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <staticnet/runtime/checkpoints/checkpoint.hpp>
#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "cli_net_kernels_cpu.h"
#include "cli_net_trainer.h"

namespace {

namespace rt = staticnet::runtime;
namespace fs = std::filesystem;

const std::string data_dir = STATICNET_TRAINER_DATA_DIR;

rt::TrainOptions options_for(int epochs) {
  rt::TrainOptions o;
  o.data = {data_dir + "/train.npy", data_dir + "/train_labels.npy"};
  o.epochs = epochs;
  o.optimizer = rt::default_optimizer_settings(cli_net::model_info().optimizer);
  o.progress = rt::ProgressMode::none;
  return o;
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("staticnet_test_trainer_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Forwards every call to another backend; the test backends below override what they watch.
class ForwardingBackend : public rt::Backend {
 public:
  explicit ForwardingBackend(rt::Backend& inner) : inner_(inner) {}
  std::string description() const override { return inner_.description(); }
  std::span<float> batch_inputs() override { return inner_.batch_inputs(); }
  std::span<std::int32_t> batch_labels() override { return inner_.batch_labels(); }
  std::span<float> batch_targets() override { return inner_.batch_targets(); }
  void batch_ready() override { inner_.batch_ready(); }
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    inner_.train_step(c);
  }
  void evaluate() override { inner_.evaluate(); }
  std::span<const float> losses() override { return inner_.losses(); }
  std::span<const std::int32_t> predictions() override { return inner_.predictions(); }
  void read_state(rt::StateBuffer w, std::span<float> out) override { inner_.read_state(w, out); }
  void write_state(rt::StateBuffer w, std::span<const float> in) override {
    inner_.write_state(w, in);
  }
  rt::MemoryReport memory() const override { return inner_.memory(); }

 private:
  rt::Backend& inner_;
};

// Raises SIGINT during a chosen step (as a user's Ctrl-C).
class InterruptedBackend final : public ForwardingBackend {
 public:
  InterruptedBackend(rt::Backend& inner, int interrupt_at)
      : ForwardingBackend(inner), at_(interrupt_at) {}
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    ForwardingBackend::train_step(c);
    if (++steps_ == at_)
      std::raise(SIGINT);
  }

 private:
  int at_;
  int steps_ = 0;
};

// Checks the loop's side of batch_ready(): every train_step and evaluate runs on a batch
// announced once, after the loader wrote it and before anything else was written into it (the
// CUDA backend starts copying it to the GPU at that moment).
class BatchReadyBackend final : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  void batch_ready() override {
    ++ready_;
    announced_ = batch();
    ForwardingBackend::batch_ready();
  }
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    check_batch();
    ForwardingBackend::train_step(c);
  }
  void evaluate() override {
    check_batch();
    ForwardingBackend::evaluate();
  }

  int runs = 0;

 private:
  std::vector<float> batch() {
    std::vector<float> b(batch_inputs().begin(), batch_inputs().end());
    for (std::int32_t label : batch_labels())
      b.push_back(static_cast<float>(label));
    return b;
  }
  void check_batch() {
    ++runs;
    CAPTURE(runs);
    CHECK(ready_ == 1);            // announced, and once
    CHECK(batch() == announced_);  // nothing written into it since
    ready_ = 0;
  }

  int ready_ = 0;
  std::vector<float> announced_;
};

}  // namespace

TEST_CASE("trainer: each batch is announced with batch_ready() once, after it is written") {
  const rt::ModelInfo model = cli_net::model_info();
  rt::CpuBackend inner(model, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  BatchReadyBackend backend(inner);
  rt::TrainOptions o = options_for(2);
  o.eval = {data_dir + "/eval.npy", data_dir + "/eval_labels.npy"};  // 6 samples, batches of 4
  std::ostringstream out, progress;
  rt::train(model, backend, o, out, progress);
  // Per epoch: 3 training batches (12 samples) and 2 evaluation batches.
  CHECK(backend.runs == 2 * (3 + 2));
}

TEST_CASE("trainer: evaluation counts every sample of the eval set exactly once") {
  const rt::ModelInfo model = cli_net::model_info();
  rt::CpuBackend backend(model, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  rt::TrainOptions o = options_for(1);
  o.eval = {data_dir + "/eval.npy", data_dir + "/eval_labels.npy"};  // 6 samples, batches of 4
  std::ostringstream out, progress;
  const rt::TrainResult result = rt::train(model, backend, o, out, progress);
  REQUIRE(result.epochs.size() == 1);

  // The same weights, one sample at a time in row 0 of a batch: the mean of the six.
  const auto eval = rt::open_dataset({o.eval[0], o.eval[1]});
  double loss = 0;
  int correct = 0;
  for (std::int64_t i = 0; i < eval->size(); ++i) {
    auto inputs = backend.batch_inputs();
    for (std::int64_t row = 0; row < model.batch; ++row)
      eval->read_sample(i, inputs.subspan(static_cast<std::size_t>(row * 16), 16));
    for (auto& label : backend.batch_labels())
      label = eval->label(i);
    backend.evaluate();
    loss += backend.losses()[0];
    correct += backend.predictions()[0] == eval->label(i);
  }
  CHECK(*result.epochs[0].eval_loss == doctest::Approx(loss / 6).epsilon(1e-6));
  CHECK(*result.epochs[0].eval_accuracy == doctest::Approx(correct / 6.0));
}

TEST_CASE("trainer: a signal stops after the running step, saves, and the run resumes exactly") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("signal");
  std::ostringstream out, progress;

  rt::TrainOptions straight = options_for(2);
  straight.save = dir / "straight.safetensors";
  {
    rt::CpuBackend backend(model, steps, 2);
    rt::train(model, backend, straight, out, progress);
  }

  rt::TrainOptions interrupted = options_for(2);
  interrupted.save = dir / "interrupted.safetensors";
  {
    rt::CpuBackend inner(model, steps, 2);
    InterruptedBackend backend(inner, 4);  // epoch 2, batch 1 of 3
    const rt::TrainResult r = rt::train(model, backend, interrupted, out, progress);
    CHECK(r.interrupted);
    CHECK(r.steps == 4);
  }
  const rt::Checkpoint saved = rt::load_checkpoint(interrupted.save);
  CHECK(saved.state.step == 4);
  CHECK(saved.state.epoch == 1);
  CHECK(saved.state.data_order.index_in_epoch == 4);  // one batch of 4 into the second epoch

  rt::TrainOptions resumed = options_for(2);
  resumed.resume = interrupted.save;
  resumed.save = interrupted.save;
  {
    rt::CpuBackend backend(model, steps, 2);
    const rt::TrainResult r = rt::train(model, backend, resumed, out, progress);
    CHECK_FALSE(r.interrupted);
    CHECK(r.steps == 6);
  }
  CHECK(bytes_of(straight.save) == bytes_of(interrupted.save));
  fs::remove_all(dir);
}
