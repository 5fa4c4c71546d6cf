#pragma once
// The MLPerf Tiny models' generated step (CPU or CUDA) against PyTorch
// (tests/reference/make_mlperf_fixtures.py): the same initial weights and batch, three steps of
// SGD with momentum (one for MobileNetV1: the script says why), then an evaluation. The losses of
// every step, the gradients of the first, the weights and BatchNorm's running statistics after
// the last, and the evaluation loss (running statistics, no dropout) must agree. Dropout's masks
// come from the same hash on both sides.
//
// The expected values are PyTorch's in float64, from the same float32 weights and batch.
// Tolerances are the other fixtures' (pytorch_fixture_check.hpp): losses within 1e-5 relative,
// tensors within 1e-4 of their largest element, with two exceptions:
// - A convolution's (or Linear's) bias before a BatchNorm has a gradient of exactly zero (the
//   normalisation removes any constant), so ours holds rounding noise there, a few millionths of
//   the model's largest gradient. Where PyTorch's gradient is that small (below 1e-4 of the
//   model's largest), ours must be too.
// - A deep model at a small batch amplifies float32's rounding: PyTorch's own float32 gradients
//   of MobileNetV1 at batch 2 are 6e-5 from its float64 ones. The fixture records that error
//   (float32_gradient_noise) and first-step gradients may be 5 times it; for the other three
//   models it is below 1.4e-5, so 1e-4 stands. The weights after the last step carry the same
//   noise (MobileNetV1 takes one step, w − lr·g), so they get the same tolerance: with 1e-4 the
//   CPU step alone, run with 1 to 4 threads and four OpenBLAS kernels, came to 0.996 of it.
//
// The batches keep clear of ReLU's kink: every ReLU input of every step is at least 5 times
// float32's rounding noise from 0 (the script's MIN_KINK_CLEARANCE says why; closer, which side
// of 0 an input lands on follows the BLAS kernel, and one input moved DS-CNN's gradients by
// 1e-3).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <staticnet/runtime/trainer/backend.hpp>
#include <staticnet/runtime/trainer/initialize.hpp>

#include "fixture_init.hpp"
#include "pytorch_fixture_check.hpp"

namespace mlperf_fixture {

namespace rt = staticnet::runtime;
namespace k = staticnet::kernels;
using pytorch_fixture::mean_loss;
using pytorch_fixture::setting;
using pytorch_fixture::values;
using pytorch_fixture::write_batch;

inline double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::abs(x));
  return m;
}

// The fixtures' starting state written into `backend`: the initial weights (fixture_init.hpp's
// formulas) and running statistics; returns the optimizer's settings from `file`'s metadata (SGD
// with momentum).
inline k::OptimizerSettings start_mlperf_run(const rt::ModelInfo& model, rt::Backend& backend,
                                             const rt::SafetensorsReader& file) {
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  fixture_init::parameters(model, parameters);
  backend.write_state(rt::StateBuffer::parameters, parameters);
  std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));
  rt::initialize_non_trainable(model, statistics);
  backend.write_state(rt::StateBuffer::non_trainable, statistics);
  k::OptimizerSettings settings;
  settings.learning_rate = setting(file, "lr");
  settings.momentum = setting(file, "momentum");
  settings.weight_decay = setting(file, "weight_decay");
  return settings;
}

// `backend` holds `model`'s step (either backend's), freshly made.
inline void check_mlperf(const std::string& name, const rt::ModelInfo& model,
                         rt::Backend& backend) {
  CAPTURE(name);
  const rt::SafetensorsReader file = pytorch_fixture::fixture("mlperf_" + name);
  REQUIRE(file.metadata().at("fixture_version") == "2");
  REQUIRE(setting(file, "batch") == static_cast<double>(model.batch));
  const auto input_offset = static_cast<std::uint64_t>(setting(file, "input_offset"));
  // Within 1e-4, or 5 times PyTorch's own float32 error where the model is worse conditioned.
  const double gradient_tolerance = std::max(1e-4, 5 * setting(file, "float32_gradient_noise"));

  const k::OptimizerSettings settings = start_mlperf_run(model, backend, file);
  std::vector<float> parameters(static_cast<std::size_t>(model.parameter_count));
  std::vector<float> statistics(static_cast<std::size_t>(model.non_trainable_count));

  const std::vector<double> losses = values(file, "loss");
  const int steps = static_cast<int>(setting(file, "steps"));
  std::vector<float> gradients(parameters.size());
  for (int step = 1; step <= steps; ++step) {
    CAPTURE(step);
    write_batch(backend, model, input_offset);
    k::OptimizerConstants constants = k::optimizer_constants(model.optimizer, settings, step);
    constants.seed = static_cast<std::uint64_t>(setting(file, "dropout_seed"));
    backend.train_step(constants);
    const double expected = losses[static_cast<std::size_t>(step - 1)];
    CHECK(std::abs(mean_loss(backend, model) - expected) <= 1e-5 * std::abs(expected));
    if (step != 1)
      continue;
    backend.read_state(rt::StateBuffer::gradients, gradients);
    double model_scale = 0;
    for (const rt::ParameterTensor& t : model.parameters)
      model_scale = std::max(model_scale, largest(values(file, "grad1." + t.name)));
    for (const rt::ParameterTensor& t : model.parameters) {
      CAPTURE(t.name);
      const std::vector<double> expected = values(file, "grad1." + t.name);
      const auto ours = std::span<const float>(gradients).subspan(
          static_cast<std::size_t>(t.offset), expected.size());
      if (largest(expected) < 1e-4 * model_scale)  // zero but for rounding (see the top)
        CHECK(*std::ranges::max_element(ours, {}, [](float g) { return std::abs(g); }) <
              1e-4 * model_scale);
      else
        CHECK(tensor_error(ours, std::span<const double>(expected)) <= gradient_tolerance);
    }
  }
  // The weights, then BatchNorm's running statistics, after the last step.
  auto check_final = [&](rt::StateBuffer which, std::vector<float>& state,
                         const std::vector<rt::ParameterTensor>& tensors) {
    backend.read_state(which, state);
    for (const rt::ParameterTensor& t : tensors) {
      CAPTURE(t.name);
      const std::vector<double> expected = values(file, "final." + t.name);
      CHECK(tensor_error(std::span<const float>(state).subspan(static_cast<std::size_t>(t.offset),
                                                               expected.size()),
                         std::span<const double>(expected)) <= gradient_tolerance);
    }
  };
  check_final(rt::StateBuffer::parameters, parameters, model.parameters);
  check_final(rt::StateBuffer::non_trainable, statistics, model.non_trainable);
  write_batch(backend, model, input_offset);
  backend.evaluate();
  const double expected = values(file, "eval_loss")[0];
  CHECK(std::abs(mean_loss(backend, model) - expected) <= 1e-5 * std::abs(expected));
}

}  // namespace mlperf_fixture
