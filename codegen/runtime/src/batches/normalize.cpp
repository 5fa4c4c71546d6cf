#include "staticnet/runtime/batches/normalize.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "staticnet/runtime/batches/loader_config.hpp"

namespace staticnet::runtime {
namespace {

// A per-channel parameter list: empty takes the default, one value broadcasts.
float channel_value(const std::vector<float>& values, std::size_t c, float fallback) {
  if (values.empty())
    return fallback;
  return values.size() == 1 ? values[0] : values[c];
}

void check_length(const std::vector<float>& values, std::size_t channels, const char* what) {
  if (fits_channels(values.size(), channels))
    return;
  throw LoaderConfigError("normalisation " + std::string(what) + " has " +
                          std::to_string(values.size()) + " values but the sample has " +
                          std::to_string(channels) +
                          " channels (its first axis); give 1 value or one per channel");
}

}  // namespace

ChannelAffine::ChannelAffine(const Normalization& n,
                             const std::vector<std::int64_t>& sample_shape) {
  std::size_t channels = 1;
  if (!sample_shape.empty()) {
    channels = static_cast<std::size_t>(sample_shape[0]);
    for (std::size_t i = 1; i < sample_shape.size(); ++i)
      channel_elements_ *= sample_shape[i];
  }
  check_length(n.mean, channels, "mean");
  check_length(n.stddev, channels, "stddev");
  if (!std::isfinite(n.scale))
    throw LoaderConfigError("normalisation scale is not finite");

  gain_.resize(channels);
  offset_.resize(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    const double mean = channel_value(n.mean, c, 0.0f);
    const double stddev = channel_value(n.stddev, c, 1.0f);
    if (!(stddev > 0.0) || !std::isfinite(stddev)) {
      throw LoaderConfigError("normalisation stddev of channel " + std::to_string(c) +
                              " must be positive and finite, found " + std::to_string(stddev));
    }
    gain_[c] = static_cast<float>(static_cast<double>(n.scale) / stddev);
    offset_[c] = static_cast<float>(-mean / stddev);
    if (gain_[c] != 1.0f || offset_[c] != 0.0f)
      identity_ = false;
  }
}

void ChannelAffine::apply(std::span<float> sample) const {
  if (identity_)
    return;
  float* p = sample.data();
  for (std::size_t c = 0; c < gain_.size(); ++c) {
    const float g = gain_[c];
    const float o = offset_[c];
    for (std::int64_t i = 0; i < channel_elements_; ++i)
      p[i] = p[i] * g + o;
    p += channel_elements_;
  }
}

}  // namespace staticnet::runtime
