// The CUDA backend's Dropout: the mask drawn from the step's seed and kept in bits, applied in
// forward and backward.
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_dropout(const FusedGroup& g) {
  const LayerPlan& l = layer(g.dropout);
  const std::string name = group_name(g);
  const std::string layer_index = std::to_string(g.dropout);
  const std::string geometry = "dropout_" + layer_index;
  const std::int64_t count = l.output_shape.elements();
  const std::int64_t bytes = (count + 7) / 8;
  if (!m_.training()) {  // the identity
    if (l.in_place) {
      kernels_.line("// Inference: the identity, in place. No code.");
      kernels_.blank();
      return;
    }
    kernels_.emit({{"name", name},
                   {"x", at(l.input_buffer)},
                   {"x_note", note(l.input_buffer)},
                   {"y", at(l.output_buffer)},
                   {"y_note", note(l.output_buffer)},
                   {"bytes", literal(m_.buffer(l.output_buffer).size)},
                   {"geometry", geometry}},
                  R"(
      void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {  // the identity
        const float* const x = $x$;  $x_note$
        float* const y = $y$;  $y_note$
        g::check(cudaMemcpyAsync(y, x, $bytes$, cudaMemcpyDeviceToDevice, stream), "$geometry$'s identity");
      }

    )");
    return;
  }
  kernels_.line("using " + geometry + " = k::DropoutGeometry<" +
                std::to_string(l.options.ratio_num) + ", " + std::to_string(l.options.ratio_den) +
                ", " + literal(count) + ">;");
  kernels_.blank();
  emit_kernel("forward_" + name + "_kernel",
              "One thread per mask byte (8 elements); the step and seed come from "
              "optimizer_constants, so the captured graph draws each step's masks.",
              "const float* x, float* y, k::MaskByte* __restrict__ mask", bytes,
              "k::dropout_forward<" + geometry +
                  ">(i, k::dropout_key(optimizer_constants.seed, optimizer_constants.step, " +
                  layer_index + "), x, y, mask);");
  const std::string identity =
      l.in_place ? "// in place: y is x"
                 : "g::check(cudaMemcpyAsync(y, x, " + literal(m_.buffer(l.output_buffer).size) +
                       ", cudaMemcpyDeviceToDevice, stream), \"" + geometry + "'s identity\");";
  kernels_.emit({{"name", name},
                 {"x", at(l.input_buffer)},
                 {"x_note", note(l.input_buffer)},
                 {"y", at(l.output_buffer)},
                 {"y_note", note(l.output_buffer) + (l.in_place ? " (in place)" : "")},
                 {"mask", l.mask_buffer != no_buffer ? at(l.mask_buffer) : "nullptr"},
                 {"mask_note", l.mask_buffer != no_buffer ? note(l.mask_buffer)
                                                          : "// no backward: nothing saved"},
                 {"identity", identity},
                 {"launch", launch("forward_" + name + "_kernel", bytes, "x, y, mask")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream, bool training) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      if (!training) {  // evaluation: the identity
        $identity$
        return;
      }
      k::MaskByte* const mask = $mask$;  $mask_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  Printer::Vars v{{"name", name},
                  {"mask", at(l.mask_buffer)},
                  {"mask_note", note(l.mask_buffer)},
                  {"dy", at(l.output_gradient_buffer)},
                  {"dy_note", note(l.output_gradient_buffer)}};
  input_gradient_vars(v, l);
  emit_kernel("backward_" + name + "_kernel", "One thread per element: dx = keep ? dy·scale : 0.",
              "const k::MaskByte* __restrict__ mask, const float* dy, float* dx", count,
              "k::dropout_backward<" + geometry + ", " + v["accumulate"] + ">(i, mask, dy, dx);");
  v["launch"] = launch("backward_" + name + "_kernel", count, "mask, dy, dx");
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const k::MaskByte* const mask = $mask$;  $mask_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

}  // namespace staticnet::codegen
