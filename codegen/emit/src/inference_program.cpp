// NAME_infer.h (what the inference runtime needs to know about the model, from NAME_model.h),
// NAME_infer_cpu.cpp and NAME_infer_cuda.cpp (the inference programs' main()), for sn::Inference
// setups.
#include <string>

#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {

EmittedFile emit_inference_header(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_infer.h";
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the model as the inference runtime sees it")},
          {"name", n},
          {"model_type", string_literal(model.names.model_type)},
          {"setup_type", string_literal(model.names.setup_type)}},
         R"(
    $banner$
    #pragma once
    #include <iterator>

    #include <staticnet/runtime/inference/inference_model.hpp>

    #include "$name$_model.h"

    namespace $name$ {

    // The plan's numbers the forward-pass loop, the data loader and the weights file need.
    inline staticnet::runtime::InferenceModel model_info() {
      staticnet::runtime::InferenceModel m;
      m.name = "$name$";
      m.model_type = $model_type$;
      m.setup_type = $setup_type$;
      m.batch = batch;
      m.sample_shape.assign(std::begin(input_sample), std::end(input_sample));
      m.output_shape.assign(std::begin(output_sample), std::end(output_sample));
      m.parameter_count = parameter_count;
      m.arena_bytes = arena_bytes;
      m.weights = footprint::weights;
      m.inputs = footprint::inputs;
      m.workspace = footprint::workspace;
      m.activations = footprint::activations;
      m.parameters_at = parameters.offset;
      m.input_at = input.offset;
      m.output_at = output.offset;
      for (const Tensor& t : parameter_tensors)
        m.parameters.push_back({t.name, {t.shape, t.shape + t.rank}, t.offset, t.fan_in, {}});
  )");
  p.indent();
  if (model.non_trainable_count > 0)
    p.emit(R"(
      m.non_trainable_count = non_trainable_count;
      m.non_trainable = footprint::non_trainable;
      m.non_trainable_at = non_trainable.offset;
      for (const Tensor& t : non_trainable_tensors)
        m.non_trainable_tensors.push_back({t.name, {t.shape, t.shape + t.rank}, t.offset, t.fan_in, {}});
    )");
  p.line("return m;");
  p.outdent();
  p.emit({{"name", n}}, R"(
    }

    }  // namespace $name$
  )");
  return {file, p.text()};
}

EmittedFile emit_cpu_infer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_infer_cpu.cpp";
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the CPU inference program")}, {"name", n}}, R"(
    $banner$
    //
    // $name$_infer_cpu --help lists the options; the loop, the data formats and the weights file
    // are staticnet's inference runtime, the forward pass is $name$_kernels_cpu.cpp.
    #include <staticnet/runtime/inference/infer.hpp>

    #include "$name$_infer.h"
    #include "$name$_kernels_cpu.h"

    int main(int argc, char** argv) {
      namespace rt = staticnet::runtime;
      const rt::InferenceModel model = $name$::model_info();
      return rt::infer_main(argc, argv, model,
                            {&$name$::cpu::fold_batch_norms, &$name$::cpu::infer});
    }
  )");
  return {file, p.text()};
}

EmittedFile emit_cuda_infer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_infer_cuda.cpp";
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the CUDA inference program")}, {"name", n}}, R"(
    $banner$
    //
    // $name$_infer_cuda --help lists the options; the loop, the data formats and the weights file
    // are staticnet's inference runtime, the forward pass is $name$_kernels.cu.
    #include <staticnet/runtime/inference/cuda_inference.hpp>

    #include "$name$_infer.h"
    #include "$name$_kernels_cuda.h"

    int main(int argc, char** argv) {
      namespace rt = staticnet::runtime;
      const rt::InferenceModel model = $name$::model_info();
      return rt::infer_main(argc, argv, model, &$name$::cuda::make_inference);
    }
  )");
  return {file, p.text()};
}

}  // namespace staticnet::codegen
