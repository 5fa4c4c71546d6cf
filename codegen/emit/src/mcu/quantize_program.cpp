// NAME_quantize.cpp: the quantizer of an int8 model (runtime/quantize/quantize.hpp runs it). The
// mcu backend's groups rendered a second time, for the host: the int8 kernel calls NAME_mcu.cpp
// makes become a table (which tensor each reads and writes, what quantization_from() asks it by),
// and the same groups in float become the calibration's forward pass, each int8 tensor a float
// tensor of its own, computed by the shared float kernels (staticnet/kernels/) one element per
// call: calibration is a few hundred samples, and exactness matters more than speed.
#include "quantize_program.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "staticnet/codegen/naming.hpp"
#include "staticnet/codegen/printer.hpp"
#include "staticnet/codegen/section_text.hpp"
#include "staticnet/codegen/text.hpp"

namespace staticnet::codegen {
namespace {

class QuantizeProgram {
 public:
  QuantizeProgram(const ModelView& model, const std::vector<FusedGroup>& groups)
      : m_(model), groups_(groups) {}

  EmittedFile emit() {
    lay_out_float_tensors();
    tensors_.push_back({"input " + shape_text(m_.input_shape), m_.input_shape.elements(), -1});
    for (const FusedGroup& g : groups_)
      emit_group(g);
    return {name() + "_quantize.cpp", text()};
  }

 private:
  struct Tensor {
    std::string what;
    std::int64_t elements;
    int same_as;
  };

  const LayerPlan& layer(std::int64_t i) const { return m_.layers.at(static_cast<std::size_t>(i)); }
  const std::string& name() const { return m_.names.name; }

  // The checkpoint's float tensors, packed in layer order: each product's weight and bias, each
  // BatchNorm's γ and β, and apart from them each BatchNorm's running mean and variance.
  void lay_out_float_tensors() {
    std::int64_t parameters = 0, statistics = 0;
    auto row = [](Printer& p, const std::string& tensor, const Shape& shape, std::int64_t at) {
      std::string dims;
      for (int d = 0; d < shape.rank; ++d)
        dims += (d ? ", " : "") + std::to_string(shape[d]);
      p.line("{\"" + tensor + "\", {" + dims + "}, " + literal(at) + "},");
    };
    for (std::size_t i = 0; i < m_.layers.size(); ++i) {
      const LayerPlan& l = m_.layers[i];
      if (!detail::is_quantized_product(l.kind) && !is_batch_norm(l.kind))
        continue;
      const auto index = static_cast<std::int64_t>(i);
      weight_at_[index] = parameters;
      row(parameter_rows_, weight_name(index), weight_shape(l), parameters);
      parameters += weight_shape(l).elements();
      if (has_bias(l)) {
        bias_at_[index] = parameters;
        row(parameter_rows_, bias_name(index), Shape{l.output_shape[1]}, parameters);
        parameters += l.output_shape[1];
      }
      if (is_batch_norm(l.kind)) {
        const std::int64_t c = l.output_shape[1];
        statistics_at_[index] = statistics;
        row(statistic_rows_, std::to_string(i) + ".running_mean", Shape{c}, statistics);
        row(statistic_rows_, std::to_string(i) + ".running_var", Shape{c}, statistics + c);
        statistics += 2 * c;
      }
    }
    parameter_count_ = parameters;
    statistic_count_ = statistics;
  }

  int tensor_of_input(const LayerPlan& l, int k) const {
    const std::int32_t from = l.inputs[k];
    return from == model_input ? 0 : tensor_of_.at(from);
  }

  int add_tensor(const std::string& what, const Shape& shape, int same_as = -1) {
    tensors_.push_back({shape_text(shape) + " from " + what, shape.elements(), same_as});
    return static_cast<int>(tensors_.size()) - 1;
  }

  void emit_group(const FusedGroup& g) {
    const std::string span = layer_span(g) + " (" + group_title(m_, g) + ")";
    forward_.line("// " + span);
    int output = -1;
    if (g.product >= 0 || g.grouped >= 0) {
      const std::int64_t index = g.product >= 0 ? g.product : g.grouped;
      output = emit_product(g, index);
      if (g.pool >= 0)
        output = emit_pool(g.pool, output);
    } else if (g.pool >= 0) {
      output = emit_pool(g.pool, tensor_of_input(layer(g.pool), 0));
    } else if (g.sum >= 0) {
      const LayerPlan& l = layer(g.sum);
      const int a = tensor_of_input(l, 0), b = tensor_of_input(l, 1);
      output = add_tensor(layer_span(g), l.output_shape);
      op("sum", g.sum, a, b, output, g.activation >= 0, -1);
      forward_.emit({{"n", literal(l.output_shape.elements())},
                     {"act", g.activation >= 0 ? "k::ReLU" : "k::Identity"},
                     {"a", std::to_string(a)},
                     {"b", std::to_string(b)},
                     {"y", std::to_string(output)}},
                    R"(
        for (index_t i = 0; i < $n$; ++i)
          k::residual_add_forward<$act$>(i, t[$a$], t[$b$], t[$y$]);
      )");
    } else if (g.global_pool >= 0) {
      const LayerPlan& l = layer(g.global_pool);
      const int x = tensor_of_input(l, 0);
      const std::int64_t plane = l.input_shape[2] * l.input_shape[3];
      output = add_tensor(layer_span(g), l.output_shape);
      op("mean", g.global_pool, x, -1, output, false, -1);
      forward_.emit({{"c", literal(l.input_shape[1])},
                     {"plane", literal(plane)},
                     {"x", std::to_string(x)},
                     {"y", std::to_string(output)}},
                    R"(
        for (index_t c = 0; c < $c$; ++c)
          k::global_avg_pool_forward<$plane$>(c, t[$x$], t[$y$]);
      )");
    } else if (g.activation >= 0) {
      const LayerPlan& l = layer(g.activation);
      const int x = tensor_of_input(l, 0);
      output = add_tensor(layer_span(g), l.output_shape);
      op("activation", g.activation, x, -1, output, true, -1);
      forward_.emit({{"n", literal(l.output_shape.elements())},
                     {"x", std::to_string(x)},
                     {"y", std::to_string(output)}},
                    R"(
        for (index_t i = 0; i < $n$; ++i)
          k::activation_forward<k::ReLU>(i, t[$x$], t[$y$]);
      )");
    } else if (g.view >= 0 || g.dropout >= 0) {
      output = tensor_of_input(layer(g.first), 0);
      forward_.line("// (a view of its input: nothing to run)");
    } else {
      throw std::runtime_error("the quantizer has no float rendering of " + group_title(m_, g));
    }
    for (std::int64_t i = g.first; i <= g.last; ++i)
      tensor_of_[static_cast<std::int32_t>(i)] = output;
    forward_.blank();
  }

  // A convolution or Linear, its BatchNorm folded and its activation fused; returns its tensor.
  int emit_product(const FusedGroup& g, std::int64_t index) {
    const LayerPlan& l = layer(index);
    const int x = tensor_of_input(l, 0);
    const std::int64_t last = std::max({index, g.folded, g.activation});
    const int y =
        add_tensor(last > index ? "layers " + std::to_string(index) + "-" + std::to_string(last)
                                : "layer " + std::to_string(index),
                   l.output_shape);
    const std::string geometry = "conv_" + std::to_string(index);
    if (l.kind == LayerKind::Linear)
      geometries_.emit({{"name", geometry},
                        {"in", literal(l.input_shape.elements() / l.input_shape[0])},
                        {"out", literal(l.output_shape[1])}},
                       R"(
        // Linear as a 1×1 convolution of one position: PyTorch's (out, in) weights are its.
        constexpr k::Conv2dGeometry $name${
            .batch = 1, .in_channels = $in$, .in_height = 1, .in_width = 1,
            .out_channels = $out$, .out_height = 1, .out_width = 1, .kernel_h = 1, .kernel_w = 1};
      )");
    else
      emit_direct_conv_geometry(geometries_, l, index);

    // The bias it adds: a folded BatchNorm's shift, written over that BatchNorm's β, else its own.
    std::string bias = "nullptr";
    std::int64_t bias_at = -1;
    if (g.folded >= 0)
      bias_at = bias_at_.at(g.folded);
    else if (bias_at_.contains(index))
      bias_at = bias_at_.at(index);
    if (bias_at >= 0)
      bias = "p + " + literal(bias_at);
    if (g.folded >= 0)
      emit_fold(g, index);

    const std::int64_t weights = weight_shape(l).elements();
    products_.emit({{"name", std::to_string(index)},
                    {"at", literal(weight_at_.at(index))},
                    {"elements", literal(weights)},
                    {"bias", literal(bias_at)},
                    {"channels", literal(l.output_shape[1])},
                    {"int8", literal(l.weight_offset)},
                    {"numbers", literal(l.bias_offset)}},
                   R"(
      {"$name$", $at$, $elements$, $bias$, $channels$, $int8$, $numbers$},
    )");
    op("product", index, x, -1, y, g.activation >= 0, product_count_++);
    forward_.emit({{"geometry", geometry},
                   {"n", literal(l.output_shape.elements())},
                   {"has_bias", bias_at >= 0 ? "true" : "false"},
                   {"x", std::to_string(x)},
                   {"w", "p + " + literal(weight_at_.at(index))},
                   {"b", bias},
                   {"y", std::to_string(y)}},
                  R"(
      for (index_t i = 0; i < $n$; ++i)
        k::grouped_conv_forward<$geometry$, $has_bias$>(i, t[$x$], $w$, $b$, t[$y$]);
    )");
    if (g.activation >= 0)
      forward_.emit({{"n", literal(l.output_shape.elements())}, {"y", std::to_string(y)}}, R"(
        for (index_t i = 0; i < $n$; ++i)
          k::activation_forward<k::ReLU>(i, t[$y$], t[$y$]);
      )");
    return y;
  }

  // The fold of group g's BatchNorm into product `index`, as the FP32 inference programs fold
  // it (kernels/batch_norm.hpp): its weights scaled, its shift written over β.
  void emit_fold(const FusedGroup& g, std::int64_t index) {
    const LayerPlan& norm = layer(g.folded);
    emit_norm_geometry(geometries_, norm, g.folded);
    const std::int64_t channels = layer(index).output_shape[1];
    fold_.emit(
        {{"norm", "norm_" + std::to_string(g.folded)},
         {"per_channel", literal(weight_shape(layer(index)).elements() / channels)},
         {"channels", literal(channels)},
         {"w", "p + " + literal(weight_at_.at(index))},
         {"b", bias_at_.contains(index) ? "p + " + literal(bias_at_.at(index)) : "nullptr"},
         {"gamma", "p + " + literal(weight_at_.at(g.folded))},
         {"beta", "p + " + literal(bias_at_.at(g.folded))},
         {"running", "s + " + literal(statistics_at_.at(g.folded))},
         {"what", "layer " + std::to_string(g.folded) + " into layer " + std::to_string(index)}},
        R"(
      // $what$
      for (index_t c = 0; c < $channels$; ++c)
        k::fold_batch_norm<$norm$, $per_channel$>(c, $w$, $b$, $gamma$, $beta$, $running$);
    )");
  }

  // A max or average pool, which keeps its input's quantization; returns its tensor.
  int emit_pool(std::int64_t index, int x) {
    const LayerPlan& l = layer(index);
    emit_pool_geometry(geometries_, l, index);
    const int y = add_tensor("layer " + std::to_string(index), l.output_shape, x);
    op("pool", index, x, -1, y, false, -1);
    const bool max = l.kind == LayerKind::MaxPool2d;
    forward_.emit({{"geometry", "pool_" + std::to_string(index)},
                   {"c", literal(l.input_shape[1])},
                   {"positions", literal(l.output_shape[2] * l.output_shape[3])},
                   {"call", max ? "max_pool_forward" : "avg_pool_forward"},
                   {"template", max ? ", std::uint8_t" : ""},
                   {"window", max ? ", static_cast<std::uint8_t*>(nullptr)" : ""},
                   {"x", std::to_string(x)},
                   {"y", std::to_string(y)}},
                  R"(
      for (index_t c = 0; c < $c$; ++c)
        for (index_t at = 0; at < $positions$; ++at)
          k::$call$<$geometry$$template$>(c, at, t[$x$], t[$y$]$window$);
    )");
    return y;
  }

  void op(const char* kind, std::int64_t layer_index, int input, int input2, int output, bool relu,
          int product) {
    ops_.emit({{"kind", kind},
               {"layer", std::to_string(layer_index)},
               {"input", std::to_string(input)},
               {"input2", std::to_string(input2)},
               {"output", std::to_string(output)},
               {"activation", relu ? "relu" : "none"},
               {"product", std::to_string(product)}},
              R"(
      {rq::OpKind::$kind$, $layer$, $input$, $input2$, $output$, q8::FusedActivation::$activation$, $product$},
    )");
  }

  std::string tensor_rows() const {
    Printer p;
    for (const Tensor& t : tensors_)
      p.emit({{"what", t.what}, {"n", literal(t.elements)}, {"same", std::to_string(t.same_as)}},
             R"(
        {"$what$", $n$, $same$},
      )");
    return p.text();
  }

  // One input sample's dimensions, "1, 8, 8" (the plan's input shape less its batch of one).
  std::string sample_dims() const {
    std::string dims;
    for (int d = 1; d < m_.input_shape.rank; ++d)
      dims += (d > 1 ? ", " : "") + std::to_string(m_.input_shape[d]);
    return dims;
  }

  // A table's rows without the blank line after the last.
  static std::string trimmed(std::string rows) {
    while (!rows.empty() && (rows.back() == '\n' || rows.back() == ' '))
      rows.pop_back();
    return rows;
  }

  std::string text() const {
    Printer p;
    p.emit(
        {{"banner", file_banner(m_, name() + "_quantize.cpp",
                                "the quantizer: a trained checkpoint to int8, as a C++ source")},
         {"name", name()},
         {"model_type", m_.names.model_type},
         {"setup_type", m_.names.setup_type},
         {"sample", sample_dims()},
         {"geometries", geometries_.text()},
         {"parameters", trimmed(parameter_rows_.text())},
         {"statistics", trimmed(statistic_rows_.text())},
         {"parameter_count", literal(parameter_count_)},
         {"statistic_count", literal(statistic_count_)},
         {"tensors", trimmed(tensor_rows())},
         {"ops", trimmed(ops_.text())},
         {"products", trimmed(products_.text())},
         {"output", std::to_string(tensor_of_.at(static_cast<std::int32_t>(m_.layers.size()) - 1))},
         {"flash", literal(m_.footprint.weights.count)},
         {"fold", fold_.text()},
         {"forward", forward_.text()}},
        R"(
      $banner$
      #include <cstdint>
      #include <string>
      #include <vector>

      #include <staticnet/kernels/activations.hpp>
      #include <staticnet/kernels/batch_norm.hpp>
      #include <staticnet/kernels/geometry.hpp>
      #include <staticnet/kernels/global_pool.hpp>
      #include <staticnet/kernels/grouped_conv.hpp>
      #include <staticnet/kernels/pooling.hpp>
      #include <staticnet/kernels/residual_add.hpp>
      #include <staticnet/runtime/quantize/model_source.hpp>
      #include <staticnet/runtime/quantize/quantize.hpp>

      #include "$name$_mcu.hpp"

      namespace $name$::quantize {
      namespace {

      namespace k = staticnet::kernels;
      namespace q8 = staticnet::kernels::int8;
      namespace rq = staticnet::runtime::quantize;
      using k::index_t;

      $geometries$

      // The model as the quantizer sees it: the checkpoint's float tensors (PyTorch's state-dict
      // names) at their element offsets, the int8 tensors (0 is the input), and the int8 kernel
      // calls of $name$_mcu.cpp with the tensors each reads and writes.
      rq::QuantizerModel model_info() {
        rq::QuantizerModel m;
        m.name = "$name$";
        m.model_type = "$model_type$";
        m.setup_type = "$setup_type$";
        m.sample_shape = {$sample$};
        m.output_shape.assign(1, static_cast<std::int64_t>(mcu::output_elements));
        m.parameters = {
          $parameters$
        };
        m.statistics = {
          $statistics$
        };
        m.parameter_count = $parameter_count$;
        m.statistic_count = $statistic_count$;
        m.tensors = {
          $tensors$
        };
        m.ops = {
          $ops$
        };
        m.products = {
          $products$
        };
        m.input = 0;
        m.output = $output$;
        m.weight_count = mcu::weight_count;
        m.channel_number_count = mcu::channel_number_count;
        m.arena_bytes = mcu::arena_bytes;
        m.input_offset = mcu::input_offset;
        m.output_offset = mcu::output_offset;
        m.flash_bytes = $flash$;
        return m;
      }

      // Every BatchNorm folded into the product before it: its weights scaled, its shift written
      // over its β (p: the float parameters, s: the running statistics).
      void fold([[maybe_unused]] float* p, [[maybe_unused]] const float* s) {
        $fold$
      }

      // One float forward pass: t[i] is int8 tensor i in float.
      void forward([[maybe_unused]] const float* p, [[maybe_unused]] float* const* t) {
        $forward$
      }

      }  // namespace
      }  // namespace $name$::quantize

      int main(int argc, char** argv) {
        namespace rq = staticnet::runtime::quantize;
        $name$::mcu::Quantization kept{};
        rq::QuantizerProgram program;
        program.fold = $name$::quantize::fold;
        program.forward = $name$::quantize::forward;
        program.set_quantization = [&kept](const rq::Source& source) {
          kept = $name$::mcu::quantization_from(source);
          std::vector<std::string> members;
          $name$::mcu::for_each_member(
              kept, [&members](const auto& member) { members.push_back(rq::member_text(member)); });
          return members;
        };
        program.invoke = [&kept](const std::int8_t* weights, const std::int32_t* numbers,
                                 std::uint8_t* arena) {
          $name$::mcu::invoke({weights, numbers, &kept}, arena);
        };
        return rq::quantize_main(argc, argv, $name$::quantize::model_info(), program);
      }
    )");
    return p.text();
  }

  const ModelView& m_;
  const std::vector<FusedGroup>& groups_;
  std::map<std::int64_t, std::int64_t> weight_at_, bias_at_, statistics_at_;
  std::map<std::int32_t, int> tensor_of_;
  std::int64_t parameter_count_ = 0, statistic_count_ = 0;
  int product_count_ = 0;
  std::vector<Tensor> tensors_;
  Printer parameter_rows_, statistic_rows_, geometries_, products_, ops_, fold_, forward_;
};

}  // namespace

EmittedFile emit_quantize_program(const ModelView& model, const std::vector<FusedGroup>& groups) {
  return QuantizeProgram(model, groups).emit();
}

}  // namespace staticnet::codegen
