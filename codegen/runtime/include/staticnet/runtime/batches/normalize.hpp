#pragma once
// Normalisation of sample values: y = (x * scale - mean[c]) / stddev[c], where c is the index
// along the sample's first axis (the channel of a (C,H,W) image, the feature of a 1-D sample).
// It is applied as one multiply-add per element, y = x * gain[c] + offset[c], with gain and offset
// computed once in double precision; results can differ from the literal formula in the last bit,
// but are identical for every worker count and run.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

// The scale the programs apply unless told otherwise: `given`, else 1/255 for u8 data (pixels),
// else 1.
inline float input_scale(std::optional<float> given, ElementType stored) {
  return given.value_or(stored == ElementType::u8 ? 1.0f / 255.0f : 1.0f);
}

// Whether a per-channel list of `count` values fits `channels` channels: none (the default), one
// for every channel, or one per channel.
constexpr bool fits_channels(std::size_t count, std::size_t channels) {
  return count <= 1 || count == channels;
}

struct Normalization {
  float scale = 1.0f;         // e.g. 1/255 for u8 images
  std::vector<float> mean;    // empty (0), one value for all channels, or one per channel
  std::vector<float> stddev;  // empty (1), one value for all channels, or one per channel
};

// The per-channel gain and offset for one sample shape; validated on construction.
class ChannelAffine {
 public:
  // Throws LoaderConfigError when mean/stddev have the wrong length or a stddev is not positive.
  ChannelAffine(const Normalization& n, const std::vector<std::int64_t>& sample_shape);

  std::int64_t channels() const { return static_cast<std::int64_t>(gain_.size()); }
  std::int64_t channel_elements() const { return channel_elements_; }
  const float* gain() const { return gain_.data(); }
  const float* offset() const { return offset_.data(); }
  bool is_identity() const { return identity_; }

  // In place over one sample of product(sample_shape) elements.
  void apply(std::span<float> sample) const;

 private:
  std::vector<float> gain_;
  std::vector<float> offset_;
  std::int64_t channel_elements_ = 1;
  bool identity_ = true;
};

}  // namespace staticnet::runtime
