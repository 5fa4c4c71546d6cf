// Decodes staticnet's compile errors (see explain.hpp).
#include "staticnet/analyzer/explain.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include "table.hpp"

namespace staticnet::analyzer {

namespace {

// One argument of an error template: `in_features_written<2048>` is {"in_features_written",
// "2048"}; `layer<10, staticnet::LayerKind::Linear>` is {"layer", "10, staticnet::..."}.
struct Argument {
  std::string name;
  std::string inner;
};

// Splits at commas outside angle brackets.
std::vector<std::string> split_top_level(std::string_view s) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<')
      ++depth;
    else if (s[i] == '>')
      --depth;
    else if (s[i] == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(s.substr(start)).empty())
    parts.push_back(trim(s.substr(start)));
  return parts;
}

Argument argument_of(const std::string& text) {
  std::string_view s = text;
  constexpr std::string_view prefix = "staticnet::error::";
  if (s.substr(0, prefix.size()) == prefix)
    s.remove_prefix(prefix.size());
  const auto open = s.find('<');
  if (open == std::string_view::npos || s.back() != '>')
    return {std::string(s), ""};
  return {std::string(s.substr(0, open)), trim(s.substr(open + 1, s.size() - open - 2))};
}

// "2048", "2048L", "-3" -> the number
std::int64_t number(const std::string& text) {
  std::string digits = text;
  while (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back())))
    digits.pop_back();
  return std::stoll(digits);
}

// "staticnet::OptionKind::stride" -> "stride"
std::string enumerator(const std::string& text) {
  const auto colon = text.rfind("::");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

// The spelling users write: Stride, InFeatures, Batch, ...
std::string option_spelling(const std::string& e) {
  static const std::map<std::string, std::string> names = {{"in_features", "InFeatures"},
                                                           {"kernel", "Kernel"},
                                                           {"stride", "Stride"},
                                                           {"padding", "Padding"},
                                                           {"no_bias", "NoBias"},
                                                           {"groups", "Groups"},
                                                           {"epsilon", "Epsilon"},
                                                           {"momentum", "Momentum"},
                                                           {"input", "Input"},
                                                           {"batch", "Batch"},
                                                           {"loss", "Loss"},
                                                           {"optimizer", "Optimizer"},
                                                           {"precision", "Precision"},
                                                           {"target", "Target"},
                                                           {"prefetch", "Prefetch"},
                                                           {"accumulate", "Accumulate"},
                                                           {"batch_slots", "BatchSlots"},
                                                           {"checkpoint", "Checkpoint"}};
  const auto it = names.find(e);
  return it == names.end() ? e : it->second;
}

// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st
std::string ordinal(std::int64_t n) {
  const std::int64_t tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : ones == 1              ? "st"
                       : ones == 2              ? "nd"
                       : ones == 3              ? "rd"
                                                : "th";
  return std::to_string(n) + suffix;
}

// One step of error::nesting<...>: {"entry", 5}, {"residual_body", 0}, ...
struct NestingStep {
  std::string kind;
  std::int64_t entry = 0;
};

// The layer's place in the model as written, innermost first: "the 2nd entry of the body of the
// Residual that is the 5th entry of the outer Sequential". A step names the part of its
// container the layer is in; the container is the outer model at the top, else what the step
// before names: a Sequential where the next step is an entry, a Residual where it is a body,
// shortcut or sum (a body or shortcut that is a Sequential is named by the step itself).
std::string place_text(std::vector<NestingStep> steps) {
  if (!steps.empty() && steps.back().kind == "nested_deeper") {  // the error names 16 steps
    steps.pop_back();
    return "deeper inside " + place_text(steps);
  }
  auto container_kind = [&](std::size_t i) {  // what step i's container is
    return steps[i].kind == "entry" ? "Sequential" : "Residual";
  };
  std::string text;
  for (std::size_t i = steps.size(); i-- > 0;) {
    const NestingStep& s = steps[i];
    std::string part = s.kind == "entry"               ? "the " + ordinal(s.entry) + " entry of "
                       : s.kind == "residual_body"     ? "the body of "
                       : s.kind == "residual_shortcut" ? "the shortcut of "
                                                       : "the sum that closes ";
    if (i == 0) {
      part += std::string("the outer ") + container_kind(0);
    } else if (!(s.kind == "entry" && (steps[i - 1].kind == "residual_body" ||
                                       steps[i - 1].kind == "residual_shortcut"))) {
      part += std::string("the ") + container_kind(i) + " that is ";
    }
    text += part;
  }
  return text;
}

class Facts {
 public:
  explicit Facts(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
      Argument arg = argument_of(a);
      // body_output<shape<...>>, shortcut_output<shape<...>>: named shapes, kept in order.
      if (arg.name == "body_output" || arg.name == "shortcut_output")
        arg = argument_of(arg.inner);
      if (arg.name == "layer") {
        const auto parts = split_top_level(arg.inner);
        index_ = number(parts.at(0));
        kind_ = enumerator(parts.at(1));
        if (parts.size() > 2)  // nesting<entry<5>, residual_body, ...>; older logs lack it
          for (const std::string& step : split_top_level(argument_of(parts[2]).inner)) {
            const Argument a = argument_of(step);
            steps_.push_back({a.name, a.inner.empty() ? 0 : number(a.inner)});
          }
        // A layer of the model's own Sequential is its index + 1st entry: nothing to add.
        const bool plain = steps_.empty() || (steps_.size() == 1 && steps_[0].kind == "entry" &&
                                              steps_[0].entry == index_ + 1);
        place_ = plain ? "" : place_text(steps_);
        layer_ = "layer " + std::to_string(index_) + " (" + kind_ +
                 (place_.empty() ? "" : ", " + place_) + ")";
      } else if (arg.name == "option" || arg.name == "setup_option") {
        option_ = option_spelling(enumerator(arg.inner));
      } else if (arg.name == "target_dtype") {
        dtype_ = enumerator(arg.inner);  // "f32"
      } else if (arg.name == "precision") {
        precision_ = enumerator(arg.inner);  // "Int8"
      } else if (arg.name.starts_with("fits_with_")) {
        // does_not_fit's remedy (fit.hpp): its numbers, which name no others, and under
        // fits_with_checkpoint the policy first (staticnet::Sqrt).
        for (const std::string& part : split_top_level(arg.inner)) {
          const Argument n = argument_of(part);
          if (n.inner.empty() && n.name.starts_with("staticnet::"))
            policy_ = n.name.substr(std::string_view("staticnet::").size());
          else
            numbers_[n.name] = number(n.inner);
        }
      } else if (arg.name == "shape") {
        std::vector<std::int64_t> dims;
        for (const std::string& d : split_top_level(arg.inner))
          dims.push_back(number(d));
        shapes_.push_back(dims);
      } else if (!arg.inner.empty()) {
        numbers_[arg.name] = number(arg.inner);
      }
    }
  }
  const std::string& layer() const { return layer_; }
  std::int64_t index() const { return index_; }
  const std::string& place() const { return place_; }
  // For the sum that closes a Residual, where that block is ("the 2nd entry of the outer
  // Sequential", or "the whole model"); "" for any other layer, or a log without the nesting.
  std::string block_place() const {
    if (steps_.empty() || steps_.back().kind != "residual_sum")
      return "";
    const std::vector<NestingStep> block(steps_.begin(), steps_.end() - 1);
    return block.empty() ? "the whole model" : place_text(block);
  }
  const std::string& dtype() const { return dtype_; }
  const std::string& precision() const { return precision_; }
  const std::string& kind() const { return kind_; }
  const std::string& option() const { return option_; }
  const std::string& policy() const { return policy_; }  // "Sqrt": fits_with_checkpoint's
  std::int64_t operator[](const std::string& name) const {
    const auto it = numbers_.find(name);
    if (it == numbers_.end())
      throw std::out_of_range(name);
    return it->second;
  }
  bool has(const std::string& name) const { return numbers_.contains(name); }
  const std::vector<std::int64_t>& shape(std::size_t i) const { return shapes_.at(i); }
  std::size_t shape_count() const { return shapes_.size(); }

 private:
  std::string layer_, kind_, option_, dtype_, precision_, place_, policy_;
  std::vector<NestingStep> steps_;
  std::int64_t index_ = -1;
  std::map<std::string, std::int64_t> numbers_;
  std::vector<std::vector<std::int64_t>> shapes_;
};

// Numbers as they are written in code (InFeatures<8192>), bytes grouped with their unit.
std::string n(std::int64_t v) {
  return std::to_string(v);
}
std::string bytes(std::int64_t v) {
  return exact_bytes(v) + " (" + human_bytes(v) + ")";
}

// The remedy does_not_fit and does_not_fit_host end in (fit.hpp): the first that fits.
std::string remedy(const Facts& f) {
  if (f.has("extra_compute_percent"))
    return ". It fits with checkpointing: sn::Checkpoint<sn::" + f.policy() + ">" +
           (f["micro_batches"] > 1 ? " as " + n(f["micro_batches"]) + " micro-batches" : "") +
           " needs " + bytes(f["needs_bytes"]) + " and recomputes what it drops in backward, " +
           n(f["extra_compute_percent"]) + " % more arithmetic than the step's";
  if (f.has("micro_batches"))
    return ". It fits as micro-batches: sn::Accumulate<" + n(f["micro_batches"]) +
           "> trains the same batch in " + n(f["micro_batches"]) + " micro-batches and needs " +
           bytes(f["needs_bytes"]) + " (any BatchNorm then normalises each micro-batch apart)";
  if (f.has("smallest_batch"))
    return ". No remedy fits: even a batch of " + n(f["smallest_batch"]) + " needs " +
           bytes(f["needs_bytes"]);
  if (f.has("needs_bytes"))
    return ". No accumulation fits this batch; the largest batch that fits is " + n(f["batch"]) +
           ", which needs " + bytes(f["needs_bytes"]);
  return "";
}

using Decoder = std::function<std::string(const Facts&)>;

const std::map<std::string, Decoder>& decoders() {
  static const std::map<std::string, Decoder> table = {
      {"missing_input",
       [](const Facts&) {
         return "the setup has no Input: add one sample's shape to sn::Training<...> or "
                "sn::Inference<...>, e.g. sn::Input<sn::f32, 3, 32, 32>";
       }},
      {"setup_option_given_twice",
       [](const Facts& f) { return "the setup gives " + f.option() + " twice; keep one"; }},
      {"setup_option_not_accepted",
       [](const Facts& f) {
         return "sn::Inference does not take " + f.option() +
                " (it accepts Input, Batch and Precision); use sn::Training for a training step";
       }},
      {"input_rank_too_large",
       [](const Facts& f) {
         return "Input has " + n(f["dimensions_written"]) +
                " dimensions, but it takes one sample's shape, (C, H, W) or (F): at most 3; the "
                "batch goes in Batch<N>";
       }},
      {"nonpositive_input_dimension",
       [](const Facts& f) {
         return "Input dimension " + n(f["dimension_index"]) + " is " + n(f["dimension_value"]) +
                "; every dimension must be at least 1";
       }},
      {"nonpositive_batch",
       [](const Facts& f) { return "Batch<" + n(f["batch"]) + ">: the batch must be at least 1"; }},
      {"nonpositive_micro_batches",
       [](const Facts& f) {
         return "Accumulate<" + n(f["micro_batches"]) + ">: a step runs at least 1 micro-batch";
       }},
      {"micro_batches_do_not_divide",
       [](const Facts& f) {
         return "Accumulate<" + n(f["micro_batches"]) + "> splits Batch<" + n(f["batch"]) +
                "> into micro-batches of equal size, but " + n(f["micro_batches"]) +
                " does not divide " + n(f["batch"]);
       }},
      {"checkpoint_budget_too_small",
       [](const Facts& f) {
         return "Checkpoint<Auto> found no way of checkpointing that fits the step into " +
                bytes(f["budget_bytes"]) + ": the least any needs is " + bytes(f["needs_bytes"]) +
                ". Give a larger budget, or make the step smaller: Accumulate<K>, a smaller "
                "batch, or a lower precision";
       }},
      {"checkpoint_placement_over_budget",
       [](const Facts& f) {
         return "Checkpoint<Auto> found ways of checkpointing whose live bytes fit " +
                bytes(f["budget_bytes"]) +
                ", but not once the arena lays them out: the last it tried needs " +
                bytes(f["needs_bytes"]) +
                ". Give a little more budget, or use Checkpoint<Sqrt> or Every<K>";
       }},
      {"checkpoint_search_too_large",
       [](const Facts& f) {
         return "Checkpoint<Auto> prices every way of cutting the model at compile time, and "
                "a model of " +
                n(f["units"]) +
                " units (pieces between the places it may cut) is beyond what it prices within "
                "the compiler's limits for now; use Checkpoint<Sqrt> or Every<K>";
       }},
      {"precision_needs_inference",
       [](const Facts& f) {
         return "Precision<" + f.precision() +
                "> is TensorFlow Lite's int8 scheme, for inference: use it in "
                "sn::Inference<...>, and train the model in FP32 or mixed precision first";
       }},
      {"option_given_twice",
       [](const Facts& f) { return f.layer() + ": " + f.option() + " is given twice; keep one"; }},
      {"option_not_accepted",
       [](const Facts& f) {
         const std::string kind = f.kind();
         const std::string takes =
             kind == "Linear"   ? "InFeatures and NoBias"
             : kind == "Conv2d" ? "Kernel, Stride, Padding or PaddingSame, NoBias and Groups"
             : kind == "DepthwiseConv2d"     ? "Kernel, Stride, Padding or PaddingSame and NoBias"
             : kind.starts_with("BatchNorm") ? "Epsilon and Momentum"
                                             : "Stride and Padding or PaddingSame";
         std::string sentence =
             f.layer() + " does not take " + f.option() + "; " + f.kind() + " takes " + takes;
         if (f.option() == "Kernel" && (kind == "MaxPool2d" || kind == "AvgPool2d"))
           sentence += ". A pool's window is its first argument: " + kind +
                       "<sn::Kernel<H, W>{}> for H × W, or " + kind + "<K> for K × K";
         return sentence;
       }},
      {"missing_kernel",
       [](const Facts& f) {
         return f.layer() + " has no kernel size: add sn::Kernel<K> or sn::Kernel<KH, KW>";
       }},
      {"nonpositive_window_option",
       [](const Facts& f) {
         return f.layer() + ": " + f.option() + " is " + n(f["height"]) + " × " + n(f["width"]) +
                " (height × width); Kernel and Stride must be at least 1, Padding at least 0";
       }},
      {"pool_padding_too_large",
       [](const Facts& f) {
         return f.layer() + ": Padding<" + n(f["padding"]) + "> is more than half the " +
                n(f["kernel"]) + "-wide window; pad at most " + n(f["kernel"] / 2);
       }},
      {"nonpositive_output",
       [](const Facts& f) {
         const bool conv = f.kind() == "Conv2d";
         return f.layer() + ": " + f.kind() + "<" + n(f["out_written"]) + "> produces no " +
                (conv ? "channels" : "features") + "; the first argument must be at least 1";
       }},
      {"linear_needs_flat_input",
       [](const Facts& f) {
         return f.layer() + " receives " + shape_text(f.shape(0)) +
                ", but Linear takes (batch, features): put sn::Flatten before it";
       }},
      {"linear_in_features_mismatch",
       [](const Facts& f) {
         std::string arriving = n(f["features_arriving"]) + " features arrive";
         if (f.shape_count() > 0 && f.shape(0).size() > 1)
           arriving += " (" + product_text(f.shape(0)) + ")";
         return f.layer() + ": `InFeatures<" + n(f["in_features_written"]) + ">` is written, but " +
                arriving + "; write InFeatures<" + n(f["features_arriving"]) +
                ">, or drop InFeatures to infer it";
       }},
      {"needs_spatial_input",
       [](const Facts& f) {
         const std::vector<std::int64_t>& s = f.shape(0);
         std::string text = f.layer() + " receives " + shape_text(s);
         if (s.size() != 3)
           return text + ", which has no height and width; " + f.kind() +
                  " takes (batch, channels, height, width)";
         // (batch, H, W): an Input of two dimensions (no layer makes three), most often an
         // image whose one channel was left out.
         return text + ", 3 axes, where " + f.kind() +
                " takes 4: (batch, channels, height, width). For a one-channel " + n(s[1]) + " × " +
                n(s[2]) + " image, write its channel: Input<T, 1, " + n(s[1]) + ", " + n(s[2]) +
                ">";
       }},
      {"needs_flat_input",
       [](const Facts& f) {
         return f.layer() + " receives " + shape_text(f.shape(0)) + ", but " + f.kind() +
                " takes (batch, features): use BatchNorm2d on images, or put sn::Flatten before it";
       }},
      {"groups_do_not_divide",
       [](const Facts& f) {
         return f.layer() + ": Groups<" + n(f["groups"]) + "> must divide both the " +
                n(f["in_channels"]) + " input and the " + n(f["out_channels"]) + " output channels";
       }},
      {"bad_ratio",
       [](const Facts& f) {
         return f.layer() + ": " + f.option() + " " + n(f["numerator"]) + "/" +
                n(f["denominator"]) +
                " is out of range; Epsilon needs a positive ratio, Momentum one from 0 to 1";
       }},
      {"dropout_probability_out_of_range",
       [](const Facts& f) {
         return f.layer() + ": Dropout<" + n(f["numerator"]) + ", " + n(f["denominator"]) +
                "> drops " + n(f["numerator"]) + "/" + n(f["denominator"]) +
                "; the probability must be at least 0 and below 1 (Dropout<20> drops 0.2)";
       }},
      {"residual_shapes_differ",
       [](const Facts& f) {
         // The Add is the sum that closes its block: say where the block is instead.
         const std::string block = f.block_place();
         const std::string sentence =
             "layer " + n(f.index()) + " (" + f.kind() +
             ") closes the Residual block that starts at layer " + n(f["block_starts_at_layer"]) +
             (block.empty() ? "" : " (" + block + ")") + ": it adds the body's output, " +
             shape_text(f.shape(0)) + ", to the shortcut's, " + shape_text(f.shape(1)) +
             "; the shapes must agree: ";
         if (!f.has("shortcut_ends_at_layer"))
           return sentence +
                  "the shortcut is the identity, so give it a layer that makes the body's "
                  "shape (e.g. a 1x1 Conv2d with the body's stride and channels)";
         return sentence + "the shortcut's last layer, " + n(f["shortcut_ends_at_layer"]) +
                ", makes " + shape_text(f.shape(1)) + " where the body makes " +
                shape_text(f.shape(0)) +
                ": change one of them (a body that downsamples needs a shortcut of the same "
                "stride)";
       }},
      {"kernel_larger_than_padded_input",
       [](const Facts& f) {
         return f.layer() + ": the " + n(f["kernel_h"]) + " × " + n(f["kernel_w"]) +
                " window is larger than its padded input, " + n(f["padded_input_h"]) + " × " +
                n(f["padded_input_w"]) +
                "; pad more, use a smaller kernel, or pool less before this layer";
       }},
      {"batch_norm_does_not_fold",
       [](const Facts& f) {
         const std::int64_t reads = f["reads_layer"], readers = f["readers_of_that_layer"];
         const std::string what =
             reads < 0 ? "the model's input"
                       : "layer " + n(reads) + "'s output" +
                             (readers > 1 ? ", which " + n(readers) + " layers read" : "");
         return f.layer() +
                ": under Precision<Int8> a BatchNorm folds into the Conv2d, DepthwiseConv2d or "
                "Linear before it, as TensorFlow Lite's converter folds it, but it reads " +
                what + ": put it right after a convolution or Linear that only it reads";
       }},
      {"batch_norm_one_value_per_channel",
       [](const Facts& f) {
         const std::int64_t samples = f["samples"];
         return f.layer() +
                ": in training a BatchNorm normalises each channel over the values of the "
                "samples it sees together, " +
                n(samples) + (samples == 1 ? " sample" : " samples") +
                " here (the batch, or a micro-batch under Accumulate<K>) with " +
                n(f["values_per_channel"]) +
                " value per channel; one value normalises to 0 and trains nothing, and PyTorch "
                "refuses it (\"Expected more than 1 value per channel when training\"): use a "
                "batch or micro-batch of at least 2 samples";
       }},
      {"cross_entropy_needs_flat_logits",
       [](const Facts& f) {
         return "CrossEntropy needs logits shaped (batch, classes), but the model ends in " +
                shape_text(f.shape(0)) + ": end it with sn::Flatten and sn::Linear<classes>";
       }},
      {"cross_entropy_needs_class_index_target",
       [](const Facts& f) {
         const std::string needs =
             "CrossEntropy takes one int32 class index per sample, sn::Target<sn::i32>, but the "
             "setup's Target is ";
         if (f.shape(0).empty())  // one value per sample, of another type
           return needs + "Target<sn::" + f.dtype() + ">: write Target<sn::i32>";
         return needs + f.dtype() + " " + shape_text(f.shape(0)) +
                " (for one-hot or soft targets, train with MSE)";
       }},
      {"mse_target_mismatch",
       [](const Facts& f) {
         const auto& out = f.shape(0);
         const auto& target = f.shape(1);
         if (out == target)
           return "MSE needs f32 targets; the setup's Target has the right shape, " +
                  shape_text(target) + ", but is " + f.dtype();
         return "MSE needs f32 targets shaped like one sample of the output, " + shape_text(out) +
                ", but the setup's Target is " + f.dtype() + " " + shape_text(target);
       }},
      {"does_not_fit",
       [](const Facts& f) {
         const std::int64_t required = f["required_bytes"], budget = f["budget_bytes"];
         return "the training step needs " + bytes(required) +
                " with the device's runtime overhead, but the budget is " + bytes(budget) + ": " +
                bytes(required - budget) + " over. Needed: weights " + exact_bytes(f["weights"]) +
                (f["non_trainable"] > 0 ? ", non-trainable state " + exact_bytes(f["non_trainable"])
                                        : std::string()) +
                ", gradients " + exact_bytes(f["gradients"]) + ", optimizer state " +
                exact_bytes(f["optimizer_state"]) + ", activations " +
                exact_bytes(f["activations"]) + ", workspace " + exact_bytes(f["workspace"]) +
                ", inputs " + exact_bytes(f["inputs"]) + ", device overhead " +
                exact_bytes(f["device_overhead"]) +
                (f.has("host_bytes") && f["host_bytes"] > 0
                     ? ", the trainer's host memory " + exact_bytes(f["host_bytes"]) +
                           " (one memory with the device's)"
                     : std::string()) +
                remedy(f);
       }},
      {"does_not_fit_host",
       [](const Facts& f) {
         const std::int64_t required = f["required_bytes"], budget = f["budget_bytes"];
         return "the trainer needs " + bytes(required) +
                " of host memory, but the host budget is " + bytes(budget) + ": " +
                bytes(required - budget) + " over. Needed: batch slots " +
                exact_bytes(f["batch_slots"]) + ", pinned staging " +
                exact_bytes(f["pinned_staging"]) + ", the checkpoint's copy of the state " +
                exact_bytes(f["checkpoint_state"]) + remedy(f);
       }},
      {"does_not_fit_sram",
       [](const Facts& f) {
         const std::int64_t required = f["required_bytes"], budget = f["budget_bytes"];
         return "the inference arena needs " + bytes(required) +
                " of SRAM with the firmware's share, but the microcontroller has " + bytes(budget) +
                ": " + bytes(required - budget) + " over. Needed: activations " +
                exact_bytes(f["activations"]) + ", workspace " + exact_bytes(f["workspace"]) +
                ", inputs " + exact_bytes(f["inputs"]) + ", firmware " +
                exact_bytes(f["device_overhead"]);
       }},
      {"does_not_fit_flash",
       [](const Facts& f) {
         const std::int64_t required = f["required_bytes"], budget = f["budget_bytes"];
         return "the weights need " + bytes(required) +
                " of flash with the firmware's code, but the microcontroller has " + bytes(budget) +
                ": " + bytes(required - budget) + " over. Needed: weights " +
                exact_bytes(f["weights"]) +
                (f["non_trainable"] > 0 ? ", running statistics " + exact_bytes(f["non_trainable"])
                                        : std::string()) +
                ", code " + exact_bytes(f["code_overhead"]);
       }},
  };
  return table;
}

// Drops colour escapes (ESC [ ... m), in case a build log kept them.
std::string without_escapes(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i])))
        ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// EDG (nvcc's front end) names the parameters and binds them after the name:
//   linear_in_features_mismatch<Layer, InFeaturesWritten, ...> [with Layer=..., ...]
// Replaces each parameter name in `args` with what the clause at `at` binds it to.
void substitute_with_clause(const std::string& text, std::size_t at,
                            std::vector<std::string>& args) {
  constexpr std::string_view with = " [with ";
  if (text.compare(at, with.size(), with) != 0)
    return;
  const std::size_t start = at + with.size();
  int depth = 0;
  std::size_t end = start;
  for (; end < text.size() && text[end] != '\n'; ++end) {
    if (text[end] == '<' || text[end] == '[')
      ++depth;
    else if (text[end] == '>' || (text[end] == ']' && depth > 0))
      --depth;
    else if (text[end] == ']')
      break;
  }
  std::map<std::string, std::string> bound;
  for (const std::string& binding :
       split_top_level(std::string_view(text).substr(start, end - start))) {
    const auto eq = binding.find('=');
    if (eq != std::string::npos)
      bound[trim(std::string_view(binding).substr(0, eq))] =
          trim(std::string_view(binding).substr(eq + 1));
  }
  for (std::string& a : args)
    if (const auto it = bound.find(a); it != bound.end())
      a = it->second;
}

// The line of a log that starts at `begin`, without the '\r' of Windows line endings, and where
// the next one starts.
struct LogLine {
  std::string_view text;
  std::size_t next = 0;
};
LogLine line_at(std::string_view log, std::size_t begin) {
  const std::size_t end = std::min(log.find('\n', begin), log.size());
  std::string_view line = log.substr(begin, end - begin);
  if (line.ends_with('\r'))
    line.remove_suffix(1);
  return {line, end + 1};
}

bool is_error(std::string_view line) {
  return line.find(": error:") != std::string_view::npos ||
         line.find(": fatal error:") != std::string_view::npos || line.starts_with("error: ");
}

bool is_diagnostic(std::string_view line) {
  return is_error(line) || line.find(": warning:") != std::string_view::npos;
}

// Where the user's code asks for the plan, for the staticnet error named at `at`. g++ writes the
// chain first ("FILE: In instantiation of 'struct staticnet::error::...'", "required from ...",
// "FILE:L:C:   required from here") and the error after it; clang writes the error first
// ("FILE:L:C: error: static_assert failed ... 'always_false<staticnet::error::...>'", or a
// comparison of numbers and the type in the first note) and the chain after it as notes, the
// user's line last ("FILE:L:C: note: in instantiation of ...
// requested here"). Elsewhere (a note that repeats the type, nvcc's spelling) it is not known.
std::string where_asked(const std::string& text, std::size_t at) {
  const std::size_t newline = text.rfind('\n', at);
  const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
  const std::string_view first = line_at(text, start).text;
  constexpr std::string_view instantiation = ": note: in instantiation of ";
  const bool gcc = first.find(": In instantiation of ") != std::string_view::npos;
  // clang names the type in the error itself (always_false<...>), or, where the static_assert
  // compares numbers, first in the note that instantiates it.
  const bool clang = first.find(": error:") != std::string_view::npos ||
                     first.find(instantiation) != std::string_view::npos;
  if (!gcc && !clang)
    return {};
  std::string where;
  for (std::size_t begin = line_at(text, start).next; begin < text.size();) {
    const auto [line, next] = line_at(text, begin);
    begin = next;
    if (is_diagnostic(line) || line.ends_with(" generated."))
      break;  // g++: the error that ends the chain; clang: the next diagnostic
    constexpr std::string_view required_here = ":   required from here";
    if (gcc && line.ends_with(required_here))
      return std::string(line.substr(0, line.size() - required_here.size()));
    if (const auto note = line.find(instantiation);
        clang && note != std::string_view::npos && line.ends_with(" requested here"))
      where = std::string(line.substr(0, note));
  }
  return where;
}

// ---- a mistake that fails before staticnet sees the model: a pool's window written as a type

// "staticnet::Kernel<3, 1>" or "sn::Kernel<3>" -> "sn::Kernel<3, 1>{}" / "sn::Kernel<3>{}", the
// value the user meant; "" when the text is no Kernel. Arguments that are no plain numbers (the
// user's source under clang's caret: `Kernel<kRows, 1>`) are kept as written.
std::string kernel_value(std::string_view type) {
  const auto at = type.find("Kernel<");
  const auto close = type.find('>', at);
  if (at == std::string_view::npos || close == std::string_view::npos)
    return "";
  std::string arguments;
  for (const std::string& a : split_top_level(type.substr(at + 7, close - at - 7))) {
    const bool plain = !a.empty() && a.find_first_not_of("-0123456789lLuU") == std::string::npos;
    arguments += (arguments.empty() ? "" : ", ") + (plain ? std::to_string(number(a)) : a);
  }
  return "sn::Kernel<" + arguments + ">{}";
}

Explanation pool_window_mistake(const std::string& pool, const std::string& kernel,
                                const std::string& where) {
  const std::string written = kernel.empty() ? "a type" : kernel.substr(0, kernel.size() - 2);
  Explanation e;
  e.error = "pool_window_is_a_type";
  e.sentence = pool + "'s window is a value, but " + written + " is a type: write " +
               (kernel.empty() ? "sn::Kernel<H, W>{}" : kernel) +
               " (with the braces), or a number K for a K × K window (" +
               (pool == "a pool" ? "MaxPool2d" : pool) + "<2>)";
  e.where = where;
  return e;
}

// g++: "FILE:L:C: error: type/value mismatch at argument 1 in template parameter list for
// 'template<auto [requires staticnet::PoolWindow<...>] Window, ...> struct staticnet::MaxPool2d'"
// then "note:   expected a constant of type ..., got 'staticnet::Kernel<3, 1>'". clang:
// "FILE:L:C: error: template argument for non-type template parameter must be an expression",
// the source line and a caret line under the argument, then "note: template parameter is
// declared here" over layers.hpp's `PoolWindow auto Window`.
void find_pool_window_mistakes(const std::string& text, std::vector<Explanation>& found) {
  std::vector<std::string_view> lines;
  for (std::size_t begin = 0; begin < text.size();) {
    const auto [line, next] = line_at(text, begin);
    lines.push_back(line);
    begin = next;
  }
  // A log of several files that include the header says it once per file; explain it once.
  auto add = [&found](Explanation e) {
    for (const Explanation& f : found)
      if (f.where == e.where && f.sentence == e.sentence)
        return;
    found.push_back(std::move(e));
  };
  auto location = [](std::string_view line) {
    const auto at = line.find(": error:");
    return std::string(line.substr(0, at));
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.find(": error: type/value mismatch at argument 1") != std::string_view::npos &&
        line.find("staticnet::PoolWindow") != std::string_view::npos) {
      const std::string pool =
          line.find("staticnet::AvgPool2d") != std::string_view::npos ? "AvgPool2d" : "MaxPool2d";
      // The note with what was given follows, after the source line and its caret (unless
      // -fno-diagnostics-show-caret).
      std::string kernel;
      for (std::size_t j = i + 1; j < lines.size() && j <= i + 4 && kernel.empty(); ++j)
        if (const auto got = lines[j].find(" got ");
            got != std::string_view::npos && lines[j].find(": note:") != std::string_view::npos)
          kernel = kernel_value(lines[j].substr(got));
      add(pool_window_mistake(pool, kernel, location(line)));
    } else if (line.find(": error: template argument for non-type template parameter must be an "
                         "expression") != std::string_view::npos) {
      // The note that names the parameter comes within a few lines, after the source and caret.
      bool pool = false;
      for (std::size_t j = i + 1; j < lines.size() && j <= i + 6 && !pool; ++j)
        pool = lines[j].find("PoolWindow auto Window") != std::string_view::npos;
      if (!pool)
        continue;
      std::string kernel;
      if (i + 2 < lines.size()) {  // the argument is what the caret line underlines
        const std::string_view source = lines[i + 1], caret = lines[i + 2];
        const auto start = caret.find('^');
        const auto end = caret.find_first_not_of("^~", start);
        if (start != std::string_view::npos && start < source.size())
          kernel = kernel_value(
              source.substr(start, (end == std::string_view::npos ? caret.size() : end) - start));
      }
      add(pool_window_mistake("a pool", kernel, location(line)));
    }
  }
}

}  // namespace

const std::vector<std::string>& explained_errors() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& [name, decode] : decoders())
      v.push_back(name);
    return v;
  }();
  return names;
}

std::size_t count_compiler_errors(std::string_view compiler_output) {
  std::size_t count = 0;
  for (std::size_t begin = 0; begin < compiler_output.size();) {
    const auto [line, next] = line_at(compiler_output, begin);
    count += is_error(line) ? 1 : 0;
    begin = next;
  }
  return count;
}

std::vector<Explanation> explain_compiler_output(std::string_view compiler_output) {
  const std::string text = without_escapes(compiler_output);
  constexpr std::string_view marker = "staticnet::error::";
  std::vector<Explanation> found;
  std::vector<std::string> seen;
  for (std::size_t at = text.find(marker); at != std::string::npos;
       at = text.find(marker, at + 1)) {
    std::size_t name_end = at + marker.size();
    while (name_end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_'))
      ++name_end;
    const std::string name = text.substr(at + marker.size(), name_end - at - marker.size());
    const auto decoder = decoders().find(name);
    if (decoder == decoders().end() || name_end >= text.size() || text[name_end] != '<')
      continue;
    // The arguments, up to the matching '>'.
    int depth = 0;
    std::size_t close = name_end;
    for (; close < text.size(); ++close) {
      if (text[close] == '<')
        ++depth;
      else if (text[close] == '>' && --depth == 0)
        break;
      else if (text[close] == '\n')
        break;
    }
    if (close >= text.size() || text[close] != '>')
      continue;
    std::vector<std::string> args =
        split_top_level(text.substr(name_end + 1, close - name_end - 1));
    substitute_with_clause(text, close + 1, args);
    std::string key = name;
    for (const std::string& a : args)
      key += "|" + a;
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      continue;
    seen.push_back(key);
    try {
      const Facts facts(args);
      found.push_back({name, decoder->second(facts), where_asked(text, at), facts.index(),
                       facts.kind(), facts.place()});
    } catch (const std::exception&) {
      // The arguments are not what this version's errors.hpp writes; say what it is at least.
      Explanation e;
      e.error = name;
      e.sentence = "staticnet error " + key;
      e.where = where_asked(text, at);
      found.push_back(std::move(e));
    }
  }
  try {
    find_pool_window_mistakes(text, found);
  } catch (const std::exception&) {
    // A spelling this version does not know: the compiler's own words stand.
  }
  return found;
}

}  // namespace staticnet::analyzer
