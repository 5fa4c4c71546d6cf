// The CPU backend's Linear and Conv2d groups: the product as a GEMM (Conv2d through im2col), with
// the bias, a BatchNorm folded for inference, the activation and a pool fused into the pass
// that finishes its output; backward through the pool and the activation's derivative, then the
// weight, bias and input gradients.
#include <stdexcept>

#include "emitter.hpp"

namespace staticnet::codegen {

void CpuKernelEmitter::emit_product_forward(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const ForwardBias b = forward_bias(m_, g, g.product, a_);
  const bool bias = b.present;
  const std::string act =
      g.activation >= 0 ? activation_type(layer(g.activation).kind) : std::string("k::Identity");
  Printer::Vars v{{"name", group_name(g)},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"w", parameter(l.weight_offset, BufferRole::parameters)},
                  {"w_note", "// " + weight_name(g.product) + b.weight_note},
                  {"b", b.pointer},
                  {"b_note", b.note},
                  {"z", at(l.output_buffer)},
                  {"z_note", note(l.output_buffer)},
                  {"geometry", (conv ? "conv_" : "linear_") + std::to_string(g.product)},
                  {"act", act},
                  {"has_bias", bias ? "true" : "false"}};
  // Without bias, activation or pool the product's output is final: no pass reads a bias.
  const bool epilogue = bias || g.activation >= 0 || g.pool >= 0;
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $w_note$
  )");
  body_.indent();
  if (epilogue)
    body_.emit(v, R"(
      const float* const bias = $b$;  $b_note$
    )");
  body_.emit(v, R"(
    float* const z = $z$;  $z_note$
  )");
  if (conv) {
    const int ws = a_.index(BufferRole::workspace);
    body_.emit({{"col", at(ws)}, {"note", note(ws)}}, R"(
      float* const col = $col$;  $note$
    )");
    const std::int64_t channels = l.output_shape[1];
    const std::int64_t positions = l.output_shape[2] * l.output_shape[3];
    v["channels"] = literal(channels);
    v["positions"] = literal(positions);
    if (g.pool >= 0) {
      const LayerPlan& q = layer(g.pool);
      const bool max = q.kind == LayerKind::MaxPool2d;
      const std::int64_t band = q.options.kernel_h * l.output_shape[3];  // conv positions
      v["pooled"] = at(q.output_buffer);
      v["pooled_note"] = note(q.output_buffer);
      v["pool"] = "pool_" + std::to_string(g.pool);
      v["band"] = literal(band);
      v["pooled_row"] = literal(q.output_shape[3]);
      v["window_kind"] = max ? "max" : "avg";
      body_.emit(v, R"(
        float* const pooled = $pooled$;  $pooled_note$
      )");
      if (max && q.window_index_buffer == no_buffer) {  // inference: nothing reads it
        v["window"] = "nullptr";
        v["window_note"] = "// no backward: no window index";
        v["index"] = "k::WindowIndex8";
      } else if (max) {
        v["window"] = at(q.window_index_buffer);
        v["window_note"] = note(q.window_index_buffer);
        v["index"] = element(q.window_index_buffer);
      }
      if (max) {
        body_.emit(v, R"(
          $index$* const window = $window$;  $window_note$
        )");
      }
      body_.emit(v, R"(
        // Threads split each sample's output positions on whole rows of pool windows ($band$ =
        // kernel rows × output width), so each window is finished by the thread that computed it:
        // bias + activation along the rows just computed, then each window's $window_kind$, while
        // they are in cache.
        c::conv2d_forward<$geometry$, $band$>(pool, x, weight, col, z, [&](index_t n, c::Range columns) {
          for (index_t row = n * $channels$; row < (n + 1) * $channels$; ++row)
            for (index_t p = columns.begin; p < columns.end; ++p)
              k::bias_activation_forward<$act$, k::BiasAlong::rows, $channels$, $positions$, $has_bias$>(row, p, z, bias, z);
          for (index_t plane = n * $channels$; plane < (n + 1) * $channels$; ++plane)
            for (index_t oh = columns.begin / $band$; oh < columns.end / $band$; ++oh)
              for (index_t ow = 0; ow < $pooled_row$; ++ow)
      )");
      body_.indent();
      body_.indent();
      body_.indent();
      body_.indent();
      if (max)
        body_.emit(v, R"(
          k::max_pool_tiled_forward<$pool$, $index$>(plane, oh, ow, z, pooled, window);
        )");
      else
        body_.emit(v, R"(
          k::avg_pool_tiled_forward<$pool$>(plane, oh, ow, z, pooled);
        )");
      body_.outdent();
      body_.outdent();
      body_.outdent();
      body_.outdent();
      body_.line("});");
    } else if (epilogue) {
      body_.emit(v, R"(
        c::conv2d_forward<$geometry$, 1>(pool, x, weight, col, z, [&](index_t n, c::Range columns) {
          for (index_t row = n * $channels$; row < (n + 1) * $channels$; ++row)
            for (index_t p = columns.begin; p < columns.end; ++p)
              k::bias_activation_forward<$act$, k::BiasAlong::rows, $channels$, $positions$, $has_bias$>(row, p, z, bias, z);
        });
      )");
    } else {
      body_.emit(v, R"(
        c::conv2d_forward<$geometry$, 1>(pool, x, weight, col, z, [](index_t, c::Range) {});
      )");
    }
  } else {
    v["features"] = literal(l.output_shape[1]);
    if (epilogue) {
      body_.emit(v, R"(
        c::linear_forward<$geometry$>(pool, x, weight, z, [&](c::Range rows) {
          for (index_t n = rows.begin; n < rows.end; ++n)
            for (index_t o = 0; o < $features$; ++o)
              k::bias_activation_forward<$act$, k::BiasAlong::positions, $features$, $features$, $has_bias$>(n, o, z, bias, z);
        });
      )");
    } else {
      body_.emit(v, R"(
        c::linear_forward<$geometry$>(pool, x, weight, z, [](c::Range) {});
      )");
    }
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

void CpuKernelEmitter::emit_product_backward(const FusedGroup& g) {
  const LayerPlan& l = layer(g.product);
  const bool conv = l.kind == LayerKind::Conv2d;
  const bool bias = l.options.bias;
  const int dz_buffer = l.output_gradient_buffer;
  // The plan's gradient chain must lead into the product's output gradient: the fused passes
  // write it directly.
  if (g.activation >= 0 && layer(g.activation).input_gradient_buffer != dz_buffer)
    throw std::logic_error("fused activation's input gradient is not the product's");
  Printer::Vars v{{"name", group_name(g)},
                  {"x", at(l.input_buffer)},
                  {"x_note", note(l.input_buffer)},
                  {"dw", parameter(l.weight_offset, BufferRole::gradients)},
                  {"dw_note", "// gradient of " + weight_name(g.product)},
                  {"db", bias ? parameter(l.bias_offset, BufferRole::gradients) : "nullptr"},
                  {"db_note", bias ? "// gradient of " + bias_name(g.product) : "// no bias"},
                  {"dz", at(dz_buffer)},
                  {"dz_note", note(dz_buffer) + ": d(" + name_of(l.kind) + " output)"},
                  {"geometry", (conv ? "conv_" : "linear_") + std::to_string(g.product)},
                  {"has_bias", bias ? "true" : "false"},
                  {"accumulate", l.accumulates_input_gradient ? ", true" : ""}};
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      float* const dweight = $dw$;  $dw_note$
      float* const dbias = $db$;  $db_note$
      float* const dz = $dz$;  $dz_note$
  )");
  body_.indent();
  const bool needs_dx = l.input_gradient_buffer != no_buffer;
  if (needs_dx) {  // only dx reads the weights in backward
    v["w"] = parameter(l.weight_offset, BufferRole::parameters);
    v["w_note"] = "// " + weight_name(g.product);
    v["dx"] = at(l.input_gradient_buffer);
    v["dx_note"] = note(l.input_gradient_buffer);
    body_.emit(v, R"(
      const float* const weight = $w$;  $w_note$
      float* const dx = $dx$;  $dx_note$
    )");
  }
  if (conv) {
    const int ws = a_.index(BufferRole::workspace);
    body_.emit({{"col", at(ws)}, {"note", note(ws)}}, R"(
      float* const col = $col$;  $note$
    )");
  }
  const std::string act =
      g.activation >= 0 ? activation_type(layer(g.activation).kind) : std::string("k::Identity");
  v["act"] = act;
  if (g.activation >= 0) {
    v["y"] = at(layer(g.activation).output_buffer);
    v["y_note"] = note(layer(g.activation).output_buffer) + ": " +
                  name_of(layer(g.activation).kind) + " output, saved";
  }
  if (g.pool >= 0) {
    const LayerPlan& q = layer(g.pool);
    const bool max = q.kind == LayerKind::MaxPool2d;
    v["dpooled"] = at(q.output_gradient_buffer);
    v["dpooled_note"] = note(q.output_gradient_buffer) + ": d(pooled)";
    v["pool"] = "pool_" + std::to_string(g.pool);
    v["planes"] = literal(q.input_shape[0] * q.input_shape[1]);
    v["pooled_rows"] = literal(q.output_shape[2]);
    v["pooled_cols"] = literal(q.output_shape[3]);
    v["what"] = g.activation >= 0 ? std::string(" times the ") + name_of(layer(g.activation).kind) +
                                        "'s derivative"
                                  : "";
    v["y_arg"] = g.activation >= 0 ? "y" : "nullptr";
    body_.emit(v, R"(
      const float* const dpooled = $dpooled$;  $dpooled_note$
    )");
    if (g.activation >= 0)
      body_.emit(v, R"(
        const float* const y = $y$;  $y_note$
      )");
    if (max) {
      v["window"] = at(q.window_index_buffer);
      v["window_note"] = note(q.window_index_buffer);
      v["index"] = element(q.window_index_buffer);
      body_.emit(v, R"(
        const $index$* const window = $window$;  $window_note$
        // d(pooled) to each window's max$what$: every element of dz once.
        c::for_each_3d(pool, $planes$, $pooled_rows$, $pooled_cols$, [&](index_t plane, index_t oh, index_t ow) {
          k::max_pool_activation_backward<$act$, $pool$, $index$>(plane, oh, ow, dpooled, window, $y_arg$, dz);
        });
      )");
    } else {
      body_.emit(v, R"(
        // d(pooled) spread over each window$what$: every element of dz once.
        c::for_each_3d(pool, $planes$, $pooled_rows$, $pooled_cols$, [&](index_t plane, index_t oh, index_t ow) {
          k::avg_pool_activation_backward<$act$, $pool$>(plane, oh, ow, dpooled, $y_arg$, dz);
        });
      )");
    }
  } else if (g.activation >= 0) {
    const LayerPlan& a = layer(g.activation);
    const std::int64_t rows = conv ? l.output_shape[0] * l.output_shape[1] : l.output_shape[0];
    const std::int64_t positions = conv ? l.output_shape[2] * l.output_shape[3] : l.output_shape[1];
    v["dy"] = at(a.output_gradient_buffer);
    v["dy_note"] = note(a.output_gradient_buffer) + ": d(" + name_of(a.kind) + " output)";
    v["rows"] = literal(rows);
    v["positions"] = literal(positions);
    v["act_name"] = name_of(a.kind);
    body_.emit(v, R"(
      const float* const y = $y$;  $y_note$
      const float* const dy = $dy$;  $dy_note$
      // dz = $act_name$'(y) · dy
      c::for_each_2d(pool, $rows$, $positions$, [&](index_t row, index_t p) {
        k::activation_backward_2d<$act$, $positions$>(row, p, y, dy, dz);
      });
    )");
  }
  if (conv) {
    body_.emit(v, R"(
      c::conv2d_backward_weights<$geometry$, $has_bias$>(pool, x, dz, col, dweight, dbias);
    )");
    if (needs_dx)
      body_.emit(v, R"(
        c::conv2d_backward_input<$geometry$$accumulate$>(pool, dz, weight, col, dx);
      )");
  } else {
    body_.emit(v, needs_dx ? R"(
      c::linear_backward<$geometry$, $has_bias$$accumulate$>(pool, x, dz, weight, dweight, dbias, dx);
    )"
                           : R"(
      c::linear_backward<$geometry$, $has_bias$>(pool, x, dz, nullptr, dweight, dbias, nullptr);
    )");
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

}  // namespace staticnet::codegen
