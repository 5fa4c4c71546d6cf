// The CUDA backend's depthwise and grouped convolutions as direct kernels over the shared bodies
// of staticnet/kernels/grouped_conv.hpp (bench/cuda_step/ compares them with cuDNN's engines),
// with the bias (or a folded BatchNorm's shift) and the activation fused.
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_direct_conv(const FusedGroup& g) {
  const LayerPlan& l = layer(g.grouped);
  const bool bias = l.options.bias;
  const ForwardBias forward = forward_bias(m_, g, g.grouped, a_);  // or the folded shift
  const std::string name = group_name(g);
  const std::string geometry = "conv_" + std::to_string(g.grouped);
  const std::int64_t outputs = l.output_shape.elements();
  std::string body = "k::grouped_conv_forward<" + geometry + ", " +
                     (forward.present ? "true" : "false") + ">(i, x, weight, bias, y);";
  if (g.activation >= 0)  // the activation in place, on the value this thread just wrote
    body += "\nk::activation_forward<" + fused_activation(g) + ">(i, y, y);";
  emit_kernel("forward_" + name + "_kernel",
              g.activation >= 0 ? "One thread per output element, then its " +
                                      std::string(name_of(layer(g.activation).kind)) + "."
                                : std::string("One thread per output element."),
              "const float* __restrict__ x, const float* __restrict__ weight, const float* "
              "__restrict__ bias, float* __restrict__ y",
              outputs, body);
  Printer::Vars v{{"name", name},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"w", parameter(l.weight_offset, BufferRole::parameters)},
                  {"w_note", "// " + weight_name(g.grouped)},
                  {"forward_w_note", "// " + weight_name(g.grouped) + forward.weight_note},
                  {"b", forward.pointer},
                  {"b_note", forward.note},
                  {"y", at(l.output_buffer)},
                  {"y_note", note(l.output_buffer)},
                  {"launch", launch("forward_" + name + "_kernel", outputs, "x, weight, bias, y")}};
  kernels_.emit(v, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $forward_w_note$
      const float* const bias = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!l.runs_backward)
    return;
  const std::int64_t weights = weight_shape(l).elements();
  const std::int64_t channels = l.output_shape[1];
  emit_block_kernel(
      "backward_" + name + "_weight_kernel",
      "One block per weight element: Σ over samples and output positions of dy · x.",
      "const float* __restrict__ x, const float* __restrict__ dy, float* __restrict__ dweight",
      "g::per_block::grouped_conv_backward_weight<" + geometry + ">(x, dy, dweight);");
  std::string lines =
      "const float* const x = " + v["x"] + ";  " + v["x_note"] +
      "\nconst float* const dy = " + at(l.output_gradient_buffer) + ";  " +
      note(l.output_gradient_buffer) +
      "\nfloat* const dweight = " + parameter(l.weight_offset, BufferRole::gradients) +
      ";  // gradient of " + weight_name(g.grouped) + "\n" +
      launch_blocks("backward_" + name + "_weight_kernel", weights, "x, dy, dweight");
  if (bias) {
    emit_block_kernel("backward_" + name + "_bias_kernel",
                      "One block per channel: Σ over samples and positions of dy.",
                      "const float* __restrict__ dy, float* __restrict__ dbias",
                      "g::per_block::bias_gradient_channels<" + literal(l.output_shape[0]) + ", " +
                          literal(channels) + ", " +
                          literal(l.output_shape[2] * l.output_shape[3]) + ">(dy, dbias);");
    lines += "\nfloat* const dbias = " + parameter(l.bias_offset, BufferRole::gradients) +
             ";  // gradient of " + bias_name(g.grouped) + "\n" +
             launch_blocks("backward_" + name + "_bias_kernel", channels, "dy, dbias");
  }
  if (l.input_gradient_buffer != no_buffer) {
    input_gradient_vars(v, l);
    const std::int64_t inputs = l.input_shape.elements();
    emit_kernel("backward_" + name + "_input_kernel",
                "One thread per input element: it gathers dy · w from the outputs that read it.",
                "const float* __restrict__ dy, const float* __restrict__ weight, float* "
                "__restrict__ dx",
                inputs,
                "k::grouped_conv_backward_input<" + geometry + ", " + v["accumulate"] +
                    ">(i, dy, weight, dx);");
    lines += "\nconst float* const weight = " + v["w"] + ";  " + v["w_note"] +
             "\nfloat* const dx = " + v["dx"] + ";  " + v["dx_note"] + "\n" +
             launch("backward_" + name + "_input_kernel", inputs, "dy, weight, dx");
  }
  emit_backward(name, lines);
}

}  // namespace staticnet::codegen
