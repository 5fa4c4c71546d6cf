// The CPU backend's Dropout: the mask drawn from the step's seed and kept in bits, applied in
// forward and backward.
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_dropout(const FusedGroup& g) {
  const LayerPlan& l = layer(g.dropout);
  const std::int64_t count = l.output_shape.elements();
  if (!m_.training()) {
    if (l.in_place) {
      body_.line("// In place: its output is its input's storage. No code.");
      body_.blank();
      return;
    }
    body_.emit({{"name", group_name(g)},
                {"x", at(l.input_buffer)},
                {"x_note", note(l.input_buffer)},
                {"y", at(l.output_buffer)},
                {"y_note", note(l.output_buffer)},
                {"count", literal(count)}},
               R"(
      void forward_$name$(std::byte* arena, c::ThreadPool&) {
        const float* const x = $x$;  $x_note$
        float* const y = $y$;  $y_note$
        std::copy(x, x + $count$, y);
      }

    )");
    return;
  }
  Printer::Vars v{
      {"name", group_name(g)},
      {"layer", std::to_string(g.dropout)},
      {"x", at(l.input_buffer)},
      {"x_note", note(l.input_buffer)},
      {"y", at(l.output_buffer)},
      {"y_note", note(l.output_buffer) + (l.in_place ? " (in place)" : "")},
      {"mask", l.mask_buffer != no_buffer ? at(l.mask_buffer) : "nullptr"},
      {"mask_note",
       l.mask_buffer != no_buffer ? note(l.mask_buffer) : "// no backward: nothing saved"},
      {"geometry", "k::DropoutGeometry<" + std::to_string(l.options.ratio_num) + ", " +
                       std::to_string(l.options.ratio_den) + ", " + literal(count) + ">"},
      {"bytes", literal((count + 7) / 8)},
      {"identity",
       l.in_place ? "// in place: y is x" : "std::copy(x, x + " + literal(count) + ", y);"}};
  body_.emit(v, R"(
    using dropout_$layer$ = $geometry$;

    void forward_$name$(std::byte* arena, c::ThreadPool& pool, const Pass& pass) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      if (!pass.training) {  // evaluation: the identity
        $identity$
        return;
      }
      k::MaskByte* const mask = $mask$;  $mask_note$
      const std::uint64_t key = k::dropout_key(pass.seed, pass.step, $layer$);
      c::for_each(pool, $bytes$, [&](index_t b) { k::dropout_forward<dropout_$layer$>(b, key, x, y, mask); });
    }

  )");
  if (!has_backward(m_, g))
    return;
  v["dy"] = at(l.output_gradient_buffer);
  v["dy_note"] = note(l.output_gradient_buffer);
  input_gradient_vars(v, l);
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const k::MaskByte* const mask = $mask$;  $mask_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      c::for_each(pool, $bytes$, [&](index_t b) { k::dropout_backward_byte<dropout_$layer$, $accumulate$>(b, mask, dy, dx); });
    }

  )");
}

}  // namespace staticnet::codegen
