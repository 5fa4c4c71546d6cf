#pragma once
// What a layer type says about itself as a plain value: its kind and its options. Shapes are not
// here; they are inferred when the flattened model is lowered to a Graph.
#include <cstdint>

namespace staticnet {

enum class LayerKind : std::uint8_t {
  Linear,
  Conv2d,
  ReLU,
  LeakyReLU,
  Sigmoid,
  Tanh,
  MaxPool2d,
  AvgPool2d,
  Flatten,
  BatchNorm2d,
  BatchNorm1d,
  DepthwiseConv2d,
  GlobalAvgPool2d,
  Dropout,
  Add,  // closes a Residual: the sum of its body's and its shortcut's outputs
};

constexpr const char* name_of(LayerKind k) {
  switch (k) {
    case LayerKind::Linear:
      return "Linear";
    case LayerKind::Conv2d:
      return "Conv2d";
    case LayerKind::ReLU:
      return "ReLU";
    case LayerKind::LeakyReLU:
      return "LeakyReLU";
    case LayerKind::Sigmoid:
      return "Sigmoid";
    case LayerKind::Tanh:
      return "Tanh";
    case LayerKind::MaxPool2d:
      return "MaxPool2d";
    case LayerKind::AvgPool2d:
      return "AvgPool2d";
    case LayerKind::Flatten:
      return "Flatten";
    case LayerKind::BatchNorm2d:
      return "BatchNorm2d";
    case LayerKind::BatchNorm1d:
      return "BatchNorm1d";
    case LayerKind::DepthwiseConv2d:
      return "DepthwiseConv2d";
    case LayerKind::GlobalAvgPool2d:
      return "GlobalAvgPool2d";
    case LayerKind::Dropout:
      return "Dropout";
    case LayerKind::Add:
      return "Add";
  }
  return "?";
}

constexpr bool is_elementwise(LayerKind k) {
  return k == LayerKind::ReLU || k == LayerKind::LeakyReLU || k == LayerKind::Sigmoid ||
         k == LayerKind::Tanh;
}
constexpr bool is_pool(LayerKind k) {
  return k == LayerKind::MaxPool2d || k == LayerKind::AvgPool2d;
}
constexpr bool is_batch_norm(LayerKind k) {
  return k == LayerKind::BatchNorm2d || k == LayerKind::BatchNorm1d;
}
// Layers whose output is computed from windows of a (batch, channels, height, width) input.
constexpr bool is_windowed(LayerKind k) {
  return k == LayerKind::Conv2d || k == LayerKind::DepthwiseConv2d || is_pool(k);
}
// Layers whose backward reads their input x (to correlate it with dY, or to normalize it again).
constexpr bool saves_input(LayerKind k) {
  return k == LayerKind::Linear || k == LayerKind::Conv2d || k == LayerKind::DepthwiseConv2d ||
         is_batch_norm(k);
}

// The options a layer can take. Each option type names its kind so that a layer can refuse
// options it does not accept and options given twice.
enum class OptionKind : std::uint8_t {
  in_features,
  kernel,
  stride,
  padding,  // Padding<H, W> or PaddingSame: one padding each
  no_bias,
  groups,
  epsilon,
  momentum,
  count_
};

constexpr const char* name_of(OptionKind k) {
  switch (k) {
    case OptionKind::in_features:
      return "InFeatures";
    case OptionKind::kernel:
      return "Kernel";
    case OptionKind::stride:
      return "Stride";
    case OptionKind::padding:
      return "Padding";
    case OptionKind::no_bias:
      return "NoBias";
    case OptionKind::groups:
      return "Groups";
    case OptionKind::epsilon:
      return "Epsilon";
    case OptionKind::momentum:
      return "Momentum";
    case OptionKind::count_:
      break;
  }
  return "?";
}

// A problem found while reading a layer's options; reported with the layer's index later.
enum class OptionProblem : std::uint8_t { none, given_twice, not_accepted, missing };

struct LayerDesc {
  LayerKind kind = LayerKind::Flatten;
  std::int64_t out = 0;           // Linear: out features; Conv2d: out channels
  std::int64_t in_features = -1;  // Linear: InFeatures<N> when given, else -1 (inferred)
  std::int64_t kernel_h = 0, kernel_w = 0;
  std::int64_t stride_h = 1, stride_w = 1;
  // Padding before (top, left) and after (bottom, right) the input. Padding<P> writes pad_h and
  // pad_w, and lowering pads the far sides alike; PaddingSame leaves all four to lowering, which
  // computes TensorFlow's 'same' split. So the *_end fields are lowering's output, never written.
  std::int64_t pad_h = 0, pad_w = 0;
  std::int64_t pad_h_end = 0, pad_w_end = 0;
  bool same_padding = false;
  bool bias = true;            // Linear, Conv2d, DepthwiseConv2d
  std::int64_t groups = 1;     // Conv2d: Groups<G>
  std::int64_t ratio_num = 0;  // Dropout: the drop probability P/Q
  std::int64_t ratio_den = 1;
  // BatchNorm: epsilon and momentum (PyTorch's meaning: new = (1 - m)·running + m·batch).
  std::int64_t epsilon_num = 1, epsilon_den = 100000;
  std::int64_t momentum_num = 1, momentum_den = 10;
  // LeakyReLU slope is fixed at 0.01 (PyTorch's default) and documented in layers.hpp.
  OptionProblem option_problem = OptionProblem::none;
  OptionKind problem_option = OptionKind::count_;

  static constexpr LayerDesc of(LayerKind k, std::int64_t out = 0) {
    LayerDesc d;
    d.kind = k;
    d.out = out;
    return d;
  }
  constexpr double epsilon() const {
    return static_cast<double>(epsilon_num) / static_cast<double>(epsilon_den);
  }
  constexpr double momentum() const {
    return static_cast<double>(momentum_num) / static_cast<double>(momentum_den);
  }
  constexpr double drop_probability() const {
    return static_cast<double>(ratio_num) / static_cast<double>(ratio_den);
  }
  constexpr bool symmetric_padding() const { return pad_h == pad_h_end && pad_w == pad_w_end; }
};

// Where a node of the flattened model reads from: the node whose output it takes, or the model's
// input. A Residual's Add reads two tensors; every other node one.
inline constexpr std::int32_t model_input = -1;
inline constexpr std::int32_t no_input = -2;

// One node of the flattened model: a layer and the tensors it reads, by the id of the node that
// writes them. Nodes come in an order where every node follows the nodes it reads, and the last
// node is the model's output; flatten() guarantees both, and hand-made node lists must keep them.
struct NodeDesc {
  LayerDesc layer;
  std::int32_t inputs[2] = {model_input, no_input};
  std::int32_t block_first = -1;  // an Add: the first node of its Residual block

  constexpr int input_count() const { return inputs[1] == no_input ? 1 : 2; }
};

}  // namespace staticnet
