#pragma once
// Finding the first NaN or infinity in a model's tensors: checkpoints and weight files are
// refused with it, and the trainer stops with it when the weights diverge behind a finite loss
// (a ReLU turns NaN into 0, so a NaN weight need not reach the loss).
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "staticnet/runtime/parameter_tensor.hpp"

namespace staticnet::runtime {

// "NaN", "+Inf" or "-Inf": how the data checks, the weight checks and the trainer name them.
inline std::string non_finite_name(float value) {
  return std::isnan(value) ? "NaN" : (value > 0 ? "+Inf" : "-Inf");
}

struct NonFiniteValue {
  const ParameterTensor* tensor = nullptr;
  std::int64_t element = 0;  // within the tensor, 0-based
  float value = 0;
};

// The first element of `tensors` (each at its offset in `region`) that is not finite.
inline std::optional<NonFiniteValue> first_non_finite(std::span<const ParameterTensor> tensors,
                                                      std::span<const float> region) {
  for (const ParameterTensor& t : tensors)
    for (std::int64_t j = 0; j < t.elements(); ++j)
      if (const float v = region[static_cast<std::size_t>(t.offset + j)]; !std::isfinite(v))
        return NonFiniteValue{&t, j, v};
  return std::nullopt;
}

}  // namespace staticnet::runtime
