#pragma once
// The forward pass of a generated model on one backend, as the inference loop (infer.hpp) drives
// it: the arena is made once, the weights are written into it once (which also folds the
// BatchNorms the plan folded), then each batch goes into input(), run() computes, and output()
// holds the batch's outputs. CpuInference and CudaInference implement it.
#include <cstdint>
#include <span>
#include <string>

#include "staticnet/runtime/inference/inference_model.hpp"

namespace staticnet::runtime {

class InferenceBackend {
 public:
  virtual ~InferenceBackend() = default;

  // "CPU, 2 threads, OpenBLAS"; "CUDA, NVIDIA H100 (sm_90), one CUDA graph per batch"
  virtual std::string description() const = 0;
  // Where the arena is: "host memory, 256-byte aligned (one allocation)".
  virtual std::string arena_where() const = 0;
  // What else the backend took beside the arena ("" when nothing worth a line).
  virtual std::string other_memory() const { return {}; }

  // The parameters and running statistics (the plan's layouts: parameter_count and
  // non_trainable_count floats), copied into the arena and folded. Once: a second load throws
  // std::logic_error (the folded weights are no longer the file's).
  virtual void load(std::span<const float> parameters, std::span<const float> non_trainable) = 0;
  // The batch's input (batch x sample floats), written by the caller before run().
  virtual std::span<float> input() = 0;
  // One forward pass over the input; the output (batch x output floats) after it.
  virtual void run() = 0;
  virtual std::span<const float> output() = 0;
};

// Throws std::invalid_argument naming `who` when the sizes are not the model's.
void check_load_sizes(const InferenceModel& model, std::span<const float> parameters,
                      std::span<const float> non_trainable, const char* who);

}  // namespace staticnet::runtime
