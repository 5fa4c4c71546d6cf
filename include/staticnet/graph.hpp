#pragma once
// The value IR: the flattened model with every shape inferred, parameters and FLOPs counted.
// `lower(nodes, setup)` is an ordinary constexpr function; it stops at the first problem and
// records it as a Diagnostic. Nodes read tensors by id (the id of the node that writes them, or
// model_input), so a residual block is one more node, Add, that reads two.
//
// Each layer is lowered by lower_layer.hpp, which also states the FLOP conventions.
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/diagnostic.hpp"
#include "staticnet/dtype.hpp"
#include "staticnet/layer_desc.hpp"
#include "staticnet/lower_layer.hpp"
#include "staticnet/node.hpp"
#include "staticnet/setup.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

template <std::size_t N>
struct Graph {
  SetupDesc setup;
  Shape input;   // with the batch extent: one micro-batch's (SetupDesc::micro_batch())
  Shape output;  // with the batch extent: one micro-batch's
  // A built-in array, which constant evaluation reads cheapest (see static_vector.hpp).
  Node nodes[N]{};
  std::int64_t parameter_count = 0;      // trainable
  std::int64_t non_trainable_count = 0;  // BatchNorm running statistics
  Diagnostic error;
  // Under Checkpoint<Auto>: the cut set checkpoint_auto.hpp chose (bit i % 64 of word i / 64: a
  // cut at the i-th allowed cut), once `checkpoint_chosen`.
  bool checkpoint_chosen = false;
  std::uint64_t checkpoint_cut_words[(N + 63) / 64]{};
  std::int64_t checkpoint_live_peak = 0;  // that cut set's busiest step's live activation bytes

  // The shape of tensor `id`: a node's output, or the model's input.
  constexpr const Shape& shape_of(std::int32_t id) const {
    return id == model_input ? input : nodes[id].output;
  }
  constexpr bool needs_gradient(std::int32_t id) const {
    return id >= 0 && nodes[id].output_needs_gradient;
  }
};

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
    return e;
  }
  if (s.micro_batches <= 0) {
    e.code = ErrorCode::nonpositive_micro_batches;
    e.a = s.micro_batches;
    return e;
  }
  if (s.batch % s.micro_batches != 0) {
    e.code = ErrorCode::micro_batches_do_not_divide;
    e.a = s.batch;
    e.b = s.micro_batches;
    return e;
  }
  if (s.precision == PrecisionKind::Int8 && s.mode != Mode::inference) {
    e.code = ErrorCode::precision_needs_inference;
    e.setup_option = SetupOption::precision;
    e.a = static_cast<std::int64_t>(s.precision);
  }
  return e;
}

// Who reads each layer's output: how many inputs name it.
template <std::size_t L>
constexpr void count_readers(const Node (&nodes)[L], std::int32_t (&readers)[L]) {
  for (std::size_t i = 0; i < L; ++i)
    for (int k = 0; k < nodes[i].input_count(); ++k)
      if (nodes[i].inputs[k] != model_input)
        ++readers[nodes[i].inputs[k]];
}

// Under Inference, a BatchNorm that reads a convolution's or a Linear's output, which nothing
// else reads, is folded into that layer (as TensorFlow Lite's converter and PyTorch's
// fuse_conv_bn_eval do): W' = W·γ/√(var + ε) per output channel, b' = (b − mean)·γ/√(var + ε) + β.
// It then runs no kernel of its own; plan_forward() already lets it write over its input.
template <std::size_t L>
constexpr bool folded_batch_norm(const Node (&nodes)[L], const std::int32_t (&readers)[L],
                                 std::size_t i, Mode mode) {
  const Node& n = nodes[i];
  if (mode != Mode::inference || !is_batch_norm(n.desc.kind) || n.inputs[0] == model_input)
    return false;
  const LayerKind producer = nodes[n.inputs[0]].desc.kind;
  return readers[n.inputs[0]] == 1 &&
         (producer == LayerKind::Conv2d || producer == LayerKind::DepthwiseConv2d ||
          producer == LayerKind::Linear);
}

// Under Int8 every BatchNorm must fold (TensorFlow Lite has no int8 BatchNorm of its own): the
// first that cannot, as an error naming what it reads and how many read that.
template <std::size_t L>
constexpr Diagnostic check_int8_folds(const Node (&nodes)[L]) {
  Diagnostic e;
  std::int32_t readers[L]{};
  count_readers(nodes, readers);
  for (std::size_t i = 0; i < L; ++i) {
    const Node& n = nodes[i];
    if (!is_batch_norm(n.desc.kind) || folded_batch_norm(nodes, readers, i, Mode::inference))
      continue;
    e = layer_error(ErrorCode::batch_norm_does_not_fold, static_cast<std::int64_t>(i), n.desc);
    e.a = n.inputs[0];
    e.b = n.inputs[0] == model_input ? 1 : readers[n.inputs[0]];
    return e;
  }
  return e;
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
    e.a = static_cast<std::int64_t>(s.target_dtype);
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
  // Every layer sees one micro-batch (the whole batch, unless Accumulate<K> splits it).
  g.input = setup.input.batched(setup.micro_batch());
  const bool training = setup.mode == Mode::training;
  // This loop runs once per layer, so it subscripts the nodes (a built-in array) directly and
  // flatten()'s std::array through a pointer, never through operator[], which costs constant
  // evaluation several calls and g++ memory (see static_vector.hpp).
  const NodeDesc* const descs = nodes.data();
  auto& out = g.nodes;
  for (std::size_t i = 0; i < N; ++i) {
    const NodeDesc& nd = descs[i];
    Node& node = out[i];
    const auto index = static_cast<std::int64_t>(i);
    const bool two_inputs = nd.inputs[1] != no_input;
    const bool needs_dx =
        g.needs_gradient(nd.inputs[0]) || (two_inputs && g.needs_gradient(nd.inputs[1]));
    // Into g.error only when it is one: g++ spends memory on every struct it copies.
    const Diagnostic e =
        detail::lower_layer(index, needs_dx, training, nd.layer, g.shape_of(nd.inputs[0]), node);
    if (!e.ok())
      g.error = e;
    node.inputs[0] = nd.inputs[0];
    node.inputs[1] = nd.inputs[1];
    node.block_first = nd.block_first;
    if (two_inputs && g.error.ok()) {
      node.input2 = g.shape_of(nd.inputs[1]);
      if (node.input2 != node.input) {
        g.error = detail::layer_error(ErrorCode::residual_shapes_differ, index, nd.layer);
        g.error.a = nd.block_first;
        // The shortcut's last layer, or -1 for the identity (it reads what the block reads).
        g.error.b = nd.inputs[1] >= nd.block_first ? nd.inputs[1] : -1;
        g.error.shape_a = node.input;
        g.error.shape_b = node.input2;
      }
    }
    if (!g.error.ok()) {
      // Name the shape the mismatched features come from: (128, 8, 8) says more than 8192.
      if (g.error.code == ErrorCode::linear_in_features_mismatch) {
        const std::int32_t from = nd.inputs[0];
        g.error.shape_a = from >= 0 && out[from].desc.kind == LayerKind::Flatten
                              ? out[from].input.sample()
                              : g.shape_of(from).sample();
      }
      return g;
    }
    const std::int64_t parameters = node.weights + node.biases;
    node.output_needs_gradient = training && (parameters > 0 || needs_dx);
    g.parameter_count += parameters;
    g.non_trainable_count += node.statistics;
  }
  g.output = g.nodes[N - 1].output;
  g.error = detail::check_loss(setup, g.output);
  if (g.error.ok() && setup.precision == PrecisionKind::Int8)
    g.error = detail::check_int8_folds(g.nodes);
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
