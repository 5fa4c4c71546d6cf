#pragma once
// The input normalisation a model was trained with (the programs' --scale, --mean and --std), as
// its checkpoint keeps it: the metadata entries "input_scale", "input_mean" and "input_std", each
// only where it was given, and "input_element_type", the training data's. (No scale is the default
// for the data's element type: 1/255 for u8 pixels, else 1, so a checkpoint says nothing that
// depends on the files it was trained on.) A resumed run and the inference programs apply what the
// checkpoint keeps unless told otherwise: a model fed inputs on another scale than it learned on
// gives wrong answers without an error.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/batches/normalize.hpp"
#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

struct InputNormalization {
  std::optional<float> scale;  // none: the default for the data's element type
  std::vector<float> mean;     // empty: none
  std::vector<float> stddev;   // empty: none
  // The training data's element type ("input_element_type"): what a default scale was for.
  std::optional<ElementType> element_type;
  bool operator==(const InputNormalization&) const = default;
};

// The metadata entries of what was given (none for what was not).
std::map<std::string, std::string> normalization_metadata(const InputNormalization& n);

// Read back; empty for a file without the entries (PyTorch's, or an older staticnet's). Throws
// FormatError, naming `source` and the entry, for a value that does not read.
InputNormalization saved_normalization(const std::map<std::string, std::string>& metadata,
                                       const std::string& source);

// What a run applies: each of the three as given on the command line, else the checkpoint's.
// `notes` gets a line for each given one that differs from the checkpoint's ("--scale 0.5
// replaces the checkpoint's 0.0625") and one for what comes from the checkpoint alone ("input
// scale 0.0625 from the checkpoint").
InputNormalization resolve_normalization(const InputNormalization& given,
                                         const InputNormalization& saved,
                                         std::vector<std::string>& notes);

// Refuses a mean or std whose count is neither 1 nor the input's channels (the first axis of
// `sample_shape`), naming where it came from: UsageError for --mean or --std as `given`, else
// FormatError naming `source`'s metadata entry, which `applied` took it from.
void require_channel_counts(const InputNormalization& applied, const InputNormalization& given,
                            const std::string& source,
                            const std::vector<std::int64_t>& sample_shape);

// A line for data stored as `stored` that gets another default scale than the training data
// did (u8 pixels scaled by 1/255 in training, f32 values now by 1): the same inputs exported
// to another type would silently be off by 255. None when a scale is set, or the defaults agree.
std::optional<std::string> default_scale_note(const InputNormalization& n, ElementType stored);

// The loader's normalisation of data stored as `stored`.
Normalization normalization_for(const InputNormalization& n, ElementType stored);

// "scale 0.0625, mean 0.5, std 0.25": what is applied to data stored as `stored`.
std::string describe(const InputNormalization& n, ElementType stored);

}  // namespace staticnet::runtime
