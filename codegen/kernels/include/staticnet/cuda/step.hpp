#pragma once
// What a generated CUDA step (NAME_kernels.cu) offers the trainer runtime. The step enqueues its
// work on the stream it was made with and never synchronises, so the runtime can run it
// launch by launch or capture it once into a CUDA graph and replay that (runtime's CudaBackend).
#include <cstddef>
#include <string>

#include "staticnet/kernels/optimizers.hpp"

namespace staticnet::cuda {

class GeneratedStep {
 public:
  virtual ~GeneratedStep() = default;
  // Copies the optimizer's per-step scalars to the device for the next train_step. Not part of a
  // captured graph: it runs before each replay.
  virtual void set_constants(const kernels::OptimizerConstants& constants) = 0;
  // Zero the gradients, forward, loss, backward, update: all enqueued, none waited for.
  virtual void train_step() = 0;
  // Forward and loss only.
  virtual void evaluate() = 0;
  // What the libraries chose, one line per product ("layer 0 Conv2d: 3→16 3×3: forward ...").
  virtual std::string describe() const = 0;
};

}  // namespace staticnet::cuda
