#pragma once
// The CPU backend: the arena is one 256-byte-aligned allocation of host memory, made once and
// zeroed, and the generated CPU step (NAME_kernels_cpu.h) runs on it with a thread pool. Batches
// are written straight into the arena's input and label buffers, and results read from it, so a
// step copies nothing and allocates nothing.
#include <cstddef>
#include <memory>

#include "staticnet/cpu/thread_pool.hpp"
#include "staticnet/runtime/host_arena.hpp"
#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

// The generated step's entry points (NAME::cpu::train_step and NAME::cpu::evaluate).
struct CpuSteps {
  void (*train_step)(std::byte* arena, const kernels::OptimizerConstants& constants,
                     cpu::ThreadPool& pool) = nullptr;
  void (*evaluate)(std::byte* arena, cpu::ThreadPool& pool) = nullptr;
};

class CpuBackend final : public Backend {
 public:
  // Allocates and zeroes the arena, and starts a loss scaler at GradScaler's initial state;
  // `threads` >= 1.
  CpuBackend(const ModelInfo& model, CpuSteps steps, int threads);

  std::string description() const override;
  std::span<float> batch_inputs() override;
  std::span<std::int32_t> batch_labels() override;
  std::span<float> batch_targets() override;
  void train_step(const kernels::OptimizerConstants& constants) override;
  void evaluate() override;
  std::span<const float> losses() override;
  std::span<const std::int32_t> predictions() override;
  void read_state(StateBuffer which, std::span<float> out) override;
  void write_state(StateBuffer which, std::span<const float> in) override;
  std::optional<kernels::LossScaleState> loss_scale() override;
  void write_loss_scale(const kernels::LossScaleState& state) override;
  MemoryReport memory() const override;

  // The arena itself, for tests.
  std::byte* arena() { return arena_.data(); }

 private:
  template <class T>
  std::span<T> view(std::int64_t offset, std::int64_t count);
  std::span<float> state(StateBuffer which);

  const ModelInfo& model_;
  CpuSteps steps_;
  HostArena arena_;
  cpu::ThreadPool pool_;
};

}  // namespace staticnet::runtime
