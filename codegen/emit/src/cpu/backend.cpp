// The CPU backend: NAME_kernels_cpu.h/.cpp (the training step as C++ over the arena) and
// NAME_trainer_cpu.cpp (the trainer's entry point, trainer_main.cpp), or for an sn::Inference
// setup NAME_infer_cpu.cpp (inference_program.cpp).
//
// This file writes the kernels' files: each fused group (fusion.hpp) becomes one section, a comment
// naming its layers, what the passes fuse and the tensors they touch (shapes and arena offsets),
// the geometry as literal structs, then forward_<group> and backward_<group> written by the file of
// its layer kind in this folder. The arithmetic is never written here: the emitted code calls the
// shared bodies of staticnet/kernels/ from the CPU launchers of staticnet/cpu/, with every size a
// literal.
#include "../kernel_includes.hpp"
#include "emitter.hpp"

namespace staticnet::codegen {

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
  if (g.pool >= 0)
    emit_pool_geometry(body_, layer(g.pool), g.pool);
}

void CpuKernelEmitter::emit_section(const FusedGroup& g) {
  body_.line(section_rule(m_, g));
  if (g.view >= 0) {
    emit_view(g);
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
    emit_product(g);
  } else if (is_described(g)) {
    emit_described(g);
  }
}

EmittedFile CpuKernelEmitter::source() {
  for (const FusedGroup& g : groups_)
    emit_section(g);
  if (m_.training()) {
    emit_loss();
    emit_update();
    emit_working_copy();
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

    // @staticnet-includes@

    namespace $name$::cpu {

    namespace k = staticnet::kernels;
    namespace c = staticnet::cpu;
    using k::index_t;

    namespace {
  )");
  if (training && m_.micro_batches() == 1)
    p.emit(R"(

      // Which forward pass runs: training (batch statistics, Dropout's masks drawn from the run's
      // seed and the step number) or evaluation (running statistics, no dropout).
      struct Pass {
        bool training = false;
        std::uint64_t seed = 0;
        std::int64_t step = 0;
      };
    )");
  else if (training)
    p.emit(R"(

      // Which forward pass runs: training (batch statistics, Dropout's masks drawn from the run's
      // seed and the step number) or evaluation (running statistics, no dropout); and on which
      // micro-batch (Accumulate<K>), the slice of the batch it reads.
      struct Pass {
        bool training = false;
        std::uint64_t seed = 0;
        std::int64_t step = 0;
        index_t micro = 0;
      };
    )");
  p.emit(R"(

    // A buffer's first element, from its byte offset in the arena.
  )");
  std::string text = p.text() + a_.accessor_definitions() + "\n" + body_.text();
  text += "\n}  // namespace " + m_.names.name + "::cpu\n";
  return {file, with_includes(text)};
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

std::vector<EmittedFile> emit_cpu_backend(const ModelView& model) {
  CpuKernelEmitter emitter(model);
  std::vector<EmittedFile> files;
  files.push_back(emitter.header());
  files.push_back(emitter.source());
  files.push_back(model.training() ? emit_cpu_trainer_main(model) : emit_cpu_infer_main(model));
  return files;
}

}  // namespace staticnet::codegen
