// The CPU backend's depthwise and grouped convolutions: direct per-plane passes over the shared
// bodies of staticnet/kernels/grouped_conv.hpp, with the bias (or a folded
// BatchNorm's shift) and the activation fused.
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_grouped(const FusedGroup& g) {
  const LayerPlan& l = layer(g.grouped);
  const bool bias = l.options.bias;
  const ForwardBias forward = forward_bias(m_, g, g.grouped, a_);
  Printer::Vars v{{"name", group_name(g)},
                  {"geometry", "conv_" + std::to_string(g.grouped)},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"w", parameter(l.weight_offset, BufferRole::parameters)},
                  {"w_note", "// " + weight_name(g.grouped)},
                  {"b", bias ? parameter(l.bias_offset, BufferRole::parameters) : "nullptr"},
                  {"b_note", bias ? "// " + bias_name(g.grouped) : "// no bias"},
                  {"forward_w_note", "// " + weight_name(g.grouped) + forward.weight_note},
                  {"forward_b", forward.pointer},
                  {"forward_b_note", forward.note},
                  {"y", at(l.output_buffer)},
                  {"y_note", note(l.output_buffer)},
                  {"has_bias", forward.present ? "true" : "false"},
                  {"act", fused_activation(g)},
                  {"positions", literal(l.output_shape[2] * l.output_shape[3])},
                  {"planes", literal(l.output_shape[0] * l.output_shape[1])}};
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $forward_w_note$
      const float* const bias = $forward_b$;  $forward_b_note$
      float* const y = $y$;  $y_note$
      c::for_each(pool, $planes$, [&](index_t plane) {
        k::grouped_conv_forward_plane<$geometry$, $has_bias$>(plane, x, weight, bias, y);
  )");
  if (g.activation >= 0) {  // over the plane just written, while it is in cache
    body_.indent();
    body_.indent();
    body_.emit(v, R"(
      for (index_t i = plane * $positions$; i < (plane + 1) * $positions$; ++i)
        k::activation_forward<$act$>(i, y, y);
    )");
    body_.outdent();
    body_.outdent();
  }
  body_.emit(R"(
      });
    }

  )");
  if (!l.runs_backward)
    return;
  v["dy"] = at(l.output_gradient_buffer);
  v["dy_note"] = note(l.output_gradient_buffer);
  v["dw"] = parameter(l.weight_offset, BufferRole::gradients);
  v["db"] = bias ? parameter(l.bias_offset, BufferRole::gradients) : "nullptr";
  v["filters"] = literal(weight_shape(l)[0] * weight_shape(l)[1]);  // (Co, Ci/groups) pairs
  v["channels"] = literal(l.output_shape[1]);
  v["batch"] = literal(l.output_shape[0]);
  v["positions"] = literal(l.output_shape[2] * l.output_shape[3]);
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dweight = $dw$;  // gradient of $w_note$
      c::for_each(pool, $filters$, [&](index_t f) { k::grouped_conv_backward_filter<$geometry$>(f, x, dy, dweight); });
  )");
  body_.indent();
  if (bias)
    body_.emit(v, R"(
      float* const dbias = $db$;  // gradient of $b_note$
      pool.run([&](int t) {
        const c::Range channels = c::split($channels$, pool.threads(), t);
        k::bias_gradient_channel_range<$batch$, $channels$, $positions$>(channels.begin, channels.end, dy, dbias);
      });
    )");
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    v["input_planes"] = literal(l.input_shape[0] * l.input_shape[1]);
    body_.emit(v, R"(
      const float* const weight = $w$;  $w_note$
      float* const dx = $dx$;  $dx_note$
      c::for_each(pool, $input_planes$, [&](index_t plane) {
        k::grouped_conv_backward_input_plane<$geometry$, $accumulate$>(plane, dy, weight, dx);
      });
    )");
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

}  // namespace staticnet::codegen
