#pragma once
// The layers a model is made of, and their options. Options may come in any order; each may be
// given at most once. Every layer type offers `static constexpr LayerDesc desc()`.
//
// What each layer saves for backward (the least its backward needs), and why:
//   Linear     its input x: dW = dYᵀx needs x; dx = dY·W needs only W. When x is the previous
//              layer's output, this is the same storage, not a copy.
//   Conv2d     its input x, for the same reason (dW is a correlation of x with dY).
//   ReLU       its output y: y > 0 exactly where x > 0, so y decides where the gradient passes.
//              The ReLU runs in place over its input when nothing else needs that input, so a
//              conv or linear followed by a ReLU keeps one tensor, shared with the next layer.
//   LeakyReLU  its output y (slope 0.01 > 0 keeps the sign of x, so y decides the branch).
//   Sigmoid    its output y: σ' = y(1 − y).
//   Tanh       its output y: tanh' = 1 − y².
//   MaxPool2d  a window index per output element (1 byte for windows of up to 256 positions,
//              2 up to 65536): enough to route dY back; neither input nor output is kept.
//   AvgPool2d  nothing: the gradient is dY spread evenly over the window, known from shapes.
//   Flatten    nothing: a view of its input; its output is the same storage.
//   DepthwiseConv2d  its input x, like Conv2d.
//   BatchNorm2d, BatchNorm1d  its input x and, per channel, the batch mean and 1/sqrt(var + eps)
//              (8 bytes a channel): backward normalizes x again with them. Saving x̂ instead would
//              cost the same bytes; saving the output would not do (γ may be 0).
//   GlobalAvgPool2d  nothing: dY spreads evenly over H·W.
//   Dropout    its mask, one bit per element: dX = dY·mask/(1 − p). Neither x nor y is kept.
//   Add        nothing: the gradient of a sum passes to both operands unchanged.
//
// The dtype of each layer's tensors. Under Precision<FP32> all are f32. Under mixed precision,
// Mixed<D> with D bf16 or f16, they follow torch.autocast (plan.hpp's output_dtype), and a
// gradient always has its tensor's dtype:
//   Linear, Conv2d, DepthwiseConv2d  output in D: autocast runs them in D, from a D copy of the
//              weights and bias (the plan's parameter_copy, made from the f32 master each step),
//              accumulating in f32. What they save, their input, is in whatever dtype the layer
//              before produced; the model's f32 input is kept as it is and rounded as it is read,
//              which is what autocast's cast of it computes, without the cast's copy.
//   ReLU, LeakyReLU, Sigmoid, Tanh, MaxPool2d, AvgPool2d, GlobalAvgPool2d, Dropout, Flatten
//              output in their input's dtype (autocast leaves them alone: they run in what they
//              are given), and so their saved output; a window index and a mask as under FP32.
//   BatchNorm2d, BatchNorm1d  output in its input's dtype; the saved batch mean and
//              1/sqrt(var + eps) f32 (cuDNN's and PyTorch's own kernels keep them so); γ, β and
//              the running statistics f32 (autocast does not cast them).
//   Add        the wider of its inputs' dtypes (PyTorch's promotion: bf16 + f32 is f32). Its
//              gradient to a narrower input is that input's dtype, so a buffer of its own.
//   the loss   computed in f32 from the logits in their dtype (cross_entropy and mse_loss are on
//              autocast's f32 list); the per-sample losses f32; d(logits) in the logits' dtype.
// The parameters' gradients and the optimizer's state are f32, as the master parameters are.
// Under Pure<bf16> (a model converted with .to(torch.bfloat16)) every tensor above is bf16, the
// parameters, their gradients, the optimizer's state and the running statistics too, but for the
// batch statistics (f32) and the loss's values; there is no working copy.
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "staticnet/layer_desc.hpp"

namespace staticnet {

// ---- options ------------------------------------------------------------------------------

template <std::int64_t N>
struct InFeatures {
  static constexpr OptionKind option_kind = OptionKind::in_features;
  static constexpr void apply(LayerDesc& d) { d.in_features = N; }
};

template <std::int64_t H, std::int64_t W = H>
struct Kernel {
  static constexpr OptionKind option_kind = OptionKind::kernel;
  static constexpr void apply(LayerDesc& d) {
    d.kernel_h = H;
    d.kernel_w = W;
  }
};

template <std::int64_t H, std::int64_t W = H>
struct Stride {
  static constexpr OptionKind option_kind = OptionKind::stride;
  static constexpr void apply(LayerDesc& d) {
    d.stride_h = H;
    d.stride_w = W;
  }
};

template <std::int64_t H, std::int64_t W = H>
struct Padding {
  static constexpr OptionKind option_kind = OptionKind::padding;
  static constexpr void apply(LayerDesc& d) {
    d.pad_h = H;
    d.pad_w = W;
  }
};

// TensorFlow/Keras padding='same' for Conv2d, DepthwiseConv2d and the pools: the output has
// ceil(in / stride) rows and columns, and the padding this needs is split with the odd row or
// column at the bottom or right (a stride-2 3x3 window over an even input pads 0 before and 1
// after). Pools then ignore the padding: a max over the real elements only, a mean divided by
// the real elements only, as TensorFlow does.
struct PaddingSame {
  static constexpr OptionKind option_kind = OptionKind::padding;
  static constexpr void apply(LayerDesc& d) { d.same_padding = true; }
};

// Conv2d in G groups: each group of in_channels / G inputs makes out_channels / G outputs.
template <std::int64_t G>
struct Groups {
  static constexpr OptionKind option_kind = OptionKind::groups;
  static constexpr void apply(LayerDesc& d) { d.groups = G; }
};

// BatchNorm's epsilon, N / D (default 1e-5, PyTorch's; Keras' is 1e-3: Epsilon<1, 1000>).
template <std::int64_t N, std::int64_t D>
struct Epsilon {
  static constexpr OptionKind option_kind = OptionKind::epsilon;
  static constexpr void apply(LayerDesc& d) {
    d.epsilon_num = N;
    d.epsilon_den = D;
  }
};

// BatchNorm's momentum N / D in PyTorch's sense, the weight of the new batch's statistics
// (default 0.1). Keras' momentum 0.99 is PyTorch's 0.01: Momentum<1, 100>.
template <std::int64_t N, std::int64_t D>
struct Momentum {
  static constexpr OptionKind option_kind = OptionKind::momentum;
  static constexpr void apply(LayerDesc& d) {
    d.momentum_num = N;
    d.momentum_den = D;
  }
};

// Linear or Conv2d without a bias term.
struct NoBias {
  static constexpr OptionKind option_kind = OptionKind::no_bias;
  static constexpr void apply(LayerDesc& d) { d.bias = false; }
};

template <class T>
concept LayerOption = requires(LayerDesc& d) {
  { T::option_kind } -> std::convertible_to<OptionKind>;
  T::apply(d);
};

namespace detail {

constexpr unsigned option_bit(OptionKind k) {
  return 1u << static_cast<unsigned>(k);
}

// Applies the options in order, recording the first one that is refused or repeated.
template <unsigned Accepted, LayerOption... Options>
constexpr LayerDesc with_options(LayerDesc d) {
  unsigned seen = 0;
  [[maybe_unused]] auto one = [&](OptionKind kind, auto apply) {
    if (d.option_problem != OptionProblem::none)
      return;
    if ((Accepted & option_bit(kind)) == 0) {
      d.option_problem = OptionProblem::not_accepted;
      d.problem_option = kind;
    } else if (seen & option_bit(kind)) {
      d.option_problem = OptionProblem::given_twice;
      d.problem_option = kind;
    } else {
      seen |= option_bit(kind);
      apply(d);
    }
  };
  (one(Options::option_kind, [](LayerDesc& x) { Options::apply(x); }), ...);
  return d;
}

}  // namespace detail

// ---- layers -------------------------------------------------------------------------------

// y = x·Wᵀ + b on (batch, features) inputs. In-features are inferred from the input, like
// PyTorch's LazyLinear; InFeatures<N> states them, and a mismatch fails the build.
template <std::int64_t Out, LayerOption... Options>
struct Linear {
  static constexpr LayerDesc desc() {
    using detail::option_bit;
    return detail::with_options<
        option_bit(OptionKind::in_features) | option_bit(OptionKind::no_bias), Options...>(
        LayerDesc::of(LayerKind::Linear, Out));
  }
};

namespace detail {
constexpr LayerDesc require_kernel(LayerDesc d) {
  if (d.option_problem == OptionProblem::none && d.kernel_h == 0) {
    d.option_problem = OptionProblem::missing;
    d.problem_option = OptionKind::kernel;
  }
  return d;
}
}  // namespace detail

// 2-D convolution over (batch, channels, height, width). Kernel<K> or Kernel<KH, KW> is
// required; Stride defaults to 1 and Padding to 0 (zero padding on both sides); PaddingSame pads
// as TensorFlow does; Groups<G> splits channels into G groups.
template <std::int64_t Out, LayerOption... Options>
struct Conv2d {
  static constexpr LayerDesc desc() {
    using detail::option_bit;
    return detail::require_kernel(
        detail::with_options<option_bit(OptionKind::kernel) | option_bit(OptionKind::stride) |
                                 option_bit(OptionKind::padding) | option_bit(OptionKind::no_bias) |
                                 option_bit(OptionKind::groups),
                             Options...>(LayerDesc::of(LayerKind::Conv2d, Out)));
  }
};

// One K×K filter per channel (channel multiplier 1: as many outputs as inputs), as Keras'
// DepthwiseConv2D. Kernel is required; Stride, Padding or PaddingSame, NoBias as for Conv2d.
template <LayerOption... Options>
struct DepthwiseConv2d {
  static constexpr LayerDesc desc() {
    using detail::option_bit;
    return detail::require_kernel(
        detail::with_options<option_bit(OptionKind::kernel) | option_bit(OptionKind::stride) |
                                 option_bit(OptionKind::padding) | option_bit(OptionKind::no_bias),
                             Options...>(LayerDesc::of(LayerKind::DepthwiseConv2d)));
  }
};

namespace detail {
template <class T>
struct is_kernel : std::false_type {};
template <std::int64_t H, std::int64_t W>
struct is_kernel<Kernel<H, W>> : std::true_type {};

template <LayerKind Kind, auto Window, LayerOption... Options>
constexpr LayerDesc pool_desc() {
  LayerDesc d = LayerDesc::of(Kind);
  if constexpr (std::integral<decltype(Window)>) {
    d.kernel_h = d.kernel_w = static_cast<std::int64_t>(Window);
  } else {
    Window.apply(d);  // Kernel<H, W>{}
  }
  // The stride defaults to the window, as in PyTorch and Keras.
  d.stride_h = d.kernel_h;
  d.stride_w = d.kernel_w;
  return with_options<option_bit(OptionKind::stride) | option_bit(OptionKind::padding), Options...>(
      d);
}
}  // namespace detail

// A pool's window, its first argument: a number K for K×K (MaxPool2d<2>), or the value
// Kernel<H, W>{} for H rows by W columns (Keras' pool_size=(3, 1) is MaxPool2d<sn::Kernel<3, 1>{}>;
// the braces make the option type Conv2d takes a value, since a template's first argument is
// either a value or a type, and MaxPool2d<2> is a value).
template <class T>
concept PoolWindow = (std::integral<T> && !std::same_as<T, bool>) || detail::is_kernel<T>::value;

// Max over the window; Stride defaults to the window, Padding to 0; PaddingSame pads as
// TensorFlow does (a max over the real elements only).
template <PoolWindow auto Window, LayerOption... Options>
struct MaxPool2d {
  static constexpr LayerDesc desc() {
    return detail::pool_desc<LayerKind::MaxPool2d, Window, Options...>();
  }
};

// Mean over the window. With Padding<P> the padding counts as zeros in the mean (PyTorch's
// default, count_include_pad); with PaddingSame the mean is over the real elements only, as
// TensorFlow's 'same' takes it.
template <PoolWindow auto Window, LayerOption... Options>
struct AvgPool2d {
  static constexpr LayerDesc desc() {
    return detail::pool_desc<LayerKind::AvgPool2d, Window, Options...>();
  }
};

struct ReLU {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::ReLU); }
};
// Negative slope 0.01, PyTorch's default.
struct LeakyReLU {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::LeakyReLU); }
};
struct Sigmoid {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::Sigmoid); }
};
struct Tanh {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::Tanh); }
};
// (batch, C, H, W) -> (batch, C·H·W); a view, no copy.
struct Flatten {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::Flatten); }
};

// (batch, C, H, W) -> (batch, C): the mean of each channel.
struct GlobalAvgPool2d {
  static constexpr LayerDesc desc() { return LayerDesc::of(LayerKind::GlobalAvgPool2d); }
};

namespace detail {
template <LayerKind Kind, LayerOption... Options>
constexpr LayerDesc batch_norm_desc() {
  return with_options<option_bit(OptionKind::epsilon) | option_bit(OptionKind::momentum),
                      Options...>(LayerDesc::of(Kind));
}
}  // namespace detail

// Batch normalization per channel over (N, H, W), with a learned scale γ and shift β per channel.
// Training normalizes with the batch's mean and biased variance and updates the running mean and
// (unbiased, as PyTorch does) variance; under sn::Inference the running statistics normalize.
// The running statistics are not trained: they count in plan.non_trainable_count, live in the
// footprint's non_trainable region, and the optimizer never touches them.
template <LayerOption... Options>
struct BatchNorm2d {
  static constexpr LayerDesc desc() {
    return detail::batch_norm_desc<LayerKind::BatchNorm2d, Options...>();
  }
};
// The same per feature over N, for (batch, features) inputs.
template <LayerOption... Options>
struct BatchNorm1d {
  static constexpr LayerDesc desc() {
    return detail::batch_norm_desc<LayerKind::BatchNorm1d, Options...>();
  }
};

// Zeroes each element with probability P/Q in training and scales the rest by 1/(1 − P/Q);
// the identity under sn::Inference. Dropout<20> drops 20 %.
template <std::int64_t P, std::int64_t Q = 100>
struct Dropout {
  static constexpr LayerDesc desc() {
    LayerDesc d = LayerDesc::of(LayerKind::Dropout);
    d.ratio_num = P;
    d.ratio_den = Q;
    return d;
  }
};

template <class T>
concept Layer = requires {
  { T::desc() } -> std::same_as<LayerDesc>;
};

template <class T>
struct is_sequential;

// Layers applied in order. Sequentials nest; the model is flattened before lowering, and layer
// indices in plans and errors count the flattened layers from 0.
template <class... Layers>
struct Sequential {
  static_assert(sizeof...(Layers) > 0, "staticnet: Sequential<> needs at least one layer");
};

template <class T>
struct is_sequential : std::false_type {};
template <class... L>
struct is_sequential<Sequential<L...>> : std::true_type {};

// The shortcut that passes its input unchanged.
struct Identity {};

// Body(x) + Shortcut(x): a residual block. Body and Shortcut are each a layer, a Sequential or
// another Residual (Shortcut defaults to Identity); the block nests anywhere a layer can. It
// flattens to the body's layers, then the shortcut's, then an Add layer that sums the two, so
// layer indices keep counting in that order. The two outputs must have the same shape.
template <class Body, class Shortcut = Identity>
struct Residual {};

template <class T>
struct is_residual : std::false_type {};
template <class B, class S>
struct is_residual<Residual<B, S>> : std::true_type {};

template <class T>
concept Model = Layer<T> || is_sequential<T>::value || is_residual<T>::value;

}  // namespace staticnet
