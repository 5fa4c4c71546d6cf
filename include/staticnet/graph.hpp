#pragma once
// The value IR: the flattened model with every shape inferred, parameters and FLOPs counted.
// `lower(nodes, setup)` is an ordinary constexpr function; it stops at the first problem and
// records it as a Diagnostic. Nodes read tensors by id (the id of the node that writes them, or
// model_input), so a residual block is one more node, Add, that reads two.
//
// FLOP conventions (a multiply-add is 2 FLOPs; a transcendental such as exp or tanh is 1):
//   Linear   forward 2·B·In·Out (+ B·Out bias); backward dW 2·B·In·Out (+ B·Out db),
//            dx 2·B·In·Out unless its input depends on no parameters (then no one needs the
//            gradient of its input).
//   Conv2d   the same with In = Cin/G·KH·KW per output position (G groups) and B·Ho·Wo
//            positions.
//   ReLU, LeakyReLU  1 per element each way; Sigmoid 3 forward (exp, add, divide), 3 backward
//            (1−y, ·y, ·dy); Tanh 1 forward, 3 backward (y², 1−, ·dy).
//   MaxPool2d, AvgPool2d  KH·KW per output element each way.
//   DepthwiseConv2d  as Conv2d with In = KH·KW.
//   GlobalAvgPool2d  H·W per output element each way.
//   BatchNorm (n elements)  training forward 5n (the statistics: an add for the mean, a
//            multiply-add for the squares; then y = x·s + t per channel, a multiply-add),
//            inference forward 2n; backward 5n for dγ and dβ (x̂ again 2, Σdy 1, Σdy·x̂ 2),
//            plus 4n for dx (dx = k·(dy − a − x̂·b): a multiply-add, a subtract, a multiply).
//   Dropout  1 per element each way in training (the scale), 0 under Inference.
//   Add      1 per element forward; 0 backward (the gradient passes on unchanged).
//   A tensor read by two layers: the plan adds 1 per element to the backward of the reader
//            that adds its part to the other's (LayerPlan::backward_flops, not Node's).
//   Flatten  0. A layer that has no parameters and reads nothing that depends on parameters
//            runs no backward at all; a layer whose inputs depend on no parameters computes no
//            input gradient.
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/diagnostic.hpp"
#include "staticnet/dtype.hpp"
#include "staticnet/layer_desc.hpp"
#include "staticnet/setup.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

// Activations are f32 under Precision<FP32>.
inline constexpr std::int64_t activation_bytes_per_element = 4;

struct Node {
  LayerDesc desc;  // as written, except that padding holds what is applied (PaddingSame resolved)
  std::int32_t inputs[2] = {model_input, no_input};  // the tensors read, by id (see NodeDesc)
  std::int32_t block_first = -1;                     // an Add: the first node of its block
  Shape input;                                       // the first input, with the batch extent
  Shape input2;                 // an Add: the second input (the shortcut's output)
  Shape output;                 // with the batch extent
  std::int64_t weights = 0;     // parameters in the weight tensor (BatchNorm: γ)
  std::int64_t biases = 0;      // parameters in the bias vector (BatchNorm: β)
  std::int64_t statistics = 0;  // non-trainable values: BatchNorm's running mean and variance
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;
  // The output depends on parameters, so training needs its gradient.
  bool output_needs_gradient = false;

  constexpr std::int64_t parameters() const { return weights + biases; }
  constexpr int input_count() const { return inputs[1] == no_input ? 1 : 2; }
};

template <std::size_t N>
struct Graph {
  SetupDesc setup;
  Shape input;   // with the batch extent
  Shape output;  // with the batch extent
  std::array<Node, N> nodes{};
  std::int64_t parameter_count = 0;      // trainable
  std::int64_t non_trainable_count = 0;  // BatchNorm running statistics
  Diagnostic error;

  // The shape of tensor `id`: a node's output, or the model's input.
  constexpr const Shape& shape_of(std::int32_t id) const {
    return id == model_input ? input : nodes[static_cast<std::size_t>(id)].output;
  }
  constexpr bool needs_gradient(std::int32_t id) const {
    return id >= 0 && nodes[static_cast<std::size_t>(id)].output_needs_gradient;
  }
};

// Bytes of the window index a max-pool keeps per output element.
constexpr std::int64_t window_index_bytes(const LayerDesc& d) {
  const std::int64_t positions = d.kernel_h * d.kernel_w;
  return positions <= 256 ? 1 : positions <= 65536 ? 2 : 4;
}

namespace detail {

constexpr Diagnostic check_setup(const SetupDesc& s) {
  Diagnostic e;
  switch (s.problem) {
    case SetupProblem::missing_input:
      e.code = ErrorCode::missing_input;
      e.setup_option = SetupOption::input;
      return e;
    case SetupProblem::given_twice:
      e.code = ErrorCode::setup_option_given_twice;
      e.setup_option = s.problem_option;
      return e;
    case SetupProblem::not_accepted:
      e.code = ErrorCode::setup_option_not_accepted;
      e.setup_option = s.problem_option;
      return e;
    case SetupProblem::none:
      break;
  }
  if (s.input_rank_written >= max_rank) {
    e.code = ErrorCode::input_rank_too_large;
    e.a = s.input_rank_written;
    return e;
  }
  for (int i = 0; i < s.input.rank; ++i) {
    if (s.input[i] <= 0) {
      e.code = ErrorCode::nonpositive_input_dimension;
      e.a = i;
      e.b = s.input[i];
      return e;
    }
  }
  if (s.batch <= 0) {
    e.code = ErrorCode::nonpositive_batch;
    e.a = s.batch;
  }
  return e;
}

constexpr Diagnostic layer_error(ErrorCode code, std::int64_t index, const LayerDesc& d) {
  Diagnostic e;
  e.code = code;
  e.layer = index;
  e.kind = d.kind;
  return e;
}

// Output extent of a window of size k with stride s over n inputs padded by `before` and `after`.
constexpr std::int64_t window_output(std::int64_t n, std::int64_t k, std::int64_t s,
                                     std::int64_t before, std::int64_t after) {
  return (n + before + after - k) / s + 1;
}

// TensorFlow's 'same': ceil(n / s) outputs; the padding that needs, the odd one after.
constexpr void same_padding(std::int64_t n, std::int64_t k, std::int64_t s, std::int64_t& before,
                            std::int64_t& after) {
  const std::int64_t out = (n + s - 1) / s;
  const std::int64_t total = (out - 1) * s + k - n;
  before = total > 0 ? total / 2 : 0;
  after = total > 0 ? total - before : 0;
}

// Infers one layer's output shape, parameters and FLOPs, or reports why it cannot. `needs_dx` is
// true when the layer's input depends on parameters, so its backward must compute the input's
// gradient; a layer without parameters whose input needs no gradient runs no backward at all.
constexpr Diagnostic lower_layer(std::int64_t index, bool needs_dx, bool training,
                                 const LayerDesc& d, const Shape& in, Node& node) {
  node.desc = d;
  node.input = in;
  if (d.option_problem != OptionProblem::none) {
    Diagnostic e = layer_error(
        d.option_problem == OptionProblem::given_twice    ? ErrorCode::option_given_twice
        : d.option_problem == OptionProblem::not_accepted ? ErrorCode::option_not_accepted
                                                          : ErrorCode::missing_kernel,
        index, d);
    e.option = d.problem_option;
    return e;
  }
  if ((d.kind == LayerKind::Linear || d.kind == LayerKind::Conv2d) && d.out <= 0) {
    Diagnostic e = layer_error(ErrorCode::nonpositive_output, index, d);
    e.a = d.out;
    return e;
  }
  const std::int64_t batch = in[0];
  const std::int64_t n = in.elements();
  switch (d.kind) {
    case LayerKind::Linear: {
      if (in.rank != 2) {
        Diagnostic e = layer_error(ErrorCode::linear_needs_flat_input, index, d);
        e.shape_a = in;
        return e;
      }
      const std::int64_t features = in[1];
      if (d.in_features != -1 && d.in_features != features) {
        Diagnostic e = layer_error(ErrorCode::linear_in_features_mismatch, index, d);
        e.a = d.in_features;
        e.b = features;
        return e;
      }
      node.output = Shape{batch, d.out};
      node.weights = d.out * features;
      node.biases = d.bias ? d.out : 0;
      const std::int64_t mac = 2 * batch * features * d.out;
      node.forward_flops = mac + batch * node.biases;
      node.backward_flops = mac + batch * node.biases + (needs_dx ? mac : 0);
      return {};
    }
    case LayerKind::Conv2d:
    case LayerKind::DepthwiseConv2d:
    case LayerKind::MaxPool2d:
    case LayerKind::AvgPool2d: {
      if (in.rank != 4) {
        Diagnostic e = layer_error(ErrorCode::needs_spatial_input, index, d);
        e.shape_a = in;
        return e;
      }
      auto bad_option = [&](OptionKind option, std::int64_t h, std::int64_t w) {
        Diagnostic e = layer_error(ErrorCode::nonpositive_window_option, index, d);
        e.option = option;
        e.a = h;
        e.b = w;
        return e;
      };
      if (d.kernel_h <= 0 || d.kernel_w <= 0)
        return bad_option(OptionKind::kernel, d.kernel_h, d.kernel_w);
      if (d.stride_h <= 0 || d.stride_w <= 0)
        return bad_option(OptionKind::stride, d.stride_h, d.stride_w);
      if (d.pad_h < 0 || d.pad_w < 0)
        return bad_option(OptionKind::padding, d.pad_h, d.pad_w);
      if (d.same_padding) {
        same_padding(in[2], d.kernel_h, d.stride_h, node.desc.pad_h, node.desc.pad_h_end);
        same_padding(in[3], d.kernel_w, d.stride_w, node.desc.pad_w, node.desc.pad_w_end);
      } else {
        node.desc.pad_h_end = d.pad_h;
        node.desc.pad_w_end = d.pad_w;
      }
      const LayerDesc& r = node.desc;  // padding resolved
      const std::int64_t padded_h = in[2] + r.pad_h + r.pad_h_end;
      const std::int64_t padded_w = in[3] + r.pad_w + r.pad_w_end;
      if (d.kernel_h > padded_h || d.kernel_w > padded_w) {
        Diagnostic e = layer_error(ErrorCode::kernel_larger_than_padded_input, index, d);
        e.a = d.kernel_h;
        e.b = d.kernel_w;
        e.c = padded_h;
        e.d = padded_w;
        return e;
      }
      // A pool window that is mostly padding would see no input at all (PyTorch refuses too).
      // 'same' never pads a whole window.
      if (is_pool(d.kind) && !d.same_padding &&
          (2 * d.pad_h > d.kernel_h || 2 * d.pad_w > d.kernel_w)) {
        Diagnostic e = layer_error(ErrorCode::pool_padding_too_large, index, d);
        e.a = 2 * d.pad_h > d.kernel_h ? d.pad_h : d.pad_w;
        e.b = 2 * d.pad_h > d.kernel_h ? d.kernel_h : d.kernel_w;
        return e;
      }
      const std::int64_t in_channels = in[1];
      if (d.kind == LayerKind::Conv2d &&
          (d.groups <= 0 || in_channels % d.groups != 0 || d.out % d.groups != 0)) {
        Diagnostic e = layer_error(ErrorCode::groups_do_not_divide, index, d);
        e.a = d.groups;
        e.b = in_channels;
        e.c = d.out;
        return e;
      }
      const std::int64_t oh = window_output(in[2], d.kernel_h, d.stride_h, r.pad_h, r.pad_h_end);
      const std::int64_t ow = window_output(in[3], d.kernel_w, d.stride_w, r.pad_w, r.pad_w_end);
      const std::int64_t channels = d.kind == LayerKind::Conv2d ? d.out : in_channels;
      node.output = Shape{batch, channels, oh, ow};
      const std::int64_t outputs = node.output.elements();
      if (d.kind == LayerKind::Conv2d || d.kind == LayerKind::DepthwiseConv2d) {
        const std::int64_t per_output =
            (d.kind == LayerKind::Conv2d ? in_channels / d.groups : 1) * d.kernel_h * d.kernel_w;
        node.weights = channels * per_output;
        node.biases = d.bias ? channels : 0;
        const std::int64_t mac = 2 * outputs * per_output;
        const std::int64_t bias = node.biases ? outputs : 0;
        node.forward_flops = mac + bias;
        node.backward_flops = mac + bias + (needs_dx ? mac : 0);
      } else {
        node.forward_flops = outputs * d.kernel_h * d.kernel_w;
        node.backward_flops = needs_dx ? node.forward_flops : 0;
      }
      return {};
    }
    case LayerKind::GlobalAvgPool2d: {
      if (in.rank != 4) {
        Diagnostic e = layer_error(ErrorCode::needs_spatial_input, index, d);
        e.shape_a = in;
        return e;
      }
      node.output = Shape{batch, in[1]};
      node.forward_flops = n;
      node.backward_flops = needs_dx ? n : 0;
      return {};
    }
    case LayerKind::BatchNorm2d:
    case LayerKind::BatchNorm1d: {
      const bool two_d = d.kind == LayerKind::BatchNorm2d;
      if (in.rank != (two_d ? 4 : 2)) {
        Diagnostic e = layer_error(
            two_d ? ErrorCode::needs_spatial_input : ErrorCode::needs_flat_input, index, d);
        e.shape_a = in;
        return e;
      }
      auto bad_ratio = [&](OptionKind option, std::int64_t num, std::int64_t den) {
        Diagnostic e = layer_error(ErrorCode::bad_ratio, index, d);
        e.option = option;
        e.a = num;
        e.b = den;
        return e;
      };
      if (d.epsilon_num <= 0 || d.epsilon_den <= 0)
        return bad_ratio(OptionKind::epsilon, d.epsilon_num, d.epsilon_den);
      if (d.momentum_num < 0 || d.momentum_den <= 0 || d.momentum_num > d.momentum_den)
        return bad_ratio(OptionKind::momentum, d.momentum_num, d.momentum_den);
      const std::int64_t channels = in[1];
      node.output = in;
      node.weights = channels;
      node.biases = channels;
      node.statistics = 2 * channels;
      node.forward_flops = (training ? 5 : 2) * n;
      node.backward_flops = 5 * n + (needs_dx ? 4 * n : 0);
      return {};
    }
    case LayerKind::Dropout: {
      if (d.ratio_den <= 0 || d.ratio_num < 0 || d.ratio_num >= d.ratio_den) {
        Diagnostic e = layer_error(ErrorCode::bad_ratio, index, d);
        e.a = d.ratio_num;
        e.b = d.ratio_den;
        return e;
      }
      node.output = in;
      node.forward_flops = training ? n : 0;
      node.backward_flops = needs_dx ? n : 0;
      return {};
    }
    case LayerKind::Add:
      node.output = in;
      node.forward_flops = n;
      return {};
    case LayerKind::ReLU:
    case LayerKind::LeakyReLU:
    case LayerKind::Sigmoid:
    case LayerKind::Tanh: {
      node.output = in;
      const std::int64_t fwd = d.kind == LayerKind::Sigmoid ? 3 : 1;
      const std::int64_t bwd = (d.kind == LayerKind::Sigmoid || d.kind == LayerKind::Tanh) ? 3 : 1;
      node.forward_flops = fwd * n;
      node.backward_flops = needs_dx ? bwd * n : 0;
      return {};
    }
    case LayerKind::Flatten:
      node.output = in.rank == 2 ? in : Shape{batch, in.sample().elements()};
      return {};
  }
  return {};
}

constexpr Diagnostic check_loss(const SetupDesc& s, const Shape& output) {
  Diagnostic e;
  if (s.mode != Mode::training)
    return e;
  if (s.loss == LossKind::CrossEntropy) {
    if (output.rank != 2) {
      e.code = ErrorCode::cross_entropy_needs_flat_logits;
      e.shape_a = output;
      return e;
    }
    if (s.has_target && (s.target.rank != 0 || s.target_dtype != DType::i32)) {
      e.code = ErrorCode::cross_entropy_needs_class_index_target;
      e.shape_a = s.target;
      e.a = static_cast<std::int64_t>(s.target_dtype);
    }
    return e;
  }
  // MSE: targets are f32 and shaped like one sample of the output.
  if (s.has_target && (s.target != output.sample() || s.target_dtype != DType::f32)) {
    e.code = ErrorCode::mse_target_mismatch;
    e.shape_a = output.sample();
    e.shape_b = s.target;
  }
  return e;
}

}  // namespace detail

template <std::size_t N>
constexpr Graph<N> lower(const std::array<NodeDesc, N>& nodes, const SetupDesc& setup) {
  Graph<N> g;
  g.setup = setup;
  g.error = detail::check_setup(setup);
  if (!g.error.ok())
    return g;
  g.input = setup.input.batched(setup.batch);
  const bool training = setup.mode == Mode::training;
  for (std::size_t i = 0; i < N; ++i) {
    const NodeDesc& nd = nodes[i];
    Node& node = g.nodes[i];
    const auto index = static_cast<std::int64_t>(i);
    bool needs_dx = g.needs_gradient(nd.inputs[0]);
    if (nd.input_count() == 2)
      needs_dx = needs_dx || g.needs_gradient(nd.inputs[1]);
    g.error =
        detail::lower_layer(index, needs_dx, training, nd.layer, g.shape_of(nd.inputs[0]), node);
    node.inputs[0] = nd.inputs[0];
    node.inputs[1] = nd.inputs[1];
    node.block_first = nd.block_first;
    if (g.error.ok() && nd.input_count() == 2) {
      node.input2 = g.shape_of(nd.inputs[1]);
      if (node.input2 != node.input) {
        g.error = detail::layer_error(ErrorCode::residual_shapes_differ, index, nd.layer);
        g.error.a = nd.block_first;
        g.error.shape_a = node.input;
        g.error.shape_b = node.input2;
      }
    }
    if (!g.error.ok()) {
      // Name the shape the mismatched features come from: (128, 8, 8) says more than 8192.
      if (g.error.code == ErrorCode::linear_in_features_mismatch) {
        const std::int32_t from = nd.inputs[0];
        g.error.shape_a = from >= 0 && g.nodes[from].desc.kind == LayerKind::Flatten
                              ? g.nodes[from].input.sample()
                              : g.shape_of(from).sample();
      }
      return g;
    }
    node.output_needs_gradient = training && (node.parameters() > 0 || needs_dx);
    g.parameter_count += node.parameters();
    g.non_trainable_count += node.statistics;
  }
  g.output = g.nodes[N - 1].output;
  g.error = detail::check_loss(setup, g.output);
  return g;
}

// A plain chain of layers, each reading the one before.
template <std::size_t N>
constexpr Graph<N> lower(const std::array<LayerDesc, N>& layers, const SetupDesc& setup) {
  std::array<NodeDesc, N> nodes{};
  for (std::size_t i = 0; i < N; ++i) {
    nodes[i].layer = layers[i];
    nodes[i].inputs[0] = static_cast<std::int32_t>(i) - 1;
  }
  return lower(nodes, setup);
}

}  // namespace staticnet
