#pragma once
// Which layers run as one pass. Every backend emits one section per group, forward in order and
// backward in reverse, so the grouping is decided once, here.
//
// The rules:
//   * A Linear or Conv2d starts a group (its "product": a GEMM or convolution).
//   * An elementwise activation right after it joins: bias + activation are applied in the pass
//     that finishes the product's output, and backward applies the activation's derivative in the
//     pass that starts the product's backward.
//   * After a Conv2d (and its activation, if any), a MaxPool2d or AvgPool2d whose windows tile
//     its input exactly (stride = kernel, no padding, no leftover row or column) joins too: each
//     window is finished, activated and pooled in one visit, and backward routes the pooled
//     gradient through the activation straight into the convolution's output gradient. Windows
//     that overlap or leave elements out would visit an element twice or never, so such a pool
//     runs as a group of its own.
//   * Every other layer is a group of its own; a Flatten is a view and emits no code.
// A group never changes what the plan placed where: it reads and writes the buffers the plan
// gave its layers, by id.
#include <cstdint>
#include <vector>

#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

struct FusedGroup {
  std::int64_t first = 0, last = 0;  // the layers covered, inclusive
  std::int64_t product = -1;         // the Linear or Conv2d, or -1
  std::int64_t activation = -1;      // the activation fused after the product, or a standalone one
  std::int64_t pool = -1;            // the pool fused after the product, or a standalone one
  std::int64_t view = -1;            // a Flatten (nothing to run)

  bool fused() const { return last > first; }
};

// Throws std::invalid_argument naming the first layer the kernel emitters cannot write yet
// (BatchNorm, DepthwiseConv2d, GlobalAvgPool2d, Dropout, a Residual's Add, grouped convolutions,
// unequal 'same' padding). fuse() checks it first, so no emitter writes a wrong step.
void require_emittable(const ModelView& model);

std::vector<FusedGroup> fuse(const ModelView& model);

// "layers 0-2" or "layer 4"
std::string layer_span(const FusedGroup& group);

}  // namespace staticnet::codegen
