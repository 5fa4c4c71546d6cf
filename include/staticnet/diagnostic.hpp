#pragma once
// A problem with a model or a setup, as a value. Lowering finds at most one (the first); the
// type-level entry points turn it into a failing instantiation of a template in
// staticnet::error whose name and arguments carry the numbers (see errors.hpp).
#include <cstdint>

#include "staticnet/layer_desc.hpp"
#include "staticnet/setup.hpp"
#include "staticnet/shape.hpp"

namespace staticnet {

enum class ErrorCode : std::uint8_t {
  none,
  // the setup
  missing_input,
  setup_option_given_twice,
  setup_option_not_accepted,
  input_rank_too_large,         // a: dimensions written
  nonpositive_input_dimension,  // a: index of the dimension, b: its value
  nonpositive_batch,            // a: batch
  nonpositive_micro_batches,    // a: the K of Accumulate<K>
  micro_batches_do_not_divide,  // a: batch, b: K
  checkpoint_budget_too_small,  // Checkpoint<Auto>: a: the budget's memory, b: the least any cut
                                // set needs (counted as required_memory counts)
  checkpoint_search_too_large,  // Checkpoint<Auto>: a model beyond what it prices (or a search
                                // beyond its room); a: the model's units (cut-to-cut pieces)
  checkpoint_placement_over_budget,  // Checkpoint<Auto>: cut sets fit by their live bytes, but
                                     // not once placed; a: the budget's memory, b: what the last
                                     // tried needs
  precision_needs_inference,         // setup_option: precision; a: the PrecisionKind (Int8)
  // a layer (layer, kind set)
  option_given_twice,   // option
  option_not_accepted,  // option
  missing_kernel,
  nonpositive_window_option,         // option, a: height value, b: width value
  pool_padding_too_large,            // a: padding, b: kernel
  nonpositive_output,                // a: the Out that was written
  linear_needs_flat_input,           // shape_a: the input shape
  linear_in_features_mismatch,       // a: InFeatures written, b: features arriving,
                                     // shape_a: one sample's shape before Flatten
  needs_spatial_input,               // shape_a: the input shape
  kernel_larger_than_padded_input,   // a, b: kernel h, w; c, d: padded input h, w
  groups_do_not_divide,              // a: groups, b: in channels, c: out channels
  needs_flat_input,                  // shape_a: the input shape (BatchNorm1d)
  bad_ratio,                         // option (none for Dropout's P/Q), a / b: the ratio
  residual_shapes_differ,            // a: the block's first layer, b: the shortcut's last (-1:
                                     // the identity), shape_a: body, shape_b: shortcut
  batch_norm_does_not_fold,          // Int8: a: the layer it reads (-1: the model's input), b:
                                     // how many layers read that layer's output
  batch_norm_one_value_per_channel,  // training: a: the samples normalised together (the batch,
                                     // or the micro-batch), b: values per channel (a × positions)
  // the loss
  cross_entropy_needs_flat_logits,         // shape_a: the model's output
  cross_entropy_needs_class_index_target,  // shape_a: target, a: target dtype
  mse_target_mismatch,  // shape_a: output per sample, shape_b: target per sample, a: target dtype
};

struct Diagnostic {
  ErrorCode code = ErrorCode::none;
  std::int64_t layer = -1;
  LayerKind kind = LayerKind::Flatten;
  OptionKind option = OptionKind::count_;
  SetupOption setup_option = SetupOption::count_;
  std::int64_t a = 0, b = 0, c = 0, d = 0;
  Shape shape_a, shape_b;

  constexpr bool ok() const { return code == ErrorCode::none; }
};

}  // namespace staticnet
