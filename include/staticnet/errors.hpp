#pragma once
// Compile errors that read in the user's terms. C++20 string literals cannot hold numbers, so
// the numbers travel in the name of the failing instantiation, e.g.
//
//   In instantiation of 'struct staticnet::error::linear_in_features_mismatch<
//       staticnet::error::layer<7, staticnet::LayerKind::Linear,
//                               staticnet::error::nesting<staticnet::error::entry<8> > >,
//       staticnet::error::in_features_written<2048>, staticnet::error::features_arriving<8192>,
//       staticnet::error::shape<128, 8, 8> >'
//   error: static assertion failed: Linear: InFeatures<N> differs from the features ...
//
// Layer indices count the flattened model from 0. Each template below fails on purpose when
// instantiated; report<Diagnostic>() picks the one that matches.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "staticnet/diagnostic.hpp"

namespace staticnet::error {

// Where a layer sits in the model as the user nested it, outermost first: each step is the
// N-th entry (from 1) of a Sequential, or a Residual's body, shortcut, or the sum that closes it.
// nesting<entry<5>, residual_body, entry<2>> is the 2nd entry of the body of the Residual that
// is the 5th entry of the model's Sequential. Empty when the model is the layer itself.
template <std::int64_t N>
struct entry {};
struct residual_body {};
struct residual_shortcut {};
struct residual_sum {};
struct nested_deeper {};  // the path goes on, deeper than an error names (16 steps)
template <class... Steps>
struct nesting {};

// Argument wrappers: they exist only to name the numbers in the error's text. A layer is named
// by its index in the flattened model and its kind, then its place in the model as written.
template <std::int64_t Index, LayerKind Kind, class Nesting>
struct layer {};
template <OptionKind Option>
struct option {};
template <SetupOption Option>
struct setup_option {};
template <std::int64_t... Dims>
struct shape {};
template <class Shape>
struct body_output {};
template <class Shape>
struct shortcut_output {};
struct identity_shortcut {};
template <DType T>
struct target_dtype {};
template <PrecisionKind P>
struct precision {};
#define STATICNET_NUMBER(name)               \
  template <std::int64_t N>                  \
  struct name {                              \
    static constexpr std::int64_t value = N; \
  };
STATICNET_NUMBER(in_features_written)
STATICNET_NUMBER(features_arriving)
STATICNET_NUMBER(dimensions_written)
STATICNET_NUMBER(dimension_index)
STATICNET_NUMBER(dimension_value)
STATICNET_NUMBER(batch)
STATICNET_NUMBER(micro_batches)
STATICNET_NUMBER(out_written)
STATICNET_NUMBER(kernel_h)
STATICNET_NUMBER(kernel_w)
STATICNET_NUMBER(padded_input_h)
STATICNET_NUMBER(padded_input_w)
STATICNET_NUMBER(height)
STATICNET_NUMBER(width)
STATICNET_NUMBER(padding)
STATICNET_NUMBER(kernel)
STATICNET_NUMBER(required_bytes)
STATICNET_NUMBER(budget_bytes)
STATICNET_NUMBER(needs_bytes)
STATICNET_NUMBER(extra_compute_percent)
STATICNET_NUMBER(smallest_batch)
STATICNET_NUMBER(weights)
STATICNET_NUMBER(gradients)
STATICNET_NUMBER(optimizer_state)
STATICNET_NUMBER(activations)
STATICNET_NUMBER(workspace)
STATICNET_NUMBER(inputs)
STATICNET_NUMBER(device_overhead)
STATICNET_NUMBER(host_bytes)
STATICNET_NUMBER(batch_slots)
STATICNET_NUMBER(pinned_staging)
STATICNET_NUMBER(checkpoint_state)
STATICNET_NUMBER(non_trainable)
STATICNET_NUMBER(groups)
STATICNET_NUMBER(in_channels)
STATICNET_NUMBER(out_channels)
STATICNET_NUMBER(numerator)
STATICNET_NUMBER(denominator)
STATICNET_NUMBER(block_starts_at_layer)
STATICNET_NUMBER(shortcut_ends_at_layer)
STATICNET_NUMBER(reads_layer)
STATICNET_NUMBER(readers_of_that_layer)
STATICNET_NUMBER(units)
STATICNET_NUMBER(code_overhead)
STATICNET_NUMBER(samples)
STATICNET_NUMBER(values_per_channel)
#undef STATICNET_NUMBER

// The last argument of does_not_fit and does_not_fit_host: the first remedy fit() finds
// (fit.hpp), with the bytes it needs on the device: the same batch as K micro-batches, the
// same batch (as K micro-batches) under a checkpointing policy with the compute it adds, the
// largest batch that fits, or nothing (the smallest batch's bytes).
template <class MicroBatches, class Needs>
struct fits_with_accumulate {};
template <class Policy, class MicroBatches, class Needs, class ExtraComputePercent>
struct fits_with_checkpoint {};
template <class Batch, class Needs>
struct fits_with_smaller_batch {};
template <class SmallestBatch, class Needs>
struct fits_with_nothing {};

template <class T>
inline constexpr bool always_false = false;

// ---- the setup -----------------------------------------------------------------------------

template <class Option>
struct missing_input {
  static_assert(always_false<missing_input>,
                "staticnet: the setup has no Input<dtype, dims...>; add e.g. "
                "sn::Input<sn::f32, 3, 32, 32> to sn::Training<...> or sn::Inference<...>");
};
template <class Option>
struct setup_option_given_twice {
  static_assert(always_false<setup_option_given_twice>,
                "staticnet: a setup option is given twice; keep one");
};
template <class Option>
struct setup_option_not_accepted {
  static_assert(always_false<setup_option_not_accepted>,
                "staticnet: sn::Inference accepts only Input, Batch and Precision");
};
template <class DimensionsWritten>
struct input_rank_too_large {
  static_assert(DimensionsWritten::value < 4,
                "staticnet: Input takes one sample's shape, (C, H, W) or (F): at most 3 "
                "dimensions; the batch goes in Batch<N>");
};
template <class DimensionIndex, class Value>
struct nonpositive_input_dimension {
  static_assert(Value::value > 0, "staticnet: every Input dimension must be at least 1");
};
template <class Batch>
struct nonpositive_batch {
  static_assert(Batch::value > 0, "staticnet: Batch<N> needs N >= 1");
};
template <class MicroBatches>
struct nonpositive_micro_batches {
  static_assert(MicroBatches::value > 0,
                "staticnet: Accumulate<K> needs K >= 1 (the micro-batches a step runs)");
};
template <class Batch, class MicroBatches>
struct micro_batches_do_not_divide {
  static_assert(always_false<micro_batches_do_not_divide>,
                "staticnet: Accumulate<K> splits Batch<B> into K micro-batches of B/K samples: K "
                "must divide B");
};
template <class BudgetBytes, class NeedsBytes>
struct checkpoint_budget_too_small {
  static_assert(always_false<checkpoint_budget_too_small>,
                "staticnet: no way of checkpointing fits the step into Checkpoint<Auto<Budget>>'s "
                "budget; needs_bytes is the least any cut set needs. Give a larger budget, or "
                "make the step smaller: Accumulate<K>, a smaller batch, or a lower precision");
};
template <class BudgetBytes, class NeedsBytes>
struct checkpoint_placement_over_budget {
  static_assert(always_false<checkpoint_placement_over_budget>,
                "staticnet: Checkpoint<Auto<Budget>> found cut sets whose live bytes fit the "
                "budget, but the arena lays them out with gaps that do not; needs_bytes is what "
                "the last one tried needs. Give a little more budget, or use Checkpoint<Sqrt> or "
                "Every<K> and check them with fits()");
};
template <class Units>
struct checkpoint_search_too_large {
  static_assert(always_false<checkpoint_search_too_large>,
                "staticnet: Checkpoint<Auto> prices every way of cutting a model at compile "
                "time, and a model of this many units (the pieces between the places it may cut) "
                "is beyond what it prices within the compiler's limits for now; use "
                "Checkpoint<Sqrt> or Every<K>, and fits() to check them");
};
template <class Precision>
struct precision_needs_inference {
  static_assert(always_false<precision_needs_inference>,
                "staticnet: Precision<Int8> is TensorFlow Lite's int8 scheme for inference; use "
                "it in sn::Inference<...> (train in FP32 or mixed precision, then quantize)");
};

// ---- layers --------------------------------------------------------------------------------

template <class Layer, class Option>
struct option_given_twice {
  static_assert(always_false<option_given_twice>,
                "staticnet: a layer option is given twice; keep one");
};
template <class Layer, class Option>
struct option_not_accepted {
  static_assert(
      always_false<option_not_accepted>,
      "staticnet: this layer does not take that option (Linear: InFeatures, NoBias; "
      "Conv2d: Kernel, Stride, Padding or PaddingSame, NoBias, Groups; "
      "DepthwiseConv2d: the same but Groups; pools: Stride, Padding or PaddingSame (their "
      "window is their first argument); "
      "BatchNorm: Epsilon, Momentum)");
};
template <class Layer>
struct missing_kernel {
  static_assert(always_false<missing_kernel>,
                "staticnet: Conv2d needs a kernel size: sn::Kernel<K> or sn::Kernel<KH, KW> "
                "(DepthwiseConv2d too)");
};
template <class Layer, class Option, class Height, class Width>
struct nonpositive_window_option {
  static_assert(always_false<nonpositive_window_option>,
                "staticnet: Kernel and Stride must be at least 1, Padding at least 0");
};
template <class Layer, class Padding, class Kernel>
struct pool_padding_too_large {
  static_assert(2 * Padding::value <= Kernel::value,
                "staticnet: a pool's padding may be at most half its window");
};
template <class Layer, class OutWritten>
struct nonpositive_output {
  static_assert(OutWritten::value > 0,
                "staticnet: a layer must produce at least one feature or channel");
};
template <class Layer, class InputShape>
struct linear_needs_flat_input {
  static_assert(always_false<linear_needs_flat_input>,
                "staticnet: Linear takes (batch, features); put sn::Flatten before it");
};
template <class Layer, class InFeaturesWritten, class FeaturesArriving, class ArrivingAsShape>
struct linear_in_features_mismatch {
  static_assert(InFeaturesWritten::value == FeaturesArriving::value,
                "staticnet: Linear: InFeatures<N> differs from the features the previous "
                "layer produces; fix N, or drop InFeatures to infer it");
};
template <class Layer, class InputShape>
struct needs_spatial_input {
  static_assert(always_false<needs_spatial_input>,
                "staticnet: Conv2d, DepthwiseConv2d, BatchNorm2d, the pools and "
                "GlobalAvgPool2d take (batch, channels, height, width); this input has no "
                "spatial dimensions, or no channel axis (a one-channel image is still "
                "Input<T, 1, H, W>)");
};
template <class Layer, class InputShape>
struct needs_flat_input {
  static_assert(always_false<needs_flat_input>,
                "staticnet: BatchNorm1d takes (batch, features); use BatchNorm2d on images, or "
                "put sn::Flatten before it");
};
template <class Layer, class Groups, class InChannels, class OutChannels>
struct groups_do_not_divide {
  static_assert(always_false<groups_do_not_divide>,
                "staticnet: Conv2d: Groups<G> must divide both the input and the output "
                "channels");
};
template <class Layer, class Option, class Numerator, class Denominator>
struct bad_ratio {
  static_assert(always_false<bad_ratio>,
                "staticnet: a ratio is out of range: BatchNorm's Epsilon<N, D> needs N, D > 0, "
                "Momentum<N, D> 0 <= N <= D");
};
template <class Layer, class Numerator, class Denominator>
struct dropout_probability_out_of_range {
  static_assert(always_false<dropout_probability_out_of_range>,
                "staticnet: Dropout<P, Q> drops with probability P/Q, which must be at least 0 "
                "and below 1 (Dropout<20> is 0.2)");
};
// Shortcut: shortcut_ends_at_layer<N> (its last layer), or identity_shortcut.
template <class AddLayer, class BlockStartsAtLayer, class Shortcut, class BodyOutput,
          class ShortcutOutput>
struct residual_shapes_differ {
  static_assert(always_false<residual_shapes_differ>,
                "staticnet: Residual: the body's and the shortcut's outputs differ in shape; "
                "make them agree: give an identity shortcut a layer, or change the shortcut's "
                "layers (e.g. a 1x1 Conv2d with the body's stride and channels)");
};
// ReadsLayer: the layer whose output it normalises (-1: the model's input).
template <class Layer, class ReadsLayer, class ReadersOfThatLayer>
struct batch_norm_does_not_fold {
  static_assert(always_false<batch_norm_does_not_fold>,
                "staticnet: under Precision<Int8> a BatchNorm folds into the Conv2d, "
                "DepthwiseConv2d or Linear before it, as TensorFlow Lite's converter folds it: "
                "put it right after one, whose output nothing else reads");
};
// Samples: those normalised together, the batch or (under Accumulate<K>) the micro-batch.
template <class Layer, class Samples, class ValuesPerChannel>
struct batch_norm_one_value_per_channel {
  static_assert(always_false<batch_norm_one_value_per_channel>,
                "staticnet: in training a BatchNorm normalises each channel over the values of "
                "the samples it sees together, and one value normalises to 0 and trains "
                "nothing (PyTorch refuses it too); use a batch, or under Accumulate<K> a "
                "micro-batch, of at least 2 samples");
};
template <class Layer, class KernelH, class KernelW, class PaddedH, class PaddedW>
struct kernel_larger_than_padded_input {
  static_assert(KernelH::value <= PaddedH::value && KernelW::value <= PaddedW::value,
                "staticnet: the window is larger than its padded input; pad more, use a "
                "smaller kernel, or pool less before this layer");
};

// ---- the loss -------------------------------------------------------------------------------

template <class OutputShape>
struct cross_entropy_needs_flat_logits {
  static_assert(always_false<cross_entropy_needs_flat_logits>,
                "staticnet: CrossEntropy needs logits shaped (batch, classes); end the model "
                "with Flatten and Linear<classes>");
};
template <class TargetShape, class TargetDtype>
struct cross_entropy_needs_class_index_target {
  static_assert(always_false<cross_entropy_needs_class_index_target>,
                "staticnet: CrossEntropy takes one int32 class index per sample: "
                "sn::Target<sn::i32>");
};
template <class OutputPerSample, class TargetPerSample, class TargetDtype>
struct mse_target_mismatch {
  static_assert(always_false<mse_target_mismatch>,
                "staticnet: MSE needs f32 targets shaped like one sample of the output");
};

// ---- budgets -------------------------------------------------------------------------------

// Instantiated only when the step does not fit (assert_fits). HostBytes: the trainer's host
// memory, counted on a device whose CPU and GPU share one memory (0 elsewhere). Remedy: one of
// the fits_with_* above.
template <class Required, class Budget, class Weights, class NonTrainable, class Gradients,
          class OptimizerState, class Activations, class Workspace, class Inputs,
          class DeviceOverhead, class HostBytes, class Remedy>
struct does_not_fit {
  static_assert(always_false<does_not_fit>,
                "staticnet: the training step needs more memory than the device budget; "
                "does_not_fit<...> names the bytes required, the budget, and the bytes of each "
                "part of the step");
};

// The trainer's host memory (plan.host) exceeds the host budget a device profile names
// (Device::host_memory).
template <class Required, class Budget, class BatchSlots, class PinnedStaging,
          class CheckpointState, class Remedy>
struct does_not_fit_host {
  static_assert(always_false<does_not_fit_host>,
                "staticnet: the trainer needs more host memory than the budget; "
                "does_not_fit_host<...> names the bytes required, the budget, and the parts");
};

// A microcontroller (a device with flash) runs an Int8 plan from two memories: the arena in
// its SRAM, the weights as constants in its flash. Each has its own error, so that a build that
// exceeds both fails with both.
template <class Required, class Budget, class Activations, class Workspace, class Inputs,
          class DeviceOverhead>
struct does_not_fit_sram {
  static_assert(always_false<does_not_fit_sram>,
                "staticnet: the arena needs more SRAM than the microcontroller has; "
                "does_not_fit_sram<...> names the bytes required, the SRAM, and the arena's "
                "parts");
};
template <class Required, class Budget, class Weights, class NonTrainable, class CodeOverhead>
struct does_not_fit_flash {
  static_assert(always_false<does_not_fit_flash>,
                "staticnet: the weights need more flash than the microcontroller has; "
                "does_not_fit_flash<...> names the bytes required, the flash, and the parts");
};

// ---- dispatch ------------------------------------------------------------------------------

namespace detail {
template <Shape S, std::size_t... I>
constexpr auto shape_type(std::index_sequence<I...>) -> shape<S.dims[I]...>;
}  // namespace detail
template <Shape S>
using shape_of =
    decltype(detail::shape_type<S>(std::make_index_sequence<static_cast<std::size_t>(S.rank)>{}));

// Instantiates the error that describes D, whose layer sits in the model at Nesting. Only
// called when D is an error.
template <Diagnostic D, class Nesting>
constexpr void report() {
  using L = layer<D.layer, D.kind, Nesting>;
  constexpr auto code = D.code;
  if constexpr (code == ErrorCode::missing_input) {
    (void)sizeof(missing_input<setup_option<D.setup_option>>);
  } else if constexpr (code == ErrorCode::setup_option_given_twice) {
    (void)sizeof(setup_option_given_twice<setup_option<D.setup_option>>);
  } else if constexpr (code == ErrorCode::setup_option_not_accepted) {
    (void)sizeof(setup_option_not_accepted<setup_option<D.setup_option>>);
  } else if constexpr (code == ErrorCode::input_rank_too_large) {
    (void)sizeof(input_rank_too_large<dimensions_written<D.a>>);
  } else if constexpr (code == ErrorCode::nonpositive_input_dimension) {
    (void)sizeof(nonpositive_input_dimension<dimension_index<D.a>, dimension_value<D.b>>);
  } else if constexpr (code == ErrorCode::nonpositive_batch) {
    (void)sizeof(nonpositive_batch<batch<D.a>>);
  } else if constexpr (code == ErrorCode::nonpositive_micro_batches) {
    (void)sizeof(nonpositive_micro_batches<micro_batches<D.a>>);
  } else if constexpr (code == ErrorCode::micro_batches_do_not_divide) {
    (void)sizeof(micro_batches_do_not_divide<batch<D.a>, micro_batches<D.b>>);
  } else if constexpr (code == ErrorCode::checkpoint_budget_too_small) {
    (void)sizeof(checkpoint_budget_too_small<budget_bytes<D.a>, needs_bytes<D.b>>);
  } else if constexpr (code == ErrorCode::checkpoint_placement_over_budget) {
    (void)sizeof(checkpoint_placement_over_budget<budget_bytes<D.a>, needs_bytes<D.b>>);
  } else if constexpr (code == ErrorCode::checkpoint_search_too_large) {
    (void)sizeof(checkpoint_search_too_large<units<D.a>>);
  } else if constexpr (code == ErrorCode::precision_needs_inference) {
    (void)sizeof(precision_needs_inference<precision<static_cast<PrecisionKind>(D.a)>>);
  } else if constexpr (code == ErrorCode::option_given_twice) {
    (void)sizeof(option_given_twice<L, option<D.option>>);
  } else if constexpr (code == ErrorCode::option_not_accepted) {
    (void)sizeof(option_not_accepted<L, option<D.option>>);
  } else if constexpr (code == ErrorCode::missing_kernel) {
    (void)sizeof(missing_kernel<L>);
  } else if constexpr (code == ErrorCode::nonpositive_window_option) {
    (void)sizeof(nonpositive_window_option<L, option<D.option>, height<D.a>, width<D.b>>);
  } else if constexpr (code == ErrorCode::pool_padding_too_large) {
    (void)sizeof(pool_padding_too_large<L, padding<D.a>, kernel<D.b>>);
  } else if constexpr (code == ErrorCode::nonpositive_output) {
    (void)sizeof(nonpositive_output<L, out_written<D.a>>);
  } else if constexpr (code == ErrorCode::linear_needs_flat_input) {
    (void)sizeof(linear_needs_flat_input<L, shape_of<D.shape_a>>);
  } else if constexpr (code == ErrorCode::linear_in_features_mismatch) {
    (void)sizeof(linear_in_features_mismatch<L, in_features_written<D.a>, features_arriving<D.b>,
                                             shape_of<D.shape_a>>);
  } else if constexpr (code == ErrorCode::needs_spatial_input) {
    (void)sizeof(needs_spatial_input<L, shape_of<D.shape_a>>);
  } else if constexpr (code == ErrorCode::kernel_larger_than_padded_input) {
    (void)sizeof(kernel_larger_than_padded_input<L, kernel_h<D.a>, kernel_w<D.b>,
                                                 padded_input_h<D.c>, padded_input_w<D.d>>);
  } else if constexpr (code == ErrorCode::needs_flat_input) {
    (void)sizeof(needs_flat_input<L, shape_of<D.shape_a>>);
  } else if constexpr (code == ErrorCode::groups_do_not_divide) {
    (void)sizeof(groups_do_not_divide<L, groups<D.a>, in_channels<D.b>, out_channels<D.c>>);
  } else if constexpr (code == ErrorCode::bad_ratio && D.kind == LayerKind::Dropout) {
    (void)sizeof(dropout_probability_out_of_range<L, numerator<D.a>, denominator<D.b>>);
  } else if constexpr (code == ErrorCode::bad_ratio) {
    (void)sizeof(bad_ratio<L, option<D.option>, numerator<D.a>, denominator<D.b>>);
  } else if constexpr (code == ErrorCode::residual_shapes_differ) {
    constexpr bool identity = D.b < 0;
    using Shortcut = std::conditional_t<identity, identity_shortcut, shortcut_ends_at_layer<D.b>>;
    (void)sizeof(residual_shapes_differ<L, block_starts_at_layer<D.a>, Shortcut,
                                        body_output<shape_of<D.shape_a>>,
                                        shortcut_output<shape_of<D.shape_b>>>);
  } else if constexpr (code == ErrorCode::batch_norm_does_not_fold) {
    (void)sizeof(batch_norm_does_not_fold<L, reads_layer<D.a>, readers_of_that_layer<D.b>>);
  } else if constexpr (code == ErrorCode::batch_norm_one_value_per_channel) {
    (void)sizeof(batch_norm_one_value_per_channel<L, samples<D.a>, values_per_channel<D.b>>);
  } else if constexpr (code == ErrorCode::cross_entropy_needs_flat_logits) {
    (void)sizeof(cross_entropy_needs_flat_logits<shape_of<D.shape_a>>);
  } else if constexpr (code == ErrorCode::cross_entropy_needs_class_index_target) {
    (void)sizeof(cross_entropy_needs_class_index_target<shape_of<D.shape_a>,
                                                        target_dtype<static_cast<DType>(D.a)>>);
  } else if constexpr (code == ErrorCode::mse_target_mismatch) {
    (void)sizeof(mse_target_mismatch<shape_of<D.shape_a>, shape_of<D.shape_b>,
                                     target_dtype<static_cast<DType>(D.a)>>);
  } else {
    // An ErrorCode without a template above must not compile into an empty plan.
    static_assert(code == ErrorCode::none, "staticnet: an error code has no error template");
  }
}

// Instantiates report<D>() without calling it. A call, or a sizeof of the failing error in the
// function itself, would make that function no constant expression, and clang would then add an
// error for every constant that reads it (one per planning stage, each spelling out the whole
// model type); taking the address from a class only instantiates the error that describes D.
template <Diagnostic D, class Nesting>
struct reporter {
  static constexpr auto instantiate = &report<D, Nesting>;
};

// The same for an error type given directly (does_not_fit, from budget.hpp's assert_fits).
template <class Error>
constexpr void instantiate() {
  (void)sizeof(Error);
}
template <class Error>
struct raise {
  static constexpr auto instantiate = &error::instantiate<Error>;
};

}  // namespace staticnet::error
