#pragma once
// Which layers run as one pass: the planner's fusion stage decides it (include/staticnet/
// fusion.hpp, where the rules are); every backend emits one section per group, forward in order
// and backward in reverse. What is here are the questions the emitters ask of a group.
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/codegen/model_view.hpp"
#include "staticnet/fusion.hpp"

namespace staticnet::codegen {

using staticnet::FusedGroup;
using Target = staticnet::FusionTarget;

// The plan's groups for the target (staticnet::fuse on the plan's run-time copy).
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
