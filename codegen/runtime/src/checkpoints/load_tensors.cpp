#include "staticnet/runtime/checkpoints/load_tensors.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/finite_values.hpp"

namespace staticnet::runtime {

void load_tensors(const std::filesystem::path& file, std::span<const TensorRegion> regions) {
  load_tensors(SafetensorsReader::open(file), regions);
}

void load_tensors(const SafetensorsReader& reader, std::span<const TensorRegion> regions) {
  std::vector<TensorSignature> found;
  for (const SafetensorsTensorInfo& t : reader.tensors())
    found.push_back({t.name, t.dtype, t.shape});
  CheckpointExpectations expected;
  expected.allow_unexpected_tensors = true;
  for (const TensorRegion& region : regions)
    for (const ParameterTensor& p : region.tensors)
      expected.tensors.push_back({p.name, Dtype::f32, p.shape});
  auto problems = checkpoint_mismatches(reader.source(), found, expected);
  if (!problems.empty())
    throw CheckpointMismatch(reader.source(), std::move(problems));
  for (const TensorRegion& region : regions) {
    for (const ParameterTensor& p : region.tensors) {
      const auto bytes = reader.data(*reader.find(p.name));
      std::memcpy(region.values.data() + p.offset, bytes.data(), bytes.size());
    }
    // No model starts from a NaN or an infinity: training would carry it on, perhaps behind
    // finite losses, and inference would print garbage.
    if (const std::optional<NonFiniteValue> bad = first_non_finite(region.tensors, region.values)) {
      const std::uint64_t byte = reader.data_buffer_offset() +
                                 reader.find(bad->tensor->name)->data_begin +
                                 static_cast<std::uint64_t>(bad->element) * sizeof(float);
      throw FormatError(
          {reader.source(), byte, {}, {}}, "a finite value in tensor " + bad->tensor->name,
          non_finite_name(bad->value) + " at element " + std::to_string(bad->element));
    }
  }
}

}  // namespace staticnet::runtime
