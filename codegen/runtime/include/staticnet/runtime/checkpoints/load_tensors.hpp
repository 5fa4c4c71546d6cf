#pragma once
// Loading a model's tensors by name from any safetensors file that has them (f32, the model's
// shapes): a trainer's checkpoint, or PyTorch's save_file(model.state_dict()) of the same model
// built as an nn.Sequential. Other tensors in the file (optimizer state, PyTorch's
// num_batches_tracked) are ignored.
#include <filesystem>
#include <span>

#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime {

// Tensors at their element offsets in one region of values (parameters, running statistics).
struct TensorRegion {
  std::span<const ParameterTensor> tensors;
  std::span<float> values;
};

// Fills every region from `file`. Throws CheckpointMismatch listing every missing or mis-shaped
// tensor of every region (checked before any value is copied), FormatError for a NaN or an
// infinity (at its byte in the file) or a malformed file, IoError for an unreadable one.
void load_tensors(const std::filesystem::path& file, std::span<const TensorRegion> regions);
// The same from a file already open, whose names or metadata the caller reads too.
void load_tensors(const SafetensorsReader& file, std::span<const TensorRegion> regions);

}  // namespace staticnet::runtime
