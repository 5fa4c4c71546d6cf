#pragma once
// Lowering one layer: its output shape, parameters and FLOPs from its input shape, or the
// Diagnostic that says why it cannot be lowered. graph.hpp's lower() calls lower_layer() once per
// node.
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
//            Under Inference the plan folds it into a convolution or Linear before it
//            (plan.hpp, folded_batch_norm): 0, or n where that layer had no bias to fold into.
//   Dropout  1 per element each way in training (the scale), 0 under Inference.
//   Add      1 per element forward; 0 backward (the gradient passes on unchanged).
//   A tensor read by two layers: the plan adds 1 per element to the backward of the reader
//            that adds its part to the other's (LayerPlan::backward_flops, not Node's).
//   Flatten  0. A layer that has no parameters and reads nothing that depends on parameters
//            runs no backward at all; a layer whose inputs depend on no parameters computes no
//            input gradient.
//
// Each layer family has a function of its own and lower_layer() dispatches with one return per
// case: clang's constant evaluator charges a step for every statement it passes while looking for
// a switch's case label, so one long switch with the bodies inline cost more than the bodies.
#include <cstdint>

#include "staticnet/diagnostic.hpp"
#include "staticnet/layer_desc.hpp"
#include "staticnet/node.hpp"
#include "staticnet/shape.hpp"

namespace staticnet::detail {

constexpr Diagnostic layer_error(ErrorCode code, std::int64_t index, const LayerDesc& d) {
  Diagnostic e;
  e.code = code;
  e.layer = index;
  e.kind = d.kind;
  return e;
}

// The input's rank is not the layer's: `code` says which it needs; the shape is reported.
constexpr Diagnostic input_rank_error(ErrorCode code, std::int64_t index, const LayerDesc& d,
                                      const Shape& in) {
  Diagnostic e = layer_error(code, index, d);
  e.shape_a = in;
  return e;
}

// An option's two values (height and width, or a ratio's numerator and denominator) are out of
// range.
constexpr Diagnostic option_error(ErrorCode code, std::int64_t index, const LayerDesc& d,
                                  OptionKind option, std::int64_t a, std::int64_t b) {
  Diagnostic e = layer_error(code, index, d);
  e.option = option;
  e.a = a;
  e.b = b;
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

// The families' functions take what they need of: the layer's index (for diagnostics), whether
// its backward must compute the input's gradient (its input depends on parameters), whether the
// setup trains, the layer as written, its input shape, and the node to fill in.
constexpr Diagnostic lower_linear(std::int64_t index, bool needs_dx, const LayerDesc& d,
                                  const Shape& in, Node& node) {
  if (in.rank != 2)
    return input_rank_error(ErrorCode::linear_needs_flat_input, index, d, in);
  const std::int64_t batch = in[0];
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

// Conv2d, DepthwiseConv2d, MaxPool2d and AvgPool2d: a window slid over (N, C, H, W).
constexpr Diagnostic lower_window(std::int64_t index, bool needs_dx, const LayerDesc& d,
                                  const Shape& in, Node& node) {
  if (in.rank != 4)
    return input_rank_error(ErrorCode::needs_spatial_input, index, d, in);
  auto bad_option = [&](OptionKind option, std::int64_t h, std::int64_t w) {
    return option_error(ErrorCode::nonpositive_window_option, index, d, option, h, w);
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
  node.output = Shape{in[0], channels, oh, ow};
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

constexpr Diagnostic lower_global_pool(std::int64_t index, bool needs_dx, const LayerDesc& d,
                                       const Shape& in, Node& node) {
  if (in.rank != 4)
    return input_rank_error(ErrorCode::needs_spatial_input, index, d, in);
  const std::int64_t n = in.elements();
  node.output = Shape{in[0], in[1]};
  node.forward_flops = n;
  node.backward_flops = needs_dx ? n : 0;
  return {};
}

constexpr Diagnostic lower_batch_norm(std::int64_t index, bool needs_dx, bool training,
                                      const LayerDesc& d, const Shape& in, Node& node) {
  const bool two_d = d.kind == LayerKind::BatchNorm2d;
  if (in.rank != (two_d ? 4 : 2))
    return input_rank_error(two_d ? ErrorCode::needs_spatial_input : ErrorCode::needs_flat_input,
                            index, d, in);
  if (d.epsilon_num <= 0 || d.epsilon_den <= 0)
    return option_error(ErrorCode::bad_ratio, index, d, OptionKind::epsilon, d.epsilon_num,
                        d.epsilon_den);
  if (d.momentum_num < 0 || d.momentum_den <= 0 || d.momentum_num > d.momentum_den)
    return option_error(ErrorCode::bad_ratio, index, d, OptionKind::momentum, d.momentum_num,
                        d.momentum_den);
  const std::int64_t n = in.elements();
  const std::int64_t channels = in[1];
  // In training each channel is normalised over the values the step sees together: the batch's
  // (a micro-batch's under Accumulate<K>, the batch extent lowering works at) at every position.
  // One value has variance 0 and normalises to 0, which PyTorch refuses ("Expected more than 1
  // value per channel when training").
  if (training && n / channels < 2) {
    Diagnostic e = layer_error(ErrorCode::batch_norm_one_value_per_channel, index, d);
    e.a = in[0];
    e.b = n / channels;
    return e;
  }
  node.output = in;
  node.weights = channels;
  node.biases = channels;
  node.statistics = 2 * channels;
  node.forward_flops = (training ? 5 : 2) * n;
  node.backward_flops = 5 * n + (needs_dx ? 4 * n : 0);
  return {};
}

constexpr Diagnostic lower_dropout(std::int64_t index, bool needs_dx, bool training,
                                   const LayerDesc& d, const Shape& in, Node& node) {
  if (d.ratio_den <= 0 || d.ratio_num < 0 || d.ratio_num >= d.ratio_den) {
    Diagnostic e = layer_error(ErrorCode::bad_ratio, index, d);
    e.a = d.ratio_num;
    e.b = d.ratio_den;
    return e;
  }
  const std::int64_t n = in.elements();
  node.output = in;
  node.forward_flops = training ? n : 0;
  node.backward_flops = needs_dx ? n : 0;
  return {};
}

// ReLU, LeakyReLU, Sigmoid and Tanh.
constexpr Diagnostic lower_elementwise(bool needs_dx, const LayerDesc& d, const Shape& in,
                                       Node& node) {
  const std::int64_t n = in.elements();
  const std::int64_t forward = d.kind == LayerKind::Sigmoid ? 3 : 1;
  const std::int64_t backward = d.kind == LayerKind::Sigmoid || d.kind == LayerKind::Tanh ? 3 : 1;
  node.output = in;
  node.forward_flops = forward * n;
  node.backward_flops = needs_dx ? backward * n : 0;
  return {};
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
  switch (d.kind) {
    case LayerKind::ReLU:
    case LayerKind::LeakyReLU:
    case LayerKind::Sigmoid:
    case LayerKind::Tanh:
      return lower_elementwise(needs_dx, d, in, node);
    case LayerKind::Linear:
      return lower_linear(index, needs_dx, d, in, node);
    case LayerKind::Conv2d:
    case LayerKind::DepthwiseConv2d:
    case LayerKind::MaxPool2d:
    case LayerKind::AvgPool2d:
      return lower_window(index, needs_dx, d, in, node);
    case LayerKind::BatchNorm2d:
    case LayerKind::BatchNorm1d:
      return lower_batch_norm(index, needs_dx, training, d, in, node);
    case LayerKind::GlobalAvgPool2d:
      return lower_global_pool(index, needs_dx, d, in, node);
    case LayerKind::Dropout:
      return lower_dropout(index, needs_dx, training, d, in, node);
    case LayerKind::Add:
      node.output = in;
      node.forward_flops = in.elements();
      return {};
    case LayerKind::Flatten:
      node.output = in.rank == 2 ? in : Shape{in[0], in.sample().elements()};
      return {};
  }
  return {};
}

}  // namespace staticnet::detail
