// Times the generated CPU training step of a sample on one fixed batch, the way torch_step.py
// times PyTorch: weights initialised, a batch of random normal inputs and random labels, some
// warm-up steps, then `repeats` timings of `steps` steps each; prints the median milliseconds
// per step.
//
//   staticnet_bench_cpu_step simple_cnn|lenet5_adam|lenet_relu|resnet8|ds_cnn|mobilenet_v1|
//                            fc_autoencoder|simple_cnn_mixed|lenet5_mixed|resnet8_mixed|
//                            ds_cnn_mixed|simple_cnn_checkpoint_sqrt|mlp50|mlp50_checkpoint_sqrt
//                            [--threads N] [--steps N] [--repeats N]
// (the _mixed ones: the same setups in Mixed<bf16>, mixed_setups.hpp; the checkpoint ones and the
// 50-layer MLP: checkpoint_setups.hpp)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <staticnet/runtime/trainer/cpu_backend.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "../common/random_batch.hpp"
#include "ds_cnn_kernels_cpu.h"
#include "ds_cnn_mixed_kernels_cpu.h"
#include "ds_cnn_mixed_trainer.h"
#include "ds_cnn_trainer.h"
#include "fc_autoencoder_kernels_cpu.h"
#include "fc_autoencoder_trainer.h"
#include "lenet5_adam_kernels_cpu.h"
#include "lenet5_adam_trainer.h"
#include "lenet5_mixed_kernels_cpu.h"
#include "lenet5_mixed_trainer.h"
#include "lenet_relu_kernels_cpu.h"
#include "lenet_relu_trainer.h"
#include "mlp50_checkpoint_sqrt_kernels_cpu.h"
#include "mlp50_checkpoint_sqrt_trainer.h"
#include "mlp50_kernels_cpu.h"
#include "mlp50_trainer.h"
#include "mobilenet_v1_kernels_cpu.h"
#include "mobilenet_v1_trainer.h"
#include "resnet8_kernels_cpu.h"
#include "resnet8_mixed_kernels_cpu.h"
#include "resnet8_mixed_trainer.h"
#include "resnet8_trainer.h"
#include "simple_cnn_checkpoint_sqrt_kernels_cpu.h"
#include "simple_cnn_checkpoint_sqrt_trainer.h"
#include "simple_cnn_kernels_cpu.h"
#include "simple_cnn_mixed_kernels_cpu.h"
#include "simple_cnn_mixed_trainer.h"
#include "simple_cnn_trainer.h"

namespace rt = staticnet::runtime;

namespace {

struct Sample {
  const char* name;
  rt::ModelInfo (*model_info)();
  rt::CpuSteps steps;
};

// Each generated trainer's model and CPU step, by the name run.py passes.
#define STATICNET_BENCH_SAMPLE(NAME)               \
  Sample {                                         \
#NAME, &NAME::model_info, {                    \
      &NAME::cpu::train_step, &NAME::cpu::evaluate \
    }                                              \
  }
const Sample samples[] = {
    STATICNET_BENCH_SAMPLE(simple_cnn),     STATICNET_BENCH_SAMPLE(lenet5_adam),
    STATICNET_BENCH_SAMPLE(lenet_relu),     STATICNET_BENCH_SAMPLE(resnet8),
    STATICNET_BENCH_SAMPLE(ds_cnn),         STATICNET_BENCH_SAMPLE(mobilenet_v1),
    STATICNET_BENCH_SAMPLE(fc_autoencoder), STATICNET_BENCH_SAMPLE(simple_cnn_mixed),
    STATICNET_BENCH_SAMPLE(lenet5_mixed),   STATICNET_BENCH_SAMPLE(resnet8_mixed),
    STATICNET_BENCH_SAMPLE(ds_cnn_mixed),   STATICNET_BENCH_SAMPLE(simple_cnn_checkpoint_sqrt),
    STATICNET_BENCH_SAMPLE(mlp50),          STATICNET_BENCH_SAMPLE(mlp50_checkpoint_sqrt),
};
#undef STATICNET_BENCH_SAMPLE

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: %s simple_cnn|lenet5_adam|lenet_relu|resnet8|ds_cnn|mobilenet_v1|fc_autoencoder\n"
        "          [--threads N] [--steps N] [--repeats N]\n",
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
  const Sample* sample = nullptr;
  for (const Sample& s : samples)
    if (which == s.name)
      sample = &s;
  if (!sample) {
    std::fprintf(stderr, "unknown model %s\n", which.c_str());
    return 2;
  }
  const rt::ModelInfo model = sample->model_info();
  const rt::CpuSteps cpu_steps = sample->steps;
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
