#pragma once
// The generated forward pass on the CPU: one 256-byte-aligned arena of the plan's size, made
// once, and a thread pool. Weights are written into it once (load), which also folds the
// BatchNorms the plan folded; each batch is written straight into its input buffer and the
// output read from its output buffer, so a pass copies nothing and allocates nothing.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "staticnet/cpu/thread_pool.hpp"
#include "staticnet/runtime/host_arena.hpp"
#include "staticnet/runtime/inference/inference_backend.hpp"
#include "staticnet/runtime/inference/inference_model.hpp"

namespace staticnet::runtime {

// The generated entry points (NAME::cpu::fold_batch_norms and NAME::cpu::infer).
struct CpuInferenceSteps {
  void (*fold_batch_norms)(std::byte* arena, cpu::ThreadPool& pool) = nullptr;
  void (*infer)(std::byte* arena, cpu::ThreadPool& pool) = nullptr;
};

class CpuInference final : public InferenceBackend {
 public:
  // Allocates and zeroes the arena; `threads` >= 1.
  CpuInference(const InferenceModel& model, CpuInferenceSteps steps, int threads);

  std::string description() const override;  // "CPU, 2 threads, OpenBLAS"
  std::string arena_where() const override;
  void load(std::span<const float> parameters, std::span<const float> non_trainable) override;
  std::span<float> input() override;
  void run() override;
  std::span<const float> output() override;

  // The arena itself, for tests.
  std::byte* arena() { return arena_.data(); }

 private:
  std::span<float> floats(std::int64_t offset, std::int64_t count);

  InferenceModel model_;  // a copy: callers may pass NAME::model_info()'s temporary
  CpuInferenceSteps steps_;
  HostArena arena_;
  cpu::ThreadPool pool_;
  bool loaded_ = false;
};

}  // namespace staticnet::runtime
