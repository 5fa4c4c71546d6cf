// The CPU backend's groups with no parameters that map a window or an element: a standalone
// activation, a standalone pool, and the global average pool.
#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_activation(const FusedGroup& g) {
  const LayerPlan& a = layer(g.activation);
  Printer::Vars v{{"name", group_name(g)},
                  {"act", activation_type(a.kind)},
                  {"x", at(a.input_buffer)},
                  {"x_note", note(a.input_buffer)},
                  {"y", at(a.output_buffer)},
                  {"y_note", note(a.output_buffer) + (a.in_place ? " (in place)" : "")},
                  {"count", literal(a.output_shape.elements())}};
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      c::for_each(pool, $count$, [&](index_t i) { k::activation_forward<$act$>(i, x, y); });
    }

  )");
  if (!a.runs_backward || a.input_gradient_buffer == no_buffer)
    return;
  v["dy"] = at(a.output_gradient_buffer);
  v["dy_note"] = note(a.output_gradient_buffer);
  input_gradient_vars(v, a);
  v["accumulate"] = a.accumulates_input_gradient ? ", true" : "";  // the default is false
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const y = $y$;  $y_note$
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      c::for_each(pool, $count$, [&](index_t i) { k::activation_backward<$act$$accumulate$>(i, y, dy, dx); });
    }

  )");
}

void CpuKernelEmitter::emit_pool(const FusedGroup& g) {
  const LayerPlan& q = layer(g.pool);
  const bool max = q.kind == LayerKind::MaxPool2d;
  Printer::Vars v{{"name", group_name(g)},
                  {"pool", "pool_" + std::to_string(g.pool)},
                  {"x", at(q.input_buffer)},
                  {"x_note", note(q.input_buffer)},
                  {"y", at(q.output_buffer)},
                  {"y_note", note(q.output_buffer)},
                  {"planes", literal(q.input_shape[0] * q.input_shape[1])},
                  {"out_plane", literal(q.output_shape[2] * q.output_shape[3])},
                  {"in_plane", literal(q.input_shape[2] * q.input_shape[3])}};
  if (max && q.window_index_buffer != no_buffer) {
    v["window"] = at(q.window_index_buffer);
    v["index"] = element(q.window_index_buffer);
    v["window_note"] = note(q.window_index_buffer);
  } else if (max) {
    // Before the first layer with parameters nothing runs backward, so the plan keeps no window
    // index and the forward pass records none.
    v["window"] = "nullptr";
    v["index"] = "k::WindowIndex8";
    v["window_note"] = "// no backward: no window index";
  }
  if (max) {
    body_.emit(v, R"(
      void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
        const float* const x = $x$;  $x_note$
        float* const y = $y$;  $y_note$
        $index$* const window = $window$;  $window_note$
        c::for_each_2d(pool, $planes$, $out_plane$, [&](index_t plane, index_t q) {
          k::max_pool_forward<$pool$, $index$>(plane, q, x, y, window);
        });
      }

    )");
  } else {
    body_.emit(v, R"(
      void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
        const float* const x = $x$;  $x_note$
        float* const y = $y$;  $y_note$
        c::for_each_2d(pool, $planes$, $out_plane$, [&](index_t plane, index_t q) {
          k::avg_pool_forward<$pool$>(plane, q, x, y);
        });
      }

    )");
  }
  if (!q.runs_backward || q.input_gradient_buffer == no_buffer)
    return;
  v["dy"] = at(q.output_gradient_buffer);
  v["dy_note"] = note(q.output_gradient_buffer);
  input_gradient_vars(v, q);
  if (max)
    body_.emit(v, R"(
      void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
        const float* const dy = $dy$;  $dy_note$
        const $index$* const window = $window$;  $window_note$
        float* const dx = $dx$;  $dx_note$
        // Gathered per input element: the windows that hold it and chose it.
        c::for_each_2d(pool, $planes$, $in_plane$, [&](index_t plane, index_t p) {
          k::max_pool_backward<$pool$, $index$, $accumulate$>(plane, p, dy, window, dx);
        });
      }

    )");
  else
    body_.emit(v, R"(
      void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
        const float* const dy = $dy$;  $dy_note$
        float* const dx = $dx$;  $dx_note$
        // Gathered per input element: the windows that hold it.
        c::for_each_2d(pool, $planes$, $in_plane$, [&](index_t plane, index_t p) {
          k::avg_pool_backward<$pool$, $accumulate$>(plane, p, dy, dx);
        });
      }

    )");
}

void CpuKernelEmitter::emit_global_pool(const FusedGroup& g) {
  const LayerPlan& l = layer(g.global_pool);
  Printer::Vars v{{"name", group_name(g)},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"y", at(l.output_buffer)},
                  {"y_note", note(l.output_buffer)},
                  {"planes", literal(l.output_shape.elements())},
                  {"positions", literal(l.input_shape[2] * l.input_shape[3])},
                  {"inputs", literal(l.input_shape.elements())}};
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      float* const y = $y$;  $y_note$
      c::for_each(pool, $planes$, [&](index_t plane) { k::global_avg_pool_forward<$positions$>(plane, x, y); });
    }

  )");
  if (!has_backward(m_, g))
    return;
  v["dy"] = at(l.output_gradient_buffer);
  v["dy_note"] = note(l.output_gradient_buffer);
  input_gradient_vars(v, l);
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const dy = $dy$;  $dy_note$
      float* const dx = $dx$;  $dx_note$
      c::for_each(pool, $inputs$, [&](index_t j) { k::global_avg_pool_backward<$positions$, $accumulate$>(j, dy, dx); });
    }

  )");
}

}  // namespace staticnet::codegen
