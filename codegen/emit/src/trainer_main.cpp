// NAME_trainer.h (what the trainer runtime needs to know about the model, from NAME_model.h)
// and NAME_trainer_cpu.cpp (the CPU trainer's main()).
#include <string>

#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {

EmittedFile emit_trainer_header(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_trainer.h";
  const bool ce = model.setup.loss == LossKind::CrossEntropy;
  const int moments = static_cast<int>(optimizer_state_copies(model.setup.optimizer));
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the model as the trainer runtime sees it")},
          {"name", n},
          {"model_type", string_literal(model.names.model_type)},
          {"setup_type", string_literal(model.names.setup_type)},
          {"precision", string_literal(name_of(model.setup.precision))},
          {"optimizer", std::string("staticnet::kernels::Optimizer::") +
                            (model.setup.optimizer == OptimizerKind::SGD           ? "sgd"
                             : model.setup.optimizer == OptimizerKind::SGDMomentum ? "sgd_momentum"
                             : model.setup.optimizer == OptimizerKind::Adam        ? "adam"
                                                                                   : "adamw")}},
         R"(
    $banner$
    #pragma once
    #include <iterator>

    #include <staticnet/runtime/trainer/model_info.hpp>

    #include "$name$_model.h"

    namespace $name$ {

    // The plan's numbers the training loop, the data loader and checkpoints need.
    inline staticnet::runtime::ModelInfo model_info() {
      staticnet::runtime::ModelInfo m;
      m.name = "$name$";
      m.model_type = $model_type$;
      m.setup_type = $setup_type$;
      m.precision = $precision$;
      m.batch = batch;
      m.sample_shape.assign(std::begin(input_sample), std::end(input_sample));
      m.optimizer = $optimizer$;
      m.parameter_count = parameter_count;
      m.arena.bytes = arena_bytes;
      m.arena.weights = footprint::weights;
      m.arena.gradients = footprint::gradients;
      m.arena.optimizer_state = footprint::optimizer_state;
      m.arena.inputs = footprint::inputs;
      m.arena.workspace = footprint::workspace;
      m.arena.activations = footprint::activations;
      m.arena.parameters_at = parameters.offset;
      m.arena.gradients_at = gradients.offset;
      m.arena.inputs_at = footprint::inputs_at;
      m.arena.input_at = input.offset;
      m.arena.loss_at = loss.offset;
      m.host.batch_slot_count = host::batch_slot_count;
      m.host.batch_slots = host::batch_slots;
      m.host.pinned_staging = host::pinned_staging;
      m.host.checkpoint_state = host::checkpoint_state;
  )");
  p.indent();
  if (model.setup.prefetch)
    p.emit(R"(
      m.arena.batch_bytes = next_batch.bytes;  // Prefetch: the batch's layout, mirrored there
      m.arena.next_batch_at = next_batch.offset;
    )");
  else
    p.line("m.arena.batch_bytes = footprint::inputs;");
  if (model.micro_batches() > 1)
    p.line("m.micro_batches = micro_batches;  // Accumulate<K>");
  if (moments >= 1)
    p.line("m.arena.moment1_at = optimizer_moment1.offset;");
  if (moments >= 2)
    p.line("m.arena.moment2_at = optimizer_moment2.offset;");
  if (model.find(BufferRole::loss_scale))
    p.line("m.arena.loss_scale_at = loss_scale.offset;  // Mixed<f16>: the loss scaler");
  if (ce)
    p.emit(R"(
      m.loss = staticnet::runtime::LossFunction::cross_entropy;
      m.classes = classes;
      m.arena.labels_at = labels.offset;
      m.arena.predictions_at = predictions.offset;
    )");
  else
    p.emit(R"(
      m.loss = staticnet::runtime::LossFunction::mean_squared_error;
      m.target_shape.assign(std::begin(target_sample), std::end(target_sample));
      m.arena.targets_at = targets.offset;
    )");
  p.emit({{"name", n}}, R"(
    using RuntimeInit = staticnet::runtime::ParameterTensor::Init;
    auto init = []($name$::Init i) {
      return i == $name$::Init::ones    ? RuntimeInit::ones
             : i == $name$::Init::zeros ? RuntimeInit::zeros
                                        : RuntimeInit::uniform;
    };
    for (const Tensor& t : parameter_tensors)
      m.parameters.push_back({t.name, {t.shape, t.shape + t.rank}, t.offset, t.fan_in, init(t.init)});
  )");
  if (model.non_trainable_count > 0)
    p.emit(R"(
      m.non_trainable_count = non_trainable_count;
      m.arena.non_trainable = footprint::non_trainable;
      m.arena.non_trainable_at = non_trainable.offset;
      for (const Tensor& t : non_trainable_tensors)
        m.non_trainable.push_back({t.name, {t.shape, t.shape + t.rank}, t.offset, t.fan_in, init(t.init)});
    )");
  p.line("return m;");
  p.outdent();
  p.emit({{"name", n}}, R"(
    }

    }  // namespace $name$
  )");
  return {file, p.text()};
}

EmittedFile emit_cpu_trainer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_trainer_cpu.cpp";
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the CPU trainer program")}, {"name", n}}, R"(
    $banner$
    //
    // $name$_trainer_cpu --help lists the options; the loop, the data formats and the checkpoints
    // are staticnet's trainer runtime, the step is $name$_kernels_cpu.cpp.
    #include <memory>

    #include <staticnet/runtime/trainer/cpu_backend.hpp>
    #include <staticnet/runtime/trainer/trainer_main.hpp>

    #include "$name$_kernels_cpu.h"
    #include "$name$_trainer.h"

    int main(int argc, char** argv) {
      namespace rt = staticnet::runtime;
      const rt::ModelInfo model = $name$::model_info();
      const rt::CpuSteps steps{&$name$::cpu::train_step, &$name$::cpu::evaluate};
      return rt::trainer_main(argc, argv, model, [&](int threads) {
        return std::make_unique<rt::CpuBackend>(model, steps, threads);
      });
    }
  )");
  return {file, p.text()};
}

EmittedFile emit_cuda_trainer_main(const ModelView& model) {
  const std::string& n = model.names.name;
  const std::string file = n + "_trainer_cuda.cpp";
  Printer p;
  p.emit({{"banner", file_banner(model, file, "the CUDA trainer program")}, {"name", n}}, R"(
    $banner$
    //
    // $name$_trainer_cuda --help lists the options; the loop, the data formats and the checkpoints
    // are staticnet's trainer runtime (the same as the CPU trainer's), the step is $name$_kernels.cu.
    #include <memory>

    #include <staticnet/runtime/trainer/cuda_backend.hpp>
    #include <staticnet/runtime/trainer/trainer_main.hpp>

    #include "$name$_kernels_cuda.h"
    #include "$name$_trainer.h"

    int main(int argc, char** argv) {
      namespace rt = staticnet::runtime;
      const rt::ModelInfo model = $name$::model_info();
      return rt::trainer_main(argc, argv, model, [&](int /*threads*/) {
        return std::make_unique<rt::CudaBackend>(model, &$name$::cuda::make_step);
      });
    }
  )");
  return {file, p.text()};
}

}  // namespace staticnet::codegen
