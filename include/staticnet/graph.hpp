#pragma once
// The value IR: the flattened model with every shape inferred, parameters and FLOPs counted.
// `lower(layers, setup)` is an ordinary constexpr function; it stops at the first problem and
// records it as a Diagnostic.
//
// FLOP conventions (a multiply-add is 2 FLOPs; a transcendental such as exp or tanh is 1):
//   Linear   forward 2·B·In·Out (+ B·Out bias); backward dW 2·B·In·Out (+ B·Out db),
//            dx 2·B·In·Out unless no layer before it has parameters (then no one needs the
//            gradient of its input).
//   Conv2d   the same with In = Cin·KH·KW per output position and B·Ho·Wo positions.
//   ReLU, LeakyReLU  1 per element each way; Sigmoid 3 forward (exp, add, divide), 3 backward
//            (1−y, ·y, ·dy); Tanh 1 forward, 3 backward (y², 1−, ·dy).
//   MaxPool2d, AvgPool2d  KH·KW per output element each way.
//   Flatten  0. A layer without parameters, with none before it, runs no backward at all.
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
  LayerDesc desc;
  Shape input;               // with the batch extent
  Shape output;              // with the batch extent
  std::int64_t weights = 0;  // parameters in the weight tensor
  std::int64_t biases = 0;   // parameters in the bias vector
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;

  constexpr std::int64_t parameters() const { return weights + biases; }
};

template <std::size_t N>
struct Graph {
  SetupDesc setup;
  Shape input;   // with the batch extent
  Shape output;  // with the batch extent
  std::array<Node, N> nodes{};
  std::int64_t parameter_count = 0;
  Diagnostic error;
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

// Output extent of a window of size k with stride s over n inputs padded by p on both sides.
constexpr std::int64_t window_output(std::int64_t n, std::int64_t k, std::int64_t s,
                                     std::int64_t p) {
  return (n + 2 * p - k) / s + 1;
}

// Infers one layer's output shape, parameters and FLOPs, or reports why it cannot. `first` is
// true when no layer before this one has parameters: then nobody needs this layer's input
// gradient, and a layer without parameters of its own runs no backward at all.
constexpr Diagnostic lower_layer(std::int64_t index, bool first, const LayerDesc& d,
                                 const Shape& in, Node& node) {
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
      node.backward_flops = mac + batch * node.biases + (first ? 0 : mac);
      return {};
    }
    case LayerKind::Conv2d:
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
      const std::int64_t padded_h = in[2] + 2 * d.pad_h, padded_w = in[3] + 2 * d.pad_w;
      if (d.kernel_h > padded_h || d.kernel_w > padded_w) {
        Diagnostic e = layer_error(ErrorCode::kernel_larger_than_padded_input, index, d);
        e.a = d.kernel_h;
        e.b = d.kernel_w;
        e.c = padded_h;
        e.d = padded_w;
        return e;
      }
      // A pool window that is mostly padding would see no input at all (PyTorch refuses too).
      if (is_pool(d.kind) && (2 * d.pad_h > d.kernel_h || 2 * d.pad_w > d.kernel_w)) {
        Diagnostic e = layer_error(ErrorCode::pool_padding_too_large, index, d);
        e.a = 2 * d.pad_h > d.kernel_h ? d.pad_h : d.pad_w;
        e.b = 2 * d.pad_h > d.kernel_h ? d.kernel_h : d.kernel_w;
        return e;
      }
      const std::int64_t oh = window_output(in[2], d.kernel_h, d.stride_h, d.pad_h);
      const std::int64_t ow = window_output(in[3], d.kernel_w, d.stride_w, d.pad_w);
      const std::int64_t channels = d.kind == LayerKind::Conv2d ? d.out : in[1];
      node.output = Shape{batch, channels, oh, ow};
      const std::int64_t outputs = node.output.elements();
      if (d.kind == LayerKind::Conv2d) {
        const std::int64_t per_output = in[1] * d.kernel_h * d.kernel_w;
        node.weights = d.out * per_output;
        node.biases = d.bias ? d.out : 0;
        const std::int64_t mac = 2 * outputs * per_output;
        const std::int64_t bias = node.biases ? outputs : 0;
        node.forward_flops = mac + bias;
        node.backward_flops = mac + bias + (first ? 0 : mac);
      } else {
        node.forward_flops = outputs * d.kernel_h * d.kernel_w;
        node.backward_flops = first ? 0 : node.forward_flops;
      }
      return {};
    }
    case LayerKind::ReLU:
    case LayerKind::LeakyReLU:
    case LayerKind::Sigmoid:
    case LayerKind::Tanh: {
      node.output = in;
      const std::int64_t n = in.elements();
      const std::int64_t fwd = d.kind == LayerKind::Sigmoid ? 3 : 1;
      const std::int64_t bwd = (d.kind == LayerKind::Sigmoid || d.kind == LayerKind::Tanh) ? 3 : 1;
      node.forward_flops = fwd * n;
      node.backward_flops = first ? 0 : bwd * n;
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
constexpr Graph<N> lower(const std::array<LayerDesc, N>& layers, const SetupDesc& setup) {
  Graph<N> g;
  g.setup = setup;
  g.error = detail::check_setup(setup);
  if (!g.error.ok())
    return g;
  g.input = setup.input.batched(setup.batch);
  Shape current = g.input;
  for (std::size_t i = 0; i < N; ++i) {
    const bool first = g.parameter_count == 0;
    g.error =
        detail::lower_layer(static_cast<std::int64_t>(i), first, layers[i], current, g.nodes[i]);
    if (!g.error.ok()) {
      // Name the shape the mismatched features come from: (128, 8, 8) says more than 8192.
      if (g.error.code == ErrorCode::linear_in_features_mismatch)
        g.error.shape_a = i > 0 && layers[i - 1].kind == LayerKind::Flatten
                              ? g.nodes[i - 1].input.sample()
                              : current.sample();
      return g;
    }
    current = g.nodes[i].output;
    g.parameter_count += g.nodes[i].parameters();
  }
  g.output = current;
  g.error = detail::check_loss(setup, current);
  return g;
}

}  // namespace staticnet
