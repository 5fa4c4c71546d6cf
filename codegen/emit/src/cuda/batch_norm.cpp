// The CUDA backend's BatchNorm groups (1d and 2d): batch statistics (one block per channel), the
// running statistics' update and the normalisation in forward, with the activation that follows
// (ResNet's ReLU) fused; backward through its derivative into the scale and shift gradients and
// dx.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_norm(const FusedGroup& g) {
  const LayerPlan& l = layer(g.norm);
  const std::string name = group_name(g);
  const std::string geometry = "norm_" + std::to_string(g.norm);
  const std::string act = fused_activation(g);
  const std::int64_t count = l.output_shape.elements();
  const std::int64_t channels = l.input_shape[1];
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  if (!m_.training()) {  // a BatchNorm that could not fold: the running statistics, always
    emit_kernel(
        "forward_" + name + "_kernel",
        "One thread per element: normalise by the running statistics, then " + act +
            " (y may be x: in place).",
        "const float* x, const float* __restrict__ running, const float* __restrict__ gamma, "
        "const float* __restrict__ beta, float* y",
        count,
        "k::batch_norm_inference<" + geometry + ", " + act + ">(i, x, running, gamma, beta, y);");
    kernels_.emit(
        {{"name", name},
         {"x", at(l.input_buffer)},
         {"x_note", note(l.input_buffer)},
         {"y", at(y_buffer)},
         {"y_note", note(y_buffer)},
         {"gamma", parameter(l.weight_offset, BufferRole::parameters)},
         {"gamma_note", "// " + weight_name(g.norm) + " (γ)"},
         {"beta", parameter(l.bias_offset, BufferRole::parameters)},
         {"beta_note", "// " + bias_name(g.norm) + " (β)"},
         {"running", parameter(l.statistics_offset, BufferRole::non_trainable)},
         {"launch", launch("forward_" + name + "_kernel", count, "x, running, gamma, beta, y")}},
        R"(
      void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
        const float* const x = $x$;  $x_note$
        const float* const gamma = $gamma$;  $gamma_note$
        const float* const beta = $beta$;  $beta_note$
        const float* const running = $running$;  // non_trainable: running mean, then variance
        float* const y = $y$;  $y_note$
        $launch$
      }

    )");
    return;
  }
  if (l.statistics_buffer == no_buffer)
    throw std::logic_error("a BatchNorm in training without a statistics buffer");
  emit_block_kernel(
      "forward_" + name + "_statistics_kernel",
      "One block per channel: the batch mean and 1/√(var + ε), and the running statistics' "
      "update.",
      "const float* __restrict__ x, float* __restrict__ stats, float* __restrict__ running",
      "g::per_block::batch_norm_statistics<" + geometry + ">(x, stats, running);");
  emit_kernel("forward_" + name + "_kernel", "One thread per element: normalise, then " + act + ".",
              "const float* __restrict__ x, const float* __restrict__ stats, const float* "
              "__restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y",
              count,
              "k::batch_norm_forward<" + geometry + ", " + act + ">(i, x, stats, gamma, beta, y);");
  emit_kernel(
      "forward_" + name + "_inference_kernel",
      "One thread per element, in evaluation: the running statistics.",
      "const float* __restrict__ x, const float* __restrict__ running, const float* "
      "__restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y",
      count,
      "k::batch_norm_inference<" + geometry + ", " + act + ">(i, x, running, gamma, beta, y);");
  Printer::Vars v{
      {"name", name},
      {"x", at(l.input_buffer)},
      {"x_note", note(l.input_buffer)},
      {"y", at(y_buffer)},
      {"y_note", note(y_buffer)},
      {"gamma", parameter(l.weight_offset, BufferRole::parameters)},
      {"gamma_note", "// " + weight_name(g.norm) + " (γ)"},
      {"beta", parameter(l.bias_offset, BufferRole::parameters)},
      {"beta_note", "// " + bias_name(g.norm) + " (β)"},
      {"running", parameter(l.statistics_offset, BufferRole::non_trainable)},
      {"stats", at(l.statistics_buffer)},
      {"stats_note", note(l.statistics_buffer) + ": mean, then 1/√(var + ε)"},
      {"inference",
       launch("forward_" + name + "_inference_kernel", count, "x, running, gamma, beta, y")},
      {"statistics",
       launch_blocks("forward_" + name + "_statistics_kernel", channels, "x, stats, running")},
      {"normalise", launch("forward_" + name + "_kernel", count, "x, stats, gamma, beta, y")}};
  kernels_.emit(v, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream, bool training) {
      const float* const x = $x$;  $x_note$
      const float* const gamma = $gamma$;  $gamma_note$
      const float* const beta = $beta$;  $beta_note$
      float* const running = $running$;  // non_trainable: running mean, then running variance
      float* const y = $y$;  $y_note$
      if (!training) {
        $inference$
        return;
      }
      float* const stats = $stats$;  $stats_note$
      $statistics$
      $normalise$
    }

  )");
  if (!l.runs_backward)
    return;
  emit_block_kernel("backward_" + name + "_sums_kernel",
                    "One block per channel: d = act'(y)·dy left in dy, Σd into dβ and Σ d·x̂ "
                    "into dγ.",
                    "const float* __restrict__ x, const float* __restrict__ y, const float* "
                    "__restrict__ stats, float* __restrict__ dy, float* __restrict__ dgamma, "
                    "float* __restrict__ dbeta",
                    "g::per_block::batch_norm_backward_sums<" + geometry + ", " + act +
                        ">(x, y, stats, dy, dgamma, dbeta);");
  batch_norm_backward_vars(v, g);
  v["sums"] = launch_blocks(
      "backward_" + name + "_sums_kernel", channels,
      std::string("x, ") + (g.activation >= 0 ? "y" : "nullptr") + ", stats, dy, dgamma, dbeta");
  std::string input;
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    emit_kernel("backward_" + name + "_kernel",
                "One thread per element: dx from d and the channel's two sums.",
                "const float* __restrict__ x, const float* __restrict__ stats, const float* "
                "__restrict__ gamma, const float* dy, const float* __restrict__ dgamma, const "
                "float* __restrict__ dbeta, float* dx",
                count,
                "k::batch_norm_backward_input<" + geometry + ", " + v["accumulate"] +
                    ">(i, x, stats, gamma, dy, dgamma, dbeta, dx);");
    input = "float* const dx = " + v["dx"] + ";  " + v["dx_note"] + "\n" +
            launch("backward_" + name + "_kernel", count, "x, stats, gamma, dy, dgamma, dbeta, dx");
  }
  v["input"] = input;
  v["saved_y"] =
      g.activation >= 0 ? "const float* const y = " + v["y"] + ";  " + v["y_note"] + ", saved" : "";
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      const float* const stats = $stats$;  $stats_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const dy = $dy$;  $dy_note$
      float* const dgamma = $dgamma$;  $dgamma_note$
      float* const dbeta = $dbeta$;  $dbeta_note$
      $saved_y$
      $sums$
      $input$
    }

  )");
}

}  // namespace staticnet::codegen
