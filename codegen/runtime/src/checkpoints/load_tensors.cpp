#include "staticnet/runtime/checkpoints/load_tensors.hpp"

#include <cstring>
#include <vector>

#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"

namespace staticnet::runtime {

void load_tensors(const std::filesystem::path& file, std::span<const TensorRegion> regions) {
  const SafetensorsReader reader = SafetensorsReader::open(file);
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
  }
}

}  // namespace staticnet::runtime
