#pragma once
// Starting weights: PyTorch's default initialisation of Linear and Conv2d, reproduced with our own
// generator so that it is the same on every platform. Every weight and bias is drawn from
// U(−b, b) with b = 1/√fan_in (kaiming_uniform with a = √5 gives exactly that bound for the
// weights, and PyTorch draws biases from the same range). Element j of tensor t is a pure function
// of (seed, t, j). BatchNorm's γ starts at 1 and β at 0, as in PyTorch.
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"

namespace staticnet::runtime {

void initialize_parameters(const ModelInfo& model, std::uint64_t seed, std::span<float> parameters);

// BatchNorm's running statistics as PyTorch starts them: mean 0, variance 1.
void initialize_non_trainable(const ModelInfo& model, std::span<float> values);

// The trainers' --init: loads the parameters by name from any safetensors file whose tensors have
// the model's names and shapes (F32, or F16, BF16, F64 converted), such as a trainer's checkpoint
// or PyTorch's `save_file(model.state_dict())` of the same model built as an nn.Sequential.
// BatchNorm's running statistics come from the file too when it has every one of them, as PyTorch's
// load_state_dict takes them; a file with none of them (weights saved without buffers) leaves
// `statistics` as initialize_non_trainable() starts them. Other tensors in the file (optimizer
// state) are ignored. Throws CheckpointMismatch listing every missing or mis-shaped tensor (some
// running statistics but not all count as missing), FormatError or IoError for an unreadable file.
struct LoadedParameters {
  bool with_statistics = false;  // the running statistics came from the file
  LoadedTensors tensors;         // what the load converted and ignored
};
LoadedParameters load_parameters(const ModelInfo& model, const SafetensorsReader& file,
                                 std::span<float> parameters, std::span<float> statistics);
LoadedParameters load_parameters(const ModelInfo& model, const std::filesystem::path& file,
                                 std::span<float> parameters, std::span<float> statistics);

}  // namespace staticnet::runtime
