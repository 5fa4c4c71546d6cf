// The training loop through its library API (the program's own tests are in trainer/): what the
// command line cannot easily show.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <staticnet/runtime/checkpoints/checkpoint.hpp>
#include <staticnet/runtime/error.hpp>
#include <staticnet/runtime/formats/open_dataset.hpp>
#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/initialize.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "cli_net_kernels_cpu.h"
#include "cli_net_trainer.h"
#include "mlperf_ds_cnn_trainer.h"

namespace {

namespace rt = staticnet::runtime;
namespace fs = std::filesystem;

const std::string data_dir = STATICNET_TRAINER_DATA_DIR;

rt::TrainOptions options_for(int epochs) {
  rt::TrainOptions o;
  o.data = {data_dir + "/train.npy", data_dir + "/train_labels.npy"};
  o.epochs = epochs;
  o.progress = rt::ProgressMode::none;
  return o;
}

// One run of cli_net on the CPU backend (2 threads); `out` gets what the trainer prints.
rt::TrainResult train_cpu(const rt::TrainOptions& o, std::ostream& out) {
  const rt::ModelInfo model = cli_net::model_info();
  rt::CpuBackend backend(model, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  std::ostringstream progress;
  return rt::train(model, backend, o, out, progress);
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

// Raises a signal during a chosen step: SIGINT as a user's Ctrl-C, SIGTERM as a scheduler's.
class InterruptedBackend final : public ForwardingBackend {
 public:
  InterruptedBackend(rt::Backend& inner, int interrupt_at, int signal = SIGINT)
      : ForwardingBackend(inner), at_(interrupt_at), signal_(signal) {}
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    ForwardingBackend::train_step(c);
    if (++steps_ == at_)
      std::raise(signal_);
  }

 private:
  int at_;
  int signal_;
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

TEST_CASE("trainer: the progress bar ends each epoch with its loss and accuracy") {
  rt::TrainOptions o = options_for(2);
  o.progress = rt::ProgressMode::bar;  // redrawn in place, as on a terminal
  const rt::ModelInfo model = cli_net::model_info();
  rt::CpuBackend backend(model, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  std::ostringstream out, progress;
  const rt::TrainResult result = rt::train(model, backend, o, out, progress);
  REQUIRE(result.epochs.size() == 2);
  const std::string text = progress.str();
  CAPTURE(text);
  for (const rt::EpochMetrics& m : result.epochs) {
    // The bar's last report ends with the numbers of the epoch's line.
    char note[64];
    std::snprintf(note, sizeof note, "loss %.4f, accuracy %.1f%%", m.train_loss,
                  100.0 * m.train_accuracy);
    const std::string epoch = "epoch " + std::to_string(m.epoch) + "/2";
    const std::size_t at =
        text.find(epoch + " [##############################] 100.0%  3/3 batches");
    REQUIRE(at != std::string::npos);
    std::string last = text.substr(at, text.find('\n', at) - at);
    last.erase(last.find_last_not_of(' ') + 1);  // the blanks over a longer report before it
    CHECK(last.ends_with(std::string("  ") + note));
    CHECK(out.str().find(epoch + ": " + note) != std::string::npos);
  }
}

TEST_CASE("trainer: a signal stops after the running step, saves, and the run resumes exactly") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("signal");
  std::ostringstream out, progress;

  rt::TrainOptions straight = options_for(2);
  straight.save = dir / "straight.safetensors";
  train_cpu(straight, out);

  rt::TrainOptions interrupted = options_for(2);
  interrupted.save = dir / "interrupted.safetensors";
  {
    rt::CpuBackend inner(model, steps, 2);
    InterruptedBackend backend(inner, 4);  // epoch 2, batch 1 of 3
    std::ostringstream stopped_out;
    const rt::TrainResult r = rt::train(model, backend, interrupted, stopped_out, progress);
    CHECK(r.interrupted);
    CHECK(r.signal == SIGINT);
    CHECK(r.steps == 4);
    // The cut epoch's line says it is not the whole epoch, in words a log search for
    // "epoch 2/2:" does not match.
    CHECK(stopped_out.str().find("\nepoch 2/2 so far: loss ") != std::string::npos);
    CHECK(stopped_out.str().find("epoch 2/2:") == std::string::npos);
  }
  {
    rt::TrainOptions terminated = interrupted;
    terminated.save = dir / "terminated.safetensors";
    rt::CpuBackend inner(model, steps, 2);
    InterruptedBackend backend(inner, 4, SIGTERM);
    const rt::TrainResult r = rt::train(model, backend, terminated, out, progress);
    CHECK(r.interrupted);
    CHECK(r.signal == SIGTERM);  // the program exits 143, as a shell reports SIGTERM
    CHECK(bytes_of(terminated.save) == bytes_of(interrupted.save));
  }
  const rt::Checkpoint saved = rt::load_checkpoint(interrupted.save);
  CHECK(saved.state.step == 4);
  CHECK(saved.state.epoch == 1);
  CHECK(saved.state.data_order.index_in_epoch == 4);  // one batch of 4 into the second epoch

  rt::TrainOptions resumed = options_for(2);
  resumed.resume = interrupted.save;
  resumed.save = interrupted.save;
  {
    const rt::TrainResult r = train_cpu(resumed, out);
    CHECK_FALSE(r.interrupted);
    CHECK(r.steps == 6);
  }
  CHECK(bytes_of(straight.save) == bytes_of(interrupted.save));
  fs::remove_all(dir);
}

namespace {

// The line of epoch `epoch` in a trainer's report, without its throughput: "epoch 2/2: loss ...".
std::string epoch_report(const std::string& report, int epoch, int epochs) {
  const std::string start = "epoch " + std::to_string(epoch) + "/" + std::to_string(epochs) + ":";
  const std::size_t at = report.find(start);
  if (at == std::string::npos)
    return "no line for " + start;
  const std::string line = report.substr(at, report.find('\n', at) - at);
  return line.substr(0, line.find(" | "));
}

}  // namespace

TEST_CASE("trainer: a resumed epoch reports the whole epoch, as an uninterrupted run does") {
  const fs::path dir = scratch("resumed_epoch_line");
  rt::TrainOptions straight = options_for(2);
  straight.metrics = dir / "straight.jsonl";
  std::ostringstream straight_out;
  const rt::TrainResult whole = train_cpu(straight, straight_out);
  REQUIRE(whole.epochs.size() == 2);

  rt::TrainOptions first = options_for(2);
  first.save = dir / "run.safetensors";
  first.max_steps = 4;  // batch 1 of 3 into the second epoch
  std::ostringstream out;
  train_cpu(first, out);
  const rt::Checkpoint saved = rt::load_checkpoint(first.save);
  CHECK(saved.extra_metadata.at("epoch_samples") == "4");

  rt::TrainOptions resumed = options_for(2);
  resumed.resume = first.save;
  resumed.metrics = dir / "resumed.jsonl";
  std::ostringstream resumed_out;
  const rt::TrainResult rest = train_cpu(resumed, resumed_out);
  REQUIRE(rest.epochs.size() == 1);
  // The sums go on from the checkpoint's in the same order: the same bits, not merely close.
  CHECK(rest.epochs[0].train_loss == whole.epochs[1].train_loss);
  CHECK(rest.epochs[0].train_accuracy == whole.epochs[1].train_accuracy);
  CHECK(rest.epochs[0].train_samples == 12);
  CHECK(epoch_report(resumed_out.str(), 2, 2) == epoch_report(straight_out.str(), 2, 2));

  // A checkpoint from before the totals were kept: the epoch reports its own batches, and says so.
  rt::Checkpoint older = saved;
  for (const char* entry : {"epoch_loss_sum", "epoch_correct", "epoch_samples"})
    REQUIRE(older.extra_metadata.erase(entry) == 1);
  rt::save_checkpoint(first.save, older);
  std::ostringstream older_out;
  const rt::TrainResult partial = train_cpu(resumed, older_out);
  REQUIRE(partial.epochs.size() == 1);
  CHECK(partial.epochs[0].train_samples == 8);
  CHECK(older_out.str().find(
            " (batches 2-3 only: the checkpoint keeps no totals of the first 1)\n") !=
        std::string::npos);

  // Totals that do not fit the checkpoint's position are refused by name.
  rt::Checkpoint wrong = saved;
  wrong.extra_metadata["epoch_samples"] = "8";
  rt::save_checkpoint(first.save, wrong);
  CHECK_THROWS_WITH_AS(
      train_cpu(resumed, out),
      doctest::Contains("expected 4 samples (1 batch of 4 into the epoch) in the metadata entry "
                        "'epoch_samples'"),
      rt::FormatError);
  // One of the three alone: a damaged file, not an older one.
  rt::Checkpoint damaged = saved;
  REQUIRE(damaged.extra_metadata.erase("epoch_correct") == 1);
  rt::save_checkpoint(first.save, damaged);
  CHECK_THROWS_WITH_AS(train_cpu(resumed, out),
                       doctest::Contains("expected the metadata entries 'epoch_loss_sum', "
                                         "'epoch_correct' and 'epoch_samples' together, found 2 of "
                                         "them"),
                       rt::FormatError);
  fs::remove_all(dir);
}

namespace {

// Records the learning rate each train_step was given.
class RateRecordingBackend final : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    rates.push_back(-c.neg_learning_rate);
    ForwardingBackend::train_step(c);
  }
  std::vector<float> rates;
};

}  // namespace

TEST_CASE("trainer: the learning rate follows the schedule epoch by epoch") {
  const rt::ModelInfo model = cli_net::model_info();
  rt::CpuBackend inner(model, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  RateRecordingBackend backend(inner);
  rt::TrainOptions o = options_for(3);  // 3 batches an epoch
  o.optimizer.learning_rate = 0.08;
  o.optimizer.lr_schedule = rt::LrSchedule::exponential(0.5);
  std::ostringstream out, progress;
  const rt::TrainResult result = rt::train(model, backend, o, out, progress);
  CHECK(backend.rates ==
        std::vector<float>{0.08f, 0.08f, 0.08f, 0.04f, 0.04f, 0.04f, 0.02f, 0.02f, 0.02f});
  REQUIRE(result.epochs.size() == 3);
  CHECK(result.epochs[2].learning_rate == 0.02);
  CHECK(out.str().find("(lr 0.08, x0.5 after every epoch)") != std::string::npos);
  CHECK(out.str().find("epoch 2/3: lr 0.04, loss ") != std::string::npos);
}

TEST_CASE("trainer: a resumed run keeps the checkpoint's optimizer settings and schedule") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("settings");
  std::ostringstream out, progress;
  auto chosen = [](int epochs) {
    rt::TrainOptions o = options_for(epochs);
    o.optimizer.learning_rate = 0.05;
    o.optimizer.momentum = 0.5;
    o.optimizer.lr_schedule = rt::LrSchedule::parse("steps:1=0.02");
    return o;
  };

  rt::TrainOptions straight = chosen(2);
  straight.save = dir / "straight.safetensors";
  train_cpu(straight, out);
  // Each number in the shortest text that reads back as the same double.
  const rt::Checkpoint saved = rt::load_checkpoint(straight.save);
  CHECK(saved.extra_metadata.at("learning_rate") == "0.05");
  CHECK(saved.extra_metadata.at("momentum") == "0.5");
  CHECK(saved.extra_metadata.at("weight_decay") == "0");
  CHECK(saved.extra_metadata.at("beta1") == "0.9");
  CHECK(saved.extra_metadata.at("beta2") == "0.999");
  CHECK(saved.extra_metadata.at("epsilon") == "1e-08");
  CHECK(saved.extra_metadata.at("lr_schedule") == "steps:1=0.02");

  rt::TrainOptions interrupted = chosen(2);
  interrupted.save = dir / "interrupted.safetensors";
  {
    rt::CpuBackend inner(model, steps, 2);
    InterruptedBackend backend(inner, 4);  // epoch 2, batch 1 of 3
    rt::train(model, backend, interrupted, out, progress);
  }
  // Resumed with none of the settings given: the checkpoint's, so the same bytes.
  rt::TrainOptions resumed = options_for(2);
  resumed.resume = resumed.save = interrupted.save;
  {
    rt::CpuBackend inner(model, steps, 2);
    RateRecordingBackend backend(inner);
    std::ostringstream resumed_out;
    rt::train(model, backend, resumed, resumed_out, progress);
    CHECK(backend.rates == std::vector<float>{0.02f, 0.02f});
    CHECK(resumed_out.str().find("replaces") == std::string::npos);
    CHECK(resumed_out.str().find("(lr 0.05, 0.02 after epoch 1)") != std::string::npos);
  }
  CHECK(bytes_of(straight.save) == bytes_of(interrupted.save));

  // Given, a setting replaces the checkpoint's, and the run says so.
  rt::TrainOptions replaced = options_for(3);
  replaced.resume = straight.save;
  replaced.optimizer.momentum = 0.9;
  replaced.optimizer.lr_schedule = rt::LrSchedule{};
  {
    rt::CpuBackend inner(model, steps, 2);
    RateRecordingBackend backend(inner);
    std::ostringstream replaced_out;
    rt::train(model, backend, replaced, replaced_out, progress);
    CHECK(backend.rates == std::vector<float>{0.05f, 0.05f, 0.05f});
    CHECK(replaced_out.str().find("--momentum 0.9 replaces the checkpoint's 0.5") !=
          std::string::npos);
    CHECK(replaced_out.str().find("--lr-schedule constant replaces the checkpoint's "
                                  "steps:1=0.02") != std::string::npos);
    CHECK(replaced_out.str().find("this epoch's rate: 0.05 (the checkpoint's settings give "
                                  "0.02)") != std::string::npos);
  }
  // Under a schedule --lr is the first epoch's rate: past the step, replacing it changes nothing
  // now, and the run says so.
  rt::TrainOptions first_rate = options_for(3);
  first_rate.resume = straight.save;
  first_rate.optimizer.learning_rate = 0.1;
  {
    rt::CpuBackend inner(model, steps, 2);
    RateRecordingBackend backend(inner);
    std::ostringstream first_rate_out;
    rt::train(model, backend, first_rate, first_rate_out, progress);
    CHECK(backend.rates == std::vector<float>{0.02f, 0.02f, 0.02f});
    CHECK(first_rate_out.str().find("--lr 0.1 replaces the checkpoint's 0.05") !=
          std::string::npos);
    CHECK(first_rate_out.str().find("this epoch's rate stays 0.02") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "trainer: checkpoints without optimizer settings resume, and broken settings are refused") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("old_settings");
  std::ostringstream out, progress;
  rt::TrainOptions first = options_for(1);
  first.optimizer.learning_rate = 0.05;
  first.save = dir / "run.safetensors";
  train_cpu(first, out);
  rt::Checkpoint checkpoint = rt::load_checkpoint(first.save);

  // As an older staticnet wrote it: "learning_rate" in std::to_string's six decimals, nothing
  // else. The options and the defaults apply, and the run says so.
  rt::Checkpoint old = checkpoint;
  for (const char* entry : {"momentum", "weight_decay", "beta1", "beta2", "epsilon", "lr_schedule"})
    old.extra_metadata.erase(entry);
  old.extra_metadata["learning_rate"] = "0.050000";
  rt::save_checkpoint(dir / "old.safetensors", old);
  rt::TrainOptions resume_old = options_for(2);
  resume_old.resume = dir / "old.safetensors";
  {
    rt::CpuBackend inner(model, steps, 2);
    RateRecordingBackend backend(inner);
    std::ostringstream resumed_out;
    rt::train(model, backend, resume_old, resumed_out, progress);
    CHECK(backend.rates == std::vector<float>{0.01f, 0.01f, 0.01f});  // SGDMomentum's default
    CHECK(resumed_out.str().find("the checkpoint keeps no optimizer settings") !=
          std::string::npos);
  }

  // A value that does not read, or lies outside the command line's limits, or is missing: refused
  // before training, naming the file and the entry.
  const auto refusal = [&](const char* entry, const char* value) {
    rt::Checkpoint broken = checkpoint;
    if (value)
      broken.extra_metadata[entry] = value;
    else
      broken.extra_metadata.erase(entry);
    rt::save_checkpoint(dir / "broken.safetensors", broken);
    rt::TrainOptions resume_broken = options_for(2);
    resume_broken.resume = dir / "broken.safetensors";
    try {
      train_cpu(resume_broken, out);
    } catch (const rt::FormatError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string file = (dir / "broken.safetensors").string();
  CHECK(refusal("momentum", "0.9x") ==
        file + ": expected a number in [0, 1] in the metadata entry 'momentum', found '0.9x'");
  CHECK(refusal("beta2", "1.5") ==
        file + ": expected a number in [0, 1] in the metadata entry 'beta2', found '1.5'");
  CHECK(refusal("learning_rate", "0") ==
        file + ": expected a positive number in the metadata entry 'learning_rate', found '0'");
  CHECK(refusal("epsilon", "inf") ==
        file + ": expected a positive number in the metadata entry 'epsilon', found 'inf'");
  CHECK(refusal("shuffle", "maybe") ==
        file + ": expected true or false in the metadata entry 'shuffle', found 'maybe'");
  CHECK(refusal("epsilon", nullptr) ==
        file +
            ": expected the metadata entry 'epsilon', found none (the optimizer's other "
            "settings are there)");
  CHECK(refusal("lr_schedule", "steps:5") ==
        file +
            ": expected a learning-rate schedule in the metadata entry 'lr_schedule', found "
            "'steps:5' (steps:5: expected EPOCHS=LR (a whole number of epochs, then the rate), "
            "found '5')");
  fs::remove_all(dir);
}

TEST_CASE("trainer: --max-steps on an epoch's last batch ends that epoch, and the run resumes") {
  const fs::path dir = scratch("max_steps_epoch_end");
  std::ostringstream out;

  rt::TrainOptions straight = options_for(2);
  straight.save = dir / "straight.safetensors";
  train_cpu(straight, out);

  rt::TrainOptions stopped = options_for(2);
  stopped.save = dir / "stopped.safetensors";
  stopped.metrics = dir / "metrics.jsonl";
  stopped.max_steps = 3;  // the first epoch's last batch (3 batches of 4)
  {
    std::ostringstream stopped_out;
    const rt::TrainResult r = train_cpu(stopped, stopped_out);
    CHECK(r.steps == 3);
    CHECK_FALSE(r.interrupted);
    REQUIRE(r.epochs.size() == 1);  // a whole epoch, with its metrics line
    CHECK(stopped_out.str().find("stopped at step 3, the end of epoch 1 (--max-steps)") !=
          std::string::npos);
    CHECK(stopped_out.str().find("so far") == std::string::npos);
  }
  const std::string metrics = bytes_of(stopped.metrics);
  CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 1);
  const rt::Checkpoint saved = rt::load_checkpoint(stopped.save);
  CHECK(saved.state.step == 3);
  CHECK(saved.state.epoch == 1);  // the next epoch's start, which the loader can resume from
  CHECK(saved.state.data_order.index_in_epoch == 0);

  rt::TrainOptions resumed = options_for(2);
  resumed.resume = stopped.save;
  resumed.save = stopped.save;
  { CHECK(train_cpu(resumed, out).steps == 6); }
  CHECK(bytes_of(straight.save) == bytes_of(stopped.save));

  // The last step of the last epoch: the run ends as it would have, without a stop message.
  rt::TrainOptions last = options_for(1);
  last.max_steps = 3;
  {
    std::ostringstream last_out;
    CHECK(train_cpu(last, last_out).epochs.size() == 1);
    CHECK(last_out.str().find("stopped") == std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE(
    "trainer: --resume inside an epoch on data of another size is refused, between epochs the run "
    "goes on with it, and other files get a note") {
  const fs::path dir = scratch("other_data");
  std::ostringstream out;
  rt::TrainOptions first = options_for(3);
  first.save = dir / "run.safetensors";
  first.overwrite = true;  // run again below, to go back to a checkpoint
  first.max_steps = 4;     // inside epoch 2: the checkpoint stands at batch 1 of 3
  train_cpu(first, out);
  const rt::Checkpoint saved = rt::load_checkpoint(first.save);
  CHECK(saved.extra_metadata.at("data_samples") == "12");  // train.npy: 12 samples
  const std::string before = bytes_of(first.save);

  rt::TrainOptions other = options_for(3);
  other.data = {"synthetic:16"};
  other.resume = first.save;
  other.save = first.save;
  try {
    train_cpu(other, out);
    FAIL("resumed inside an epoch on a data set of another size");
  } catch (const rt::TrainingSetupError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.starts_with(first.save.string() +
                              ": the run stopped inside epoch 2, training on 12 samples (" +
                              data_dir + "/train.npy"));
    CHECK(message.find("/train_labels.npy), but synthetic:16 holds 16: --resume continues an "
                       "epoch on its own data") != std::string::npos);
    CHECK(
        message.ends_with("start a new run from these weights with --init " + first.save.string()));
  }
  CHECK(bytes_of(first.save) == before);

  // At an epoch's end nothing of the order is left to continue: the run goes on with 16 samples
  // (4 batches an epoch), and says so.
  first.max_steps = 3;
  train_cpu(first, out);  // the end of epoch 1
  std::ostringstream more_out;
  CHECK(train_cpu(other, more_out).steps == 3 + 2 * 4);
  CHECK(more_out.str().find("  the run was training on 12 samples (" + data_dir + "/train.npy") !=
        std::string::npos);
  CHECK(more_out.str().find("; from epoch 2 on it trains on the 16 of synthetic:16\n") !=
        std::string::npos);

  first.max_steps = 3;
  train_cpu(first, out);  // back to the end of epoch 1 on train.npy
  other.epochs = 2;

  // As many samples in other files: the same data moved, perhaps. The run goes on, and says so.
  other.data = {"synthetic:12"};
  std::ostringstream resumed_out;
  CHECK(train_cpu(other, resumed_out).steps == 6);
  CHECK(resumed_out.str().find("  the run was training on " + data_dir + "/train.npy") !=
        std::string::npos);
  CHECK(resumed_out.str().find("this one reads synthetic:12, of as many samples\n") !=
        std::string::npos);

  // The same files named another way are the same data: no note.
  train_cpu(first, out);  // back to step 3 on train.npy
  rt::TrainOptions same = options_for(2);
  same.data = {data_dir + "/./train.npy", data_dir + "/../data/train_labels.npy"};
  same.resume = first.save;
  std::ostringstream same_out;
  CHECK(train_cpu(same, same_out).steps == 6);
  CHECK(same_out.str().find("the run was training on") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE(
    "trainer: the checkpoint keeps --scale, --mean and --std, and a resumed run applies them") {
  const fs::path dir = scratch("normalization");
  std::ostringstream out;
  auto with_normalization = [](rt::TrainOptions o) {
    o.scale = 0.5f;
    o.mean = {0.25f};
    o.stddev = {2.0f};
    return o;
  };
  rt::TrainOptions straight = with_normalization(options_for(2));
  straight.save = dir / "straight.safetensors";
  train_cpu(straight, out);
  const rt::Checkpoint saved = rt::load_checkpoint(straight.save);
  CHECK(saved.extra_metadata.at("input_scale") == "0.5");
  CHECK(saved.extra_metadata.at("input_mean") == "0.25");
  CHECK(saved.extra_metadata.at("input_std") == "2");

  rt::TrainOptions first = with_normalization(options_for(2));
  first.save = dir / "resumed.safetensors";
  first.max_steps = 4;  // into the second epoch
  train_cpu(first, out);
  rt::TrainOptions resumed = options_for(2);  // none of the three given again
  resumed.resume = first.save;
  resumed.save = first.save;
  std::ostringstream resumed_out;
  train_cpu(resumed, resumed_out);
  CHECK(resumed_out.str().find("  inputs   scale 0.5, mean 0.25, std 2\n") != std::string::npos);
  CHECK(resumed_out.str().find("input scale 0.5 from the checkpoint") != std::string::npos);
  CHECK(bytes_of(first.save) == bytes_of(straight.save));  // the same inputs, the same bits
  fs::remove_all(dir);
}

TEST_CASE("trainer: a --save that cannot be written stops the run before it starts") {
  const fs::path dir = scratch("unwritable_save");
  rt::TrainOptions o = options_for(1);
  o.save = dir / "no-such-folder" / "run.safetensors";
  std::ostringstream out;
  CHECK_THROWS_WITH_AS(
      train_cpu(o, out),
      (o.save.string() + ": the directory " + (dir / "no-such-folder").string() + " does not exist")
          .c_str(),
      rt::IoError);
  CHECK(out.str().find("epoch 1/1") == std::string::npos);  // no step was spent
  o.save = dir;                                             // a directory
  CHECK_THROWS_AS(train_cpu(o, out), rt::IoError);
  fs::remove_all(dir);
}

TEST_CASE("trainer: a new run does not replace a file at --save unless told to") {
  const fs::path dir = scratch("save_exists");
  std::ostringstream out;
  rt::TrainOptions first = options_for(2);
  first.save = dir / "run.safetensors";
  train_cpu(first, out);
  const std::string finished = bytes_of(first.save);

  std::ostringstream again_out;
  CHECK_THROWS_WITH_AS(
      train_cpu(first, again_out),
      ("--save " + first.save.string() +
       " holds a checkpoint at step 6 (2 epochs done), and this run would replace it: --resume " +
       first.save.string() +
       " continues that run, --overwrite replaces it, or --save can name "
       "another file")
          .c_str(),
      rt::UsageError);
  CHECK(again_out.str().find("epoch 1/2") == std::string::npos);  // refused before any step
  CHECK(bytes_of(first.save) == finished);

  // A file that is not a checkpoint (data named at --save by mistake) is kept as well.
  rt::TrainOptions mistaken = options_for(1);
  mistaken.save = dir / "notes.txt";
  { std::ofstream(mistaken.save) << "my notes"; }
  CHECK_THROWS_WITH_AS(
      train_cpu(mistaken, out),
      ("--save " + mistaken.save.string() +
       " exists and is no training checkpoint, and this run would replace it: --overwrite "
       "replaces it, or --save can name another file")
          .c_str(),
      rt::UsageError);
  CHECK(bytes_of(mistaken.save) == "my notes");

  // An earlier run's metrics are kept too; a resumed run appends to them.
  rt::TrainOptions measured = options_for(1);
  measured.metrics = dir / "metrics.jsonl";
  train_cpu(measured, out);
  const std::string earlier = bytes_of(measured.metrics);
  CHECK_THROWS_WITH_AS(train_cpu(measured, out),
                       ("--metrics " + measured.metrics.string() +
                        " holds an earlier run's metrics, and this run would replace them: "
                        "--resume appends to them, --overwrite replaces them, or --metrics can "
                        "name another file")
                           .c_str(),
                       rt::UsageError);
  CHECK(bytes_of(measured.metrics) == earlier);
  measured.overwrite = true;
  train_cpu(measured, out);
  CHECK(bytes_of(measured.metrics).size() > 0);

  // The checkpoint a run resumes is its to replace; --overwrite lets a new run replace any.
  rt::TrainOptions resumed = options_for(3);
  resumed.resume = first.save;
  resumed.save = dir / "." / "run.safetensors";  // the same file, named another way
  CHECK(train_cpu(resumed, out).steps == 9);
  first.overwrite = true;
  CHECK(train_cpu(first, out).steps == 6);
  CHECK(bytes_of(first.save) == finished);  // the same run again: the same bytes
  fs::remove_all(dir);
}

TEST_CASE("trainer: a metrics file that cannot be written costs no checkpoint") {
  if (!fs::exists("/dev/full")) {
    MESSAGE("no /dev/full here; skipped");
    return;
  }
  const fs::path dir = scratch("metrics_full");
  rt::TrainOptions o = options_for(2);
  o.save = dir / "run.safetensors";
  o.metrics = "/dev/full";  // opens, then every write fails with ENOSPC
  std::ostringstream out;
  CHECK_THROWS_WITH_AS(train_cpu(o, out), "/dev/full: writing the metrics failed (disk full?)",
                       rt::IoError);
  REQUIRE(fs::exists(o.save));
  CHECK(rt::load_checkpoint(o.save).state.epoch == 1);  // the epoch the metrics line was for
  fs::remove_all(dir);
}

TEST_CASE("trainer: --max-steps at or below the checkpoint's step has nothing to do") {
  const fs::path dir = scratch("max_steps_done");
  std::ostringstream out;
  rt::TrainOptions first = options_for(2);
  first.save = dir / "run.safetensors";
  first.max_steps = 2;
  train_cpu(first, out);
  const std::string before = bytes_of(first.save);
  rt::TrainOptions again = first;
  again.resume = first.save;
  again.metrics = dir / "metrics.jsonl";
  for (const std::int64_t limit : {1, 2}) {
    again.max_steps = limit;
    std::ostringstream again_out;
    CHECK(train_cpu(again, again_out).steps == 2);
    CHECK(again_out.str().find("the checkpoint is at step 2 already; nothing to do for "
                               "--max-steps " +
                               std::to_string(limit) + "\n") != std::string::npos);
  }
  CHECK(bytes_of(first.save) == before);
  CHECK_FALSE(fs::exists(again.metrics));  // nothing done, nothing written
  fs::remove_all(dir);
}

TEST_CASE("trainer: a checkpoint past the end of the data's epoch names both") {
  // A checkpoint written before checkpoints kept their data's size: the loader's bounds are the
  // only check left.
  const fs::path dir = scratch("past_the_end");
  std::ostringstream out;
  rt::TrainOptions first = options_for(1);
  first.save = dir / "run.safetensors";
  first.max_steps = 2;  // the next batch is the third of 3
  train_cpu(first, out);
  rt::Checkpoint older = rt::load_checkpoint(first.save);
  REQUIRE(older.extra_metadata.erase("data") == 1);
  REQUIRE(older.extra_metadata.erase("data_samples") == 1);
  rt::save_checkpoint(first.save, older);
  rt::TrainOptions other = options_for(1);
  other.data = {"synthetic:8"};  // 2 batches of 4
  other.resume = first.save;
  try {
    train_cpu(other, out);
    FAIL("resumed past the end of an epoch");
  } catch (const rt::TrainingSetupError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.starts_with(first.save.string() +
                              ": the checkpoint stands at batch 3 of epoch 1, but synthetic"));
    CHECK(message.find("makes epochs of 2 batches of 4") != std::string::npos);
  }
  fs::remove_all(dir);
}

namespace {

// Puts a NaN into the parameters after a chosen step, where no later forward pass of that epoch
// would carry it to a loss: the epoch's end must find it.
class CorruptingBackend final : public ForwardingBackend {
 public:
  CorruptingBackend(rt::Backend& inner, int after_step, std::size_t element)
      : ForwardingBackend(inner), after_(after_step), element_(element) {}
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    ForwardingBackend::train_step(c);
    if (++steps_ != after_)
      return;
    std::vector<float> parameters(119);  // cli_net: 20 + 99
    read_state(rt::StateBuffer::parameters, parameters);
    parameters[element_] = std::numeric_limits<float>::quiet_NaN();
    write_state(rt::StateBuffer::parameters, parameters);
  }

 private:
  int after_;
  std::size_t element_;
  int steps_ = 0;
};

// Where element `element` of tensor `name` starts in a safetensors file, read from the file's
// own header by hand: 8 bytes of header length, the JSON header, then the data buffer.
std::uint64_t byte_of_element(const fs::path& file, const std::string& name, int element) {
  const std::string bytes = bytes_of(file);
  std::uint64_t header = 0;
  for (int i = 7; i >= 0; --i)
    header = header * 256 + static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  const std::string json = bytes.substr(8, header);
  const std::size_t entry = json.find("\"" + name + "\"");
  const std::size_t offsets = json.find("\"data_offsets\":[", entry);
  REQUIRE(offsets != std::string::npos);
  const std::uint64_t begin = std::stoull(json.substr(offsets + 16));
  return 8 + header + begin + 4 * static_cast<std::uint64_t>(element);
}

}  // namespace

TEST_CASE("trainer: weights that diverge behind finite losses stop the run, and nothing is saved") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("nan_weights");
  std::ostringstream out, progress;
  rt::TrainOptions o = options_for(2);
  o.save = dir / "run.safetensors";
  o.overwrite = true;  // the file stands for an earlier run's checkpoint
  {
    std::ofstream previous(o.save, std::ios::binary);
    previous << "the previous checkpoint";
  }
  rt::CpuBackend inner(model, steps, 2);
  CorruptingBackend backend(inner, 3, 5);  // after the first epoch's last step; element 5: 0.weight
  try {
    rt::train(model, backend, o, out, progress);
    FAIL("trained on with a NaN weight");
  } catch (const rt::NumericalError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(
        message.starts_with("after step 3 the training state holds NaN at element 5 of "
                            "0.weight, although every loss was finite"));
    CHECK(message.find("nothing was saved after it") != std::string::npos);
  }
  CHECK(bytes_of(o.save) == "the previous checkpoint");
  fs::remove_all(dir);
}

TEST_CASE("trainer: --init and --resume refuse a file holding a NaN or an infinity") {
  const fs::path dir = scratch("non_finite_files");
  std::ostringstream out;
  rt::TrainOptions first = options_for(1);
  first.save = dir / "good.safetensors";
  train_cpu(first, out);
  const rt::Checkpoint good = rt::load_checkpoint(first.save);
  // Element `element` of tensor `name` set to `value`, saved as `file`.
  auto with = [&](const std::string& name, int element, float value, const fs::path& file) {
    rt::Checkpoint bad = good;
    for (rt::CheckpointTensor& t : bad.tensors)
      if (t.name == name)
        std::memcpy(t.data.data() + 4 * element, &value, 4);
    rt::save_checkpoint(file, bad);
    return file;
  };
  auto error_of = [&](rt::TrainOptions o) {
    try {
      train_cpu(o, out);
    } catch (const rt::FormatError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };

  rt::TrainOptions init = options_for(1);
  init.init = with("3.weight", 7, std::numeric_limits<float>::infinity(), dir / "inf.safetensors");
  CHECK(error_of(init) == init.init.string() + ": byte " +
                              std::to_string(byte_of_element(init.init, "3.weight", 7)) +
                              ": expected a finite value in tensor 3.weight, found +Inf at "
                              "element 7");

  rt::TrainOptions resume = options_for(2);
  resume.resume = with("optimizer.sgd_momentum.momentum_buffer.0.bias", 1,
                       std::numeric_limits<float>::quiet_NaN(), dir / "nan.safetensors");
  CHECK(error_of(resume) == resume.resume.string() +
                                ": expected finite values in every tensor, found NaN at element "
                                "1 of optimizer.sgd_momentum.momentum_buffer.0.bias: training "
                                "cannot continue from it");
  fs::remove_all(dir);
}

TEST_CASE("trainer: float16 data trains as NumPy's float32 widening of it does") {
  // make_fixtures.py wrote train.npy as float16, and that widened to float32 by NumPy.
  std::vector<rt::TrainResult> runs;
  for (const char* file : {"/train_f16.npy", "/train_f16_as_f32.npy"}) {
    rt::TrainOptions o = options_for(2);
    o.data = {data_dir + file, data_dir + "/train_labels.npy"};
    std::ostringstream out;
    runs.push_back(train_cpu(o, out));
    if (std::string(file) == "/train_f16.npy")
      CHECK(out.str().find("  inputs   scale 1\n") != std::string::npos);  // as f32 data
  }
  REQUIRE(runs[0].epochs.size() == 2);
  for (std::size_t e = 0; e < 2; ++e) {
    CAPTURE(e);
    CHECK(runs[0].epochs[e].train_loss == runs[1].epochs[e].train_loss);  // the same bits
    CHECK(runs[0].epochs[e].train_accuracy == runs[1].epochs[e].train_accuracy);
  }
}

TEST_CASE("trainer: --init takes weights saved in F64, and says it converted them") {
  const fs::path dir = scratch("init_f64");
  std::ostringstream out;
  rt::TrainOptions first = options_for(1);
  first.save = dir / "f32.safetensors";
  train_cpu(first, out);
  // The same weights widened to F64, as PyTorch's model.double().state_dict() holds them.
  rt::Checkpoint wide = rt::load_checkpoint(first.save);
  for (rt::CheckpointTensor& t : wide.tensors) {
    if (t.dtype != rt::Dtype::f32)
      continue;
    std::vector<float> narrow(t.data.size() / sizeof(float));
    std::memcpy(narrow.data(), t.data.data(), t.data.size());
    const std::vector<double> widened(narrow.begin(), narrow.end());
    t.dtype = rt::Dtype::f64;
    t.data.resize(widened.size() * sizeof(double));
    std::memcpy(t.data.data(), widened.data(), t.data.size());
  }
  rt::save_checkpoint(dir / "f64.safetensors", wide);

  // Two runs from the two files: F32 → F64 → F32 is exact, so they end with the same bytes.
  for (const char* name : {"f32", "f64"}) {
    rt::TrainOptions o = options_for(1);
    o.init = dir / (std::string(name) + ".safetensors");
    o.save = dir / (std::string(name) + "_trained.safetensors");
    std::ostringstream run_out;
    train_cpu(o, run_out);
    const bool converted =
        run_out.str().find(", its F64 values converted to F32\n") != std::string::npos;
    CHECK(converted == (std::string(name) == "f64"));
  }
  CHECK(bytes_of(dir / "f32_trained.safetensors") == bytes_of(dir / "f64_trained.safetensors"));
  fs::remove_all(dir);
}

TEST_CASE("trainer: --init takes BatchNorm's running statistics when the file has them all") {
  const rt::ModelInfo model = mlperf_ds_cnn::model_info();  // nine BatchNorms
  REQUIRE(model.non_trainable.size() == 18);
  const fs::path dir = scratch("init_statistics");
  // A state_dict written by hand: every weight 0.25, every running mean 0.5, every variance 2.
  auto write = [&](const fs::path& file, bool statistics, const std::string& leave_out) {
    rt::Checkpoint c;
    auto add = [&](const rt::ParameterTensor& p, float value) {
      if (p.name == leave_out)
        return;
      std::vector<float> values(static_cast<std::size_t>(p.elements()), value);
      rt::CheckpointTensor t{p.name, rt::Dtype::f32, p.shape, {}};
      t.data.resize(values.size() * sizeof(float));
      std::memcpy(t.data.data(), values.data(), t.data.size());
      c.tensors.push_back(std::move(t));
    };
    for (const rt::ParameterTensor& p : model.parameters)
      add(p, 0.25f);
    if (statistics)
      for (const rt::ParameterTensor& p : model.non_trainable)
        add(p, p.name.ends_with(".running_mean") ? 0.5f : 2.0f);
    rt::save_checkpoint(file, c);
  };
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
  auto count = [](const std::vector<float>& v, float x) { return std::ranges::count(v, x); };

  write(dir / "all.safetensors", true, "");
  CHECK(
      rt::load_parameters(model, dir / "all.safetensors", parameters, statistics).with_statistics);
  CHECK(count(parameters, 0.25f) == model.parameter_count);
  CHECK(count(statistics, 0.5f) + count(statistics, 2.0f) == model.non_trainable_count);
  CHECK(count(statistics, 0.5f) == model.non_trainable_count / 2);

  // Weights saved without buffers: the statistics start as PyTorch starts them.
  write(dir / "weights.safetensors", false, "");
  CHECK_FALSE(rt::load_parameters(model, dir / "weights.safetensors", parameters, statistics)
                  .with_statistics);
  CHECK(count(statistics, 0.0f) + count(statistics, 1.0f) == model.non_trainable_count);
  CHECK(count(statistics, 0.0f) == model.non_trainable_count / 2);

  // Some but not all: refused, naming the one missing.
  const std::string missing = model.non_trainable[3].name;
  write(dir / "some.safetensors", true, missing);
  try {
    rt::load_parameters(model, dir / "some.safetensors", parameters, statistics);
    FAIL("loaded a file that lacks a running statistic");
  } catch (const rt::CheckpointMismatch& e) {
    CAPTURE(e.what());
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].find(missing) != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("trainer: --crop and --flip apply to images, and --crop pads by less than the image") {
  std::ostringstream out;
  rt::TrainOptions o = options_for(1);
  o.augmentation.crop_padding = 4;  // cli_net's input is (1, 4, 4)
  CHECK_THROWS_WITH_AS(train_cpu(o, out),
                       "--crop 4 pads the (1, 4, 4) input by at least its height (4): some crops "
                       "would hold padding only, no pixel of the image. Pad by at most 3 "
                       "(torchvision's CIFAR-10 recipe pads 32×32 images by 4)",
                       rt::UsageError);
  CHECK(out.str().empty());  // refused before the data is read
  o.augmentation.crop_padding = 3;
  CHECK(train_cpu(o, out).steps == 3);

  // The same kernels behind a flat input of as many values: there is no image to flip.
  rt::ModelInfo flat = cli_net::model_info();
  flat.sample_shape = {16};
  rt::CpuBackend backend(flat, {&cli_net::cpu::train_step, &cli_net::cpu::evaluate}, 2);
  std::ostringstream progress;
  o.augmentation = {.crop_padding = 0, .horizontal_flip = true};
  CHECK_THROWS_WITH_AS(
      rt::train(flat, backend, o, out, progress),
      ("--flip applies to images, (C, H, W), but " + flat.name + "'s input is (16,)").c_str(),
      rt::UsageError);
  o.augmentation.crop_padding = 1;
  CHECK_THROWS_WITH_AS(
      rt::train(flat, backend, o, out, progress),
      ("--crop and --flip apply to images, (C, H, W), but " + flat.name + "'s input is (16,)")
          .c_str(),
      rt::UsageError);
}

TEST_CASE("trainer: --resume of a weights-only file says to use --init") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("weights_only");
  std::ostringstream out, progress;
  rt::TrainOptions first = options_for(1);
  first.save = dir / "run.safetensors";
  train_cpu(first, out);
  // As PyTorch's save_file(model.state_dict()) writes it: the 4 parameter tensors only.
  rt::Checkpoint weights = rt::load_checkpoint(first.save);
  std::erase_if(weights.tensors,
                [](const rt::CheckpointTensor& t) { return t.name.starts_with("optimizer."); });
  REQUIRE(weights.tensors.size() == 4);
  rt::save_checkpoint(dir / "weights.safetensors", weights);

  rt::TrainOptions resume = options_for(2);
  resume.resume = dir / "weights.safetensors";
  CHECK_THROWS_WITH_AS(train_cpu(resume, out),
                       (resume.resume.string() +
                        ": holds the model's weights but no optimizer state (4 tensors missing), "
                        "so there is no run to resume: start from its weights with --init "
                        "instead of --resume")
                           .c_str(),
                       rt::TrainingSetupError);

  rt::TrainOptions init = options_for(1);
  init.init = dir / "weights.safetensors";
  rt::CpuBackend fresh(model, steps, 2);
  std::ostringstream init_out;
  CHECK(rt::train(model, fresh, init, init_out, progress).steps == 3);
  CHECK(init_out.str().find("  weights  from " + init.init.string() + " (--init)\n") !=
        std::string::npos);
  fs::remove_all(dir);
}

namespace {

// Records the labels of every batch trained on.
class LabelRecordingBackend final : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  void train_step(const staticnet::kernels::OptimizerConstants& c) override {
    labels.insert(labels.end(), batch_labels().begin(), batch_labels().end());
    ForwardingBackend::train_step(c);
  }
  std::vector<std::int32_t> labels;
};

}  // namespace

TEST_CASE("trainer: --no-shuffle trains every epoch in the file's order, and resume keeps it") {
  const rt::ModelInfo model = cli_net::model_info();
  const rt::CpuSteps steps{&cli_net::cpu::train_step, &cli_net::cpu::evaluate};
  const fs::path dir = scratch("no_shuffle");
  std::ostringstream out, progress;
  const auto file = rt::open_dataset({data_dir + "/train.npy", data_dir + "/train_labels.npy"});
  std::vector<std::int32_t> in_file_order;
  for (std::int64_t i = 0; i < file->size(); ++i)
    in_file_order.push_back(file->label(i));
  REQUIRE(in_file_order.size() == 12);  // 3 batches of 4, none left out

  rt::TrainOptions straight = options_for(2);
  straight.no_shuffle = true;
  straight.save = dir / "straight.safetensors";
  {
    rt::CpuBackend inner(model, steps, 2);
    LabelRecordingBackend backend(inner);
    std::ostringstream straight_out;
    rt::train(model, backend, straight, straight_out, progress);
    std::vector<std::int32_t> twice = in_file_order;
    twice.insert(twice.end(), in_file_order.begin(), in_file_order.end());
    CHECK(backend.labels == twice);
    CHECK(straight_out.str().find("3 batches per epoch, in the data's own order") !=
          std::string::npos);
  }
  {  // the default shuffles: the same labels, in another order
    rt::CpuBackend inner(model, steps, 2);
    LabelRecordingBackend backend(inner);
    rt::train(model, backend, options_for(1), out, progress);
    CHECK(backend.labels != in_file_order);
    std::vector<std::int32_t> sorted = backend.labels, expected = in_file_order;
    std::ranges::sort(sorted);
    std::ranges::sort(expected);
    CHECK(sorted == expected);
  }

  // Stopped mid-epoch and resumed without the flag: the checkpoint's order goes on.
  rt::TrainOptions stopped = options_for(2);
  stopped.no_shuffle = true;
  stopped.max_steps = 4;
  stopped.save = dir / "resumed.safetensors";
  train_cpu(stopped, out);
  CHECK(rt::load_checkpoint(stopped.save).extra_metadata.at("shuffle") == "false");
  rt::TrainOptions resumed = options_for(2);
  resumed.resume = stopped.save;
  resumed.save = stopped.save;
  {
    rt::CpuBackend inner(model, steps, 2);
    LabelRecordingBackend backend(inner);
    rt::train(model, backend, resumed, out, progress);
    CHECK(backend.labels ==
          std::vector<std::int32_t>(in_file_order.begin() + 4, in_file_order.end()));
  }
  CHECK(bytes_of(straight.save) == bytes_of(stopped.save));

  // A shuffled run stopped inside an epoch cannot switch to the file's order there: the rest of
  // the epoch would repeat some samples and skip others. At the epoch's end it can.
  rt::TrainOptions shuffled = options_for(3);
  shuffled.max_steps = 4;  // batch 1 of epoch 2
  shuffled.save = dir / "shuffled.safetensors";
  train_cpu(shuffled, out);
  rt::TrainOptions switched = options_for(3);
  switched.resume = shuffled.save;
  switched.no_shuffle = true;
  CHECK_THROWS_WITH_AS(train_cpu(switched, out),
                       ("--no-shuffle: " + shuffled.save.string() +
                        " stands inside epoch 2, after batch 1, whose shuffled order must go on to "
                        "its end. Finish that epoch first (--resume " +
                        shuffled.save.string() + " --save " + shuffled.save.string() +
                        " --epochs 2), then resume with --no-shuffle")
                           .c_str(),
                       rt::UsageError);
  shuffled.max_steps = 3;  // the end of epoch 1
  shuffled.overwrite = true;
  train_cpu(shuffled, out);
  std::ostringstream switched_out;
  CHECK(train_cpu(switched, switched_out).steps == 9);
  CHECK(switched_out.str().find("--no-shuffle replaces the checkpoint's shuffled order") !=
        std::string::npos);
  fs::remove_all(dir);
}
