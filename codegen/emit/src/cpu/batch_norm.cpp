// The CPU backend's BatchNorm groups (1d and 2d): batch statistics, the running statistics'
// update and the normalisation in forward, with the activation that follows (ResNet's ReLU)
// fused; backward through its derivative into the scale and shift gradients and dx.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {

// Channels per call of BatchNorm1d's sums: a block's accumulators stay in registers, and a layer
// of 128 channels still splits over 8 calls.
constexpr std::int64_t batch_norm_1d_block = 16;

void CpuKernelEmitter::emit_norm(const FusedGroup& g) {
  const LayerPlan& l = layer(g.norm);
  const Shape& x = l.input_shape;
  const std::int64_t y_buffer =
      g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  Printer::Vars v{{"name", group_name(g)},
                  {"geometry", "norm_" + std::to_string(g.norm)},
                  {"act", fused_activation(g)},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"y", at(static_cast<int>(y_buffer))},
                  {"y_note", note(static_cast<int>(y_buffer))},
                  {"gamma", parameter(l.weight_offset, BufferRole::parameters)},
                  {"gamma_note", "// " + weight_name(g.norm) + " (γ)"},
                  {"beta", parameter(l.bias_offset, BufferRole::parameters)},
                  {"beta_note", "// " + bias_name(g.norm) + " (β)"},
                  {"running", parameter(l.statistics_offset, BufferRole::non_trainable)},
                  {"running_note", "// non_trainable: running mean, then running variance"},
                  {"channels", literal(x[1])},
                  {"planes", literal(x[0] * x[1])},  // (sample, channel) planes
                  {"rows", literal(x[0])},
                  {"blocks", literal((x[1] + batch_norm_1d_block - 1) / batch_norm_1d_block)},
                  {"width", std::to_string(batch_norm_1d_block)},
                  // training updates the running statistics, and may be asked for an evaluation
                  {"pass_parameter", m_.training() ? ", const Pass& pass" : ""},
                  {"running_const", m_.training() ? "" : "const "}};
  // BatchNorm1d has one position per channel, so a (sample, channel) plane is one element: its
  // passes run a sample's row per call, and its sums a block of channels (kernels/batch_norm.hpp).
  const bool by_rows = x.rank == 2;
  auto inference_pass = [&] {
    body_.emit(v, by_rows ? R"(
      c::for_each(pool, $rows$, [&](index_t n) {
        k::batch_norm_inference_row<$geometry$, $act$>(n, x, running, gamma, beta, y);
      });
    )"
                          : R"(
      c::for_each(pool, $planes$, [&](index_t plane) {
        k::batch_norm_inference_plane<$geometry$, $act$>(plane, x, running, gamma, beta, y);
      });
    )");
  };
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool$pass_parameter$) {
      const float* const x = $x$;  $x_note$
      const float* const gamma = $gamma$;  $gamma_note$
      const float* const beta = $beta$;  $beta_note$
      $running_const$float* const running = $running$;  $running_note$
      float* const y = $y$;  $y_note$
  )");
  body_.indent();
  if (!m_.training()) {
    inference_pass();
    body_.outdent();
    body_.line("}");
    body_.blank();
    return;
  }
  if (l.statistics_buffer == no_buffer)
    throw std::logic_error("a BatchNorm in training without a statistics buffer");
  v["stats"] = at(l.statistics_buffer);
  v["stats_note"] = note(l.statistics_buffer) + ": mean, then 1/√(var + ε)";
  body_.line("if (!pass.training) {");
  body_.indent();
  inference_pass();
  body_.line("return;");
  body_.outdent();
  body_.line("}");
  body_.emit(v, R"(
    float* const stats = $stats$;  $stats_note$
  )");
  body_.emit(v, by_rows ? R"(
    c::for_each(pool, $blocks$, [&](index_t block) {
      k::batch_norm_statistics_block<$geometry$, $width$>(block, x, stats, running);
    });
    c::for_each(pool, $rows$, [&](index_t n) {
      k::batch_norm_forward_row<$geometry$, $act$>(n, x, stats, gamma, beta, y);
    });
  )"
                        : R"(
    c::for_each(pool, $channels$, [&](index_t ch) {
      k::batch_norm_statistics<$geometry$>(ch, x, stats, running);
    });
    c::for_each(pool, $planes$, [&](index_t plane) {
      k::batch_norm_forward_plane<$geometry$, $act$>(plane, x, stats, gamma, beta, y);
    });
  )");
  body_.outdent();
  body_.line("}");
  body_.blank();
  if (!l.runs_backward)
    return;
  batch_norm_backward_vars(v, g);
  v["y_arg"] = g.activation >= 0 ? "y" : "nullptr";
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const stats = $stats$;  $stats_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const dy = $dy$;  $dy_note$
      float* const dgamma = $dgamma$;  $dgamma_note$
      float* const dbeta = $dbeta$;  $dbeta_note$
  )");
  body_.indent();
  if (g.activation >= 0)
    body_.emit(v, R"(
      const float* const y = $y$;  $y_note$, saved
    )");
  body_.line("// Per channel: d = act'(y)·dy (left in dy), Σd into dβ and Σ d·x̂ into dγ.");
  body_.emit(v, by_rows ? R"(
    c::for_each(pool, $blocks$, [&](index_t block) {
      k::batch_norm_backward_sums_block<$geometry$, $act$, $width$>(block, x, $y_arg$, stats, dy, dgamma, dbeta);
    });
  )"
                        : R"(
    c::for_each(pool, $channels$, [&](index_t ch) {
      k::batch_norm_backward_sums<$geometry$, $act$>(ch, x, $y_arg$, stats, dy, dgamma, dbeta);
    });
  )");
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    body_.emit(v, R"(
      float* const dx = $dx$;  $dx_note$
    )");
    body_.emit(v, by_rows ? R"(
      c::for_each(pool, $rows$, [&](index_t n) {
        k::batch_norm_backward_input_row<$geometry$, $accumulate$>(n, x, stats, gamma, dy, dgamma, dbeta, dx);
      });
    )"
                          : R"(
      c::for_each(pool, $planes$, [&](index_t plane) {
        k::batch_norm_backward_input_plane<$geometry$, $accumulate$>(plane, x, stats, gamma, dy, dgamma, dbeta, dx);
      });
    )");
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

}  // namespace staticnet::codegen
