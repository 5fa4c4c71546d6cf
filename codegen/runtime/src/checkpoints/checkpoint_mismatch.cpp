// Comparing a checkpoint's tensors with what the model expects, reporting every difference.
#include <unordered_map>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/validation.hpp"  // shape_to_string

namespace staticnet::runtime {
namespace {

std::string render(const std::string& source, const std::vector<TensorMismatch>& mismatches) {
  std::string text = source + ": the checkpoint does not match what was expected (" +
                     std::to_string(mismatches.size()) +
                     (mismatches.size() == 1 ? " problem)" : " problems)");
  for (const auto& mismatch : mismatches)
    text += "\n  " + mismatch.line;
  return text;
}

}  // namespace

CheckpointMismatch::CheckpointMismatch(const std::string& source,
                                       std::vector<TensorMismatch> mismatches)
    : std::runtime_error(render(source, mismatches)), mismatches_(std::move(mismatches)) {}

std::vector<std::string> CheckpointMismatch::problems() const {
  std::vector<std::string> lines;
  lines.reserve(mismatches_.size());
  for (const auto& mismatch : mismatches_)
    lines.push_back(mismatch.line);
  return lines;
}

std::vector<TensorMismatch> checkpoint_mismatches(const std::string& source,
                                                  std::span<const TensorSignature> found,
                                                  const CheckpointExpectations& expected) {
  std::unordered_map<std::string_view, const TensorSignature*> found_by_name;
  for (const auto& tensor : found)
    found_by_name.emplace(tensor.name, &tensor);

  using Kind = TensorMismatch::Kind;
  std::vector<TensorMismatch> problems;
  std::unordered_map<std::string_view, bool> wanted;
  for (const auto& want : expected.tensors) {
    wanted.emplace(want.name, true);
    const std::string prefix = source + ": tensor " + want.name + ": ";
    const auto it = found_by_name.find(want.name);
    if (it == found_by_name.end()) {
      problems.push_back({Kind::missing, want.name,
                          prefix + "expected " + std::string(dtype_name(want.dtype)) + " " +
                              shape_to_string(want.shape) + ", found no such tensor"});
      continue;
    }
    const TensorSignature& have = *it->second;
    if (have.dtype != want.dtype) {
      problems.push_back({Kind::dtype, want.name,
                          prefix + "expected dtype " + std::string(dtype_name(want.dtype)) +
                              ", found " + std::string(dtype_name(have.dtype))});
    }
    if (have.shape != want.shape) {
      problems.push_back({Kind::shape, want.name,
                          prefix + "expected shape " + shape_to_string(want.shape) + ", found " +
                              shape_to_string(have.shape)});
    }
  }
  if (!expected.allow_unexpected_tensors) {
    for (const auto& have : found) {
      if (wanted.contains(have.name))
        continue;
      problems.push_back({Kind::unexpected, have.name,
                          source + ": tensor " + have.name + ": expected no such tensor, found " +
                              std::string(dtype_name(have.dtype)) + " " +
                              shape_to_string(have.shape)});
    }
  }
  return problems;
}

}  // namespace staticnet::runtime
