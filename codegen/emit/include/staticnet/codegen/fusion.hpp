#pragma once
// Which layers run as one pass. Every backend emits one section per group, forward in order and
// backward in reverse, so the grouping is decided once, here.
//
// Layers read tensors by id (LayerPlan::inputs), so "after" below means "reads the output of, as
// its only reader": in a residual block the layer that follows another in the list may read
// something else entirely.
//
// The rules:
//   * A Linear or Conv2d starts a group (its "product": a GEMM or convolution), unless the
//     convolution runs directly (grouped or depthwise; on CUDA also a dense one whose padding is
//     uneven or whose input gradient adds to another reader's, which cuDNN's graphs do not take):
//     then it is a group of its own.
//   * An elementwise activation after it joins: bias + activation are applied in the pass that
//     finishes the product's output, and backward applies the activation's derivative in the
//     pass that starts the product's backward.
//   * After a Conv2d (and its activation, if any), a MaxPool2d or AvgPool2d whose windows tile
//     its input exactly (stride = kernel, no padding, no leftover row or column) joins too: each
//     window is finished, activated and pooled in one visit, and backward routes the pooled
//     gradient through the activation straight into the convolution's output gradient. Windows
//     that overlap or leave elements out would visit an element twice or never, so such a pool
//     runs as a group of its own.
//   * A BatchNorm starts a group, and an activation after it joins: normalise and activate in one
//     pass; backward applies the activation's derivative in the pass that sums for BatchNorm's.
//   * Under sn::Inference, a BatchNorm the plan folded (LayerPlan::folded) joins the product or
//     direct convolution before it, and the activation after it joins too: its scale is folded
//     into that layer's weights once, at load time, and its shift is added where the bias was
//     (kernels/batch_norm.hpp, fold_batch_norm), so conv + BN + ReLU is one pass over the output.
//   * A residual Add starts a group, and an activation after it joins (ResNet's ReLU after the
//     sum): y = act(a + b) in one pass.
//   * An activation joins only when it runs in place in both directions (its output over its
//     input, its input gradient over its output gradient): the fused pass writes one buffer.
//   * Every other layer is a group of its own; a Flatten is a view and emits no code, unless its
//     input has another reader (view_writes_gradient).
// A group never changes what the plan placed where: it reads and writes the buffers the plan
// gave its layers, by id.
#include <cstdint>
#include <vector>

#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

struct FusedGroup {
  std::int64_t first = 0, last = 0;  // the layers covered, inclusive
  std::int64_t product = -1;         // the Linear or Conv2d, or -1
  std::int64_t activation = -1;   // the activation fused after the first layer, or a standalone one
  std::int64_t pool = -1;         // the pool fused after the product, or a standalone one
  std::int64_t view = -1;         // a Flatten (nothing to run)
  std::int64_t norm = -1;         // a BatchNorm2d or BatchNorm1d
  std::int64_t folded = -1;       // Inference: a BatchNorm folded into the product or direct conv
  std::int64_t sum = -1;          // a residual block's Add
  std::int64_t grouped = -1;      // a convolution computed directly (see the rules above)
  std::int64_t global_pool = -1;  // a GlobalAvgPool2d
  std::int64_t dropout = -1;      // a Dropout

  bool fused() const { return last > first; }
};

// The kernel emitters. Both write every layer the planner accepts; they differ only in which
// convolutions run directly (above).
enum class Target { cpu, cuda };

std::vector<FusedGroup> fuse(const ModelView& model, Target target);

// A Flatten whose input has another reader: its input's gradient is a buffer of its own, which its
// backward copies d(output) into, or adds it to when the other reader wrote first. (Otherwise a
// view's gradient is its input's, and it runs no code.)
bool view_writes_gradient(const ModelView& model, const FusedGroup& group);

// Whether the group has a backward pass to emit: it has parameters, or writes a gradient some
// earlier layer reads (an Add whose inputs both take its gradient as is has nothing to do).
bool has_backward(const ModelView& model, const FusedGroup& group);

// Whether the group runs differently in training and in evaluation (BatchNorm's statistics,
// Dropout's masks): its forward takes the mode.
bool differs_in_evaluation(const FusedGroup& group);

// "layers 0-2" or "layer 4"
std::string layer_span(const FusedGroup& group);

}  // namespace staticnet::codegen
