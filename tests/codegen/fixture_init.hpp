#pragma once
// The MLPerf fixtures' initial weights, from the integer formula of
// tests/reference/make_mlperf_fixtures.py's initial_value(): for parameter tensor t (in the
// model's order, which is PyTorch's state-dict order) and element j,
//   v = ((j · 2654435761 + 7919 · (t + 1)) mod 2001 − 1000) / 1000        in double
//   weights and biases  v · (1/√fan_in);   BatchNorm  γ = 1 + v/10, β = v/10
// each rounded once to f32, so numpy and C++ produce the same bits.
#include <cmath>
#include <cstdint>
#include <span>

#include <staticnet/runtime/trainer/model_info.hpp>

namespace fixture_init {

inline void parameters(const staticnet::runtime::ModelInfo& model, std::span<float> out) {
  using Init = staticnet::runtime::ParameterTensor::Init;
  for (std::size_t t = 0; t < model.parameters.size(); ++t) {
    const auto& tensor = model.parameters[t];
    const double bound = 1.0 / std::sqrt(static_cast<double>(tensor.fan_in));
    for (std::int64_t j = 0; j < tensor.elements(); ++j) {
      const std::uint64_t raw =
          (static_cast<std::uint64_t>(j) * 2654435761ULL + 7919ULL * (t + 1)) % 2001ULL;
      const double v = (static_cast<double>(raw) - 1000.0) / 1000.0;
      const double value = tensor.init == Init::ones    ? 1.0 + v / 10.0
                           : tensor.init == Init::zeros ? v / 10.0
                                                        : v * bound;
      out[static_cast<std::size_t>(tensor.offset + j)] = static_cast<float>(value);
    }
  }
}

}  // namespace fixture_init
