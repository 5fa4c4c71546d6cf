#pragma once
// What a generated CUDA forward pass (NAME_kernels.cu of an sn::Inference setup) offers the
// inference runtime. Like GeneratedStep, it enqueues work on the stream it was made with and
// never synchronises, so the runtime can capture infer() once into a CUDA graph and replay it.
#include <string>

namespace staticnet::cuda {

class GeneratedInference {
 public:
  virtual ~GeneratedInference() = default;
  // Scales the weights of every layer a BatchNorm was folded into and writes the shifts over
  // the BatchNorms' β: once, after the weights and running statistics are in the arena.
  virtual void fold_batch_norms() = 0;
  // The forward pass over the arena's input buffer, into its output buffer.
  virtual void infer() = 0;
  // What the libraries chose, one line per product ("layer 0 Conv2d: 3→16 3×3: forward ...").
  virtual std::string describe() const = 0;
};

}  // namespace staticnet::cuda
