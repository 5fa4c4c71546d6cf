#pragma once
// One node of the value IR (graph.hpp): a layer with its input and output shapes inferred, its
// parameters and FLOPs counted.
#include <cstdint>

#include "staticnet/dtype.hpp"
#include "staticnet/layer_desc.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

struct Node {
  LayerDesc desc;  // as written, except that padding holds what is applied (PaddingSame resolved)
  std::int32_t inputs[2] = {model_input, no_input};  // the tensors read, by id (see NodeDesc)
  std::int32_t block_first = -1;                     // an Add: the first node of its block
  Shape input;                                       // the first input, with the batch extent
  Shape input2;                 // an Add: the second input (the shortcut's output)
  Shape output;                 // with the batch extent
  std::int64_t weights = 0;     // parameters in the weight tensor (BatchNorm: γ)
  std::int64_t biases = 0;      // parameters in the bias vector (BatchNorm: β)
  std::int64_t statistics = 0;  // non-trainable values: BatchNorm's running mean and variance
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;
  // The output depends on parameters, so training needs its gradient.
  bool output_needs_gradient = false;

  constexpr std::int64_t parameters() const { return weights + biases; }
  constexpr int input_count() const { return inputs[1] == no_input ? 1 : 2; }
};

// The type of the window index a max-pool keeps per output element: the narrowest that holds
// every position of its window.
constexpr DType window_index_dtype(const LayerDesc& d) {
  const std::int64_t positions = d.kernel_h * d.kernel_w;
  return positions <= 256 ? DType::u8 : positions <= 65536 ? DType::u16 : DType::u32;
}

}  // namespace staticnet
