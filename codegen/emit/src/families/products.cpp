// The products, a Linear or a Conv2d computed as a GEMM (or by a library), with the bias (or a
// folded BatchNorm's shift), the activation and the pool after them, described once for every
// backend (pass_description.hpp). The product itself is the one operation each backend makes its
// own way (the CPU's GEMMs and im2col, cuBLASLt and cuDNN); what finishes its output, and the
// passes of backward before its gradients, are shared bodies as elsewhere.
#include <stdexcept>
#include <string>

#include "pass_description.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"
#include "staticnet/print.hpp"

namespace staticnet::codegen {

ProductPasses describe_product(const ModelView& model, const FusedGroup& g, ArenaText& arena,
                               const std::optional<TensorUse>& scratch) {
  auto layer = [&](std::int64_t i) -> const LayerPlan& {
    return model.layers.at(static_cast<std::size_t>(i));
  };
  auto reads = [&](const std::string& name, int buffer, const std::string& suffix = "") {
    return buffer_tensor(arena, name, buffer, false, suffix);
  };
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  ForwardBias forward_b = forward_bias(model, g, g.product, arena);  // or the folded shift
  const std::string act = fused_activation(model, g);
  const LayerPlan* activation = g.activation >= 0 ? &layer(g.activation) : nullptr;
  const LayerPlan* pool = g.pool >= 0 ? &layer(g.pool) : nullptr;
  const bool max = pool && pool->kind == LayerKind::MaxPool2d;
  const std::string pool_geometry = pool ? "pool_" + std::to_string(g.pool) : "";
  // Under mixed precision the products read the parameters' working copy (the plan's
  // parameter_copy, remade from the float masters before each forward).
  const bool working_copy = model.find(BufferRole::parameter_copy) != nullptr;
  const BufferRole read_from = working_copy ? BufferRole::parameter_copy : BufferRole::parameters;
  const std::string weight_element =
      working_copy ? arena.element(arena.index(BufferRole::parameter_copy)) : "float";
  const std::string weights = arena.parameter(l.weight_offset, read_from);
  if (working_copy && forward_b.present)  // (a folded shift exists only under Inference)
    forward_b.pointer = arena.parameter(l.bias_offset, read_from);
  // A Conv2d's output is (N, C, H, W): a row is a sample's channel, over its H·W positions. A
  // Linear's is (N, F): a row is a sample, over its F features.
  const std::int64_t channels = l.output_shape[1];
  const std::int64_t rows = conv ? l.output_shape[0] * channels : l.output_shape[0];
  const std::int64_t positions = conv ? l.output_shape[2] * l.output_shape[3] : channels;
  const std::vector<std::string> axes = {"row", "p"};
  const ProductCall call{.conv = conv,
                         .geometry = (conv ? "conv_" : "linear_") + std::to_string(g.product),
                         .bias = forward_b.present,
                         .input_gradient = l.input_gradient_buffer != no_buffer,
                         .accumulates = l.accumulates_input_gradient,
                         .activation = act,
                         .working = working_copy ? weight_element : ""};

  ProductPasses d;
  ProductDirection& forward = d.forward;
  forward.call = call;
  Direction& f = forward.direction;
  f.tensors = {reads("x", l.input_buffer),
               {"weight", weight_element, false, weights,
                "// " + weight_name(g.product) + forward_b.weight_note}};
  if (forward_b.present)
    f.tensors.push_back({"bias", weight_element, false, forward_b.pointer, forward_b.note});
  f.tensors.push_back(buffer_tensor(arena, "z", l.output_buffer, true));
  const std::string bias = forward_b.present ? "bias" : "nullptr";
  const std::string has_bias = forward_b.present ? "true" : "false";
  if (forward_b.present || activation || pool) {
    // "z = ReLU(z + bias)": what each element becomes.
    const std::string shift = g.folded >= 0 ? "shift" : "bias";
    const std::string sum = forward_b.present ? "z + " + shift : "z";
    const std::string value =
        activation ? std::string(name_of(activation->kind)) + "(" + sum + ")" : sum;
    forward.epilogue.bias_activation = MapPass{
        (value == "z"  ? std::string("z as the product left it")
         : !activation ? "z += " + shift + ", per element"
                       : "z = " + value + ", per element") +
            (g.folded >= 0 ? " (the folded BatchNorm's shift)." : "."),
        axes,
        {rows, positions},
        "k::bias_activation_forward<" + act + ", k::BiasAlong::" + (conv ? "rows" : "positions") +
            ", " + literal(channels) + ", " + literal(positions) + ", " + has_bias + ">(" +
            axes[0] + ", " + axes[1] + ", z, " + bias + ", z);"};
  }
  if (pool) {
    // Before the first layer with parameters nothing runs backward, so the plan keeps no window
    // index and the forward pass records none.
    const bool keeps_window = max && pool->window_index_buffer != no_buffer;
    const std::string index =
        keeps_window ? arena.element(pool->window_index_buffer) : "k::WindowIndex8";
    f.tensors.push_back(buffer_tensor(arena, "pooled", pool->output_buffer, true));
    if (max)
      f.tensors.push_back(
          keeps_window
              ? buffer_tensor(arena, "window", pool->window_index_buffer, true)
              : TensorUse{"window", index, true, "nullptr", "// no backward: no window index"});
    const std::string where = "(plane, oh, ow, z, ";
    forward.epilogue.pool = MapPass{
        "Each pooled output: " +
            phrase_list({forward_b.present ? "the bias" : "",
                         activation ? "the " + std::string(name_of(activation->kind)) : ""}) +
            (forward_b.present || activation
                 ? std::string(" over its window") +
                       (l.runs_backward ? " (kept for backward)" : "") + ", then "
                 : "") +
            (keeps_window ? "the window's max and where it was."
             : max        ? "the window's max."
                          : "the window's mean."),
        {"plane", "oh", "ow"},
        {pool->output_shape[0] * pool->output_shape[1], pool->output_shape[2],
         pool->output_shape[3]},
        max ? "k::bias_activation_max_pool_forward<" + act + ", " + pool_geometry + ", " +
                  has_bias + ", " + index + ">" + where + bias + ", z, pooled, window);"
            : "k::bias_activation_avg_pool_forward<" + act + ", " + pool_geometry + ", " +
                  has_bias + ">" + where + bias + ", z, pooled);",
        PassForm{
            {"plane", "oh", "ow"},
            {pool->output_shape[0] * pool->output_shape[1], pool->output_shape[2],
             pool->output_shape[3]},
            max ? "k::max_pool_tiled_forward<" + pool_geometry + ", " + index +
                      ">(plane, oh, ow, z, pooled, window);"
                : "k::avg_pool_tiled_forward<" + pool_geometry + ">(plane, oh, ow, z, pooled);"}};
    forward.epilogue.band = pool->options.kernel_h * l.output_shape[3];
  }
  // The libraries chose their algorithms for the scratch the plan gives them.
  const std::string scratch_bytes = scratch ? scratch->name + " to hold " +
                                                  grouped(model.find(BufferRole::workspace)->size) +
                                                  " bytes, the plan's workspace"
                                            : "";
  if (scratch) {
    f.tensors.push_back(*scratch);
    f.expects.push_back(scratch_bytes);
  }
  if (!l.runs_backward)
    return d;

  // The plan's gradient chain must lead into the product's output gradient: the passes before the
  // product's write it directly.
  const int dz_buffer = l.output_gradient_buffer;
  if (activation && activation->input_gradient_buffer != dz_buffer)
    throw std::logic_error("fused activation's input gradient is not the product's");
  ProductDirection& backward = d.backward.emplace();
  backward.call = call;
  backward.call.bias = l.options.bias;  // a folded shift exists only under Inference
  Direction& b = backward.direction;
  b.tensors = {reads("x", l.input_buffer),
               {"dweight", "float", true, arena.parameter(l.weight_offset, BufferRole::gradients),
                "// gradient of " + weight_name(g.product)}};
  if (l.options.bias)
    b.tensors.push_back({"dbias", "float", true,
                         arena.parameter(l.bias_offset, BufferRole::gradients),
                         "// gradient of " + bias_name(g.product)});
  b.tensors.push_back({"dz", arena.element(dz_buffer), true, arena.at(dz_buffer),
                       arena.note(dz_buffer) + ": d(" + name_of(l.kind) + " output)"});
  if (call.input_gradient) {  // only dx reads the weights in backward
    b.tensors.push_back({"weight", weight_element, false, weights, "// " + weight_name(g.product)});
    b.tensors.push_back(input_gradient_tensor(l, arena));
  }
  const std::string y = activation ? "y" : "nullptr";
  auto saved_output = [&] {
    return reads("y", activation->output_buffer,
                 ": " + std::string(name_of(activation->kind)) + " output, saved");
  };
  if (pool) {
    b.tensors.push_back(reads("dpooled", pool->output_gradient_buffer, ": d(pooled)"));
    const std::string index = max ? arena.element(pool->window_index_buffer) : "";
    if (max)
      b.tensors.push_back(reads("window", pool->window_index_buffer));
    if (activation)
      b.tensors.push_back(saved_output());
    const std::string derivative =
        activation ? ", times the " + std::string(name_of(activation->kind)) + "'s derivative there"
                   : "";
    b.passes.push_back({max ? "Each pooled output: its gradient to the window's max" + derivative +
                                  "; every element of dz written once."
                            : "Each pooled output: its gradient spread over its window" +
                                  derivative + "; every element of dz written once.",
                        {"plane", "oh", "ow"},
                        {pool->input_shape[0] * pool->input_shape[1], pool->output_shape[2],
                         pool->output_shape[3]},
                        max ? "k::max_pool_activation_backward<" + act + ", " + pool_geometry +
                                  ", " + index + ">(plane, oh, ow, dpooled, window, " + y + ", dz);"
                            : "k::avg_pool_activation_backward<" + act + ", " + pool_geometry +
                                  ">(plane, oh, ow, dpooled, " + y + ", dz);"});
  } else if (activation) {
    b.tensors.push_back(saved_output());
    b.tensors.push_back(reads("dy", activation->output_gradient_buffer,
                              ": d(" + std::string(name_of(activation->kind)) + " output)"));
    b.passes.push_back(
        {"dz = " + std::string(name_of(activation->kind)) + "'(y) · dy.",
         {"row", "p"},
         {rows, positions},
         "k::activation_backward_2d<" + act + ", " + literal(positions) + ">(row, p, y, dy, dz);"});
  }
  if (scratch) {
    b.tensors.push_back(*scratch);
    b.expects.push_back(scratch_bytes);
  }
  return d;
}

}  // namespace staticnet::codegen
