// The CUDA backend's residual sums: Body(x) + Shortcut(x), with the activation that follows
// (ResNet's ReLU) fused; in backward the gradient goes to both branches.
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_sum(const FusedGroup& g) {
  const LayerPlan& l = layer(g.sum);
  const std::string name = group_name(g);
  const std::string act = fused_activation(g);
  const std::int64_t count = l.output_shape.elements();
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  emit_kernel("forward_" + name + "_kernel", "One thread per element: y = " + act + "(a + b).",
              "const float* a, const float* b, float* y", count,
              "k::residual_add_forward<" + act + ">(i, a, b, y);");
  kernels_.emit({{"name", name},
                 {"a", at(l.input_buffer)},
                 {"a_note", note(l.input_buffer)},
                 {"b", at(l.input2_buffer)},
                 {"b_note", note(l.input2_buffer)},
                 {"y", at(y_buffer)},
                 {"y_note", note(y_buffer) + (l.in_place ? " (in place)" : "")},
                 {"launch", launch("forward_" + name + "_kernel", count, "a, b, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const a = $a$;  $a_note$
      const float* const b = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  const Printer::Vars w = sum_gradient_vars(l, dy_buffer, a_);
  const std::string& first = w.at("first");
  const std::string& second = w.at("second");
  std::string lines = "float* const dy = " + at(dy_buffer) + ";  " + note(dy_buffer);
  if (g.activation >= 0) {
    // Two passes, as on the CPU: the derivative reads y everywhere before any input gradient
    // is written, since those buffers begin at the Add's backward step and may reuse y's bytes.
    emit_kernel("backward_" + name + "_activation_kernel",
                "One thread per element: d(sum) = act'(y)·dy, in place.",
                "const float* __restrict__ y, float* __restrict__ dy", count,
                "k::residual_add_backward<" + act +
                    ", k::GradientWrite::same_buffer, k::GradientWrite::same_buffer>(i, y, dy, "
                    "nullptr, nullptr);");
    lines += "\nconst float* const y = " + at(y_buffer) + ";  " + note(y_buffer) + ", saved\n" +
             launch("backward_" + name + "_activation_kernel", count, "y, dy");
  }
  if (first != "k::GradientWrite::same_buffer" || second != "k::GradientWrite::same_buffer") {
    emit_kernel("backward_" + name + "_kernel",
                "One thread per element: d(sum) to each input that takes its own copy.",
                "float* dy, float* da, float* db", count,
                "k::residual_add_backward<k::Identity, " + first + ", " + second +
                    ">(i, nullptr, dy, da, db);");
    lines += "\nfloat* const da = " + w.at("da") + ";  " + w.at("da_note") +
             "\nfloat* const db = " + w.at("db") + ";  " + w.at("db_note") + "\n" +
             launch("backward_" + name + "_kernel", count, "dy, da, db");
  }
  emit_backward(name, lines);
}

}  // namespace staticnet::codegen
