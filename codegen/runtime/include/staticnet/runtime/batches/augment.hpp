#pragma once
// On-the-fly augmentation of (C,H,W) image samples: random crop with zero padding, then random
// horizontal flip (torchvision's RandomCrop(H, padding=P) followed by RandomHorizontalFlip()).
// Padding is zero in the raw value space, before normalisation, exactly as torchvision pads the
// u8 image before ToTensor/Normalize: a padded pixel comes out as (0 - mean[c]) / stddev[c].
//
// The random choices of a sample are a pure function of (seed, epoch, data set index), drawn from
// splitmix64 in a fixed order (crop row offset, crop column offset, flip), so they do not depend
// on thread timing, worker count or where the sample lands in its batch.
#include <cstdint>

namespace staticnet::runtime {

class ChannelAffine;

struct Augmentation {
  std::int64_t crop_padding = 0;  // P > 0 enables the random crop (pad by P, crop back to H×W)
  bool horizontal_flip = false;   // flip with probability 1/2

  bool enabled() const { return crop_padding > 0 || horizontal_flip; }
};

// The random choices for one sample. The crop window's top-left corner in the padded image is
// (row_offset, column_offset), each in [0, 2P]; P means "no shift".
struct AugmentChoice {
  std::int64_t row_offset = 0;
  std::int64_t column_offset = 0;
  bool flip = false;
};

AugmentChoice draw_augmentation(const Augmentation& a, std::uint64_t seed, std::uint64_t epoch,
                                std::int64_t sample_index);

struct ImageShape {
  std::int64_t channels, height, width;
};

// One fused pass: dst = normalise(flip(crop(pad(src)))). src and dst are C*H*W floats and must
// not overlap.
void augment_and_normalize(const float* src, float* dst, ImageShape shape, std::int64_t padding,
                           AugmentChoice choice, const ChannelAffine& affine);

}  // namespace staticnet::runtime
