#pragma once
// The generated forward pass on a CUDA GPU: one device allocation of exactly the plan's bytes,
// made once; the weights are copied in and folded once (load); each batch goes through pinned
// host memory into the arena's input buffer, the forward pass runs, and the output comes back
// into pinned memory. The second run() captures the pass (copy in, forward, copy out) as a CUDA
// graph and every later one replays it: every address and shape is fixed.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "staticnet/cuda/inference.hpp"
#include "staticnet/cuda/replay.hpp"
#include "staticnet/runtime/inference/inference_backend.hpp"
#include "staticnet/runtime/inference/inference_model.hpp"

namespace staticnet::runtime {

// The generated entry point (NAME::cuda::make_inference).
using CudaInferenceFactory = std::unique_ptr<cuda::GeneratedInference> (*)(std::byte* arena,
                                                                           cudaStream_t stream);

class CudaInference final : public InferenceBackend {
 public:
  // Creates the context on `device`, allocates and zeroes the arena, makes the forward pass.
  // Throws staticnet::cuda::Error when there is no usable GPU. STATICNET_CUDA_GRAPHS=0 runs
  // every pass launch by launch.
  CudaInference(const InferenceModel& model, CudaInferenceFactory make, int device = 0);
  ~CudaInference() override;
  CudaInference(const CudaInference&) = delete;
  CudaInference& operator=(const CudaInference&) = delete;

  std::string description() const override;
  std::string arena_where() const override;
  std::string other_memory() const override;
  void load(std::span<const float> parameters, std::span<const float> non_trainable) override;
  std::span<float> input() override;
  void run() override;
  std::span<const float> output() override;

  // What the libraries chose, one line per product.
  std::string details() const { return pass_->describe(); }

 private:
  void set_up(CudaInferenceFactory make, int device);
  void release() noexcept;  // what set_up made, in reverse
  void enqueue_pass();

  InferenceModel model_;
  cudaStream_t stream_ = nullptr;
  std::byte* arena_ = nullptr;
  std::unique_ptr<cuda::GeneratedInference> pass_;
  float* pinned_input_ = nullptr;
  float* pinned_output_ = nullptr;
  cuda::ReplayedWork replay_;  // launch by launch, then a captured graph replayed
  bool graphs_ = true;
  bool loaded_ = false;
  std::string device_name_;
  int sm_ = 0;
  // cudaMemGetInfo readings: bytes in use after the context, the arena's fall, the libraries'.
  std::int64_t total_ = 0, context_ = 0, arena_measured_ = 0, libraries_ = 0;
};

// NAME_infer_cuda's main(): infer_main with CudaInference over the generated entry point.
int infer_main(int argc, char** argv, const InferenceModel& model, CudaInferenceFactory make);

}  // namespace staticnet::runtime
