// The CPU backend: NAME_kernels_cpu.h/.cpp (the training step as C++ over the arena) and
// NAME_trainer_cpu.cpp (the trainer's entry point).
//
// Each fused group (fusion.hpp) becomes one section: a comment naming its layers, what the
// passes fuse and the tensors they touch (shapes and arena offsets), the geometry as literal
// structs, then forward_<group> and backward_<group>. The arithmetic is never written here: the
// emitted code calls the shared bodies of staticnet/kernels/ from the CPU launchers of
// staticnet/cpu/, with every size a literal.
#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>

#include "staticnet/codegen/arena_text.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"
#include "staticnet/print.hpp"

namespace staticnet::codegen {
namespace {

// Channels per call of BatchNorm1d's sums: a block's accumulators stay in registers, and a layer
// of 128 channels still splits over 8 calls.
constexpr std::int64_t batch_norm_1d_block = 16;

class CpuKernelEmitter {
 public:
  explicit CpuKernelEmitter(const ModelView& model)
      : m_(model), groups_(fuse(model, Target::cpu)), a_(model) {
    require_parameters(model);
  }

  EmittedFile header() const;
  EmittedFile source();

 private:
  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  std::string at(int buffer) { return a_.at(buffer); }
  std::string element(int buffer) const { return a_.element(buffer); }
  std::string parameter(std::int64_t element_offset, BufferRole region) {
    return a_.parameter(element_offset, region);
  }
  std::string note(int buffer) const { return a_.note(buffer); }

  void emit_section(const FusedGroup& g);
  void emit_geometry(const FusedGroup& g);
  void emit_product_forward(const FusedGroup& g);
  void emit_product_backward(const FusedGroup& g);
  void emit_activation(const FusedGroup& g);
  void emit_pool(const FusedGroup& g);
  void emit_norm(const FusedGroup& g);
  void emit_sum(const FusedGroup& g);
  void emit_grouped(const FusedGroup& g);
  void emit_global_pool(const FusedGroup& g);
  void emit_dropout(const FusedGroup& g);
  std::string fused_activation(const FusedGroup& g) const {
    return codegen::fused_activation(m_, g);
  }
  void input_gradient_vars(Printer::Vars& v, const LayerPlan& l) {
    codegen::input_gradient_vars(v, l, a_);
  }
  void emit_loss();
  void emit_update();
  void emit_entry_points();
  void emit_inference_entry_points();
  std::string fold_call(const FusedGroup& g);
  EmittedFile inference_header() const;

  const ModelView& m_;
  std::vector<FusedGroup> groups_;
  ArenaText a_;   // buffer names, and the accessors the body uses
  Printer body_;  // everything after the helpers
};

void CpuKernelEmitter::emit_geometry(const FusedGroup& g) {
  if (g.product >= 0 && layer(g.product).kind == LayerKind::Conv2d) {
    body_.emit(window_vars("conv_" + std::to_string(g.product), layer(g.product)), R"(
      constexpr k::Conv2dGeometry $name${
          .batch = $n$, .in_channels = $ci$, .in_height = $hi$, .in_width = $wi$,
          .out_channels = $co$, .out_height = $ho$, .out_width = $wo$,
          .kernel_h = $kh$, .kernel_w = $kw$, .stride_h = $sh$, .stride_w = $sw$,
          .pad_h = $ph$, .pad_w = $pw$};
    )");
  }
  if (g.product >= 0 && layer(g.product).kind == LayerKind::Linear) {
    const LayerPlan& l = layer(g.product);
    body_.emit({{"name", "linear_" + std::to_string(g.product)},
                {"n", literal(l.input_shape[0])},
                {"in", literal(l.input_shape[1])},
                {"out", literal(l.output_shape[1])}},
               R"(
          constexpr c::LinearGeometry $name${.batch = $n$, .in_features = $in$, .out_features = $out$};
        )");
  }
  if (g.grouped >= 0)
    emit_direct_conv_geometry(body_, layer(g.grouped), g.grouped);
  if (g.norm >= 0)
    emit_norm_geometry(body_, layer(g.norm), g.norm);
  if (g.folded >= 0)
    emit_norm_geometry(body_, layer(g.folded), g.folded);
  if (g.pool >= 0) {
    // A pool keeps its channels: "channels" is the input's.
    body_.emit(window_vars("pool_" + std::to_string(g.pool), layer(g.pool)), R"(
      constexpr k::Pool2dGeometry $name${
          .batch = $n$, .channels = $ci$, .in_height = $hi$, .in_width = $wi$,
          .out_height = $ho$, .out_width = $wo$, .kernel_h = $kh$, .kernel_w = $kw$,
          .stride_h = $sh$, .stride_w = $sw$, .pad_h = $ph$, .pad_w = $pw$};
    )");
  }
}

void CpuKernelEmitter::emit_section(const FusedGroup& g) {
  body_.line(section_rule(m_, g));
  if (g.view >= 0) {
    body_.line("// A view: its output is its input's storage, in both directions. No code.");
    body_.blank();
    return;
  }
  if (g.product >= 0) {
    const LayerPlan& p = layer(g.product);
    const bool conv = p.kind == LayerKind::Conv2d;
    const std::string act = g.activation >= 0 ? name_of(layer(g.activation).kind) : "";
    std::string forward = conv ? "Forward: per sample, im2col (into the workspace) times the "
                                 "weights is the convolution"
                               : "Forward: one GEMM, x · Wᵀ";
    std::vector<std::string> finish;
    if (g.folded >= 0)
      finish.push_back("adds the folded BatchNorm's shift");
    else if (p.options.bias)
      finish.push_back("adds the bias");
    if (g.activation >= 0)
      finish.push_back("applies the " + act +
                       (p.runs_backward ? " (kept: its backward reads it)" : ""));
    if (g.pool >= 0)
      finish.push_back(std::string(layer(g.pool).kind == LayerKind::MaxPool2d ? "max" : "avg") +
                       "-pools each window");
    if (!finish.empty()) {
      forward += "; then one pass over its output ";
      for (std::size_t i = 0; i < finish.size(); ++i)
        forward += (i == 0 ? "" : i + 1 == finish.size() ? " and " : ", ") + finish[i];
    }
    body_.line(wrap_comment(forward + ".", "// ", "//   "));
    if (p.runs_backward) {
      std::string back = "Backward: ";
      if (g.pool >= 0)
        back += "one pass routes d(pooled) through each window" +
                (g.activation >= 0 ? " and the " + act + "'s derivative" : std::string()) +
                " into d(" + name_of(p.kind) + " output); then ";
      else if (g.activation >= 0)
        back += "one pass applies the " + act + "'s derivative; then ";
      back += p.options.bias ? "dW and db" : "dW";
      back += p.input_gradient_buffer != no_buffer
                  ? ", and dx."
                  : " (no dx: no layer before this one has parameters).";
      body_.line(wrap_comment(back, "// ", "//   "));
    }
  }
  if (const std::string comment = group_comment(m_, g); !comment.empty())
    body_.line(comment);
  body_.line(tensor_table(m_, g, "im2col of one sample"));
  emit_geometry(g);
  body_.blank();
  if (g.product >= 0) {
    emit_product_forward(g);
    if (layer(g.product).runs_backward)
      emit_product_backward(g);
  } else if (g.norm >= 0) {
    emit_norm(g);
  } else if (g.sum >= 0) {
    emit_sum(g);
  } else if (g.grouped >= 0) {
    emit_grouped(g);
  } else if (g.global_pool >= 0) {
    emit_global_pool(g);
  } else if (g.dropout >= 0) {
    emit_dropout(g);
  } else if (g.activation >= 0) {
    emit_activation(g);
  } else if (g.pool >= 0) {
    emit_pool(g);
  }
}

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
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const weight = $w$;  $w_note$
      const float* const bias = $b$;  $b_note$
      float* const z = $z$;  $z_note$
  )");
  body_.indent();
  const bool epilogue = bias || g.activation >= 0 || g.pool >= 0;
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
  v["dx"] = at(q.input_gradient_buffer);
  v["dx_note"] = note(q.input_gradient_buffer);
  if (max)
    body_.emit(v, R"(
      void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
        const float* const dy = $dy$;  $dy_note$
        const $index$* const window = $window$;  $window_note$
        float* const dx = $dx$;  $dx_note$
        // Gathered per input element: the windows that hold it and chose it.
        c::for_each_2d(pool, $planes$, $in_plane$, [&](index_t plane, index_t p) {
          k::max_pool_backward<$pool$, $index$>(plane, p, dy, window, dx);
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
          k::avg_pool_backward<$pool$>(plane, p, dy, dx);
        });
      }

    )");
}

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
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  v["dy"] = at(dy_buffer);
  v["dy_note"] = note(dy_buffer) + (g.activation >= 0
                                        ? ": d(" + std::string(name_of(layer(g.activation).kind)) +
                                              " output), then d(BatchNorm output)"
                                        : ": d(output)");
  v["dgamma"] = parameter(l.weight_offset, BufferRole::gradients);
  v["dbeta"] = parameter(l.bias_offset, BufferRole::gradients);
  v["y_arg"] = g.activation >= 0 ? "y" : "nullptr";
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const x = $x$;  $x_note$
      const float* const stats = $stats$;  $stats_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const dy = $dy$;  $dy_note$
      float* const dgamma = $dgamma$;  // gradient of $gamma_note$
      float* const dbeta = $dbeta$;  // gradient of $beta_note$
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

void CpuKernelEmitter::emit_sum(const FusedGroup& g) {
  const LayerPlan& l = layer(g.sum);
  const int y_buffer = g.activation >= 0 ? layer(g.activation).output_buffer : l.output_buffer;
  Printer::Vars v{{"name", group_name(g)},
                  {"act", fused_activation(g)},
                  {"a", at(l.input_buffer)},
                  {"a_note", note(l.input_buffer)},
                  {"b", at(l.input2_buffer)},
                  {"b_note", note(l.input2_buffer)},
                  {"y", at(y_buffer)},
                  {"y_note", note(y_buffer) + (l.in_place ? " (in place)" : "")},
                  {"count", literal(l.output_shape.elements())}};
  body_.emit(v, R"(
    void forward_$name$(std::byte* arena, c::ThreadPool& pool) {
      const float* const a = $a$;  $a_note$
      const float* const b = $b$;  $b_note$
      float* const y = $y$;  $y_note$
      c::for_each(pool, $count$, [&](index_t i) { k::residual_add_forward<$act$>(i, a, b, y); });
    }

  )");
  if (!has_backward(m_, g))
    return;
  const int dy_buffer =
      g.activation >= 0 ? layer(g.activation).output_gradient_buffer : l.output_gradient_buffer;
  for (auto& [key, value] : sum_gradient_vars(l, dy_buffer, a_))
    v[key] = value;
  v["dy"] = at(dy_buffer);
  v["dy_note"] = note(dy_buffer);
  body_.emit(v, R"(
    void backward_$name$(std::byte* arena, c::ThreadPool& pool) {
      float* const dy = $dy$;  $dy_note$
  )");
  body_.indent();
  if (g.activation >= 0) {
    // Two passes: the derivative reads y everywhere before any input gradient is written, since
    // those buffers begin at the Add's backward step and may reuse y's bytes.
    body_.emit(v, R"(
      const float* const y = $y$;  $y_note$, saved
      c::for_each(pool, $count$, [&](index_t i) {
        k::residual_add_backward<$act$, k::GradientWrite::same_buffer, k::GradientWrite::same_buffer>(i, y, dy, nullptr, nullptr);
      });
    )");
  }
  if (v["first"] != "k::GradientWrite::same_buffer" ||
      v["second"] != "k::GradientWrite::same_buffer")
    body_.emit(v, R"(
      float* const da = $da$;  $da_note$
      float* const db = $db$;  $db_note$
      c::for_each(pool, $count$, [&](index_t i) {
        k::residual_add_backward<k::Identity, $first$, $second$>(i, nullptr, dy, da, db);
      });
    )");
  body_.outdent();
  body_.line("}");
  body_.blank();
}

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

void CpuKernelEmitter::emit_loss() {
  const LayerPlan& last = m_.layers.back();
  const int gradient = a_.loss_gradient();
  const int loss = a_.index(BufferRole::loss);
  Printer::Vars v{{"output", at(last.output_buffer)},
                  {"output_note", note(last.output_buffer)},
                  {"loss", at(loss)},
                  {"loss_note", note(loss)},
                  {"grad", at(gradient)},
                  {"grad_note", note(gradient)},
                  {"batch", literal(m_.batch())},
                  {"shape", shape_text(m_.output_shape)}};
  if (m_.setup.loss == LossKind::CrossEntropy) {
    const int labels = a_.index(BufferRole::labels);
    const int predictions = a_.index(BufferRole::predictions);
    v["labels"] = at(labels);
    v["labels_note"] = note(labels);
    v["predictions"] = at(predictions);
    v["predictions_note"] = note(predictions);
    v["classes"] = literal(m_.output_shape[1]);
    body_.emit(v, R"(
      // ==== Loss: softmax + cross-entropy over the logits $shape$, forward and backward ======
      // One pass per sample: the loss, the predicted class, and d(logits) of the batch mean.
      void loss_step(std::byte* arena, c::ThreadPool& pool) {
        const float* const logits = $output$;  $output_note$
        const std::int32_t* const labels = $labels$;  $labels_note$
        float* const loss = $loss$;  $loss_note$
        std::int32_t* const predicted = $predictions$;  $predictions_note$
        float* const dlogits = $grad$;  $grad_note$
        c::for_each(pool, $batch$, [&](index_t n) {
          k::softmax_cross_entropy<$batch$, $classes$>(n, logits, labels, loss, predicted, dlogits);
        });
      }

    )");
  } else {
    const int targets = a_.index(BufferRole::targets);
    v["targets"] = at(targets);
    v["targets_note"] = note(targets);
    v["elements"] = literal(m_.output_shape.elements() / m_.batch());
    body_.emit(v, R"(
      // ==== Loss: mean squared error over the output $shape$, forward and backward ===========
      void loss_step(std::byte* arena, c::ThreadPool& pool) {
        const float* const output = $output$;  $output_note$
        const float* const targets = $targets$;  $targets_note$
        float* const loss = $loss$;  $loss_note$
        float* const doutput = $grad$;  $grad_note$
        c::for_each(pool, $batch$, [&](index_t n) {
          k::mean_squared_error<$batch$, $elements$>(n, output, targets, loss, doutput);
        });
      }

    )");
  }
}

void CpuKernelEmitter::emit_update() {
  const int params = a_.index(BufferRole::parameters);
  const int grads = a_.index(BufferRole::gradients);
  Printer::Vars v{{"params", at(params)},
                  {"grads", at(grads)},
                  {"count", literal(m_.parameter_count)},
                  {"optimizer", name_of(m_.setup.optimizer)}};
  body_.emit(v, R"(
    // ==== Update: $optimizer$ over the whole contiguous parameter region, one loop ===========
    void update(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
      float* const params = $params$;  // parameters
      const float* const grads = $grads$;  // gradients
  )");
  body_.indent();
  switch (m_.setup.optimizer) {
    case OptimizerKind::SGD:
      body_.emit(v, R"(
        c::for_each(pool, $count$, [&](index_t i) { k::sgd_update(i, params, grads, constants); });
      )");
      break;
    case OptimizerKind::SGDMomentum:
      v["m1"] = at(a_.index(BufferRole::optimizer_moment1));
      body_.emit(v, R"(
        float* const velocity = $m1$;  // optimizer_moment1
        c::for_each(pool, $count$, [&](index_t i) {
          k::sgd_momentum_update(i, params, grads, velocity, constants);
        });
      )");
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      v["m1"] = at(a_.index(BufferRole::optimizer_moment1));
      v["m2"] = at(a_.index(BufferRole::optimizer_moment2));
      v["decoupled"] = m_.setup.optimizer == OptimizerKind::AdamW ? "true" : "false";
      body_.emit(v, R"(
        float* const m = $m1$;  // optimizer_moment1
        float* const v = $m2$;  // optimizer_moment2
        c::for_each(pool, $count$, [&](index_t i) {
          k::adam_update<$decoupled$>(i, params, grads, m, v, constants);
        });
      )");
      break;
  }
  body_.outdent();
  body_.line("}");
  body_.blank();
}

std::string CpuKernelEmitter::fold_call(const FusedGroup& g) {
  Printer p;
  p.emit(fold_vars(m_, g, a_),
         R"(
    {  // $span$: BatchNorm $norm$ into the $kind$ (layer $conv$)
      float* const weight = $w$;  $w_note$
      const float* const bias = $b$;  $b_note$
      const float* const gamma = $gamma$;  $gamma_note$
      float* const beta = $beta$;  $beta_note$
      const float* const running = $running$;  // non_trainable: running mean, then running variance
      c::for_each(pool, $channels$, [&](index_t ch) {
        k::fold_batch_norm<norm_$norm$, $per_channel$>(ch, weight, bias, gamma, beta, running);
      });
    }
  )");
  return p.text();
}

void CpuKernelEmitter::emit_inference_entry_points() {
  const GroupOrder order = group_order(m_, groups_);
  std::string forward_calls, folds;
  for (const FusedGroup* g : order.forward) {
    forward_calls +=
        (forward_calls.empty() ? "" : "\n") + inference_forward_line(m_, *g, "arena, pool");
    if (g->folded >= 0)
      folds += fold_call(*g);
  }
  if (folds.empty())
    folds = "// No BatchNorm to fold.\n";
  body_.emit({{"params", folds.starts_with("//") ? "std::byte*, c::ThreadPool&"
                                                 : "std::byte* arena, c::ThreadPool& pool"}},
             R"(
    }  // namespace

    // ==== Loading: the folded BatchNorms, once =================================================
    void fold_batch_norms($params$) {
  )");
  body_.indent();
  body_.emit(folds);
  body_.outdent();
  body_.emit({{"forward", forward_calls}}, R"(
    }

    // ==== The forward pass, in the plan's schedule =============================================
    void infer(std::byte* arena, c::ThreadPool& pool) {
      $forward$
    }
  )");
}

void CpuKernelEmitter::emit_entry_points() {
  if (!m_.training()) {
    emit_inference_entry_points();
    return;
  }
  const GroupOrder order = group_order(m_, groups_);
  std::vector<std::string> forward, backward;
  for (const FusedGroup* g : order.forward)
    forward.push_back(
        g->view >= 0 ? "// layer " + std::to_string(g->view) + ": Flatten, a view"
                     : "forward_" + group_name(*g) +
                           (differs_in_evaluation(*g) ? "(arena, pool, pass);" : "(arena, pool);"));
  for (const FusedGroup* g : order.backward)
    backward.push_back("backward_" + group_name(*g) + "(arena, pool);");
  const int grads = a_.index(BufferRole::gradients);
  Printer::Vars v{{"grads", at(grads)}, {"count", literal(m_.parameter_count)}};
  std::string forward_calls, backward_calls;
  for (const std::string& c : forward)
    forward_calls += (forward_calls.empty() ? "" : "\n") + c;
  for (const std::string& c : backward)
    backward_calls += (backward_calls.empty() ? "" : "\n") + c;
  v["forward"] = forward_calls;
  v["backward"] = backward_calls;
  body_.emit(v, R"(
    // ==== The step, in the plan's schedule ====================================================
    void forward(std::byte* arena, c::ThreadPool& pool, [[maybe_unused]] const Pass& pass) {
      $forward$
    }

    }  // namespace

    void train_step(std::byte* arena, const k::OptimizerConstants& constants, c::ThreadPool& pool) {
      c::zero(pool, $grads$, $count$);  // gradients: backward accumulates into them
      forward(arena, pool, Pass{.training = true, .seed = constants.seed, .step = constants.step});
      loss_step(arena, pool);
      $backward$
      update(arena, constants, pool);
    }

    void evaluate(std::byte* arena, c::ThreadPool& pool) {
      forward(arena, pool, Pass{.training = false});
      loss_step(arena, pool);
    }
  )");
}

EmittedFile CpuKernelEmitter::source() {
  for (const FusedGroup& g : groups_)
    emit_section(g);
  if (m_.training()) {
    emit_loss();
    emit_update();
  }
  emit_entry_points();

  const std::string file = m_.names.name + "_kernels_cpu.cpp";
  Printer p;
  const bool training = m_.training();
  p.emit({{"banner", file_banner(m_, file,
                                 training ? "the training step on the CPU, every size a literal"
                                          : "the forward pass on the CPU, every size a literal")},
          {"name", m_.names.name},
          {"total", grouped(m_.footprint.total().count)}},
         R"(
    $banner$
    //
    // All tensors live in one arena of $total$ bytes laid out by the plan ($name$_model.h names
    // every buffer and its offset). Each section below covers one group of layers fused into as
    // few passes as their buffers allow, names the tensors it touches with their arena offsets,
    // and gives its sizes as literal geometry. The arithmetic is staticnet/kernels/ (shared with
    // the CUDA backend), launched here by loops split across the thread pool; matrix products go
    // to OpenBLAS, one single-threaded call per thread.
    #include "$name$_kernels_cpu.h"

    #include <algorithm>
    #include <cstddef>
    #include <cstdint>

    #include <staticnet/cpu/conv2d.hpp>
    #include <staticnet/cpu/launch.hpp>
    #include <staticnet/cpu/linear.hpp>
    #include <staticnet/kernels/activations.hpp>
    #include <staticnet/kernels/batch_norm.hpp>
    #include <staticnet/kernels/bias_activation.hpp>
    #include <staticnet/kernels/dropout.hpp>
    #include <staticnet/kernels/global_pool.hpp>
    #include <staticnet/kernels/grouped_conv.hpp>
    #include <staticnet/kernels/losses.hpp>
    #include <staticnet/kernels/optimizers.hpp>
    #include <staticnet/kernels/pooling.hpp>
    #include <staticnet/kernels/residual_add.hpp>

    namespace $name$::cpu {

    namespace k = staticnet::kernels;
    namespace c = staticnet::cpu;
    using k::index_t;

    namespace {
  )");
  if (training)
    p.emit(R"(

      // Which forward pass runs: training (batch statistics, Dropout's masks drawn from the run's
      // seed and the step number) or evaluation (running statistics, no dropout).
      struct Pass {
        bool training = false;
        std::uint64_t seed = 0;
        std::int64_t step = 0;
      };
    )");
  p.emit(R"(

    // A buffer's first element, from its byte offset in the arena.
  )");
  std::string text = p.text() + a_.accessor_definitions() + "\n" + body_.text();
  text += "\n}  // namespace " + m_.names.name + "::cpu\n";
  return {file, text};
}

EmittedFile CpuKernelEmitter::inference_header() const {
  const std::string file = m_.names.name + "_kernels_cpu.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CPU forward pass's entry points")},
          {"name", m_.names.name}},
         R"(
    $banner$
    #pragma once
    #include <cstddef>

    #include <staticnet/cpu/thread_pool.hpp>

    namespace $name$::cpu {

    // Once, after the parameters and running statistics are in `arena` ($name$::arena_bytes of
    // $name$_model.h, 256-byte aligned): folds every BatchNorm the plan folded into the layer
    // before it, scaling that layer's weights and writing the shift over the BatchNorm's β. A
    // second call would fold twice.
    void fold_batch_norms(std::byte* arena, staticnet::cpu::ThreadPool& pool);

    // One forward pass over the batch in the input buffer, leaving the model's output in its
    // buffer ($name$::output). Allocates nothing; for a given thread count, the same inputs give
    // the same bits.
    void infer(std::byte* arena, staticnet::cpu::ThreadPool& pool);

    }  // namespace $name$::cpu
  )");
  return {file, p.text()};
}

EmittedFile CpuKernelEmitter::header() const {
  if (!m_.training())
    return inference_header();
  const std::string file = m_.names.name + "_kernels_cpu.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CPU training step's entry points")},
          {"name", m_.names.name},
          {"optimizer", optimizer_enum(m_.setup.optimizer)}},
         R"(
    $banner$
    #pragma once
    #include <cstddef>

    #include <staticnet/cpu/thread_pool.hpp>
    #include <staticnet/kernels/optimizers.hpp>

    namespace $name$::cpu {

    // The optimizer the update runs (the setup's).
    inline constexpr staticnet::kernels::Optimizer optimizer = $optimizer$;

    // One training step on `arena` ($name$::arena_bytes of $name$_model.h, 256-byte aligned), whose
    // input and labels (or targets) buffers hold the batch: zero the gradients, forward, loss,
    // backward, update. Leaves each sample's loss (and predicted class) in their buffers. Allocates
    // nothing; for a given thread count, the same inputs give the same bits.
    void train_step(std::byte* arena, const staticnet::kernels::OptimizerConstants& constants,
                    staticnet::cpu::ThreadPool& pool);

    // Forward and loss only, for evaluation: fills the loss (and predictions) buffers and leaves
    // parameters and optimizer state untouched.
    void evaluate(std::byte* arena, staticnet::cpu::ThreadPool& pool);

    }  // namespace $name$::cpu
  )");
  return {file, p.text()};
}

}  // namespace

std::vector<EmittedFile> emit_cpu_backend(const ModelView& model) {
  CpuKernelEmitter emitter(model);
  std::vector<EmittedFile> files;
  files.push_back(emitter.header());
  files.push_back(emitter.source());
  files.push_back(model.training() ? emit_cpu_trainer_main(model) : emit_cpu_infer_main(model));
  return files;
}

}  // namespace staticnet::codegen
