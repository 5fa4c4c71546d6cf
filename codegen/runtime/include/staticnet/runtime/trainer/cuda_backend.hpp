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
//     mirrors the arena's batch (input, then labels or targets); train_step returns at once, and
//     the loader then fills the other staging buffer while the GPU runs. The step's results
//     (per-sample losses and predictions) come back into pinned memory; losses() waits for them.
//   * The batch's copy to the device. Without Prefetch the plan has one batch buffer, which the
//     running step reads until its first layer's weight gradient, so the copy waits for the step
//     and precedes the next one on its stream. With Prefetch the plan has a second, next_batch:
//     batch_ready() copies the loader's batch there on a stream of its own at once, overlapping
//     the step still running; the next step then starts with one device-to-device copy into
//     place (the generated step reads the batch at fixed addresses).
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
  std::string arithmetic() const override;  // "CUDA, NVIDIA H200 (sm_90)"
  std::string details() const override;
  std::span<float> batch_inputs() override;
  std::span<std::int32_t> batch_labels() override;
  std::span<float> batch_targets() override;
  void batch_ready() override;
  void train_step(const kernels::OptimizerConstants& constants) override;
  void evaluate() override;
  std::span<const float> losses() override;
  std::span<const std::int32_t> predictions() override;
  void read_state(StateBuffer which, std::span<float> out) override;
  void write_state(StateBuffer which, std::span<const float> in) override;
  MemoryReport memory() const override;

 private:
  struct Staging;  // pinned host buffers
  void set_up(CudaStepFactory make_step);
  void release() noexcept;  // what set_up made, in any state it left
  void run(bool training);
  void wait();
  bool prefetches() const { return model_.arena.next_batch_at >= 0; }
  // The loader's batch (staging_->next) toward the arena: with Prefetch into next_batch on
  // copies_, else into place on stream_. Once per batch.
  void send_batch();
  std::int64_t state_offset(StateBuffer which) const;

  const ModelInfo& model_;
  CudaOptions options_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr;
  // Prefetch: the stream the batch is copied in on, and the events between it and stream_: the
  // batch has arrived in next_batch; next_batch has been copied into place and may be rewritten.
  cudaStream_t copies_ = nullptr;
  cudaEvent_t arrived_ = nullptr, slot_free_ = nullptr;
  bool sent_ = false;  // the loader's batch is on its way (send_batch ran since the last step)
  std::byte* arena_ = nullptr;
  std::unique_ptr<cuda::GeneratedStep> step_;
  std::unique_ptr<Staging> staging_;
  cuda::ReplayedWork replays_[2];  // [training, evaluation]
  bool pending_ = false;           // a step was enqueued and not yet waited for
  std::string device_name_;
  int sm_ = 0;
  // cudaMemGetInfo readings, bytes in use on the device after each stage; the last, in use once
  // set up, is what memory() compares with later (modules load at a kernel's first launch, and
  // the CUDA graphs are made at the second and third steps).
  std::int64_t total_ = 0, context_ = 0, arena_measured_ = 0, libraries_ = 0, set_up_ = 0;
  std::int64_t pinned_ = 0;  // the page-locked bytes set_up allocated (the staging)
};

}  // namespace staticnet::runtime
