// Times the generated CUDA training step of a sample on one fixed batch, the way torch_step.py
// times PyTorch on the GPU: weights initialised, a batch of random normal inputs and random labels
// written once, warm-up steps, then `repeats` timings of `steps` steps each. Every step is what the
// trainer does per batch: replay the step's graph, send the next staged batch (batch_ready(): under
// Prefetch its copy overlaps the step, else it follows it), copy the losses back and wait for
// them (PyTorch's side reads loss.item() each step). Prints the median milliseconds per step and
// the device memory.
//
//   staticnet_bench_cuda_step MODEL [--steps N] [--repeats N]
//   MODEL: simple_cnn, simple_cnn_prefetch, lenet5_adam, or an MLPerf Tiny model (resnet8, ds_cnn,
//   mobilenet_v1, fc_autoencoder: samples/mlperf_tiny/, Adam, their reference batches), or
//   simple_cnn_accumulate4 or resnet8_accumulate4 (the same under Accumulate<4>,
//   accumulate_setups.hpp)
//   (STATICNET_CUDA_GRAPHS=0 times launch by launch instead)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <staticnet/runtime/trainer/cuda_backend.hpp>
#include <staticnet/runtime/trainer/train.hpp>

#include "../common/random_batch.hpp"
#include "ds_cnn_kernels_cuda.h"
#include "ds_cnn_trainer.h"
#include "fc_autoencoder_kernels_cuda.h"
#include "fc_autoencoder_trainer.h"
#include "lenet5_adam_kernels_cuda.h"
#include "lenet5_adam_trainer.h"
#include "mobilenet_v1_kernels_cuda.h"
#include "mobilenet_v1_trainer.h"
#include "resnet8_accumulate4_kernels_cuda.h"
#include "resnet8_accumulate4_trainer.h"
#include "resnet8_kernels_cuda.h"
#include "resnet8_trainer.h"
#include "simple_cnn_accumulate4_kernels_cuda.h"
#include "simple_cnn_accumulate4_trainer.h"
#include "simple_cnn_kernels_cuda.h"
#include "simple_cnn_prefetch_kernels_cuda.h"
#include "simple_cnn_prefetch_trainer.h"
#include "simple_cnn_trainer.h"

namespace rt = staticnet::runtime;

namespace {

struct Sample {
  const char* name;
  rt::ModelInfo (*model_info)();
  rt::CudaStepFactory make_step;
};

// Each generated trainer's model and CUDA step, by the name gpu-checks.sh passes.
#define STATICNET_BENCH_SAMPLE(NAME)                 \
  Sample {                                           \
#NAME, &NAME::model_info, &NAME::cuda::make_step \
  }
const Sample samples[] = {
    STATICNET_BENCH_SAMPLE(simple_cnn),     STATICNET_BENCH_SAMPLE(simple_cnn_prefetch),
    STATICNET_BENCH_SAMPLE(lenet5_adam),    STATICNET_BENCH_SAMPLE(resnet8),
    STATICNET_BENCH_SAMPLE(ds_cnn),         STATICNET_BENCH_SAMPLE(mobilenet_v1),
    STATICNET_BENCH_SAMPLE(fc_autoencoder), STATICNET_BENCH_SAMPLE(simple_cnn_accumulate4),
    STATICNET_BENCH_SAMPLE(resnet8_accumulate4),
};
#undef STATICNET_BENCH_SAMPLE

}  // namespace

namespace {

int run(const std::string& which, const Sample& sample, int steps, int repeats);

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [--steps N] [--repeats N]\n  MODEL:", argv[0]);
    for (const Sample& s : samples)
      std::fprintf(stderr, " %s", s.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  const std::string which = argv[1];
  int steps = 200, repeats = 5;
  for (int i = 2; i < argc; i += 2) {
    const bool known = !std::strcmp(argv[i], "--steps") || !std::strcmp(argv[i], "--repeats");
    char* end = nullptr;
    const long value = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : 0;
    if (!known || i + 1 == argc || *end != '\0' || value < 1 || value > 1'000'000) {
      std::fprintf(stderr,
                   "%s: expected --steps N or --repeats N (N from 1 to 10^6), not '%s%s%s'\n",
                   argv[0], argv[i], i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
      return 2;
    }
    if (!std::strcmp(argv[i], "--steps"))
      steps = static_cast<int>(value);
    else
      repeats = static_cast<int>(value);
  }
  const Sample* sample = nullptr;
  for (const Sample& s : samples)
    if (which == s.name)
      sample = &s;
  if (!sample) {
    std::fprintf(stderr, "unknown model %s\n", which.c_str());
    return 2;
  }
  try {
    return run(which, *sample, steps, repeats);
  } catch (const std::exception& e) {  // no GPU, or a library refusing the plan
    std::printf("error: %s\n", e.what());
    return 1;
  }
}

namespace {

int run(const std::string& which, const Sample& sample, int steps, int repeats) {
  const rt::ModelInfo model = sample.model_info();
  rt::CudaBackend backend(model, sample.make_step);
  bench::initialize_parameters(model, backend);
  // Both staging buffers hold the same random batch, so every step copies real data in.
  for (int staging = 0; staging < 2; ++staging) {
    bench::write_random_batch(model, backend);
    backend.evaluate();  // flips the staging buffer
    (void)backend.losses();
  }
  const auto settings = rt::default_optimizer_settings(model.optimizer);
  std::int64_t t = 0;
  auto step = [&] {
    backend.train_step(staticnet::kernels::optimizer_constants(model.optimizer, settings, ++t));
    backend.batch_ready();  // the loader would have written the next batch here
    (void)backend.losses();
  };
  for (int i = 0; i < 20; ++i)
    step();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
      step();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        steps);
  }
  std::sort(times.begin(), times.end());
  const rt::MemoryReport memory = backend.memory();
  std::printf("model=%s backend=\"%s\" ms_per_step=%.4f min=%.4f max=%.4f arena_bytes=%lld\n",
              which.c_str(), backend.description().c_str(), times[times.size() / 2], times.front(),
              times.back(), static_cast<long long>(memory.arena));
  std::printf("memory: %s; %s\n", memory.arena_where.c_str(), memory.other.c_str());
  std::printf("kernels:\n%s", backend.details().c_str());
  return 0;
}

}  // namespace
