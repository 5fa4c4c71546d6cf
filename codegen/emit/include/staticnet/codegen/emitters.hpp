#pragma once
// The emitters: each turns a ModelView into the text of files. They never recompute the plan;
// every shape, size, offset and lifetime they print is the plan's.
//
//   NAME_model.h           the plan as plain constants (emit_model_header)
//   NAME_trainer.h         the model as the trainer runtime sees it (emit_trainer_header)
//   backend "cpu":         NAME_kernels_cpu.h, NAME_kernels_cpu.cpp, NAME_trainer_cpu.cpp
//   backend "cuda":        NAME_kernels_cuda.h, NAME_kernels.cu, NAME_trainer_cuda.cpp
// An sn::Inference setup gives an inference program instead of a trainer: NAME_infer.h
// (emit_inference_header), and per backend the forward pass with the BatchNorms folded and the
// program's main(): NAME_kernels_cpu.h/.cpp and NAME_infer_cpu.cpp (emit_cpu_infer_main);
// NAME_kernels_cuda.h, NAME_kernels.cu and NAME_infer_cuda.cpp (emit_cuda_infer_main).
// A backend is one entry of backends().
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

struct EmittedFile {
  std::string name;  // file name, e.g. "simple_cnn_kernels_cpu.cpp"
  std::string text;
};

struct Backend {
  std::string_view name;  // "cpu"
  std::vector<EmittedFile> (*emit)(const ModelView& model);
};

// The backends this generator knows, by name.
std::span<const Backend> backends();

EmittedFile emit_model_header(const ModelView& model);
EmittedFile emit_trainer_header(const ModelView& model);
EmittedFile emit_inference_header(const ModelView& model);
std::vector<EmittedFile> emit_cpu_backend(const ModelView& model);
EmittedFile emit_cpu_trainer_main(const ModelView& model);
EmittedFile emit_cpu_infer_main(const ModelView& model);
std::vector<EmittedFile> emit_cuda_backend(const ModelView& model);
std::vector<EmittedFile> emit_mcu_backend(const ModelView& model);
EmittedFile emit_cuda_trainer_main(const ModelView& model);
EmittedFile emit_cuda_infer_main(const ModelView& model);

// The comment every emitted file opens with: what it is, where it came from, do not edit.
std::string file_banner(const ModelView& model, std::string_view file, std::string_view what);
// "batch 128, CrossEntropy, Adam, FP32"; "batch 1, Inference, FP32"
std::string setup_summary(const ModelView& model);

}  // namespace staticnet::codegen
