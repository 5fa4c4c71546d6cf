// The CUDA backend's groups with no parameters that map a window or an element: a standalone
// activation, a standalone pool, and the global average pool.
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_activation(const FusedGroup& g) {
  const LayerPlan& a = layer(g.activation);
  const std::string name = group_name(g);
  const std::string act = activation_type(a.kind);
  const std::int64_t count = a.output_shape.elements();
  emit_kernel("forward_" + name + "_kernel", "One thread per element.", "const float* x, float* y",
              count, "k::activation_forward<" + act + ">(i, x, y);");
  kernels_.emit({{"name", name},
                 {"x", at(a.input_buffer)},
                 {"x_note", note(a.input_buffer)},
                 {"y", at(a.output_buffer)},
                 {"y_note", note(a.output_buffer) + (a.in_place ? " (in place)" : "")},
                 {"launch", launch("forward_" + name + "_kernel", count, "x, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!a.runs_backward || a.input_gradient_buffer == no_buffer)
    return;
  Printer::Vars v{{"name", name},
                  {"y", at(a.output_buffer)},
                  {"y_note", note(a.output_buffer)},
                  {"dy", at(a.output_gradient_buffer)},
                  {"dy_note", note(a.output_gradient_buffer)},
                  {"launch", launch("backward_" + name + "_kernel", count, "y, dy, dx")}};
  input_gradient_vars(v, a);
  emit_kernel("backward_" + name + "_kernel",
              a.accumulates_input_gradient
                  ? "One thread per element: dx += act'(y) · dy (another reader of x wrote first)."
                  : "One thread per element: dx = act'(y) · dy.",
              "const float* __restrict__ y, const float* dy, float* dx", count,
              "k::activation_backward<" + act + ", " + v["accumulate"] + ">(i, y, dy, dx);");
  kernels_.emit(v,
                R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const y = $y$;  $y_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

void CudaKernelEmitter::emit_pool(const FusedGroup& g) {
  const LayerPlan& q = layer(g.pool);
  const bool max = q.kind == LayerKind::MaxPool2d;
  const std::string name = group_name(g);
  const std::string pool = "pool_" + std::to_string(g.pool);
  const std::int64_t out_plane = q.output_shape[2] * q.output_shape[3];
  const std::int64_t in_plane = q.input_shape[2] * q.input_shape[3];
  const std::int64_t outputs = q.output_shape.elements();
  const std::int64_t inputs = q.input_shape.elements();
  const bool keeps_window = max && q.window_index_buffer != no_buffer;
  const std::string index = keeps_window ? element(q.window_index_buffer) : "k::WindowIndex8";
  const std::string window = keeps_window ? at(q.window_index_buffer) : "nullptr";
  const std::string window_note =
      keeps_window ? note(q.window_index_buffer) : "// no backward: no window index";
  const std::string where = "i / " + literal(out_plane) + ", i % " + literal(out_plane);
  emit_kernel(
      "forward_" + name + "_kernel", "One thread per output.",
      max ? "const float* __restrict__ x, float* __restrict__ y, " + index + "* __restrict__ window"
          : std::string("const float* __restrict__ x, float* __restrict__ y"),
      outputs,
      max ? "k::max_pool_forward<" + pool + ", " + index + ">(" + where + ", x, y, window);"
          : "k::avg_pool_forward<" + pool + ">(" + where + ", x, y);");
  std::string forward = "const float* const x = " + at(q.input_buffer) + ";  " +
                        note(q.input_buffer) + "\nfloat* const y = " + at(q.output_buffer) + ";  " +
                        note(q.output_buffer);
  if (max)
    forward += "\n" + index + "* const window = " + window + ";  " + window_note;
  forward += "\n" + launch("forward_" + name + "_kernel", outputs, max ? "x, y, window" : "x, y");
  kernels_.emit({{"name", name}, {"lines", forward}}, R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
  if (!q.runs_backward || q.input_gradient_buffer == no_buffer)
    return;
  const std::string gather = "i / " + literal(in_plane) + ", i % " + literal(in_plane);
  // dx, and whether to add to it: another reader of the pool's input may have written first.
  Printer::Vars dx;
  input_gradient_vars(dx, q);
  const std::string accumulate = dx["accumulate"];
  emit_kernel(
      "backward_" + name + "_kernel",
      "One thread per input element: it gathers from the windows that hold it" +
          std::string(max ? " and chose it." : "."),
      max ? "const float* __restrict__ dy, const " + index +
                "* __restrict__ window, float* __restrict__ dx"
          : std::string("const float* __restrict__ dy, float* __restrict__ dx"),
      inputs,
      max ? "k::max_pool_backward<" + pool + ", " + index + ", " + accumulate + ">(" + gather +
                ", dy, window, dx);"
          : "k::avg_pool_backward<" + pool + ", " + accumulate + ">(" + gather + ", dy, dx);");
  std::string backward = "const float* const dy = " + at(q.output_gradient_buffer) + ";  " +
                         note(q.output_gradient_buffer) + "\nfloat* const dx = " + dx["dx"] +
                         ";  " + dx["dx_note"];
  if (max)
    backward += "\nconst " + index + "* const window = " + window + ";  " + window_note;
  backward +=
      "\n" + launch("backward_" + name + "_kernel", inputs, max ? "dy, window, dx" : "dy, dx");
  kernels_.emit({{"name", name}, {"lines", backward}}, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      $lines$
    }

  )");
}

void CudaKernelEmitter::emit_global_pool(const FusedGroup& g) {
  const LayerPlan& l = layer(g.global_pool);
  const std::string name = group_name(g);
  const std::string positions = literal(l.input_shape[2] * l.input_shape[3]);
  const std::int64_t planes = l.output_shape.elements();
  emit_kernel("forward_" + name + "_kernel", "One thread per (sample, channel) plane: its mean.",
              "const float* __restrict__ x, float* __restrict__ y", planes,
              "k::global_avg_pool_forward<" + positions + ">(i, x, y);");
  kernels_.emit({{"name", name},
                 {"x", at(l.input_buffer)},
                 {"x_note", note(l.input_buffer)},
                 {"y", at(l.output_buffer)},
                 {"y_note", note(l.output_buffer)},
                 {"launch", launch("forward_" + name + "_kernel", planes, "x, y")}},
                R"(
    void forward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      $launch$
    }

  )");
  if (!has_backward(m_, g))
    return;
  const std::int64_t inputs = l.input_shape.elements();
  Printer::Vars v{{"name", name},
                  {"dy", at(l.output_gradient_buffer)},
                  {"dy_note", note(l.output_gradient_buffer)}};
  input_gradient_vars(v, l);
  emit_kernel(
      "backward_" + name + "_kernel",
      "One thread per input element: its plane's gradient over the plane's size.",
      "const float* __restrict__ dy, float* __restrict__ dx", inputs,
      "k::global_avg_pool_backward<" + positions + ", " + v["accumulate"] + ">(i, dy, dx);");
  v["launch"] = launch("backward_" + name + "_kernel", inputs, "dy, dx");
  kernels_.emit(v, R"(
    void backward_$name$(std::byte* arena, const Libraries&, cudaStream_t stream) {
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      $launch$
    }

  )");
}

}  // namespace staticnet::codegen
