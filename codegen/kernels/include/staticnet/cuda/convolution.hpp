#pragma once
// Conv2d on the GPU through cuDNN's graph API (its header-only C++ frontend), NCHW tensors in the
// arena, FP32 throughout:
//
//   forward          z = conv(x, W), and when asked the bias and a ReLU in the same graph
//                    (conv_fprop → add bias → ReLU), which cuDNN runs as one fused kernel where
//                    an engine supports it for these sizes on this GPU. Where none does, the
//                    forward graph is the convolution alone and the caller finishes z with its
//                    own pass (fused() says which); a max-pool after the convolution is always
//                    the caller's pass (cuDNN's graphs do not fuse one after a convolution).
//   backward weights dW = conv_wgrad(dz, x) and db = Σ dz per channel. For convolutions with few
//                    weights, staticnet's own deterministic pass computes both at once
//                    (conv_weight_gradient.hpp says why); for the others, cuDNN's wgrad and a
//                    reduction. Both write dW and db rather than add to them, which is the same
//                    thing here: the step zeroes the gradients first and they have no other
//                    contribution.
//   backward input   dx = conv_dgrad(dz, W).
//
// Every graph's engine is chosen among those that compute in FP32 what the CPU step computes (no
// TF32 or lower, no FFT or Winograd transform), deterministically (--resume must give the same
// bits), and need no more workspace than the plan's workspace region; the first of cuDNN's
// heuristic order that remains wins. src/cuda/engine_policy.hpp lists the notes left out and why.
#include <cstdint>
#include <memory>
#include <string>

#include "staticnet/cuda/conv_weight_gradient.hpp"
#include "staticnet/cuda/libraries.hpp"
#include "staticnet/kernels/geometry.hpp"

namespace staticnet::cuda {

enum class ConvEpilogue { none, bias, bias_relu };

class Convolution {
 public:
  // alignment: the bytes (16, 8 or 4) every tensor's address is a multiple of; cuDNN only
  // considers engines that work at that alignment.
  // adds_gradients: the weight and bias gradients must add to what dw and db hold (gradient
  // accumulation, sn::Accumulate: each micro-batch adds its part). cuDNN's wgrad graph writes dw,
  // so staticnet's own pass (ConvWeightGradient, which adds) is used even where cuDNN's would be
  // faster; a convolution too large for that pass is refused.
  Convolution(const Libraries& libraries, const kernels::Conv2dGeometry& geometry,
              ConvEpilogue forward, Gradients gradients, std::int64_t workspace_limit,
              int alignment, bool adds_gradients = false);
  ~Convolution();
  Convolution(const Convolution&) = delete;
  Convolution& operator=(const Convolution&) = delete;

  // z = conv(x, W), plus the epilogue asked for when forward_fused().
  void forward(const float* x, const float* w, const float* b, float* z, void* workspace) const;
  // dW = conv_wgrad(dz, x), and db = Σ dz over batch and positions unless db is null (added to
  // dW and db where the pass is staticnet's, always under adds_gradients).
  void backward_weights(const float* x, const float* dz, float* dw, float* db,
                        void* workspace) const;
  // dx = conv_dgrad(dz, W)
  void backward_input(const float* dz, const float* w, float* dx, void* workspace) const;

  bool forward_fused() const;
  // "3→16 3×3: forward conv+bias+ReLU fused (engine ...), workspace 0 B; wgrad ...; dgrad ..."
  std::string describe() const;

 private:
  struct Graphs;  // the frontend's graphs and tensor handles, kept out of this header
  const Libraries& libraries_;
  std::unique_ptr<Graphs> graphs_;
};

}  // namespace staticnet::cuda
