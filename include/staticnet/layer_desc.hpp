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

// The options a layer can take. Each option type names its kind so that a layer can refuse
// options it does not accept and options given twice.
enum class OptionKind : std::uint8_t { in_features, kernel, stride, padding, no_bias, count_ };

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
  std::int64_t pad_h = 0, pad_w = 0;
  bool bias = true;  // Linear, Conv2d
  // LeakyReLU slope is fixed at 0.01 (PyTorch's default) and documented in layers.hpp.
  OptionProblem option_problem = OptionProblem::none;
  OptionKind problem_option = OptionKind::count_;

  static constexpr LayerDesc of(LayerKind k, std::int64_t out = 0) {
    LayerDesc d;
    d.kind = k;
    d.out = out;
    return d;
  }
};

}  // namespace staticnet
