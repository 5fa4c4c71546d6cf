// The families that map an element or a window, described once for every backend
// (pass_description.hpp): a standalone activation, a standalone pool, the global average pool, a
// residual sum with the activation that follows it, and Dropout.
#include <string>
#include <utility>
#include <vector>

#include "pass_description.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

Direction direction(std::vector<TensorUse> tensors, std::vector<MapPass> passes = {}) {
  Direction d;
  d.tensors = std::move(tensors);
  d.passes = std::move(passes);
  return d;
}

class Describer {
 public:
  Describer(const ModelView& model, ArenaText& arena) : m_(model), a_(arena) {}

  GroupPasses activation(const FusedGroup& g);
  GroupPasses pool(const FusedGroup& g);
  GroupPasses global_pool(const FusedGroup& g);
  GroupPasses sum(const FusedGroup& g);
  GroupPasses dropout(const FusedGroup& g);

 private:
  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  TensorUse reads(const std::string& name, int buffer, const std::string& note_suffix = "") {
    return buffer_tensor(a_, name, buffer, false, note_suffix);
  }
  TensorUse writes(const std::string& name, int buffer, const std::string& note_suffix = "") {
    return buffer_tensor(a_, name, buffer, true, note_suffix);
  }
  TensorUse input_gradient(const LayerPlan& l) { return input_gradient_tensor(l, a_); }
  static std::string accumulate(const LayerPlan& l) {
    return l.accumulates_input_gradient ? "true" : "false";
  }
  static bool runs_input_gradient(const LayerPlan& l) {
    return l.runs_backward && l.input_gradient_buffer != no_buffer;
  }

  const ModelView& m_;
  ArenaText& a_;
};

GroupPasses Describer::activation(const FusedGroup& g) {
  const LayerPlan& a = layer(g.activation);
  const std::string act = activation_type(a.kind);
  const std::string f = name_of(a.kind);  // "ReLU", for the comments
  const std::int64_t count = a.output_shape.elements();
  GroupPasses d;
  d.forward = direction(
      {reads("x", a.input_buffer), writes("y", a.output_buffer, a.in_place ? " (in place)" : "")},
      {{"y = " + f + "(x), per element.",
        {"i"},
        {count},
        "k::activation_forward<" + act + ">(i, x, y);"}});
  if (!runs_input_gradient(a))
    return d;
  d.backward = direction(
      {reads("y", a.output_buffer), reads("dy", a.output_gradient_buffer), input_gradient(a)},
      {{a.accumulates_input_gradient
            ? "dx += " + f + "'(y) · dy, per element (another reader of x wrote first)."
            : "dx = " + f + "'(y) · dy, per element.",
        {"i"},
        {count},
        "k::activation_backward<" + act + ", " + accumulate(a) + ">(i, y, dy, dx);"}});
  return d;
}

GroupPasses Describer::pool(const FusedGroup& g) {
  const LayerPlan& q = layer(g.pool);
  const bool max = q.kind == LayerKind::MaxPool2d;
  const std::string geometry = "pool_" + std::to_string(g.pool);
  const std::int64_t planes = q.input_shape[0] * q.input_shape[1];
  // Before the first layer with parameters nothing runs backward, so the plan keeps no window
  // index and the forward pass records none.
  const bool keeps_window = max && q.window_index_buffer != no_buffer;
  const std::string index = keeps_window ? a_.element(q.window_index_buffer) : "k::WindowIndex8";
  auto window = [&](bool written) {
    return keeps_window
               ? TensorUse{"window", index, written, a_.at(q.window_index_buffer),
                           a_.note(q.window_index_buffer)}
               : TensorUse{"window", index, written, "nullptr", "// no backward: no window index"};
  };
  GroupPasses d;
  d.forward = direction({reads("x", q.input_buffer), writes("y", q.output_buffer)});
  if (max)
    d.forward->tensors.push_back(window(true));
  d.forward->passes = {
      {max ? "Each output: its window's max, and where it was." : "Each output: its window's mean.",
       {"plane", "q"},
       {planes, q.output_shape[2] * q.output_shape[3]},
       max ? "k::max_pool_forward<" + geometry + ", " + index + ">(plane, q, x, y, window);"
           : "k::avg_pool_forward<" + geometry + ">(plane, q, x, y);"}};
  if (!runs_input_gradient(q))
    return d;
  d.backward = direction({reads("dy", q.output_gradient_buffer)});
  if (max)
    d.backward->tensors.push_back(window(false));
  d.backward->tensors.push_back(input_gradient(q));
  d.backward->passes = {
      {max ? "Each input element gathers from the windows that hold it and chose it."
           : "Each input element gathers from the windows that hold it.",
       {"plane", "p"},
       {planes, q.input_shape[2] * q.input_shape[3]},
       max ? "k::max_pool_backward<" + geometry + ", " + index + ", " + accumulate(q) +
                 ">(plane, p, dy, window, dx);"
           : "k::avg_pool_backward<" + geometry + ", " + accumulate(q) + ">(plane, p, dy, dx);"}};
  return d;
}

GroupPasses Describer::global_pool(const FusedGroup& g) {
  const LayerPlan& l = layer(g.global_pool);
  const std::string positions = literal(l.input_shape[2] * l.input_shape[3]);
  GroupPasses d;
  d.forward = direction({reads("x", l.input_buffer), writes("y", l.output_buffer)},
                        {{"Each (sample, channel) plane: its mean.",
                          {"plane"},
                          {l.output_shape.elements()},
                          "k::global_avg_pool_forward<" + positions + ">(plane, x, y);"}});
  if (!has_backward(m_, g))
    return d;
  d.backward = direction(
      {reads("dy", l.output_gradient_buffer), input_gradient(l)},
      {{"Each input element: its plane's gradient over the plane's size.",
        {"i"},
        {l.input_shape.elements()},
        "k::global_avg_pool_backward<" + positions + ", " + accumulate(l) + ">(i, dy, dx);"}});
  return d;
}

GroupPasses Describer::sum(const FusedGroup& g) {
  const LayerPlan& l = layer(g.sum);
  const std::string act = fused_activation(m_, g);
  const std::string f = g.activation >= 0 ? name_of(layer(g.activation).kind) : "";
  const std::int64_t count = l.output_shape.elements();
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  GroupPasses d;
  d.forward = direction(
      {reads("a", l.input_buffer), reads("b", l.input2_buffer),
       writes("y", y_buffer, l.in_place ? " (in place)" : "")},
      {{g.activation >= 0 ? "y = " + f + "(a + b), per element." : "y = a + b, per element.",
        {"i"},
        {count},
        "k::residual_add_forward<" + act + ">(i, a, b, y);"}});
  if (!has_backward(m_, g))
    return d;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  const Printer::Vars w = sum_gradient_vars(l, dy_buffer, a_);
  const std::string& first = w.at("first");
  const std::string& second = w.at("second");
  const std::string same = "k::GradientWrite::same_buffer";
  d.backward = direction({writes("dy", dy_buffer)});
  if (g.activation >= 0) {
    // Two passes: the derivative reads y everywhere before any input gradient is written, since
    // those buffers begin at the Add's backward step and may reuse y's bytes.
    d.backward->tensors.push_back(reads("y", y_buffer, ", saved"));
    d.backward->passes.push_back({"d(sum) = " + f + "'(y) · dy, per element, in place.",
                                  {"i"},
                                  {count},
                                  "k::residual_add_backward<" + act + ", " + same + ", " + same +
                                      ">(i, y, dy, nullptr, nullptr);"});
  }
  // Where the plan passes d(output) through as an input's gradient, that input's gradient is dy
  // itself, and the pass writes no other.
  const bool first_is_dy = l.input_gradient_buffer == dy_buffer;
  const bool second_is_dy = l.input2_gradient_buffer == dy_buffer;
  if (first_is_dy && second_is_dy)
    d.backward->expects.push_back(
        "dy to be both inputs' gradients as well (the plan passes it through)");
  else if (first_is_dy || second_is_dy)
    d.backward->expects.push_back(
        std::string("dy to be the ") + (first_is_dy ? "first" : "second") +
        " input's gradient as well (the plan passes it through): " + (first_is_dy ? "da" : "db") +
        " is not written");
  if (first != same || second != same) {
    d.backward->tensors.push_back({"da", w.at("da_element"), true, w.at("da"), w.at("da_note")});
    d.backward->tensors.push_back({"db", w.at("db_element"), true, w.at("db"), w.at("db_note")});
    d.backward->passes.push_back({"d(sum) to each input that takes its own copy, per element.",
                                  {"i"},
                                  {count},
                                  "k::residual_add_backward<k::Identity, " + first + ", " + second +
                                      ">(i, nullptr, dy, da, db);"});
  }
  return d;
}

GroupPasses Describer::dropout(const FusedGroup& g) {
  const LayerPlan& l = layer(g.dropout);
  const std::string geometry = "dropout_" + std::to_string(g.dropout);
  const std::int64_t count = l.output_shape.elements();
  const std::int64_t mask_bytes = (count + 7) / 8;  // a bit per element
  const IdentityCopy identity{.from = "x",
                              .to = "y",
                              .elements = count,
                              .bytes = m_.buffer(l.output_buffer).size,
                              .in_place = l.in_place,
                              .label = geometry + "'s identity"};
  GroupPasses d;
  if (!m_.training()) {  // Inference: the identity
    if (l.in_place) {
      d.no_code = "// The identity, in place: its output is its input's storage. No code.";
      return d;
    }
    d.forward = direction({reads("x", l.input_buffer), writes("y", l.output_buffer)});
    d.forward->identity = identity;
    return d;
  }
  d.preamble = "using " + geometry + " = k::DropoutGeometry<" +
               std::to_string(l.options.ratio_num) + ", " + std::to_string(l.options.ratio_den) +
               ", " + literal(count) + ">;";
  const bool keeps_mask = l.mask_buffer != no_buffer;
  d.forward = direction(
      {reads("x", l.input_buffer), writes("y", l.output_buffer, l.in_place ? " (in place)" : ""),
       keeps_mask
           ? writes("mask", l.mask_buffer)
           : TensorUse{"mask", "k::MaskByte", true, "nullptr", "// no backward: nothing saved"}},
      {{"Each mask byte: draws its 8 elements' bits and scales the kept ones.",
        {"b"},
        {mask_bytes},
        "k::dropout_forward<" + geometry + ">(b, key, x, y, mask);"}});
  d.forward->dropout_layer = g.dropout;
  if (m_.micro_batches() > 1)
    d.forward->dropout_slice_elements = count;
  d.forward->identity = identity;
  if (l.in_place)
    d.forward->expects.push_back("y to be x (in place): in evaluation nothing is copied");
  if (!has_backward(m_, g))
    return d;
  d.backward = direction(
      {reads("mask", l.mask_buffer), reads("dy", l.output_gradient_buffer), input_gradient(l)},
      {{"Each mask byte: dx = keep ? dy · scale : 0 for its 8 elements.",
        {"b"},
        {mask_bytes},
        "k::dropout_backward_byte<" + geometry + ", " + accumulate(l) + ">(b, mask, dy, dx);"}});
  return d;
}

}  // namespace

bool is_map_group(const FusedGroup& g) {
  return g.view < 0 && g.product < 0 && g.norm < 0 && g.grouped < 0 &&
         (g.sum >= 0 || g.global_pool >= 0 || g.dropout >= 0 || g.activation >= 0 || g.pool >= 0);
}

GroupPasses describe_map_group(const ModelView& model, const FusedGroup& g, ArenaText& arena) {
  Describer d(model, arena);
  // The order the emitters have always dispatched in: a sum owns the activation fused after it.
  if (g.sum >= 0)
    return d.sum(g);
  if (g.global_pool >= 0)
    return d.global_pool(g);
  if (g.dropout >= 0)
    return d.dropout(g);
  if (g.activation >= 0)
    return d.activation(g);
  return d.pool(g);
}

}  // namespace staticnet::codegen
