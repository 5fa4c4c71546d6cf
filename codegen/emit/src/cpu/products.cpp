// The CPU rendering of a product's description (families/products.cpp): a Linear's GEMM
// (staticnet/cpu/linear.hpp) or a Conv2d's im2col and GEMM per sample (conv2d.hpp), with what
// finishes the output (the bias, the activation, the pool) run in the GEMM's tile callback while
// the tile is in cache; backward, the passes before the product's as loops (passes.cpp), then the
// weight, bias and input gradients.
#include "emitter.hpp"

namespace staticnet::codegen {
namespace {

// "for (index_t row = n * 16; row < (n + 1) * 16; ++row)": axis `axis` over [begin, end).
std::string for_line(const std::string& axis, const std::string& begin, const std::string& end) {
  return "for (index_t " + axis + " = " + begin + "; " + axis + " < " + end + "; ++" + axis + ")";
}

// "[&](c::Range rows) {", the lines one level in, "}".
std::string lambda_text(const std::string& open, const std::vector<std::string>& lines) {
  std::string text = open;
  for (const std::string& line : lines)
    text += "\n  " + line;
  return text + "\n}";
}

// The tile callback of the forward GEMM: the bias and activation over the outputs of the tile
// (unless the product finished them: `finished`, the widening products of mixed precision),
// then (a Conv2d's) the pool over the windows whose rows the tile holds. `channels`: a Conv2d's
// output channels (the rows of one sample).
std::string tile_callback(const ProductDirection& forward, std::int64_t channels, bool finished) {
  const ProductEpilogue& e = forward.epilogue;
  const bool bias_activation = e.bias_activation && !finished;
  if (!bias_activation && !e.pool)
    return forward.call.conv ? "[](index_t, c::Range) {}" : "[](c::Range) {}";
  std::vector<std::string> lines;
  if (!forward.call.conv) {  // the callback gets a range of samples, every feature of each
    const PassForm& each = e.bias_activation->host_form();
    lines = {for_line(each.axes[0], "rows.begin", "rows.end"),
             "  " + for_line(each.axes[1], "0", literal(each.extents[1])), "    " + each.call};
    return lambda_text("[&](c::Range rows) {", lines);
  }
  // A Conv2d's callback gets sample n and a range of its output positions (columns).
  const std::string c = literal(channels);
  if (bias_activation) {
    const PassForm& each = e.bias_activation->host_form();
    lines = {for_line(each.axes[0], "n * " + c, "(n + 1) * " + c),
             "  " + for_line(each.axes[1], "columns.begin", "columns.end"), "    " + each.call};
  }
  if (e.pool) {
    const PassForm window = e.pool->host_form();
    const std::string band = literal(e.band);
    lines.push_back(for_line(window.axes[0], "n * " + c, "(n + 1) * " + c));
    lines.push_back("  " +
                    for_line(window.axes[1], "columns.begin / " + band, "columns.end / " + band));
    lines.push_back("    " + for_line(window.axes[2], "0", literal(window.extents[2])));
    lines.push_back("      " + window.call);
  }
  return lambda_text("[&](index_t n, c::Range columns) {", lines);
}

// Under mixed precision, a Linear's products in float over its low-precision tensors
// (staticnet/cpu/linear.hpp's widening variants), each result rounded where it is stored: forward
// finishes the bias and the activation on the float sums itself, backward rounds the gradients
// to the working type.
std::string mixed_linear_forward(const ProductCall& f) {
  return wrap_comment(std::string("x · Wᵀ in float, a block at a time; then, on the float sums: ") +
                          (f.bias ? "+ bias, " : "") + "the activation and one rounding.",
                      "// ", "// ") +
         "\nc::linear_forward_widening<" + f.geometry + ", " + f.activation + ", " +
         (f.bias ? "true" : "false") + ">(pool, x, weight, " + (f.bias ? "bias" : "nullptr") +
         ", z);";
}
std::string mixed_linear_backward(const ProductCall& b) {
  return "c::linear_backward_widening<" + b.geometry + ", " + (b.bias ? "true" : "false") + ", " +
         (b.accumulates ? "true" : "false") + ", " + b.working + ">(pool, x, dz, " +
         (b.input_gradient ? "weight" : "nullptr") + ", dweight, " +
         (b.bias ? "dbias" : "nullptr") + ", " + (b.input_gradient ? "dx" : "nullptr") + ");";
}

// A Conv2d's, the same way (staticnet/cpu/conv2d.hpp's widening variants): the column matrix in
// float, the product's blocks finished and rounded as they are computed, then the pool.
std::string mixed_conv_forward(const ProductDirection& forward, std::int64_t channels) {
  const ProductCall& f = forward.call;
  const ProductEpilogue& e = forward.epilogue;
  return wrap_comment(std::string("W · im2col(x) in float, a block at a time; then, on the float "
                                  "sums: ") +
                          (f.bias ? "+ bias, " : "") + "the activation and one rounding" +
                          (e.pool ? "; then each pool window of the rows just finished." : "."),
                      "// ", "// ") +
         "\nc::conv2d_forward_widening<" + f.geometry + ", " + literal(e.band) + ", " +
         f.activation + ", " + (f.bias ? "true" : "false") + ">(pool, x, weight, " +
         (f.bias ? "bias" : "nullptr") + ", col, z, " + tile_callback(forward, channels, true) +
         ");";
}
std::string mixed_conv_backward(const ProductCall& b) {
  std::string text = "c::conv2d_backward_weights_widening<" + b.geometry + ", " +
                     (b.bias ? "true" : "false") + ", " + b.working + ">(pool, x, dz, col, " +
                     "dweight, " + (b.bias ? "dbias" : "nullptr") + ");";
  if (b.input_gradient)
    text += "\nc::conv2d_backward_input_widening<" + b.geometry + ", " +
            (b.accumulates ? "true" : "false") + ", " + b.working + ">(pool, dz, weight, col, dx);";
  return text;
}

}  // namespace

void CpuKernelEmitter::emit_product(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const bool mixed = m_.find(BufferRole::parameter_copy) != nullptr;
  std::optional<TensorUse> col;  // im2col of one sample
  if (conv) {
    const int ws = a_.index(BufferRole::workspace);
    col = TensorUse{"col", "float", true, at(ws), note(ws)};
  }
  const ProductPasses d = describe_product(m_, g, a_, col);
  const std::string name = group_name(g);
  const std::vector<Trailing> pool{{"c::ThreadPool&", "pool", true}};

  const ProductCall& f = d.forward.call;
  std::string forward;
  if (mixed)
    forward = conv ? mixed_conv_forward(d.forward, l.output_shape[1]) : mixed_linear_forward(f);
  else if (d.forward.epilogue.pool)
    forward = wrap_comment(
                  "Threads split each sample's output positions on whole rows of pool windows (" +
                      literal(d.forward.epilogue.band) +
                      " = kernel rows × output width), so each window is finished by the thread "
                      "that computed it: bias and activation along the rows just computed, then "
                      "each window's pool, while they are in cache.",
                  "// ", "// ") +
              "\n";
  else if (d.forward.epilogue.bias_activation)
    forward = wrap_comment("In each tile of the product, as it is finished: " +
                               d.forward.epilogue.bias_activation->comment,
                           "// ", "// ") +
              "\n";
  if (!mixed) {
    const std::string callback = tile_callback(d.forward, l.output_shape[1], false);
    forward += conv
                   ? "c::conv2d_forward<" + f.geometry + ", " + literal(d.forward.epilogue.band) +
                         ">(pool, x, weight, col, z, " + callback + ");"
                   : "c::linear_forward<" + f.geometry + ">(pool, x, weight, z, " + callback + ");";
  }
  emit_function("forward_" + name, pool, d.forward.direction, forward);
  // Backward and a recompute read the buffers backward sees (checkpointing).
  const ProductPasses back = checkpointed_ ? describe_product(back_, g, a_, col) : d;
  if (layer(g.product).recomputed) {
    const Signature s = signature(pool, back.forward.direction);
    write_recompute_overload(body_, a_, "recompute_" + name, "forward_" + name,
                             back.forward.direction, s.plan, s.arguments);
  }
  if (!back.backward)
    return;

  const ProductCall& b = back.backward->call;
  const std::string has_bias = b.bias ? "true" : "false";
  const std::string dbias = b.bias ? "dbias" : "nullptr";
  const std::string accumulate = b.accumulates ? ", true" : "";
  std::string backward = back.backward->direction.passes.empty()
                             ? ""
                             : host_statements(back.backward->direction, false) + "\n";
  if (mixed) {
    backward += conv ? mixed_conv_backward(b) : mixed_linear_backward(b);
  } else if (conv) {
    backward += "c::conv2d_backward_weights<" + b.geometry + ", " + has_bias +
                ">(pool, x, dz, col, dweight, " + dbias + ");";
    if (b.input_gradient)
      backward +=
          "\nc::conv2d_backward_input<" + b.geometry + accumulate + ">(pool, dz, weight, col, dx);";
  } else {
    backward += b.input_gradient
                    ? "c::linear_backward<" + b.geometry + ", " + has_bias + accumulate +
                          ">(pool, x, dz, weight, dweight, " + dbias + ", dx);"
                    : "c::linear_backward<" + b.geometry + ", " + has_bias +
                          ">(pool, x, dz, nullptr, dweight, " + dbias + ", nullptr);";
  }
  emit_function("backward_" + name, pool, back.backward->direction, backward);
}

}  // namespace staticnet::codegen
