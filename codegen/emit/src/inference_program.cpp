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

namespace {

// An inference program's main(): the runtime's infer_main over one backend's generated entry
// points. `entry` is infer_main's last argument, `forward_pass` the file the pass is in.
EmittedFile emit_infer_main(const ModelView& model, const std::string& backend,
                            const std::string& what, const std::string& forward_pass,
                            const std::string& runtime_header, const std::string& entry) {
  const std::string& n = model.names.name;
  const std::string file = n + "_infer_" + backend + ".cpp";
  Printer p;
  p.emit({{"banner", file_banner(model, file, what)},
          {"name", n},
          {"backend", backend},
          {"forward_pass", forward_pass},
          {"runtime", runtime_header},
          {"entry", entry}},
         R"(
    $banner$
    //
    // $name$_infer_$backend$ --help lists the options; the loop, the data formats and the weights
    // file are staticnet's inference runtime, the forward pass is $forward_pass$.
    #include <staticnet/runtime/inference/$runtime$>

    #include "$name$_infer.h"
    #include "$name$_kernels_$backend$.h"

    int main(int argc, char** argv) {
      namespace rt = staticnet::runtime;
      const rt::InferenceModel model = $name$::model_info();
      return rt::infer_main(argc, argv, model, $entry$);
    }
  )");
  return {file, p.text()};
}

}  // namespace

EmittedFile emit_cpu_infer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  return emit_infer_main(model, "cpu", "the CPU inference program", n + "_kernels_cpu.cpp",
                         "infer.hpp",
                         "{&" + n + "::cpu::fold_batch_norms, &" + n + "::cpu::infer}");
}

EmittedFile emit_cuda_infer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  return emit_infer_main(model, "cuda", "the CUDA inference program", n + "_kernels.cu",
                         "cuda_inference.hpp", "&" + n + "::cuda::make_inference");
}

}  // namespace staticnet::codegen
