// Prefetch on the CUDA backend: batch_ready() copies the loader's batch into next_batch on a
// stream of its own while the step before still runs, and the next step moves it into place.
// Five different batches, driven as the training loop drives them (the next batch is written and
// made ready before the step's losses are read), with an evaluation in between and one batch left
// for its step to send: every step's losses, the evaluation's, and the weights after the last
// step agree with the CPU step on the same batches. A batch used twice, or one step late, would
// not: each batch differs and the weights move every step.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/cuda_backend.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "../tensor_error.hpp"
#include "cuda_conv_relu_prefetch_kernels_cpu.h"
#include "cuda_conv_relu_prefetch_kernels_cuda.h"
#include "cuda_conv_relu_prefetch_trainer.h"

namespace {

namespace rt = staticnet::runtime;
namespace k = staticnet::kernels;
namespace model = cuda_conv_relu_prefetch;

// Batch `index`: inputs in [-0.5, 0.5) from a sequence seeded by it, labels that shift with it.
void write_batch(rt::Backend& backend, std::uint32_t index, std::int64_t classes) {
  std::uint32_t seed = 17 + index * 7919u;
  for (float& x : backend.batch_inputs()) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  }
  auto labels = backend.batch_labels();
  for (std::size_t n = 0; n < labels.size(); ++n)
    labels[n] = static_cast<std::int32_t>((n + index) % static_cast<std::size_t>(classes));
}

double sum(std::span<const float> values) {
  double s = 0;
  for (float v : values)
    s += v;
  return s;
}

}  // namespace

TEST_CASE("Prefetch: batches copied in during the step before give the CPU step's results") {
  const rt::ModelInfo info = model::model_info();
  REQUIRE(info.arena.next_batch_at >= 0);
  REQUIRE(info.arena.batch_bytes > 0);
  rt::CpuBackend cpu(info, {&model::cpu::train_step, &model::cpu::evaluate}, 1);
  rt::CudaBackend gpu(info, &model::cuda::make_step);
  MESSAGE(gpu.details());
  std::vector<float> parameters(static_cast<std::size_t>(info.parameter_count));
  for (std::size_t i = 0; i < parameters.size(); ++i)
    parameters[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
  cpu.write_state(rt::StateBuffer::parameters, parameters);
  gpu.write_state(rt::StateBuffer::parameters, parameters);
  const auto settings = rt::default_optimizer_settings(info.optimizer);

  // The CPU: each batch written, then its step, one after the other.
  std::vector<double> cpu_losses;
  for (std::uint32_t b = 0; b < 5; ++b) {
    write_batch(cpu, b, info.classes);
    if (b == 3) {
      cpu.evaluate();
      cpu_losses.push_back(sum(cpu.losses()));
    }
    cpu.train_step(k::optimizer_constants(info.optimizer, settings, b + 1));
    cpu_losses.push_back(sum(cpu.losses()));
  }

  // The GPU: batch b + 1 is written and sent while step b runs. Batch 3 is evaluated first
  // (evaluate() moves it into place and leaves next_batch free), then trained on: its second
  // run sends it itself, since nothing called batch_ready() for it again. Steps 1, 2 and 3+
  // run launch by launch, captured, and replayed.
  std::vector<double> gpu_losses;
  write_batch(gpu, 0, info.classes);
  gpu.batch_ready();
  for (std::uint32_t b = 0; b < 5; ++b) {
    if (b == 3) {
      gpu.evaluate();
      gpu_losses.push_back(sum(gpu.losses()));
      write_batch(gpu, 3, info.classes);  // the other staging buffer: the same batch again
    }
    gpu.train_step(k::optimizer_constants(info.optimizer, settings, b + 1));
    if (b + 1 < 5) {
      write_batch(gpu, b + 1, info.classes);
      gpu.batch_ready();
    }
    gpu_losses.push_back(sum(gpu.losses()));
  }

  REQUIRE(gpu_losses.size() == cpu_losses.size());
  for (std::size_t i = 0; i < cpu_losses.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(gpu_losses[i] - cpu_losses[i]) <= 1e-5 * std::abs(cpu_losses[i]));
  }
  // The batches differ enough that a stale one would show: no two training steps' losses are
  // equal. (Entry 3 is the evaluation of batch 3, the same forward pass as entry 4's step.)
  for (std::size_t i = 0; i < cpu_losses.size(); ++i)
    for (std::size_t j = i + 1; j < cpu_losses.size(); ++j)
      if (i != 3)
        CHECK(std::abs(cpu_losses[i] - cpu_losses[j]) > 1e-4 * std::abs(cpu_losses[i]));
  CHECK(gpu_losses[3] == doctest::Approx(gpu_losses[4]).epsilon(1e-6));

  std::vector<float> cpu_state(parameters.size()), gpu_state(parameters.size());
  cpu.read_state(rt::StateBuffer::parameters, cpu_state);
  gpu.read_state(rt::StateBuffer::parameters, gpu_state);
  for (const rt::ParameterTensor& t : info.parameters) {
    CAPTURE(t.name);
    CHECK(tensor_error(std::span<const float>(gpu_state).subspan(t.offset, t.elements()),
                       std::span<const float>(cpu_state).subspan(t.offset, t.elements())) <= 1e-4);
  }
}
