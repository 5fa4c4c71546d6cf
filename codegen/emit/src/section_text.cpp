// The section pieces both kernel emitters share (section_text.hpp).
#include "staticnet/codegen/section_text.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/text.hpp"
#include "staticnet/print.hpp"

namespace staticnet::codegen {

const char* activation_type(LayerKind kind) {
  switch (kind) {
    case LayerKind::ReLU:
      return "k::ReLU";
    case LayerKind::LeakyReLU:
      return "k::LeakyReLU";
    case LayerKind::Sigmoid:
      return "k::Sigmoid";
    case LayerKind::Tanh:
      return "k::Tanh";
    default:
      throw std::logic_error(std::string("not an activation: ") + name_of(kind));
  }
}

const char* optimizer_enum(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::SGD:
      return "staticnet::kernels::Optimizer::sgd";
    case OptimizerKind::SGDMomentum:
      return "staticnet::kernels::Optimizer::sgd_momentum";
    case OptimizerKind::Adam:
      return "staticnet::kernels::Optimizer::adam";
    case OptimizerKind::AdamW:
      return "staticnet::kernels::Optimizer::adamw";
  }
  return "?";
}

ElementAccess access_for(const std::string& element) {
  if (element == "u8")  // window indices (staticnet/kernels/pooling.hpp says why an enum)
    return {"k::WindowIndex8", "u8"};
  if (element == "u16")
    return {"k::WindowIndex16", "u16"};
  if (element == "u32")
    return {"k::WindowIndex32", "u32"};
  if (element == "i32")
    return {"std::int32_t", "i32"};
  if (element == "mask")  // Dropout's bits (staticnet/kernels/dropout.hpp)
    return {"k::MaskByte", "bits"};
  if (element == "bf16")  // mixed precision (staticnet/kernels/low_precision.hpp)
    return {"k::BF16", "bf16"};
  if (element == "f16")
    return {"k::F16", "f16"};
  if (element == "f32")
    return {"float", "f32"};
  throw std::logic_error("the generated code has no element type for " + element);
}

std::string group_name(const FusedGroup& g) {
  return g.first == g.last ? "layer_" + std::to_string(g.first)
                           : "layers_" + std::to_string(g.first) + "_" + std::to_string(g.last);
}

std::string group_title(const ModelView& model, const FusedGroup& g) {
  std::string title;
  for (std::int64_t i = g.first; i <= g.last; ++i)
    title +=
        (i > g.first ? " + " : "") + describe_layer(model.layers.at(static_cast<std::size_t>(i)));
  return title;
}

std::string section_rule(const ModelView& model, const FusedGroup& g) {
  const std::string span = g.first == g.last
                               ? "Layer " + std::to_string(g.first)
                               : "Layers " + std::to_string(g.first) + "-" + std::to_string(g.last);
  return heading_rule("// ==== " + span + ": " + group_title(model, g) + " ");
}

std::string heading_rule(std::string text) {
  text.append(line_width > display_width(text) ? line_width - display_width(text) : 0, '=');
  return text;
}

std::string loss_heading(const ModelView& model) {
  const std::string what = model.setup.loss == LossKind::CrossEntropy
                               ? "softmax + cross-entropy over the logits "
                               : "mean squared error over the output ";
  return heading_rule("// ==== Loss: " + what + shape_text(model.output_shape) +
                      ", forward and backward ");
}

std::string update_heading(const ModelView& model) {
  return heading_rule(std::string("// ==== Update: ") + name_of(model.setup.optimizer) +
                      " over the whole contiguous parameter region, one pass ");
}

std::string tensor_table(const ModelView& model, const FusedGroup& g,
                         const std::string& workspace_use) {
  auto layer = [&](std::int64_t i) -> const LayerPlan& {
    return model.layers.at(static_cast<std::size_t>(i));
  };
  struct Row {
    std::string name, type_shape, where, what;
  };
  std::vector<Row> rows;
  std::set<int> listed;
  auto buffer_row = [&](int b, const std::string& what, const Shape& shape) {
    if (b == no_buffer || !listed.insert(b).second)
      return;
    rows.push_back({buffer_name(model, b), element_type(model, b) + " " + shape_text(shape),
                    "arena + " + grouped(model.buffer(b).offset), what});
  };
  const bool training = model.training();
  const std::string parameter_note = training ? "and its gradient" : "";
  auto parameter_rows = [&](const LayerPlan& l, std::int64_t i) {
    rows.push_back({weight_name(i), "f32 " + shape_text(weight_shape(l)),
                    "parameters[" + grouped(l.weight_offset) + "]",
                    i == g.folded   ? "γ, folded into the weights at load"
                    : g.folded >= 0 ? "scaled by the folded BatchNorm at load"
                                    : parameter_note});
    if (has_bias(l))
      rows.push_back({bias_name(i), "f32 " + shape_text(Shape{l.output_shape[1]}),
                      "parameters[" + grouped(l.bias_offset) + "]",
                      i == g.folded   ? "β, overwritten by the folded shift at load"
                      : g.folded >= 0 ? "folded into the shift at load"
                                      : parameter_note});
  };
  auto running_row = [&](const LayerPlan& l, const std::string& what) {
    rows.push_back({"running mean, variance", "f32 " + shape_text(Shape{2, l.input_shape[1]}),
                    "non_trainable[" + grouped(l.statistics_offset) + "]", what});
  };
  const std::string saved = training ? " (saved)" : "";
  // A layer that is neither a product nor a pool: BatchNorm, Add, a grouped convolution, a
  // global pool, a Dropout (and the activation fused after the first three).
  const std::int64_t other = g.norm >= 0          ? g.norm
                             : g.sum >= 0         ? g.sum
                             : g.grouped >= 0     ? g.grouped
                             : g.global_pool >= 0 ? g.global_pool
                                                  : g.dropout;
  if (other >= 0) {
    const LayerPlan& l = layer(other);
    const bool saves = saves_input(l.kind) && l.runs_backward;
    buffer_row(l.input_buffer, saves ? "input, saved for backward" : "input", l.input_shape);
    buffer_row(l.input2_buffer, "second input", l.input2_shape);
    if (l.parameters > 0)
      parameter_rows(l, other);
    if (is_batch_norm(l.kind)) {
      running_row(l, training ? "updated in training, read in evaluation" : "read");
      buffer_row(l.statistics_buffer, "batch mean and 1/√(var + ε), saved",
                 Shape{2, l.input_shape[1]});
    }
    if (l.mask_buffer != no_buffer)
      rows.push_back({buffer_name(model, l.mask_buffer), "bits " + shape_text(l.output_shape),
                      "arena + " + grouped(model.buffer(l.mask_buffer).offset),
                      "one bit per element: kept or dropped, saved"});
    std::string out = std::string(name_of(l.kind)) + " output";
    if (g.activation >= 0)
      out += std::string(", then ") + name_of(layer(g.activation).kind) + " output" + saved;
    buffer_row(l.output_buffer, out, l.output_shape);
    if (l.runs_backward && l.input2_gradient_buffer != no_buffer)
      buffer_row(l.input2_gradient_buffer, "d(second input), written by backward", l.input2_shape);
  }
  if (g.product >= 0) {
    const LayerPlan& p = layer(g.product);
    buffer_row(p.input_buffer, p.runs_backward ? "input, saved for backward" : "input",
               p.input_shape);
    parameter_rows(p, g.product);
    std::string out = std::string(name_of(p.kind)) + " output";
    if (g.activation >= 0)
      out += std::string(", then ") + name_of(layer(g.activation).kind) + " output" + saved;
    buffer_row(p.output_buffer, out, p.output_shape);
  }
  if (g.folded >= 0) {
    parameter_rows(layer(g.folded), g.folded);
    running_row(layer(g.folded), "folded into the weights and the shift at load");
  }
  if (g.activation >= 0 && g.product < 0) {
    const LayerPlan& a = layer(g.activation);
    buffer_row(a.input_buffer, "input", a.input_shape);
    buffer_row(a.output_buffer, a.runs_backward ? "output, saved for backward" : "output",
               a.output_shape);
  }
  if (g.pool >= 0) {
    const LayerPlan& q = layer(g.pool);
    if (g.product < 0)
      buffer_row(q.input_buffer, "input", q.input_shape);
    buffer_row(q.output_buffer, "pooled", q.output_shape);
    buffer_row(q.window_index_buffer, "each max's position in its window", q.output_shape);
  }
  if (!workspace_use.empty() && g.product >= 0 && layer(g.product).kind == LayerKind::Conv2d) {
    const LayerPlan& p = layer(g.product);
    const Buffer* ws = model.find(BufferRole::workspace);
    if (ws == nullptr)
      throw std::logic_error("the plan has no workspace buffer");
    rows.push_back(
        {"workspace",
         "f32 " + shape_text(Shape{p.input_shape[1] * p.options.kernel_h * p.options.kernel_w,
                                   p.output_shape[2] * p.output_shape[3]}),
         "arena + " + grouped(ws->offset), workspace_use});
  }
  const LayerPlan& last = layer(g.last);
  const LayerPlan& first = layer(g.first);
  if (last.runs_backward) {
    buffer_row(last.output_gradient_buffer, "d(output), read by backward", last.output_shape);
    if (g.product >= 0 && g.last != g.product)
      buffer_row(layer(g.product).output_gradient_buffer,
                 std::string("d(") + name_of(layer(g.product).kind) + " output)",
                 layer(g.product).output_shape);
    buffer_row(first.input_gradient_buffer, "d(input), written by backward", first.input_shape);
  }
  std::size_t w0 = 0, w1 = 0, w2 = 0;
  for (const Row& r : rows) {
    w0 = std::max(w0, r.name.size());
    w1 = std::max(w1, r.type_shape.size());
    w2 = std::max(w2, r.where.size());
  }
  std::string text;
  for (const Row& r : rows)
    text += (text.empty() ? "" : "\n") + std::string("//   ") + pad(r.name, w0 + 2) +
            pad(r.type_shape, w1 + 2) + pad(r.where, w2 + 2) + r.what;
  return text;
}

Printer::Vars window_vars(const std::string& name, const LayerPlan& l) {
  const LayerDesc& d = l.options;
  return {{"name", name},
          {"n", literal(l.input_shape[0])},
          {"ci", literal(l.input_shape[1])},
          {"hi", literal(l.input_shape[2])},
          {"wi", literal(l.input_shape[3])},
          {"co", literal(l.output_shape[1])},
          {"ho", literal(l.output_shape[2])},
          {"wo", literal(l.output_shape[3])},
          {"kh", std::to_string(d.kernel_h)},
          {"kw", std::to_string(d.kernel_w)},
          {"sh", std::to_string(d.stride_h)},
          {"sw", std::to_string(d.stride_w)},
          {"ph", std::to_string(d.pad_h)},
          {"pw", std::to_string(d.pad_w)}};
}

void emit_direct_conv_geometry(Printer& out, const LayerPlan& l, std::int64_t layer) {
  Printer::Vars v = window_vars("conv_" + std::to_string(layer), l);
  v["groups"] = literal(l.kind == LayerKind::DepthwiseConv2d ? l.input_shape[1] : l.options.groups);
  out.emit(v, R"(
    constexpr k::Conv2dGeometry $name${
        .batch = $n$, .in_channels = $ci$, .in_height = $hi$, .in_width = $wi$,
        .out_channels = $co$, .out_height = $ho$, .out_width = $wo$,
        .kernel_h = $kh$, .kernel_w = $kw$, .stride_h = $sh$, .stride_w = $sw$,
        .pad_h = $ph$, .pad_w = $pw$, .groups = $groups$};
  )");
}

void emit_pool_geometry(Printer& out, const LayerPlan& l, std::int64_t layer) {
  // A pool keeps its channels: "channels" is the input's. TensorFlow's 'same' averages over the
  // input elements a window covers, where PyTorch's padding counts as zeros.
  Printer::Vars v = window_vars("pool_" + std::to_string(layer), l);
  v["divides"] = l.kind == LayerKind::AvgPool2d && l.options.same_padding
                     ? ", .count_include_pad = false"
                     : "";
  out.emit(v, R"(
    constexpr k::Pool2dGeometry $name${
        .batch = $n$, .channels = $ci$, .in_height = $hi$, .in_width = $wi$,
        .out_height = $ho$, .out_width = $wo$, .kernel_h = $kh$, .kernel_w = $kw$,
        .stride_h = $sh$, .stride_w = $sw$, .pad_h = $ph$, .pad_w = $pw$$divides$};
  )");
}

void emit_norm_geometry(Printer& out, const LayerPlan& l, std::int64_t layer) {
  const Shape& x = l.input_shape;
  out.emit({{"name", "norm_" + std::to_string(layer)},
            {"n", literal(x[0])},
            {"c", literal(x[1])},
            {"positions", literal(x.rank == 4 ? x[2] * x[3] : 1)},
            {"eps", float_literal(l.options.epsilon())},
            {"momentum", float_literal(l.options.momentum())}},
           R"(
    constexpr k::BatchNormGeometry $name${
        .batch = $n$, .channels = $c$, .positions = $positions$, .epsilon = $eps$, .momentum = $momentum$};
  )");
}

std::string fused_activation(const ModelView& model, const FusedGroup& g) {
  return g.activation >= 0
             ? activation_type(model.layers.at(static_cast<std::size_t>(g.activation)).kind)
             : "k::Identity";
}

void input_gradient_vars(Printer::Vars& v, const LayerPlan& l, ArenaText& arena) {
  v["dx"] = arena.at(l.input_gradient_buffer);
  v["dx_note"] = arena.note(l.input_gradient_buffer) +
                 (l.input_gradient_buffer == l.output_gradient_buffer ? " (in place)" : "") +
                 (l.accumulates_input_gradient ? " (added to)" : "");
  v["accumulate"] = l.accumulates_input_gradient ? "true" : "false";
}

void batch_norm_backward_vars(Printer::Vars& v, const ModelView& model, const FusedGroup& g,
                              ArenaText& arena) {
  const LayerPlan& norm = model.layers.at(static_cast<std::size_t>(g.norm));
  const LayerPlan* activation =
      g.activation >= 0 ? &model.layers.at(static_cast<std::size_t>(g.activation)) : nullptr;
  const int dy = activation ? activation->output_gradient_buffer : norm.output_gradient_buffer;
  v["dy"] = arena.at(dy);
  v["dy_element"] = arena.element(dy);
  v["dy_note"] = arena.note(dy) + (activation ? ": d(" + std::string(name_of(activation->kind)) +
                                                    " output), then d(BatchNorm output)"
                                              : ": d(output)");
  v["dgamma"] = arena.parameter(norm.weight_offset, BufferRole::gradients);
  v["dbeta"] = arena.parameter(norm.bias_offset, BufferRole::gradients);
  v["dgamma_note"] = "// gradient of " + weight_name(g.norm) + " (γ)";
  v["dbeta_note"] = "// gradient of " + bias_name(g.norm) + " (β)";
}

std::string view_comment(const ModelView& model, const FusedGroup& g) {
  if (!view_writes_gradient(model, g))
    return "// A view: its output is its input's storage, in both directions. No code.";
  const bool adds = model.layers.at(static_cast<std::size_t>(g.view)).accumulates_input_gradient;
  return std::string(
             "// A view: its output is its input's storage. Its input has another reader, so "
             "backward\n// ") +
         (adds ? "adds d(output) to" : "copies d(output) into") +
         " the input's gradient, a buffer of its own.";
}

std::string gradient_write(const LayerPlan& l) {
  return l.accumulates_input_gradient ? "k::GradientWrite::accumulate" : "k::GradientWrite::copy";
}

Printer::Vars sum_gradient_vars(const LayerPlan& sum, int dy, ArenaText& arena) {
  auto write = [&](int dx, bool accumulates) -> std::string {
    if (dx == no_buffer || dx == dy)
      return "k::GradientWrite::same_buffer";
    return accumulates ? "k::GradientWrite::accumulate" : "k::GradientWrite::copy";
  };
  auto pointer = [&](int dx) { return dx == no_buffer || dx == dy ? "nullptr" : arena.at(dx); };
  // A null gradient's parameter is typed as the others are, though nothing is written through it.
  auto element = [&](int dx) { return dx == no_buffer || dx == dy ? "float" : arena.element(dx); };
  auto dx_note = [&](int dx, bool accumulates) -> std::string {
    if (dx == no_buffer)
      return "// needs no gradient";
    if (dx == dy)
      return "// d(output) itself: the plan passes the buffer through";
    return arena.note(dx) + (accumulates ? " (added to)" : " (a copy)");
  };
  return {{"first", write(sum.input_gradient_buffer, sum.accumulates_input_gradient)},
          {"second", write(sum.input2_gradient_buffer, sum.accumulates_input2_gradient)},
          {"da", pointer(sum.input_gradient_buffer)},
          {"da_element", element(sum.input_gradient_buffer)},
          {"db_element", element(sum.input2_gradient_buffer)},
          {"da_note", dx_note(sum.input_gradient_buffer, sum.accumulates_input_gradient)},
          {"db", pointer(sum.input2_gradient_buffer)},
          {"db_note", dx_note(sum.input2_gradient_buffer, sum.accumulates_input2_gradient)}};
}

ForwardBias forward_bias(const ModelView& model, const FusedGroup& g, std::int64_t layer,
                         ArenaText& arena) {
  if (g.folded >= 0) {
    const LayerPlan& norm = model.layers.at(static_cast<std::size_t>(g.folded));
    return {true, arena.parameter(norm.bias_offset, BufferRole::parameters),
            "// " + bias_name(g.folded) + ", holding the folded shift",
            " (BatchNorm " + std::to_string(g.folded) + "'s scale folded in)"};
  }
  const LayerPlan& l = model.layers.at(static_cast<std::size_t>(layer));
  if (!l.options.bias)
    return {};
  return {true, arena.parameter(l.bias_offset, BufferRole::parameters), "// " + bias_name(layer),
          ""};
}

Printer::Vars fold_vars(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  const std::int64_t conv = g.product >= 0 ? g.product : g.grouped;
  const LayerPlan& l = model.layers.at(static_cast<std::size_t>(conv));
  const LayerPlan& n = model.layers.at(static_cast<std::size_t>(g.folded));
  const Shape w = weight_shape(l);
  std::int64_t per_channel = 1;
  for (int d = 1; d < w.rank; ++d)
    per_channel *= w[d];
  const bool bias = l.options.bias;
  return {{"span", layer_span(g)},
          {"conv", std::to_string(conv)},
          {"kind", name_of(l.kind)},
          {"norm", std::to_string(g.folded)},
          {"w", arena.parameter(l.weight_offset, BufferRole::parameters)},
          {"w_note", "// " + weight_name(conv)},
          {"b", bias ? arena.parameter(l.bias_offset, BufferRole::parameters) : "nullptr"},
          {"b_note", bias ? "// " + bias_name(conv) : "// no bias"},
          {"gamma", arena.parameter(n.weight_offset, BufferRole::parameters)},
          {"gamma_note", "// " + weight_name(g.folded) + " (γ)"},
          {"beta", arena.parameter(n.bias_offset, BufferRole::parameters)},
          {"beta_note", "// " + bias_name(g.folded) + " (β), becomes the shift"},
          {"running", arena.parameter(n.statistics_offset, BufferRole::non_trainable)},
          {"channels", literal(w[0])},
          {"per_channel", literal(per_channel)}};
}

std::string inference_forward_line(const ModelView& model, const FusedGroup& g,
                                   const std::string& arguments) {
  if (g.view >= 0)
    return "// layer " + std::to_string(g.view) + ": Flatten, a view";
  if (g.dropout >= 0 && model.layers.at(static_cast<std::size_t>(g.dropout)).in_place)
    return "// layer " + std::to_string(g.dropout) + ": Dropout, the identity, in place";
  return "forward_" + group_name(g) + "(" + arguments + ");";
}

std::string group_comment(const ModelView& model, const FusedGroup& g) {
  const std::string act =
      g.activation >= 0 ? name_of(model.layers.at(static_cast<std::size_t>(g.activation)).kind)
                        : "";
  std::string text;
  if (g.norm >= 0 && !model.training())
    text = "Inference: one pass normalises with the running statistics" +
           (act.empty() ? std::string() : " and applies the " + act) +
           " (not folded: its input is not the output of a convolution or Linear that it alone "
           "reads).";
  else if (g.folded >= 0)
    text = "The BatchNorm (layer " + std::to_string(g.folded) +
           ") is folded: fold_batch_norms scaled the weights by γ/√(running_var + ε) once, at "
           "load time, and its shift β + (b − running_mean)·γ/√(running_var + ε) is added "
           "where the bias was.";
  else if (g.dropout >= 0 && !model.training())
    text = "Inference: the identity.";
  else if (g.norm >= 0)
    text =
        "Training: per channel the batch mean and variance (the running statistics updated "
        "too), then one pass normalises" +
        (act.empty() ? std::string() : " and applies the " + act) +
        ". Evaluation: one pass with the running statistics. Backward: per channel the two "
        "sums" +
        (act.empty() ? std::string() : " (the " + act + "'s derivative applied on the way)") +
        ", then one pass for dx.";
  else if (g.sum >= 0)
    text = "The residual sum" + (act.empty() ? std::string() : " and the " + act + " after it") +
           " in one pass. Backward hands d(output) to both inputs: as the same buffer where the "
           "plan passes it through, else copied or added to another reader's part.";
  else if (const LayerPlan* c =
               g.grouped >= 0 ? &model.layers.at(static_cast<std::size_t>(g.grouped)) : nullptr;
           c && c->kind == LayerKind::Conv2d && c->options.groups == 1) {
    // Why cuDNN does not run it (staticnet/fusion.hpp, runs_direct): the reasons this layer has.
    text =
        "A convolution computed directly (grouped_conv.hpp's kernel, one group), not by cuDNN: "
        "staticnet's cuDNN convolutions take even padding only and write their input "
        "gradient, where this one " +
        phrase_list(
            {c->options.symmetric_padding() ? "" : "pads unevenly",
             c->accumulates_input_gradient ? "adds its input gradient to another reader's" : ""}) +
        ".";
  } else if (g.grouped >= 0)
    text =
        "A grouped convolution computed directly (staticnet/kernels/grouped_conv.hpp says "
        "why).";
  else if (g.dropout >= 0)
    text =
        "Training: keeps each element with its bit of a counter-based hash of (seed, step, "
        "layer, element) and saves the bits. Evaluation: the identity.";
  return text.empty() ? text : wrap_comment(text, "// ", "//   ");
}

}  // namespace staticnet::codegen
