// The microcontroller backend: NAME_mcu.hpp/.cpp, int8 inference (TensorFlow Lite's scheme) as
// freestanding C++17 over one caller-provided arena: no heap, no exceptions, no RTTI, no threads,
// no OS, and nothing from the C library. Each fused group of the plan (fusion.hpp) becomes one
// call of a kernel in staticnet/kernels/int8/, with its shape as a literal struct and its tensors
// at their arena offsets; a folded BatchNorm is in the weights already, and an activation after a
// product or a sum is that call's clamp.
//
// What the plan cannot know, the numbers calibration gives (each tensor's scale and zero point,
// and the integer multipliers TensorFlow Lite derives from them), arrive as a Model the quantizer
// writes: the int8 weights and int32 channel numbers, laid out as the plan's parameters and
// quantization buffers, and a Quantization struct this file declares, one member per group that
// needs one.
#include <stdexcept>
#include <string>
#include <vector>

#include "quantize_program.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

// What a group's Quantization member is, if it has one.
enum class Parameters { none, product, sum, mean, activation };

class McuEmitter {
 public:
  explicit McuEmitter(const ModelView& model) : m_(model), groups_(fuse(model, Target::cpu)) {
    refuse_what_is_not_rendered();
    sram_base_ = model.region_offset[static_cast<int>(Region::inputs)];
  }

  std::vector<EmittedFile> emit() {
    for (const FusedGroup& g : groups_)
      emit_group(g);
    return {header(), source(), emit_quantize_program(m_, groups_)};
  }

 private:
  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  const std::string& name() const { return m_.names.name; }

  // The plan's offsets count from the start of its arena, whose first region (the weights) is in
  // flash here; the SRAM arena is the rest, from the (empty) inputs region on.
  std::string at(int buffer) const { return literal(m_.buffer(buffer).offset - sram_base_); }

  void refuse_what_is_not_rendered() const {
    auto refuse = [&](const std::string& why) {
      throw std::runtime_error("the mcu backend " + why);
    };
    if (m_.setup.precision != PrecisionKind::Int8 || m_.training())
      refuse("renders int8 inference only (sn::Inference<..., sn::Precision<Int8>>), not " +
             std::string(name_of(m_.setup.precision)) + (m_.training() ? " training" : ""));
    if (m_.batch() != 1)
      refuse(
          "runs one sample at a time, as a microcontroller does: the setup needs Batch<1>, not " +
          std::to_string(m_.batch()));
    for (std::size_t i = 0; i < m_.layers.size(); ++i) {
      const LayerPlan& l = m_.layers[i];
      const std::string which = "layer " + std::to_string(i) + " (" + name_of(l.kind) + ")";
      if (l.kind == LayerKind::LeakyReLU || l.kind == LayerKind::Sigmoid ||
          l.kind == LayerKind::Tanh)
        refuse("has no int8 " + std::string(name_of(l.kind)) + " yet: " + which);
      if (l.kind == LayerKind::AvgPool2d && !l.options.same_padding &&
          (l.options.pad_h > 0 || l.options.pad_w > 0))
        refuse("averages only over the input, as TensorFlow Lite's int8 pool does, and " + which +
               " counts its padding (Padding<P>; write PaddingSame or pad none)");
    }
  }

  // A product group's convolution or Linear: its GEMM-shaped product, or a convolution run
  // directly (fusion.hpp's two kinds, one int8 kernel here).
  static std::int64_t product_layer(const FusedGroup& g) {
    return g.product >= 0 ? g.product : g.grouped;
  }

  Parameters parameters_of(const FusedGroup& g) const {
    if (g.product >= 0 || g.grouped >= 0)
      return Parameters::product;
    if (g.sum >= 0)
      return Parameters::sum;
    if (g.global_pool >= 0)
      return Parameters::mean;
    if (g.activation >= 0)
      return Parameters::activation;
    return Parameters::none;
  }

  // The Quantization member of a group, with the comment that says what it serves, and its lines
  // in quantization_from() and for_each_member().
  void declare_parameters(const FusedGroup& g, const std::string& member) {
    static constexpr const char* types[] = {"", "ProductQuantization", "AddQuantization",
                                            "MeanQuantization", "Requantization"};
    const Parameters kind = parameters_of(g);
    members_.emit(
        {{"type", types[static_cast<int>(kind)]}, {"member", member}, {"what", group_title(m_, g)}},
        R"(
      q8::$type$ $member$;  // $what$
    )");
    std::string call;
    if (kind == Parameters::product)
      call = "product(" + std::to_string(product_layer(g)) + ")";
    else if (kind == Parameters::sum)
      call = "sum(" + std::to_string(g.sum) + ")";
    else if (kind == Parameters::mean)
      call = "mean(" + std::to_string(g.global_pool) + ", " +
             literal(layer(g.global_pool).input_shape[2] * layer(g.global_pool).input_shape[3]) +
             ")";
    else
      call = "activation(" + std::to_string(g.activation) + ")";
    fill_.emit({{"member", member}, {"call", call}}, R"(
      q.$member$ = source.$call$;
    )");
    visit_.emit({{"member", member}}, R"(
      visit(q.$member$);
    )");
  }

  void emit_group(const FusedGroup& g) {
    body_.line(section_rule(m_, g));
    const Parameters parameters = parameters_of(g);
    const std::string member = "layer_" + std::to_string(g.first);
    if (parameters != Parameters::none)
      declare_parameters(g, member);
    if (g.product >= 0 || g.grouped >= 0) {
      emit_product(layer(product_layer(g)), product_layer(g), member);
    } else if (g.sum >= 0) {
      const LayerPlan& l = layer(g.sum);
      body_.emit({{"n", literal(l.output_shape.elements())},
                  {"a", at(l.input_buffer)},
                  {"b", at(l.input2_buffer)},
                  {"y", at(l.output_buffer)},
                  {"member", member}},
                 R"(
          q8::add($n$, tensor(arena, $a$), tensor(arena, $b$), q.$member$, tensor(arena, $y$));
        )");
    } else if (g.global_pool >= 0) {
      const LayerPlan& l = layer(g.global_pool);
      body_.emit({{"c", literal(l.input_shape[1])},
                  {"plane", literal(l.input_shape[2] * l.input_shape[3])},
                  {"x", at(l.input_buffer)},
                  {"y", at(l.output_buffer)},
                  {"member", member}},
                 R"(
          q8::mean($c$, $plane$, tensor(arena, $x$), q.$member$, tensor(arena, $y$));
        )");
    } else if (g.pool >= 0) {
      emit_pool(g.pool);
    } else if (g.activation >= 0) {
      const LayerPlan& l = layer(g.activation);
      body_.emit({{"n", literal(l.output_shape.elements())},
                  {"x", at(l.input_buffer)},
                  {"y", at(l.output_buffer)},
                  {"member", member}},
                 R"(
          q8::requantize($n$, tensor(arena, $x$), q.$member$, tensor(arena, $y$));
        )");
    } else if (g.view >= 0 || g.dropout >= 0) {
      body_.line("// (a view of its input: nothing to run)");
    } else {
      throw std::runtime_error("the mcu backend has no int8 rendering of " + group_title(m_, g));
    }
    // A pool the plan fused after a product runs as its own call here: the product's int8
    // output is in the arena where the plan put it.
    if (g.pool >= 0 && (g.product >= 0 || g.grouped >= 0))
      emit_pool(g.pool);
    body_.blank();
  }

  // A window's sizes as a shape literal takes them (shapes.hpp): the input (channels, height,
  // width), the output's height and width, kernel, stride and the padding before.
  static Printer::Vars window_vars(const LayerPlan& l, const std::string& name) {
    const LayerDesc& d = l.options;
    return {{"name", name},
            {"ci", literal(l.input_shape[1])},
            {"hi", literal(l.input_shape[2])},
            {"wi", literal(l.input_shape[3])},
            {"ho", literal(l.output_shape[2])},
            {"wo", literal(l.output_shape[3])},
            {"kh", literal(d.kernel_h)},
            {"kw", literal(d.kernel_w)},
            {"sh", literal(d.stride_h)},
            {"sw", literal(d.stride_w)},
            {"pt", literal(d.pad_h)},
            {"pl", literal(d.pad_w)},
            {"what", describe_layer(l)}};
  }

  void emit_product(const LayerPlan& l, std::int64_t index, const std::string& member) {
    const std::int64_t channels = l.output_shape[1];
    Printer::Vars v{{"x", at(l.input_buffer)},
                    {"y", at(l.output_buffer)},
                    {"weights", literal(l.weight_offset)},
                    {"numbers", literal(l.bias_offset)},
                    {"channels", literal(channels)},
                    {"member", member},
                    {"shape", "conv_" + std::to_string(index)}};
    if (l.kind == LayerKind::Linear) {
      v["in"] = literal(l.input_shape[1]);
      v["out"] = literal(channels);
      body_.emit(v, R"(
        q8::fully_connected($in$, $out$, tensor(arena, $x$), q.$member$.input_zero_point,
                            model.weights + $weights$,
                            requantization(model, q.$member$, $numbers$, $channels$),
                            tensor(arena, $y$));
      )");
      return;
    }
    Printer::Vars shape = window_vars(l, "conv_" + std::to_string(index));
    shape["co"] = literal(channels);
    shape["g"] =
        literal(l.kind == LayerKind::DepthwiseConv2d ? l.input_shape[1] : l.options.groups);
    shapes_.emit(shape, R"(
      // $what$
      constexpr q8::ConvShape $name${$ci$, $hi$, $wi$, $co$, $ho$, $wo$, $kh$, $kw$, $sh$, $sw$, $pt$, $pl$, $g$};
    )");
    body_.emit(v, R"(
      q8::conv2d($shape$, tensor(arena, $x$), q.$member$.input_zero_point, model.weights + $weights$,
                 requantization(model, q.$member$, $numbers$, $channels$), tensor(arena, $y$));
    )");
  }

  void emit_pool(std::int64_t index) {
    const LayerPlan& l = layer(index);
    const std::string shape = "pool_" + std::to_string(index);
    shapes_.emit(window_vars(l, shape), R"(
      // $what$
      constexpr q8::PoolShape $name${$ci$, $hi$, $wi$, $ho$, $wo$, $kh$, $kw$, $sh$, $sw$, $pt$, $pl$};
    )");
    body_.emit({{"kind", l.kind == LayerKind::MaxPool2d ? "max" : "average"},
                {"shape", shape},
                {"x", at(l.input_buffer)},
                {"y", at(l.output_buffer)}},
               R"(
      q8::pool2d<q8::PoolKind::$kind$>($shape$, tensor(arena, $x$), tensor(arena, $y$));
    )");
  }

  EmittedFile header() const {
    const Buffer* weights = m_.find(BufferRole::parameters);
    const Buffer* numbers = m_.find(BufferRole::quantization);
    const Buffer* input = m_.find(BufferRole::arena_input);
    const int output = m_.layers.back().output_buffer;
    const std::int64_t sram =
        m_.footprint.total().count - m_.footprint.weights.count - m_.footprint.non_trainable.count;
    Printer p;
    p.emit({{"banner", file_banner(m_, name() + "_mcu.hpp",
                                   "int8 inference on a microcontroller, over one arena")},
            {"name", name()},
            {"arena", literal(sram)},
            {"input", literal(input->offset - sram_base_)},
            {"input_elements", literal(m_.input_shape.elements())},
            {"input_shape", shape_text(m_.input_shape)},
            {"output", at(output)},
            {"output_elements", literal(m_.output_shape.elements())},
            {"output_shape", shape_text(m_.output_shape)},
            {"weights", literal(weights->elements())},
            {"numbers", literal(numbers->elements())},
            {"members", members_.text()},
            {"fill", fill_.text()},
            {"visit", visit_.text()}},
           R"(
      $banner$
      //
      // Usage ($name$_quantize writes the source that defines quantized_model):
      //   alignas(16) static std::uint8_t arena[$name$::mcu::arena_bytes];
      //   std::int8_t* in = $name$::mcu::input(arena);   // quantize the sample into it
      //   $name$::mcu::invoke($name$::mcu::quantized_model, arena);
      //   const std::int8_t* out = $name$::mcu::output(arena);
      // (In $name$::mcu: $name$_model.h, the plan as constants, is namespace $name$.)
      #pragma once

      #include <cstddef>
      #include <cstdint>

      #include "staticnet/kernels/int8/elementwise.hpp"
      #include "staticnet/kernels/int8/pooling.hpp"
      #include "staticnet/kernels/int8/products.hpp"

      namespace $name$::mcu {

      namespace q8 = staticnet::kernels::int8;

      // The arena, in SRAM: the input and every activation, placed by the plan, which lets later
      // tensors take the input's bytes once its readers have run (invoke() overwrites it).
      // 16-byte aligned.
      inline constexpr std::size_t arena_bytes = $arena$;
      inline constexpr std::size_t arena_alignment = 16;
      // The input $input_shape$ and the output $output_shape$, int8, in the arena.
      inline constexpr std::size_t input_offset = $input$;
      inline constexpr std::size_t input_elements = $input_elements$;
      inline constexpr std::size_t output_offset = $output$;
      inline constexpr std::size_t output_elements = $output_elements$;
      // In flash: the int8 weights, and per output channel of each convolution and Linear its
      // int32 bias, multiplier and shift (three runs of C values per layer).
      inline constexpr std::size_t weight_count = $weights$;
      inline constexpr std::size_t channel_number_count = $numbers$;

      // What calibration gives: each tensor's scale and zero point, as the kernels take them.
      struct Quantization {
        q8::TensorQuantization input;   // the caller quantizes the input with these
        q8::TensorQuantization output;  // and reads the output's real values with these
        $members$
      };

      struct Model {
        const std::int8_t* weights;           // weight_count values
        const std::int32_t* channel_numbers;  // channel_number_count values
        const Quantization* quantization;
      };

      inline std::int8_t* input(std::uint8_t* arena) {
        return reinterpret_cast<std::int8_t*>(arena + input_offset);
      }
      inline const std::int8_t* output(const std::uint8_t* arena) {
        return reinterpret_cast<const std::int8_t*>(arena + output_offset);
      }

      // For the host (the quantizer, tests): a Quantization filled from `source`, which gives each
      // member by the index of the layer it serves: input(), output(), product(layer) (a
      // convolution or Linear), sum(layer) (an Add), mean(layer, plane) (a GlobalAvgPool2d) and
      // activation(layer) (an activation of its own).
      template <class Source>
      Quantization quantization_from(const Source& source) {
        Quantization q{};
        q.input = source.input();
        q.output = source.output();
        $fill$
        return q;
      }

      // Calls visit(member) on each member of q, in the order they are declared (to write q as an
      // aggregate initializer).
      template <class Visit>
      void for_each_member(const Quantization& q, Visit&& visit) {
        visit(q.input);
        visit(q.output);
        $visit$
      }

      // The quantized model: $name$_quantize writes the source that defines it.
      extern const Model quantized_model;

      // One forward pass over the input in the arena; the output is left in the arena.
      void invoke(const Model& model, std::uint8_t* arena);

      }  // namespace $name$::mcu
    )");
    return {name() + "_mcu.hpp", p.text()};
  }

  EmittedFile source() const {
    Printer p;
    p.emit({{"banner", file_banner(m_, name() + "_mcu.cpp",
                                   "int8 inference on a microcontroller, over one arena")},
            {"name", name()},
            {"shapes", shapes_.text()},
            {"body", body_.text()}},
           R"(
      $banner$
      #include "$name$_mcu.hpp"

      namespace $name$::mcu {
      namespace {

      [[maybe_unused]] std::int8_t* tensor(std::uint8_t* arena, std::size_t offset) {
        return reinterpret_cast<std::int8_t*>(arena + offset);
      }

      // A product's channel numbers: its biases, multipliers and shifts, C values each.
      [[maybe_unused]] q8::ChannelRequantization requantization(
          const Model& model, const q8::ProductQuantization& q, std::size_t offset,
          std::size_t channels) {
        const std::int32_t* numbers = model.channel_numbers + offset;
        return {numbers, numbers + channels, numbers + 2 * channels, q.output_zero_point, q.lowest,
                q.highest};
      }

      $shapes$
      }  // namespace

      // ([[maybe_unused]]: a model of views alone calls no kernel.)
      void invoke([[maybe_unused]] const Model& model, [[maybe_unused]] std::uint8_t* arena) {
        [[maybe_unused]] const Quantization& q = *model.quantization;
        $body$
      }

      }  // namespace $name$::mcu
    )");
    return {name() + "_mcu.cpp", p.text()};
  }

  const ModelView& m_;
  std::vector<FusedGroup> groups_;
  std::int64_t sram_base_ = 0;
  Printer shapes_, body_, members_, fill_, visit_;
};

}  // namespace

std::vector<EmittedFile> emit_mcu_backend(const ModelView& model) {
  return McuEmitter(model).emit();
}

}  // namespace staticnet::codegen
