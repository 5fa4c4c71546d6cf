#include "staticnet/codegen/fusion.hpp"

#include <string>

namespace staticnet::codegen {
namespace {

const LayerPlan& layer_at(const ModelView& model, std::int64_t i) {
  return model.layers.at(static_cast<std::size_t>(i));
}

}  // namespace

std::vector<FusedGroup> fuse(const ModelView& model, Target target) {
  std::vector<FusedGroup> groups;
  staticnet::fuse(model, target, groups);
  return groups;
}

bool view_writes_gradient(const ModelView& model, const FusedGroup& g) {
  if (g.view < 0)
    return false;
  const LayerPlan& l = layer_at(model, g.view);
  return l.runs_backward && l.input_gradient_buffer != no_buffer &&
         l.input_gradient_buffer != l.output_gradient_buffer;
}

bool has_backward(const ModelView& model, const FusedGroup& g) {
  if (g.view >= 0)
    return view_writes_gradient(model, g);
  const LayerPlan& first = layer_at(model, g.first);
  if (!first.runs_backward)
    return false;
  if (first.parameters > 0)
    return true;
  if (g.sum >= 0) {
    const bool fused_derivative = g.activation >= 0 && layer_at(model, g.activation).runs_backward;
    const bool writes = (first.input_gradient_buffer != no_buffer &&
                         first.input_gradient_buffer != first.output_gradient_buffer) ||
                        (first.input2_gradient_buffer != no_buffer &&
                         first.input2_gradient_buffer != first.output_gradient_buffer);
    return fused_derivative || writes;
  }
  return first.input_gradient_buffer != no_buffer;
}

bool differs_in_evaluation(const FusedGroup& group) {
  return group.norm >= 0 || group.dropout >= 0;
}

std::string layer_span(const FusedGroup& group) {
  if (group.first == group.last)
    return "layer " + std::to_string(group.first);
  return "layers " + std::to_string(group.first) + "-" + std::to_string(group.last);
}

}  // namespace staticnet::codegen
