#pragma once
// Loading a model's tensors by name from any safetensors file that has them (the model's shapes,
// any floating type: F32, or F16, BF16 and F64 converted): a trainer's checkpoint, or PyTorch's
// save_file(model.state_dict()) of the same model built as an nn.Sequential, in any precision.
// Other tensors in the file (optimizer state, PyTorch's num_batches_tracked) are ignored.
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime {

// Tensors at their element offsets in one region of values (parameters, running statistics).
struct TensorRegion {
  std::span<const ParameterTensor> tensors;
  std::span<float> values;
};

// What a load did beyond copying, for the caller's report.
struct LoadedTensors {
  std::vector<Dtype> converted_from;  // the element types, other than F32, values came from
  // The file's tensors that are not the model's (a larger model's weights, perhaps), but for
  // those a checkpoint or a state dict holds beside them: optimizer state ("optimizer.") and
  // BatchNorm's num_batches_tracked. Ignored, as load_state_dict(strict=False) ignores them;
  // sorted by name.
  std::vector<std::string> unused;
};

// Fills every region from `file`. Throws CheckpointMismatch listing every missing or mis-shaped
// tensor of every region (checked before any value is copied), FormatError for a NaN or an
// infinity (at its byte in the file), an F64 beyond F32's range, or a malformed file, IoError
// for an unreadable one. `model_type` is the program's, named in the mismatch's message beside
// the file's where that is another (CheckpointExpectations::model_type).
LoadedTensors load_tensors(const std::filesystem::path& file, std::span<const TensorRegion> regions,
                           std::string_view model_type = {});
// The same from a file already open, whose names or metadata the caller reads too.
LoadedTensors load_tensors(const SafetensorsReader& file, std::span<const TensorRegion> regions,
                           std::string_view model_type = {});

// The first running variance below 0 among `tensors` ("<layer>.running_var", at their offsets in
// `values`), said as "<source>: tensor 1.running_var holds -0.5 at element 3: a variance cannot
// be negative" (√(var + ε) would be NaN in every output of its channel); none when all are >= 0.
// The caller throws it as its own error.
std::optional<std::string> negative_variance(const std::string& source,
                                             std::span<const ParameterTensor> tensors,
                                             std::span<const float> values);

// "its BF16 values converted to F32; 2 tensors that are not the model's ignored (fc2.weight,
// fc2.bias)"; "" when the load was a plain copy.
std::string describe(const LoadedTensors& loaded);

}  // namespace staticnet::runtime
