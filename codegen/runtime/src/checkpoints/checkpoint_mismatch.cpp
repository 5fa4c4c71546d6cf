// Comparing a checkpoint's tensors with what the model expects, reporting every difference.
#include <unordered_map>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/validation.hpp"  // shape_to_string

namespace staticnet::runtime {
namespace {

std::string render(const std::string& source, const std::vector<std::string>& problems) {
  std::string text = source + ": the checkpoint does not match what was expected (" +
                     std::to_string(problems.size()) +
                     (problems.size() == 1 ? " problem)" : " problems)");
  for (const auto& line : problems)
    text += "\n  " + line;
  return text;
}

}  // namespace

CheckpointMismatch::CheckpointMismatch(const std::string& source, std::vector<std::string> problems)
    : std::runtime_error(render(source, problems)), problems_(std::move(problems)) {}

std::vector<std::string> checkpoint_mismatches(const std::string& source,
                                               std::span<const TensorSignature> found,
                                               const CheckpointExpectations& expected) {
  std::unordered_map<std::string_view, const TensorSignature*> found_by_name;
  for (const auto& tensor : found)
    found_by_name.emplace(tensor.name, &tensor);

  std::vector<std::string> problems;
  std::unordered_map<std::string_view, bool> wanted;
  for (const auto& want : expected.tensors) {
    wanted.emplace(want.name, true);
    const std::string prefix = source + ": tensor " + want.name + ": ";
    const auto it = found_by_name.find(want.name);
    if (it == found_by_name.end()) {
      problems.push_back(prefix + "expected " + std::string(dtype_name(want.dtype)) + " " +
                         shape_to_string(want.shape) + ", found no such tensor");
      continue;
    }
    const TensorSignature& have = *it->second;
    if (have.dtype != want.dtype) {
      problems.push_back(prefix + "expected dtype " + std::string(dtype_name(want.dtype)) +
                         ", found " + std::string(dtype_name(have.dtype)));
    }
    if (have.shape != want.shape) {
      problems.push_back(prefix + "expected shape " + shape_to_string(want.shape) + ", found " +
                         shape_to_string(have.shape));
    }
  }
  if (!expected.allow_unexpected_tensors) {
    for (const auto& have : found) {
      if (wanted.contains(have.name))
        continue;
      problems.push_back(source + ": tensor " + have.name + ": expected no such tensor, found " +
                         std::string(dtype_name(have.dtype)) + " " + shape_to_string(have.shape));
    }
  }
  return problems;
}

}  // namespace staticnet::runtime
