// The CPU backend's residual sums: Body(x) + Shortcut(x), with the activation that follows
// (ResNet's ReLU) fused; in backward the gradient goes to both branches.
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_sum(const FusedGroup& g) {
  const LayerPlan& l = layer(g.sum);
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  Printer::Vars v{{"name", group_name(g)},
                  {"act", fused_activation(g)},
                  {"a", at(l.input_buffer)},
                  {"a_note", note(l.input_buffer)},
                  {"b", at(l.input2_buffer)},
                  {"b_note", note(l.input2_buffer)},
                  {"y", at(y_buffer)},
                  {"y_note", note(y_buffer) + (l.in_place ? " (in place)" : "")},
                  {"count", literal(l.output_shape.elements())}};
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const a = $a$;  $a_note$
      const float* const b = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      c::for_each(pool, $count$, [&](index_t i) { k::residual_add_forward<$act$>(i, a, b, y); });
    }

  )");
  if (!has_backward(m_, g))
    return;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  for (auto& [key, value] : sum_gradient_vars(l, dy_buffer, a_))
    v[key] = value;
  v["dy"] = at(dy_buffer);
  v["dy_note"] = note(dy_buffer);
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      float* const dy = $dy$;  $dy_note$
  )");
  body_.indent();
  if (g.activation >= 0) {
    // Two passes: the derivative reads y everywhere before any input gradient is written, since
    // those buffers begin at the Add's backward step and may reuse y's bytes.
    body_.emit(v, R"(
      const float* const y = $y$;  $y_note$, saved
      c::for_each(pool, $count$, [&](index_t i) {
        k::residual_add_backward<$act$, k::GradientWrite::same_buffer, k::GradientWrite::same_buffer>(i, y, dy, nullptr, nullptr);
      });
    )");
  }
  if (v["first"] != "k::GradientWrite::same_buffer" ||
      v["second"] != "k::GradientWrite::same_buffer")
    body_.emit(v, R"(
      float* const da = $da$;  $da_note$
      float* const db = $db$;  $db_note$
      c::for_each(pool, $count$, [&](index_t i) {
        k::residual_add_backward<k::Identity, $first$, $second$>(i, nullptr, dy, da, db);
      });
    )");
  body_.outdent();
  body_.line("}");
  body_.blank();
}

}  // namespace staticnet::codegen
