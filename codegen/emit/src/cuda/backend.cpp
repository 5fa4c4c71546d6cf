// The CUDA backend: NAME_kernels_cuda.h (the step's entry point), NAME_kernels.cu (the training
// step as CUDA over the arena in device memory) and NAME_trainer_cuda.cpp (the trainer's main()).
// For an sn::Inference setup: the forward pass alone, with the BatchNorms the plan folded folded
// into the product before them (fold_batch_norms() scales the weights once), and
// NAME_infer_cuda.cpp.
//
// The sections follow the CPU backend's (fusion.hpp groups, the same headings and tensor tables),
// so the two files read side by side. Each pass is a launch of g::for_each (one thread per
// index) or g::for_each_block (a block per sum), calling the same __host__ __device__ body the
// CPU loops call, every bound a literal. Products go to the libraries: Linear to cuBLASLt, Conv2d
// to cuDNN's graph API (staticnet/cuda/), set up once, when the step is made, with the literal
// shapes written here.
//
// This file writes the kernels' files and each group's section heading; the trainer's and the
// inference program's main() come from trainer_main.cpp and inference_program.cpp.
#include "../kernel_includes.hpp"
#include "emitter.hpp"

namespace staticnet::codegen {

void CudaKernelEmitter::emit_geometry(const FusedGroup& g) {
  if (g.pool >= 0)
    emit_pool_geometry(kernels_, layer(g.pool), g.pool);
  if (g.grouped >= 0)
    emit_direct_conv_geometry(kernels_, layer(g.grouped), g.grouped);
  if (g.norm >= 0)
    emit_norm_geometry(kernels_, layer(g.norm), g.norm);
  if (g.folded >= 0)
    emit_norm_geometry(kernels_, layer(g.folded), g.folded);
  if (g.product >= 0 && layer(g.product).kind == LayerKind::Conv2d) {
    kernels_.emit(window_vars("conv_" + std::to_string(g.product), layer(g.product)), R"(
      constexpr k::Conv2dGeometry $name$_geometry{
          .batch = $n$, .in_channels = $ci$, .in_height = $hi$, .in_width = $wi$,
          .out_channels = $co$, .out_height = $ho$, .out_width = $wo$,
          .kernel_h = $kh$, .kernel_w = $kw$, .stride_h = $sh$, .stride_w = $sw$,
          .pad_h = $ph$, .pad_w = $pw$};
    )");
  }
}

void CudaKernelEmitter::emit_section(const FusedGroup& g) {
  kernels_.line(section_rule(m_, g));
  if (g.view >= 0) {
    emit_view(g);
    return;
  }
  if (g.product >= 0)
    kernels_.line(product_comment(g));
  if (const std::string comment = group_comment(m_, g); !comment.empty())
    kernels_.line(comment);
  kernels_.line(tensor_table(m_, g, "cuDNN's and cuBLASLt's scratch (their algorithms fit it)"));
  emit_geometry(g);
  kernels_.blank();
  if (g.product >= 0)
    emit_product(g);
  else if (is_described(g))
    emit_described(g);
}

EmittedFile CudaKernelEmitter::source() {
  const bool training = m_.training();
  for (const FusedGroup& g : groups_)
    emit_section(g);
  if (training) {
    emit_loss();
    emit_update();
    emit_entry_points();
  } else {
    emit_inference_entry_points();
  }

  const std::string file = m_.names.name + "_kernels.cu";
  Printer p;
  p.emit(
      {{"banner", file_banner(m_, file,
                              training ? "the training step on a CUDA GPU, every size a literal"
                                       : "the forward pass on a CUDA GPU, every size a literal")},
       {"name", m_.names.name},
       {"total", grouped(m_.footprint.total().count)},
       {"workspace", grouped(workspace_bytes())},
       {"graph", training ? "the trainer captures train_step() once as a CUDA graph."
                          : "the inference program captures infer() once as a CUDA graph."},
       {"constants",
        training ? "\n// The optimizer's scalars for the next step (Adam's bias corrections change "
                   "every step):\n// copied in before each replay of the step's graph. Module "
                   "memory, not the arena: 40 bytes in\n// the program image.\n__device__ "
                   "k::OptimizerConstants optimizer_constants;\n"
                 : ""}},
      R"(
    $banner$
    //
    // All tensors live in one device allocation of $total$ bytes laid out by the plan
    // ($name$_model.h names every buffer and its offset). Each section below covers one group of
    // layers fused into as few passes as their buffers allow, names the tensors it touches with
    // their arena offsets, and gives its sizes as literals. The elementwise arithmetic is
    // staticnet/kernels/ (the CPU backend runs the same functions), one thread per index, and
    // the sums over the batch staticnet/cuda/channel_sums.hpp, one block per result; Linear
    // runs on cuBLASLt and Conv2d on cuDNN, whose algorithms were chosen, when the step was made,
    // among those that need at most the plan's $workspace$-byte workspace. Nothing here
    // synchronises or allocates: $graph$
    #include "$name$_kernels_cuda.h"

    #include <cuda_runtime.h>

    #include <cstddef>
    #include <cstdint>
    #include <memory>
    #include <string>

    // @staticnet-includes@

    namespace $name$::cuda {

    namespace k = staticnet::kernels;
    namespace g = staticnet::cuda;
    using k::index_t;

    namespace {
    $constants$
    // A buffer's first element, from its byte offset in the arena (device memory).
  )");
  std::string members;
  for (const std::string& l : libraries_)
    members += "\n" + l;
  Printer libraries;
  libraries.emit({{"members", members}}, R"(
    // The library set-up of every product, made once with the step (handles bound to its
    // stream; each product's algorithms chosen for its literal shape).
    struct Libraries {
      explicit Libraries(cudaStream_t stream);  // below, after the geometry

      g::Libraries handles;$members$
    };

  )");
  std::string text =
      p.text() + a_.accessor_definitions() + "\n" + libraries.text() + kernels_.text();
  text += "\n}  // namespace " + m_.names.name + "::cuda\n";
  return {file, with_includes(text)};
}

EmittedFile CudaKernelEmitter::inference_header() const {
  const std::string file = m_.names.name + "_kernels_cuda.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CUDA forward pass's entry point")},
          {"name", m_.names.name}},
         R"(
    $banner$
    #pragma once
    #include <cuda_runtime.h>

    #include <cstddef>
    #include <memory>

    #include <staticnet/cuda/inference.hpp>

    namespace $name$::cuda {

    // The forward pass on `arena`: device memory of $name$::arena_bytes ($name$_model.h),
    // 256-byte aligned, whose input buffer holds the batch. Making it creates the cuBLASLt and
    // cuDNN handles on `stream` and chooses every product's algorithms within the plan's
    // workspace; its calls only enqueue work on `stream`. fold_batch_norms() runs once, after
    // the weights and running statistics are copied in.
    std::unique_ptr<staticnet::cuda::GeneratedInference> make_inference(std::byte* arena,
                                                                        cudaStream_t stream);

    }  // namespace $name$::cuda
  )");
  return {file, p.text()};
}

EmittedFile CudaKernelEmitter::header() const {
  if (!m_.training())
    return inference_header();
  const std::string file = m_.names.name + "_kernels_cuda.h";
  Printer p;
  p.emit({{"banner", file_banner(m_, file, "the CUDA training step's entry point")},
          {"name", m_.names.name},
          {"optimizer", optimizer_enum(m_.setup.optimizer)}},
         R"(
    $banner$
    #pragma once
    #include <cuda_runtime.h>

    #include <cstddef>
    #include <memory>

    #include <staticnet/cuda/step.hpp>
    #include <staticnet/kernels/optimizers.hpp>

    namespace $name$::cuda {

    // The optimizer the update runs (the setup's).
    inline constexpr staticnet::kernels::Optimizer optimizer = $optimizer$;

    // The step on `arena`: device memory of $name$::arena_bytes ($name$_model.h), 256-byte
    // aligned, whose input and labels (or targets) buffers hold the batch. Making it creates the
    // cuBLASLt and cuDNN handles on `stream` and chooses every product's algorithms within the
    // plan's workspace; its calls only enqueue work on `stream`.
    std::unique_ptr<staticnet::cuda::GeneratedStep> make_step(std::byte* arena, cudaStream_t stream);

    }  // namespace $name$::cuda
  )");
  return {file, p.text()};
}

std::vector<EmittedFile> emit_cuda_backend(const ModelView& model) {
  CudaKernelEmitter emitter(model);
  std::vector<EmittedFile> files;
  files.push_back(emitter.header());
  files.push_back(emitter.source());
  files.push_back(model.training() ? emit_cuda_trainer_main(model) : emit_cuda_infer_main(model));
  return files;
}

}  // namespace staticnet::codegen
