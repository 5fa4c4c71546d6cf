// A convolution computed directly (depthwise, grouped, or a dense one that pads unevenly or adds
// its input gradient: staticnet/fusion.hpp's runs_direct), described once for every backend
// (pass_description.hpp): the shared bodies of staticnet/kernels/grouped_conv.hpp with the bias
// (or a folded BatchNorm's shift) and the activation fused; backward into dW, db and dx.
//
// A host runs the forward pass and dx a (sample, channel) plane per call, dW a filter per call and
// db a block of channels per call; a GPU runs an element per thread, and a block of threads per
// weight's or channel's sum (bench/cuda_step/ compares these kernels with cuDNN's engines).
#include <string>

#include "pass_description.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

// The channels of one host call of the bias gradient (k::bias_gradient_channel_block, which takes
// it as its width): the eight whose sums the body interleaves.
constexpr std::int64_t bias_channel_block = 8;

}  // namespace

GroupPasses describe_direct_conv(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  const LayerPlan& l = model.layers.at(static_cast<std::size_t>(g.grouped));
  ForwardBias forward_b = forward_bias(model, g, g.grouped, arena);  // or the folded shift
  const std::string geometry = "conv_" + std::to_string(g.grouped);
  const std::int64_t positions = l.output_shape[2] * l.output_shape[3];
  // Under mixed precision the convolution reads the parameters' working copy (the plan's
  // parameter_copy). Its type is the products' type: the weight and bias gradients' sums are
  // told it (`working`) and round to it, as autocast's gradient is the working copy's.
  const bool working_copy = model.find(BufferRole::parameter_copy) != nullptr;
  const BufferRole read_from = working_copy ? BufferRole::parameter_copy : BufferRole::parameters;
  const std::string weight_element =
      working_copy ? arena.element(arena.index(BufferRole::parameter_copy)) : "float";
  const std::string working = working_copy ? ", " + weight_element : "";
  const std::string weights = arena.parameter(l.weight_offset, read_from);
  if (working_copy && forward_b.present)  // (a folded shift exists only under Inference)
    forward_b.pointer = arena.parameter(l.bias_offset, read_from);
  auto reads = [&](const std::string& name, int buffer) {
    return buffer_tensor(arena, name, buffer, false);
  };

  GroupPasses d;
  Direction& forward = d.forward.emplace();
  forward.tensors = {reads("x", l.input_buffer),
                     {"weight", weight_element, false, weights,
                      "// " + weight_name(g.grouped) + forward_b.weight_note},
                     {"bias", weight_element, false, forward_b.pointer, forward_b.note},
                     buffer_tensor(arena, "y", l.output_buffer, true)};
  const std::string templates =
      "<" + geometry + ", " + (forward_b.present ? "true" : "false") + ">";
  MapPass convolve{
      "Each output: its window's weighted sum" +
          std::string(forward_b.present ? " plus the bias" : ""),
      {"i"},
      {l.output_shape.elements()},
      "k::grouped_conv_forward" + templates + "(i, x, weight, bias, y);",
      PassForm{{"plane"},
               {l.output_shape[0] * l.output_shape[1]},
               "k::grouped_conv_forward_plane" + templates + "(plane, x, weight, bias, y);"}};
  if (g.activation >= 0) {
    // On the value just written: a GPU thread's element, a host call's plane (still in cache).
    const LayerPlan& a = model.layers.at(static_cast<std::size_t>(g.activation));
    const std::string apply = "k::activation_forward<" + fused_activation(model, g) + ">(i, y, y);";
    convolve.comment += ", then the " + std::string(name_of(a.kind));
    convolve.device.call += "\n" + apply;
    convolve.host->call += "\nfor (index_t i = plane * " + literal(positions) +
                           "; i < (plane + 1) * " + literal(positions) + "; ++i)\n  " + apply;
  }
  convolve.comment += ".";
  forward.passes = {convolve};
  if (!l.runs_backward)
    return d;

  const Shape w = weight_shape(l);
  const std::string sums = "<" + literal(l.output_shape[0]) + ", " + literal(l.output_shape[1]) +
                           ", " + literal(positions) + ">";
  Direction& backward = d.backward.emplace();
  backward.tensors = {
      reads("x", l.input_buffer),
      reads("dy", l.output_gradient_buffer),
      {"dweight", "float", true, arena.parameter(l.weight_offset, BufferRole::gradients),
       "// gradient of " + weight_name(g.grouped)}};
  MapPass weight_gradient{
      "Each weight: Σ over samples and output positions of dy · x.",
      {"e"},
      {w.elements()},
      "g::per_block::grouped_conv_backward_weight<" + geometry + ">(e, x, dy, dweight);",
      // A host call takes a filter's (output channel, input channel) pair: its KH·KW weights.
      PassForm{{"f"},
               {w[0] * w[1]},
               "k::grouped_conv_backward_filter<" + geometry + working + ">(f, x, dy, dweight);"}};
  weight_gradient.per_block = true;
  backward.passes = {weight_gradient};
  if (l.options.bias) {
    backward.tensors.push_back({"dbias", "float", true,
                                arena.parameter(l.bias_offset, BufferRole::gradients),
                                "// gradient of " + bias_name(g.grouped)});
    MapPass bias_gradient{
        "Each channel: Σ over samples and positions of dy.",
        {"c"},
        {l.output_shape[1]},
        "g::per_block::bias_gradient_channels" + sums + "(c, dy, dbias);",
        PassForm{{"block"},
                 {(l.output_shape[1] + bias_channel_block - 1) / bias_channel_block},
                 "k::bias_gradient_channel_block<" + literal(l.output_shape[0]) + ", " +
                     literal(l.output_shape[1]) + ", " + literal(positions) + ", " +
                     std::to_string(bias_channel_block) + working + ">(block, dy, dbias);"}};
    bias_gradient.per_block = true;
    backward.passes.push_back(bias_gradient);
  }
  if (l.input_gradient_buffer != no_buffer) {
    backward.tensors.push_back(
        {"weight", weight_element, false, weights, "// " + weight_name(g.grouped)});
    backward.tensors.push_back(input_gradient_tensor(l, arena));
    const std::string t =
        "<" + geometry + ", " + (l.accumulates_input_gradient ? "true" : "false") + ">";
    backward.passes.push_back(
        {"Each input element gathers dy · w from the outputs that read it.",
         {"i"},
         {l.input_shape.elements()},
         "k::grouped_conv_backward_input" + t + "(i, dy, weight, dx);",
         PassForm{{"plane"},
                  {l.input_shape[0] * l.input_shape[1]},
                  "k::grouped_conv_backward_input_plane" + t + "(plane, dy, weight, dx);"}});
  }
  return d;
}

}  // namespace staticnet::codegen
