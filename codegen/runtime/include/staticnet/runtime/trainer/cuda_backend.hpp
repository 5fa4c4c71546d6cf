#pragma once
// The CUDA backend: the arena is one device allocation of exactly the plan's bytes, and the
// generated step (NAME_kernels.cu) runs on it.
//
//   * One CUDA graph per step. The first train_step (and the first evaluate) runs launch by launch,
//     which also loads every kernel; the next captures the step (zeroing, forward, loss, backward,
//     update, and the copy of the losses back) into a graph, and every later one replays it.
//     Every address and shape is fixed, so nothing in the graph ever changes; the optimizer's
//     per-step scalars are copied in before each replay.
//   * Double-buffered pinned staging. The loader writes a batch into pinned host memory that
//     mirrors the arena's inputs region; train_step copies it in (one copy) and returns at once,
//     and the loader then fills the other staging buffer while the GPU runs. The step's results
//     (per-sample losses and predictions) come back into pinned memory; losses() waits for them.
//     The copy into the arena itself cannot overlap the step that reads the same input buffer:
//     the plan has one.
//   * Memory, measured: cudaMemGetInfo before and after creating the context, the arena, and the
//     libraries' handles and plans, reported by memory() against the device profile's figure.
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "staticnet/cuda/replay.hpp"
#include "staticnet/cuda/step.hpp"
#include "staticnet/runtime/trainer/backend.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

using CudaStepFactory = std::unique_ptr<cuda::GeneratedStep> (*)(std::byte* arena,
                                                                 cudaStream_t stream);

struct CudaOptions {
  bool graphs = true;  // false: launch by launch every step (tests compare the two)
  int device = 0;
};

class CudaBackend final : public Backend {
 public:
  // Creates the context, allocates and zeroes the arena, makes the step. Throws
  // staticnet::cuda::Error when there is no usable GPU.
  CudaBackend(const ModelInfo& model, CudaStepFactory make_step, CudaOptions options = {});
  ~CudaBackend() override;

  std::string description() const override;
  std::string details() const override;
  std::span<float> batch_inputs() override;
  std::span<std::int32_t> batch_labels() override;
  std::span<float> batch_targets() override;
  void train_step(const kernels::OptimizerConstants& constants) override;
  void evaluate() override;
  std::span<const float> losses() override;
  std::span<const std::int32_t> predictions() override;
  void read_state(StateBuffer which, std::span<float> out) override;
  void write_state(StateBuffer which, std::span<const float> in) override;
  MemoryReport memory() const override;

 private:
  struct Staging;  // pinned host buffers
  void run(bool training);
  void wait();
  std::int64_t state_offset(StateBuffer which) const;

  const ModelInfo& model_;
  CudaOptions options_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr;
  std::byte* arena_ = nullptr;
  std::unique_ptr<cuda::GeneratedStep> step_;
  std::unique_ptr<Staging> staging_;
  cuda::ReplayedWork replays_[2];  // [training, evaluation]
  bool pending_ = false;           // a step was enqueued and not yet waited for
  std::string device_name_;
  int sm_ = 0;
  // cudaMemGetInfo readings, bytes in use on the device after each stage.
  std::int64_t total_ = 0, context_ = 0, arena_measured_ = 0, libraries_ = 0;
};

}  // namespace staticnet::runtime
