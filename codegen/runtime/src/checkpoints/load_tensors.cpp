#include "staticnet/runtime/checkpoints/load_tensors.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../english_list.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/finite_values.hpp"

namespace staticnet::runtime {
namespace {

// Where element `element` of `tensor` starts in the file, for error messages.
std::uint64_t element_byte(const SafetensorsReader& reader, const SafetensorsTensorInfo& tensor,
                           std::int64_t element) {
  return reader.data_buffer_offset() + tensor.data_begin +
         static_cast<std::uint64_t>(element) * dtype_size(tensor.dtype);
}

}  // namespace

LoadedTensors load_tensors(const std::filesystem::path& file, std::span<const TensorRegion> regions,
                           std::string_view model_type) {
  return load_tensors(SafetensorsReader::open(file), regions, model_type);
}

LoadedTensors load_tensors(const SafetensorsReader& reader, std::span<const TensorRegion> regions,
                           std::string_view model_type) {
  // Any floating type will do: it is converted (a float tensor is compared as an F32 one).
  std::vector<TensorSignature> found;
  for (const SafetensorsTensorInfo& t : reader.tensors())
    found.push_back({t.name, is_floating(t.dtype) ? Dtype::f32 : t.dtype, t.shape});
  CheckpointExpectations expected;
  expected.allow_unexpected_tensors = true;
  for (const TensorRegion& region : regions)
    for (const ParameterTensor& p : region.tensors)
      expected.tensors.push_back({p.name, Dtype::f32, p.shape});
  auto problems = checkpoint_mismatches(reader.source(), found, expected);
  if (!problems.empty())
    throw CheckpointMismatch(reader.source(), std::move(problems),
                             other_model_note(reader.metadata(), model_type));

  LoadedTensors loaded;
  std::vector<Dtype>& converted = loaded.converted_from;
  for (const TensorRegion& region : regions) {
    for (const ParameterTensor& p : region.tensors) {
      const SafetensorsTensorInfo& tensor = *reader.find(p.name);
      const auto bytes = reader.data(tensor);
      float* values = region.values.data() + p.offset;
      if (tensor.dtype == Dtype::f32) {
        std::memcpy(values, bytes.data(), bytes.size());
        continue;
      }
      if (std::ranges::find(converted, tensor.dtype) == converted.end())
        converted.push_back(tensor.dtype);
      const std::size_t size = dtype_size(tensor.dtype);
      for (std::int64_t j = 0; j < p.elements(); ++j) {
        const std::byte* element = bytes.data() + static_cast<std::size_t>(j) * size;
        const std::optional<float> value = float_element(tensor.dtype, element);
        if (!value)
          throw FormatError({reader.source(), element_byte(reader, tensor, j), {}, {}},
                            "a value an F32 can hold in tensor " + p.name,
                            fmt::format("an F64 of magnitude 3.4028236e+38 or more (beyond the "
                                        "largest F32) at element {}",
                                        j));
        values[j] = *value;
      }
    }
    // No model starts from a NaN or an infinity: training would carry it on, perhaps behind
    // finite losses, and inference would print garbage.
    if (const std::optional<NonFiniteValue> bad = first_non_finite(region.tensors, region.values)) {
      const SafetensorsTensorInfo& tensor = *reader.find(bad->tensor->name);
      throw FormatError(
          {reader.source(), element_byte(reader, tensor, bad->element), {}, {}},
          "a finite value in tensor " + bad->tensor->name,
          non_finite_name(bad->value) + " at element " + std::to_string(bad->element));
    }
  }
  std::ranges::sort(converted);
  for (const SafetensorsTensorInfo& t : reader.tensors()) {
    const bool expected_name = std::ranges::any_of(
        expected.tensors, [&](const TensorSignature& e) { return e.name == t.name; });
    if (!expected_name && !is_optimizer_state(t.name) && !t.name.ends_with(".num_batches_tracked"))
      loaded.unused.push_back(t.name);
  }
  std::ranges::sort(loaded.unused);
  return loaded;
}

std::string describe(const LoadedTensors& loaded) {
  std::string text;
  if (!loaded.converted_from.empty()) {
    std::vector<std::string> types;
    for (const Dtype dtype : loaded.converted_from)
      types.emplace_back(dtype_name(dtype));
    text = "its " + english_list(types) + " values converted to F32";
  }
  if (!loaded.unused.empty()) {
    constexpr std::size_t named = 3;
    const std::size_t n = loaded.unused.size();
    text +=
        (text.empty() ? "" : "; ") + fmt::format("{} tensor{} that {} not the model's ignored (", n,
                                                 n == 1 ? "" : "s", n == 1 ? "is" : "are");
    for (std::size_t i = 0; i < std::min(n, named); ++i)
      text += (i == 0 ? "" : ", ") + loaded.unused[i];
    text += n > named ? ", ...)" : ")";
  }
  return text;
}

std::optional<std::string> negative_variance(const std::string& source,
                                             std::span<const ParameterTensor> tensors,
                                             std::span<const float> values) {
  for (const ParameterTensor& t : tensors) {
    if (!t.name.ends_with(".running_var"))
      continue;
    for (std::int64_t j = 0; j < t.elements(); ++j)
      if (const float v = values[static_cast<std::size_t>(t.offset + j)]; v < 0)
        return fmt::format("{}: tensor {} holds {} at element {}: a variance cannot be negative",
                           source, t.name, v, j);
  }
  return std::nullopt;
}

}  // namespace staticnet::runtime
