// NAME_model.h: the plan as plain constants, for trainers and for embedded projects that size
// their own buffer without staticnet's headers (as ahead-of-time compilers ship bundle headers).
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "staticnet/buffer_table.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

std::string dims_list(const Shape& s) {
  std::string text;
  for (int i = 0; i < s.rank; ++i)
    text += (i ? ", " : "") + std::to_string(s[i]);
  return text;
}

// A layer-side shape (one micro-batch's, under Accumulate<K>) with the whole batch's extent.
Shape whole_batch(const ModelView& model, Shape s) {
  s.dims[0] = model.batch();
  return s;
}

// What a buffer holds, for the comment beside it.
std::string buffer_comment(const ModelView& model, int index) {
  const Buffer& b = model.buffer(index);
  auto layer = [&](std::int64_t i) -> const LayerPlan& {
    return model.layers.at(static_cast<std::size_t>(i));
  };
  switch (b.role) {
    case BufferRole::parameters:
      if (model.setup.precision == PrecisionKind::Int8)
        return "[" + std::to_string(b.elements()) +
               "], each convolution's and Linear's int8 weights, layer by layer";
      return "[" + std::to_string(model.parameter_count) + "], layer by layer";
    case BufferRole::gradients:
      return "same layout as parameters";
    case BufferRole::optimizer_moment1:
      return model.setup.optimizer == OptimizerKind::SGDMomentum
                 ? "momentum buffer, same layout"
                 : "first moment (Adam m), same layout";
    case BufferRole::optimizer_moment2:
      return "second moment (Adam v), same layout";
    case BufferRole::input:
      return shape_text(whole_batch(model, model.input_shape));
    case BufferRole::arena_input:
      return shape_text(model.input_shape) + ", its bytes shared once its readers have run";
    case BufferRole::labels:
      return "(" + std::to_string(model.batch()) + "), class per sample";
    case BufferRole::targets:
      return shape_text(whole_batch(model, model.output_shape));
    case BufferRole::next_batch:
      return std::string("the next batch's ") +
             (!model.training()                            ? "input"
              : model.setup.loss == LossKind::CrossEntropy ? "input and labels"
                                                           : "input and targets") +
             ", laid out as above (Prefetch: it arrives while the step runs)";
    case BufferRole::workspace:
      return "scratch (one sample's im2col)";
    case BufferRole::parameter_copy:
      return "the parameters' working copy, same layout";
    case BufferRole::loss_scale:
      return "the loss scaler: scale (f32), steps since it changed (i32), found Inf (f32)";
    case BufferRole::quantization:
      return "[" + std::to_string(b.elements()) +
             "], per output channel of each convolution and Linear: bias, multiplier, shift";
    case BufferRole::loss:
      return "(" + std::to_string(model.batch()) + "), loss per sample";
    case BufferRole::predictions:
      return "(" + std::to_string(model.batch()) + "), predicted class per sample";
    case BufferRole::non_trainable:
      return "[" + std::to_string(b.elements()) +
             "], each BatchNorm's running mean then running variance, layer by layer";
    case BufferRole::batch_statistics:
      return "[" + std::to_string(b.elements()) + "] batch mean, then 1/sqrt(var + eps)" +
             (model.micro_batches() > 1 ? ", then backward's sums of the micro-batch" : "") +
             ", of " + std::to_string(b.layer) + " " + name_of(layer(b.layer).kind);
    case BufferRole::dropout_mask:
      return "[" + std::to_string(b.size) + "] one bit per element kept by " +
             std::to_string(b.layer) + " Dropout";
    case BufferRole::activation: {
      std::string text = shape_text(layer(b.layer).output_shape) + " output of " +
                         std::to_string(b.layer) + " " + name_of(layer(b.layer).kind);
      for (std::size_t j = static_cast<std::size_t>(b.layer) + 1; j < model.layers.size(); ++j)
        if (model.layers[j].in_place && model.layers[j].input_buffer == index)
          text += ", " + std::to_string(j) + " " + name_of(model.layers[j].kind);
      return text;
    }
    case BufferRole::window_index:
      return shape_text(layer(b.layer).output_shape) + " max position in window";
    case BufferRole::activation_gradient:
      if (b.first_step == model.loss_step)
        return shape_text(model.output_shape) + " d(output), from the loss";
      if (layer(b.layer).input2_gradient_buffer == index)
        return shape_text(layer(b.layer).input2_shape) + " d(second input of " +
               std::to_string(b.layer) + " " + name_of(layer(b.layer).kind) + ")";
      return shape_text(layer(b.layer).input_shape) + " d(input of " + std::to_string(b.layer) +
             " " + name_of(layer(b.layer).kind) + ")";
  }
  return "";
}

std::string step_name(const ModelView& model, std::size_t s) {
  const Step& step = model.schedule[s];
  switch (step.kind) {
    case StepKind::forward:
      return "forward " + std::to_string(step.layer) + " " +
             name_of(model.layers[static_cast<std::size_t>(step.layer)].kind);
    case StepKind::loss:
      return std::string("loss (") + name_of(model.setup.loss) + ")";
    case StepKind::backward:
      return "backward " + std::to_string(step.layer) + " " +
             name_of(model.layers[static_cast<std::size_t>(step.layer)].kind);
    case StepKind::update:
      return std::string("update (") + name_of(model.setup.optimizer) + ")";
    case StepKind::recompute:
      return "recompute " + std::to_string(step.layer) + " " +
             name_of(model.layers[static_cast<std::size_t>(step.layer)].kind);
  }
  return "";
}

// The input's dtype in the arena: the setup's, or int8 under Int8.
DType input_dtype(const ModelView& model) {
  const Buffer* in = model.find(BufferRole::input);
  if (!in)
    in = model.find(BufferRole::arena_input);
  return in ? in->dtype : model.setup.input_dtype;
}

void emit_step_constants(Printer& p, const ModelView& model) {
  const bool classes = model.setup.loss == LossKind::CrossEntropy;
  p.emit(
      {{"batch", literal(model.batch())},
       {"input", dims_list(model.input_shape.sample())},
       {"input_type", name_of(input_dtype(model))},
       {"output", dims_list(model.output_shape.sample())},
       {"parameters", literal(model.parameter_count)},
       {"layers", std::to_string(model.layers.size())},
       {"steps", std::to_string(model.schedule.size())},
       {"schedule", !model.training() ? "forward per layer (Inference)"
                    : model.micro_batches() > 1
                        ? "per micro-batch: forward per layer, loss, backward per layer (and any "
                          "recompute steps before a segment's backward); then "
                          "update"
                        : "forward per layer, loss, backward per layer, update"}},
      R"(
    // ---- The step ----------------------------------------------------------------------------
    inline constexpr std::int64_t batch = $batch$;
    inline constexpr std::int64_t input_sample[] = {$input$};  // one sample, $input_type$
    inline constexpr std::int64_t output_sample[] = {$output$};
    inline constexpr std::int64_t parameter_count = $parameters$;
    inline constexpr int layer_count = $layers$;
    inline constexpr int step_count = $steps$;  // $schedule$
  )");
  if (model.micro_batches() > 1)
    p.emit({{"k", literal(model.micro_batches())}, {"micro", literal(model.micro_batch())}}, R"(
      // Accumulate<$k$>: every step but the update runs once per micro-batch of micro_batch samples,
      // whose shapes the layers' buffers have; the batch's buffers hold all of them.
      inline constexpr std::int64_t micro_batches = $k$;
      inline constexpr std::int64_t micro_batch = $micro$;
    )");
  // An Inference setup has no loss, so neither labels nor targets.
  if (model.training() && classes) {
    p.emit({{"classes", literal(model.output_shape[1])}}, R"(
      inline constexpr std::int64_t classes = $classes$;  // CrossEntropy: i32 labels in [0, classes)
    )");
  } else if (model.training()) {
    p.emit({{"target", dims_list(model.output_shape.sample())}}, R"(
      inline constexpr std::int64_t target_sample[] = {$target$};  // MSE: f32 targets
    )");
  }
  p.blank();
}

void emit_arena(Printer& p, const ModelView& model) {
  const Footprint& f = model.footprint;
  const bool int8 = model.setup.precision == PrecisionKind::Int8;
  p.emit(
      {{"total", literal(f.total().count)},
       {"weights", literal(f.weights.count)},
       {"gradients", literal(f.gradients.count)},
       {"optimizer_state", literal(f.optimizer_state.count)},
       {"inputs", literal(f.inputs.count)},
       {"inputs_at", literal(model.region_offset[static_cast<std::size_t>(Region::inputs)])},
       {"workspace", literal(f.workspace.count)},
       {"activations", literal(f.activations.count)},
       {"alignment", int8 ? "16" : "256"},
       // Under Int8 the arena's first region is a microcontroller's flash, the rest its SRAM.
       {"int8", int8 ? "\n// Int8: the weights region (the int8 weights and the channel numbers) "
                       "is flash,\n// the rest SRAM: " +
                           model.names.name + "_mcu.hpp's mcu::arena_bytes."
                     : std::string()},
       {"non_trainable", f.non_trainable.count > 0
                             ? "\ninline constexpr std::int64_t non_trainable = " +
                                   literal(f.non_trainable.count) + ";"
                             : std::string()}},
      R"(
    // ---- The arena: one allocation, in regions (staticnet's Footprint) ----------------------------
    inline constexpr std::int64_t arena_bytes = $total$;$int8$
    inline constexpr std::int64_t arena_alignment = $alignment$;  // every buffer starts on this boundary
    namespace footprint {
    inline constexpr std::int64_t weights = $weights$;$non_trainable$
    inline constexpr std::int64_t gradients = $gradients$;
    inline constexpr std::int64_t optimizer_state = $optimizer_state$;
    inline constexpr std::int64_t inputs = $inputs$;
    inline constexpr std::int64_t inputs_at = $inputs_at$;  // the region's offset: one batch's data
    inline constexpr std::int64_t workspace = $workspace$;
    inline constexpr std::int64_t activations = $activations$;  // peak of the shared region
    }  // namespace footprint

  )");
}

// What the trainer holds in host memory beside the arena (training only).
void emit_host(Printer& p, const ModelView& model) {
  if (!model.training())
    return;
  const HostFootprint& h = model.host;
  p.emit({{"slots", literal(model.setup.batch_slots)},
          {"batch_slots", literal(h.batch_slots.count)},
          {"pinned_staging", literal(h.pinned_staging.count)},
          {"checkpoint_state", literal(h.checkpoint_state.count)},
          {"total", literal(h.total().count)}},
         R"(
    // ---- Host memory: what the trainer holds beside the arena (staticnet's HostFootprint) ------
    namespace host {
    inline constexpr int batch_slot_count = $slots$;  // BatchSlots<N>: batches the loader fills ahead
    inline constexpr std::int64_t batch_slots = $batch_slots$;  // f32 inputs, labels or targets
    inline constexpr std::int64_t pinned_staging = $pinned_staging$;  // the CUDA trainer's
    inline constexpr std::int64_t checkpoint_state = $checkpoint_state$;  // one f32 copy of the state
    inline constexpr std::int64_t total = $total$;  // what a device sharing host memory adds
    }  // namespace host

  )");
}

// "enum class Role : std::uint8_t { parameters, ... };": `count` enumerators, spelled by name_of.
template <class Enum>
std::string enum_declaration(const std::string& name, int count) {
  std::string text = "enum class " + name + " : std::uint8_t {";
  for (int i = 0; i < count; ++i)
    text += std::string(i ? ", " : " ") + name_of(static_cast<Enum>(i));
  return text + " };";
}

// The buffer table's columns (staticnet/buffer_table.hpp) as struct Buffer's members, and one
// buffer's row of values, each as wide as `widths` says (the widest value of its column).
template <class Column>
void for_each_column(const Buffer& b, Column&& column) {
  visit_buffer_columns(b, [&](const char* name, auto value) {
    using T = decltype(value);
    if constexpr (std::is_same_v<T, DType>)
      column(name, "DType", "DType::" + std::string(name_of(value)));
    else if constexpr (std::is_same_v<T, BufferRole>)
      column(name, "Role", "Role::" + std::string(name_of(value)));
    else
      column(name, "std::int64_t", literal(static_cast<std::int64_t>(value)));
  });
}

void emit_buffers(Printer& p, const ModelView& model) {
  std::string members;
  for_each_column(Buffer{}, [&](const char* name, const std::string& type, const std::string&) {
    members += "  " + type + " " + name + ";\n";
  });
  p.emit({{"dtypes", enum_declaration<DType>("DType", dtype_count)},
          {"roles", enum_declaration<BufferRole>("Role", buffer_role_count)},
          {"members", members}},
         R"(
    // ---- Buffers: `elements` values of `dtype` in bytes [offset, offset + bytes) of the arena
    // (a Dropout's mask: bits packed into u8), alive from first_step to last_step of the
    // schedule; buffers alive at the same step never share a byte. What each holds (`role`) and
    // the layer it belongs to (its output or a gradient of it; -1: none). The plan's buffer table, in columns: the analyzer's
    // probe writes the same columns (staticnet/buffer_table.hpp).
    $dtypes$
    $roles$
    struct Buffer {
    $members$};
  )");
  // Each column as wide as its widest value, the values right-aligned (numbers) or left-aligned.
  std::vector<std::size_t> widths;
  for (const Buffer& b : model.buffers) {
    std::size_t c = 0;
    for_each_column(b, [&](const char*, const std::string&, const std::string& value) {
      if (widths.size() <= c)
        widths.push_back(0);
      widths[c] = std::max(widths[c], value.size());
      ++c;
    });
  }
  std::size_t width = 0;
  for (std::size_t i = 0; i < model.buffers.size(); ++i)
    width = std::max(width, buffer_name(model, static_cast<int>(i)).size());
  p.line("// clang-format off");
  for (std::size_t i = 0; i < model.buffers.size(); ++i) {
    std::string name = buffer_name(model, static_cast<int>(i));
    name.resize(width, ' ');
    std::string values = "{";
    std::size_t c = 0;
    for_each_column(model.buffers[i],
                    [&](const char*, const std::string& type, const std::string& value) {
                      const std::string padding(widths[c] - value.size(), ' ');
                      const std::string cell = value + (++c < widths.size() ? ", " : "}");
                      values += type == "std::int64_t" ? padding + cell : cell + padding;
                    });
    p.line("inline constexpr Buffer " + name + " = " + values + ";  // " +
           buffer_comment(model, static_cast<int>(i)));
  }
  p.line("// clang-format on");
  p.line("// Every buffer, in the plan's order.");
  std::string all = "inline constexpr Buffer buffers[] = {";
  for (std::size_t i = 0; i < model.buffers.size(); ++i) {
    const std::string item =
        buffer_name(model, static_cast<int>(i)) + (i + 1 < model.buffers.size() ? ", " : "};");
    if (display_width(all) + item.size() > line_width) {
      p.line(all);
      all = "    ";
    }
    all += item;
  }
  p.line(all);
  p.line("// The model's output (its last layer's), which the " +
         std::string(model.training() ? "loss reads" : "host reads after the forward pass") + ".");
  p.line("inline constexpr const Buffer& output = " +
         buffer_name(model, model.layers.back().output_buffer) + ";");
  p.blank();
}

// One row of a Tensor table.
void tensor_row(Printer& p, const std::string& name, std::int64_t offset, const Shape& shape,
                std::int64_t fan_in, const char* init) {
  std::string dims;
  for (int i = 0; i < shape.rank; ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  p.emit({{"name", name},
          {"offset", literal(offset)},
          {"elements", literal(shape.elements())},
          {"rank", std::to_string(shape.rank)},
          {"shape", dims},
          {"fan_in", literal(fan_in)},
          {"init", init}},
         R"({"$name$", $offset$, $elements$, $rank$, {$shape$}, $fan_in$, Init::$init$},)");
}

// Under Int8: where each convolution's and Linear's int8 weights and int32 channel numbers are, in
// the layout the quantizer writes and the mcu backend reads (plan.hpp's quantized_parameters).
void emit_quantized_parameters(Printer& p, const ModelView& model) {
  p.emit(R"(
    // ---- Quantized parameters (Int8): each convolution's and Linear's int8 weights at element
    // offset `weights` of `parameters`, and its channel numbers at element offset `numbers` of
    // `quantization`: `channels` int32 biases, as many multipliers, as many shifts. Names are the
    // layers' PyTorch module numbers; a BatchNorm after a layer is folded into it.
    struct QuantizedTensor {
      const char* name;
      std::int64_t weights, weight_elements;
      int rank;
      std::int64_t shape[4];
      std::int64_t numbers, channels;
    };
    inline constexpr QuantizedTensor quantized_tensors[] = {
  )");
  p.indent();
  std::size_t count = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerPlan& l = model.layers[i];
    if (!detail::is_quantized_product(l.kind))
      continue;
    const Shape shape = weight_shape(l);
    std::string dims;
    for (int d = 0; d < shape.rank; ++d)
      dims += (d ? ", " : "") + std::to_string(shape[d]);
    p.emit({{"name", std::to_string(i)},
            {"weights", literal(l.weight_offset)},
            {"elements", literal(shape.elements())},
            {"rank", std::to_string(shape.rank)},
            {"shape", dims},
            {"numbers", literal(l.bias_offset)},
            {"channels", literal(l.output_shape[1])}},
           R"({"$name$", $weights$, $elements$, $rank$, {$shape$}, $numbers$, $channels$},)");
    ++count;
  }
  p.outdent();
  p.emit({{"count", std::to_string(count)}}, R"(
    };
    inline constexpr int quantized_tensor_count = $count$;

  )");
}

void emit_parameters(Printer& p, const ModelView& model) {
  if (model.setup.precision == PrecisionKind::Int8) {
    emit_quantized_parameters(p, model);
    return;
  }
  p.emit(R"(
    // ---- Parameters: element offsets into `parameters` (and into gradients and optimizer state,
    // which share the layout), PyTorch's state-dict names for the model's layers as numbered
    // modules (a Residual's body, shortcut and Add take the next numbers), and how PyTorch
    // initialises each: uniform in ±1/√fan_in (Linear, Conv2d; fan_in = the inputs each output
    // sums), or BatchNorm's γ = 1 and β = 0.
    enum class Init { uniform, ones, zeros };
    struct Tensor {
      const char* name;
      std::int64_t offset, elements;
      int rank;
      std::int64_t shape[4];
      std::int64_t fan_in;
      Init init;
    };
    inline constexpr Tensor parameter_tensors[] = {
  )");
  p.indent();
  std::size_t count = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerPlan& l = model.layers[i];
    if (l.parameters == 0)
      continue;
    const auto index = static_cast<std::int64_t>(i);
    const bool norm = is_batch_norm(l.kind);
    const std::int64_t fan = fan_in(l);
    tensor_row(p, weight_name(index), l.weight_offset, weight_shape(l), fan,
               norm ? "ones" : "uniform");
    ++count;
    if (has_bias(l)) {
      tensor_row(p, bias_name(index), l.bias_offset, Shape{l.output_shape[1]}, fan,
                 norm ? "zeros" : "uniform");
      ++count;
    }
  }
  p.outdent();
  p.emit({{"count", std::to_string(count)}}, R"(
    };
    inline constexpr int parameter_tensor_count = $count$;

  )");
  if (model.non_trainable_count == 0)
    return;
  p.emit({{"count", literal(model.non_trainable_count)}}, R"(
    // ---- Non-trainable state: BatchNorm's running statistics, element offsets into
    // `non_trainable` (updated by every training step, read in evaluation, never by the
    // optimizer). PyTorch also keeps "<layer>.num_batches_tracked", the training steps taken.
    inline constexpr std::int64_t non_trainable_count = $count$;
    inline constexpr Tensor non_trainable_tensors[] = {
  )");
  p.indent();
  std::size_t tensors = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerPlan& l = model.layers[i];
    if (l.non_trainable == 0)
      continue;
    const std::string layer = std::to_string(i);
    const std::int64_t channels = l.non_trainable / 2;
    tensor_row(p, layer + ".running_mean", l.statistics_offset, Shape{channels}, 1, "zeros");
    tensor_row(p, layer + ".running_var", l.statistics_offset + channels, Shape{channels}, 1,
               "ones");
    tensors += 2;
  }
  p.outdent();
  p.emit({{"count", std::to_string(tensors)}}, R"(
    };
    inline constexpr int non_trainable_tensor_count = $count$;

  )");
}

void emit_layer_table(Printer& p, const ModelView& model) {
  p.line(model.training() ? "// ---- Layers, and the schedule of one training step"
                          : "// ---- Layers, and the schedule of one forward pass");
  p.line("//   #  layer                                 input               output");
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerPlan& l = model.layers[i];
    std::string index = std::to_string(i);
    if (index.size() < 2)
      index.insert(0, " ");  // right-aligned in two columns
    p.line("//  " + index + "  " + pad(describe_layer(l), 38) + pad(shape_text(l.input_shape), 20) +
           shape_text(l.output_shape));
  }
  std::string steps = "//   steps:";
  for (std::size_t s = 0; s < model.schedule.size(); ++s) {
    const std::string item = " " + std::to_string(s) + " " + step_name(model, s) + ";";
    if (steps.size() + item.size() > 100) {
      p.line(steps);
      steps = "//  ";
    }
    steps += item;
  }
  p.line(steps);
}

}  // namespace

EmittedFile emit_model_header(const ModelView& model) {
  const std::string file = model.names.name + "_model.h";
  Printer p;
  p.emit({{"banner", file_banner(model, file,
                                 model.training()
                                     ? "the memory plan of one training step, as plain constants"
                                     : "the memory plan of one forward pass, as plain constants")}},
         R"(
    $banner$
    //
    // Needs only <cstdint>: an embedded project includes it without staticnet's headers and sizes
    // its one buffer by arena_bytes. Offsets are in bytes from the start of that buffer.
    #pragma once
    #include <cstdint>

  )");
  p.emit({{"name", model.names.name}}, R"(
    namespace $name$ {

  )");
  emit_step_constants(p, model);
  emit_arena(p, model);
  emit_host(p, model);
  emit_buffers(p, model);
  emit_parameters(p, model);
  emit_layer_table(p, model);
  p.emit({{"name", model.names.name}}, R"(

    }  // namespace $name$
  )");
  return {file, p.text()};
}

}  // namespace staticnet::codegen
