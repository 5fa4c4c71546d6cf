// Times the generated CPU training step of a sample on one fixed batch, the way torch_step.py
// times PyTorch: weights initialised, a batch of random normal inputs and random labels, some
// warm-up steps, then `repeats` timings of `steps` steps each; prints the median milliseconds
// per step.
//
//   staticnet_bench_cpu_step simple_cnn|lenet5_adam|lenet_relu
//                            [--threads N] [--steps N] [--repeats N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "../common/random_batch.hpp"
#include "lenet5_adam_kernels_cpu.h"
#include "lenet5_adam_trainer.h"
#include "lenet_relu_kernels_cpu.h"
#include "lenet_relu_trainer.h"
#include "simple_cnn_kernels_cpu.h"
#include "simple_cnn_trainer.h"

namespace rt = staticnet::runtime;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: %s simple_cnn|lenet5_adam|lenet_relu [--threads N] [--steps N] [--repeats N]\n",
        argv[0]);
    return 2;
  }
  const std::string which = argv[1];
  int threads = 2, steps = 50, repeats = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const int value = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads"))
      threads = value;
    else if (!std::strcmp(argv[i], "--steps"))
      steps = value;
    else if (!std::strcmp(argv[i], "--repeats"))
      repeats = value;
  }
  rt::ModelInfo model;
  rt::CpuSteps cpu_steps;
  if (which == "simple_cnn") {
    model = simple_cnn::model_info();
    cpu_steps = {&simple_cnn::cpu::train_step, &simple_cnn::cpu::evaluate};
  } else if (which == "lenet5_adam") {
    model = lenet5_adam::model_info();
    cpu_steps = {&lenet5_adam::cpu::train_step, &lenet5_adam::cpu::evaluate};
  } else if (which == "lenet_relu") {
    model = lenet_relu::model_info();
    cpu_steps = {&lenet_relu::cpu::train_step, &lenet_relu::cpu::evaluate};
  } else {
    std::fprintf(stderr, "unknown model %s\n", which.c_str());
    return 2;
  }
  rt::CpuBackend backend(model, cpu_steps, threads);
  bench::initialize_parameters(model, backend);
  bench::write_random_batch(model, backend);

  // The sample's own optimizer at PyTorch's default learning rate.
  const auto settings = rt::default_optimizer_settings(model.optimizer);
  std::int64_t t = 0;
  for (int i = 0; i < 10; ++i)
    backend.train_step(staticnet::kernels::optimizer_constants(model.optimizer, settings, ++t));
  std::vector<double> per_step;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
      backend.train_step(staticnet::kernels::optimizer_constants(model.optimizer, settings, ++t));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    per_step.push_back(seconds * 1000.0 / steps);
  }
  std::sort(per_step.begin(), per_step.end());
  std::printf("model=%s threads=%d batch=%lld optimizer=%s ms_per_step=%.3f min=%.3f max=%.3f\n",
              which.c_str(), threads, static_cast<long long>(model.batch),
              rt::optimizer_name(model.optimizer), per_step[per_step.size() / 2], per_step.front(),
              per_step.back());
  return 0;
}
