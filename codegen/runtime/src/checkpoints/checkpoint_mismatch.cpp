// Comparing a checkpoint's tensors with what the model expects, reporting every difference.
#include <algorithm>
#include <unordered_map>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/validation.hpp"  // shape_to_string

namespace staticnet::runtime {
namespace {

// Another model's checkpoint differs in every tensor: the first lines say enough, the count says
// the rest.
std::string render(const std::string& source, const std::vector<TensorMismatch>& mismatches,
                   const std::string& whose) {
  std::string text = source + ": the checkpoint does not match what was expected (" +
                     std::to_string(mismatches.size()) +
                     (mismatches.size() == 1 ? " problem)" : " problems)");
  if (!whose.empty())
    text += "; " + whose;
  const std::size_t listed = std::min(mismatches.size(), CheckpointMismatch::max_listed_mismatches);
  for (std::size_t i = 0; i < listed; ++i)
    text += "\n  " + mismatches[i].line;
  if (listed < mismatches.size())
    text += "\n  ... and " + std::to_string(mismatches.size() - listed) + " more";
  return text;
}

}  // namespace

CheckpointMismatch::CheckpointMismatch(const std::string& source,
                                       std::vector<TensorMismatch> mismatches,
                                       const std::string& whose)
    : std::runtime_error(render(source, mismatches, whose)), mismatches_(std::move(mismatches)) {}

std::string other_model_note(const std::map<std::string, std::string>& metadata,
                             std::string_view model_type) {
  const auto type = metadata.find("model_type");
  if (model_type.empty() || type == metadata.end() || type->second == model_type)
    return {};
  const auto name = metadata.find("model");
  return "it was written for " + type->second +
         (name == metadata.end() ? std::string() : " (model " + name->second + ")") +
         ", and this program runs " + std::string(model_type);
}

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
