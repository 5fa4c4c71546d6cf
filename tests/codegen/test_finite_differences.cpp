// The generated CPU step's gradients against central finite differences of an independent f64
// forward pass (reference_forward.hpp), for every model in gradient_models.hpp, on 1 and 3
// threads. Also its forward: each sample's loss against the f64 reference.
//
// Tolerances: the generated step computes in f32, the reference in f64 with a step of 1e-6, so
// the finite differences are exact to about 1e-9; f32 gradients of these small models are good to
// about 1e-6 of the largest gradient. A gradient passes when |ours − fd| ≤ 1e-4 · max|fd|, and
// every model's largest gradient is far from 0, so a wrong index or a missing term (errors of the
// order of the gradients themselves) cannot pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <staticnet/plan.hpp>
#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/initialize.hpp>

#include "fd_chained_activations_kernels_cpu.h"
#include "fd_chained_activations_trainer.h"
#include "fd_conv_avg_pool_mse_kernels_cpu.h"
#include "fd_conv_avg_pool_mse_trainer.h"
#include "fd_conv_max_pool_kernels_cpu.h"
#include "fd_conv_max_pool_trainer.h"
#include "fd_flatten_first_kernels_cpu.h"
#include "fd_flatten_first_trainer.h"
#include "fd_mlp_kernels_cpu.h"
#include "fd_mlp_trainer.h"
#include "fd_pool_first_kernels_cpu.h"
#include "fd_pool_first_trainer.h"
#include "fd_same_pools_kernels_cpu.h"
#include "fd_same_pools_trainer.h"
#include "fd_standalone_pools_kernels_cpu.h"
#include "fd_standalone_pools_trainer.h"
#include "fd_two_readers_kernels_cpu.h"
#include "fd_two_readers_trainer.h"
#include "fd_wide_window_kernels_cpu.h"
#include "fd_wide_window_trainer.h"
#include "gradient_models.hpp"
#include "reference_forward.hpp"

namespace {

namespace sn = staticnet;
namespace rt = staticnet::runtime;
namespace gm = gradient_models;

// A reproducible value in [-1, 1) for (seed, i).
double uniform(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + i + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

template <std::size_t L>
void check_gradients(const sn::Plan<L>& plan, const rt::ModelInfo& model, rt::CpuSteps steps,
                     int threads) {
  CAPTURE(model.name);
  CAPTURE(threads);
  rt::CpuBackend backend(model, steps, threads);
  const auto count = static_cast<std::size_t>(model.parameter_count);

  // Weights by PyTorch's default initialisation; inputs in [-1, 1); labels and targets.
  std::vector<float> parameters(count);
  rt::initialize_parameters(model, 7, parameters);
  backend.write_state(rt::StateBuffer::parameters, parameters);
  reference::Batch batch;
  const auto inputs = backend.batch_inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    inputs[i] = static_cast<float>(uniform(11, i));
    batch.inputs.push_back(inputs[i]);
  }
  if (model.classifies()) {
    const auto labels = backend.batch_labels();
    for (std::size_t n = 0; n < labels.size(); ++n) {
      labels[n] = static_cast<std::int32_t>((n * 7 + 2) % static_cast<std::size_t>(model.classes));
      batch.labels.push_back(labels[n]);
    }
  } else {
    const auto targets = backend.batch_targets();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      targets[i] = static_cast<float>(uniform(13, i));
      batch.targets.push_back(targets[i]);
    }
  }
  const std::vector<double> p64(parameters.begin(), parameters.end());

  // Forward: each sample's loss.
  backend.evaluate();
  const std::vector<double> expected = reference::sample_losses(plan, p64, batch);
  const auto losses = backend.losses();
  for (std::size_t n = 0; n < expected.size(); ++n) {
    CAPTURE(n);
    CHECK(std::abs(losses[n] - expected[n]) <= 1e-5 * std::max(1.0, std::abs(expected[n])));
  }

  // Backward: a step with learning rate 0 leaves the parameters and the gradients in the arena.
  staticnet::kernels::OptimizerSettings zero;
  zero.learning_rate = 0;
  zero.weight_decay = 0;
  backend.train_step(staticnet::kernels::optimizer_constants(model.optimizer, zero, 1));
  const float* gradients =
      reinterpret_cast<const float*>(backend.arena() + model.arena.gradients_at);
  std::vector<float> after(count);
  backend.read_state(rt::StateBuffer::parameters, after);
  CHECK(after == parameters);

  std::vector<double> numeric(count);
  double largest = 0;
  for (std::size_t j = 0; j < count; ++j) {
    constexpr double h = 1e-6;
    std::vector<double> p = p64;
    p[j] = p64[j] + h;
    const double up = reference::mean_loss(plan, p, batch);
    p[j] = p64[j] - h;
    const double down = reference::mean_loss(plan, p, batch);
    numeric[j] = (up - down) / (2 * h);
    largest = std::max(largest, std::abs(numeric[j]));
  }
  REQUIRE(largest > 1e-3);  // gradients that could expose a wrong index
  for (const rt::ParameterTensor& t : model.parameters) {
    for (std::int64_t e = 0; e < t.elements(); ++e) {
      const auto j = static_cast<std::size_t>(t.offset + e);
      CAPTURE(t.name);
      CAPTURE(e);
      CAPTURE(numeric[j]);
      CHECK(std::abs(gradients[j] - numeric[j]) <= 1e-4 * largest);
    }
  }
}

template <std::size_t L>
void check_gradients(const sn::Plan<L>& plan, const rt::ModelInfo& model, rt::CpuSteps steps) {
  check_gradients(plan, model, steps, 1);
  check_gradients(plan, model, steps, 3);
}

}  // namespace

TEST_CASE("gradients: Linear with fused ReLU and Tanh, CrossEntropy") {
  check_gradients(sn::plan<gm::Mlp, gm::MlpSetup>(), fd_mlp::model_info(),
                  {&fd_mlp::cpu::train_step, &fd_mlp::cpu::evaluate});
}

TEST_CASE("gradients: Conv2d + ReLU/LeakyReLU + max-pool fused, strided and padded, col2im") {
  check_gradients(sn::plan<gm::ConvMaxPool, gm::ConvMaxPoolSetup>(), fd_conv_max_pool::model_info(),
                  {&fd_conv_max_pool::cpu::train_step, &fd_conv_max_pool::cpu::evaluate});
}

TEST_CASE("gradients: Conv2d without bias + Sigmoid + avg-pool fused, MSE") {
  check_gradients(sn::plan<gm::ConvAvgPoolMse, gm::ConvAvgPoolMseSetup>(),
                  fd_conv_avg_pool_mse::model_info(),
                  {&fd_conv_avg_pool_mse::cpu::train_step, &fd_conv_avg_pool_mse::cpu::evaluate});
}

TEST_CASE("gradients: standalone overlapping max-pool, Tanh and padded avg-pool") {
  check_gradients(sn::plan<gm::StandalonePools, gm::StandalonePoolsSetup>(),
                  fd_standalone_pools::model_info(),
                  {&fd_standalone_pools::cpu::train_step, &fd_standalone_pools::cpu::evaluate});
}

TEST_CASE("gradients: activations out of place (Sigmoid then ReLU)") {
  check_gradients(
      sn::plan<gm::ChainedActivations, gm::ChainedActivationsSetup>(),
      fd_chained_activations::model_info(),
      {&fd_chained_activations::cpu::train_step, &fd_chained_activations::cpu::evaluate});
}

TEST_CASE("gradients: a pool before any parameter, a pool fused with no activation") {
  check_gradients(sn::plan<gm::PoolFirst, gm::PoolFirstSetup>(), fd_pool_first::model_info(),
                  {&fd_pool_first::cpu::train_step, &fd_pool_first::cpu::evaluate});
}

TEST_CASE("gradients: a 17×17 max-pool keeps 2-byte window indices") {
  check_gradients(sn::plan<gm::WideWindow, gm::WideWindowSetup>(), fd_wide_window::model_info(),
                  {&fd_wide_window::cpu::train_step, &fd_wide_window::cpu::evaluate});
}

TEST_CASE("gradients: TensorFlow's 'same' pools, rectangular windows, means over real elements") {
  check_gradients(sn::plan<gm::SamePools, gm::SamePoolsSetup>(), fd_same_pools::model_info(),
                  {&fd_same_pools::cpu::train_step, &fd_same_pools::cpu::evaluate});
}

TEST_CASE("gradients: tensors read twice, each reader adding its part of the input gradient") {
  check_gradients(sn::plan<gm::TwoReaders, gm::TwoReadersSetup>(), fd_two_readers::model_info(),
                  {&fd_two_readers::cpu::train_step, &fd_two_readers::cpu::evaluate});
}

TEST_CASE("gradients: a Flatten whose input's other reader adds to the gradient it copied") {
  check_gradients(sn::plan<gm::FlattenFirst, gm::FlattenFirstSetup>(),
                  fd_flatten_first::model_info(),
                  {&fd_flatten_first::cpu::train_step, &fd_flatten_first::cpu::evaluate});
}
