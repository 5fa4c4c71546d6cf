#include "staticnet/runtime/trainer/initialize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/load_tensors.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/prng.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {

namespace {
void initialize_constant(const ParameterTensor& tensor, std::span<float> values) {
  const float value = tensor.init == ParameterTensor::Init::ones ? 1.0f : 0.0f;
  std::fill_n(values.data() + tensor.offset, tensor.elements(), value);
}
}  // namespace

void initialize_non_trainable(const ModelInfo& model, std::span<float> values) {
  for (const ParameterTensor& tensor : model.non_trainable)
    initialize_constant(tensor, values);
}

void initialize_parameters(const ModelInfo& model, std::uint64_t seed,
                           std::span<float> parameters) {
  for (std::size_t t = 0; t < model.parameters.size(); ++t) {
    const ParameterTensor& tensor = model.parameters[t];
    if (tensor.init != ParameterTensor::Init::uniform) {
      initialize_constant(tensor, parameters);
      continue;
    }
    const double bound = 1.0 / std::sqrt(static_cast<double>(tensor.fan_in));
    SplitMix64 draws(mix_seed(seed, RandomStream::initialize, t));
    float* out = parameters.data() + tensor.offset;
    for (std::int64_t j = 0; j < tensor.elements(); ++j) {
      const double u = static_cast<double>(draws.next() >> 11) * 0x1.0p-53;  // [0, 1)
      out[j] = static_cast<float>((2.0 * u - 1.0) * bound);
    }
  }
}

LoadedParameters load_parameters(const ModelInfo& model, const SafetensorsReader& file,
                                 std::span<float> parameters, std::span<float> statistics) {
  initialize_non_trainable(model, statistics);
  const bool has_statistics = std::ranges::any_of(
      model.non_trainable, [&](const auto& tensor) { return file.find(tensor.name) != nullptr; });
  const TensorRegion regions[] = {{model.parameters, parameters},
                                  {model.non_trainable, statistics}};
  return {has_statistics,
          load_tensors(file, std::span(regions).first(has_statistics ? 2 : 1), model.model_type)};
}

LoadedParameters load_parameters(const ModelInfo& model, const std::filesystem::path& file,
                                 std::span<float> parameters, std::span<float> statistics) {
  return load_parameters(model, SafetensorsReader::open(file), parameters, statistics);
}

}  // namespace staticnet::runtime
