// Saving and loading checkpoints: safetensors files with the training state in the metadata.
#include "staticnet/runtime/checkpoints/checkpoint.hpp"

#include <algorithm>

#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"

namespace staticnet::runtime {
namespace {

std::map<std::string, std::string> checkpoint_metadata(
    const TrainingState& state, const std::map<std::string, std::string>& extra_metadata) {
  auto metadata = encode_training_state(state);
  for (const auto& [key, value] : extra_metadata) {
    if (key.starts_with(checkpoint_metadata_prefix)) {
      throw std::invalid_argument("checkpoint: metadata key \"" + key + "\" uses the reserved \"" +
                                  std::string(checkpoint_metadata_prefix) + "\" prefix");
    }
    metadata.emplace(key, value);
  }
  return metadata;
}

Checkpoint read_checkpoint(const SafetensorsReader& file) {
  Checkpoint checkpoint;
  checkpoint.state = decode_training_state(file.metadata(), file.source());
  for (const auto& [key, value] : file.metadata()) {
    if (!key.starts_with(checkpoint_metadata_prefix))
      checkpoint.extra_metadata.emplace(key, value);
  }
  checkpoint.tensors.reserve(file.tensors().size());
  for (const auto& info : file.tensors()) {
    const auto bytes = file.data(info);
    checkpoint.tensors.push_back({info.name, info.dtype, info.shape, {bytes.begin(), bytes.end()}});
  }
  return checkpoint;
}

}  // namespace

const CheckpointTensor* Checkpoint::find(std::string_view name) const noexcept {
  const auto it = std::find_if(tensors.begin(), tensors.end(),
                               [&](const CheckpointTensor& tensor) { return tensor.name == name; });
  return it == tensors.end() ? nullptr : &*it;
}

std::string optimizer_state_name(std::string_view optimizer, std::string_view slot,
                                 std::string_view parameter) {
  std::string name(optimizer_state_prefix);
  name.append(optimizer).append(".").append(slot).append(".").append(parameter);
  return name;
}

void save_checkpoint(const std::filesystem::path& path,
                     std::span<const SafetensorsTensorRef> tensors, const TrainingState& state,
                     const std::map<std::string, std::string>& extra_metadata,
                     const AtomicWriteOptions& options) {
  write_safetensors(path, tensors, checkpoint_metadata(state, extra_metadata), options);
}

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint,
                     const AtomicWriteOptions& options) {
  std::vector<SafetensorsTensorRef> refs;
  refs.reserve(checkpoint.tensors.size());
  for (const auto& tensor : checkpoint.tensors) {
    refs.push_back({tensor.name, tensor.dtype, tensor.shape, tensor.data});
  }
  save_checkpoint(path, refs, checkpoint.state, checkpoint.extra_metadata, options);
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  return read_checkpoint(SafetensorsReader::open(path));
}

Checkpoint load_checkpoint(const std::filesystem::path& path,
                           const CheckpointExpectations& expected) {
  const auto file = SafetensorsReader::open(path);
  std::vector<TensorSignature> found;
  found.reserve(file.tensors().size());
  for (const auto& info : file.tensors())
    found.push_back({info.name, info.dtype, info.shape});
  auto problems = checkpoint_mismatches(file.source(), found, expected);
  if (!problems.empty())
    throw CheckpointMismatch(file.source(), std::move(problems),
                             other_model_note(file.metadata(), expected.model_type));
  return read_checkpoint(file);
}

}  // namespace staticnet::runtime
