#include "staticnet/runtime/batches/augment.hpp"

#include <algorithm>

#include "staticnet/runtime/batches/normalize.hpp"
#include "staticnet/runtime/prng.hpp"

namespace staticnet::runtime {

AugmentChoice draw_augmentation(const Augmentation& a, std::uint64_t seed, std::uint64_t epoch,
                                std::int64_t sample_index) {
  SplitMix64 rng(
      mix_seed(seed, RandomStream::augment, epoch, static_cast<std::uint64_t>(sample_index)));
  AugmentChoice choice;
  choice.row_offset = a.crop_padding;
  choice.column_offset = a.crop_padding;
  if (a.crop_padding > 0) {
    const auto positions = static_cast<std::uint64_t>(2 * a.crop_padding + 1);
    choice.row_offset = static_cast<std::int64_t>(rng.below(positions));
    choice.column_offset = static_cast<std::int64_t>(rng.below(positions));
  }
  if (a.horizontal_flip)
    choice.flip = (rng.next() >> 63) != 0;
  return choice;
}

void augment_and_normalize(const float* src, float* dst, ImageShape shape, std::int64_t padding,
                           AugmentChoice choice, const ChannelAffine& affine) {
  const std::int64_t h = shape.height;
  const std::int64_t w = shape.width;
  // Output (y, x) reads input (y + row_shift, x' + column_shift), x' = flip ? w-1-x : x; source
  // positions outside the image are the zero padding.
  const std::int64_t row_shift = choice.row_offset - padding;
  const std::int64_t column_shift = choice.column_offset - padding;
  // Columns x' of the cropped row whose source lies inside the image.
  const std::int64_t inside_begin = std::clamp<std::int64_t>(-column_shift, 0, w);
  const std::int64_t inside_end = std::clamp<std::int64_t>(w - column_shift, 0, w);

  for (std::int64_t c = 0; c < shape.channels; ++c) {
    // affine was built for this sample shape, so it has one gain and offset per channel.
    const float g = affine.gain()[c];
    const float o = affine.offset()[c];  // what a zero (padding) becomes
    const float* plane = src + c * h * w;
    float* out_plane = dst + c * h * w;
    for (std::int64_t y = 0; y < h; ++y) {
      float* out = out_plane + y * w;
      const std::int64_t source_row = y + row_shift;
      if (source_row < 0 || source_row >= h) {
        std::fill(out, out + w, o);
        continue;
      }
      const float* row = plane + source_row * w;  // row[x' + column_shift] is the source of x'
      if (!choice.flip) {
        std::fill(out, out + inside_begin, o);
        for (std::int64_t x = inside_begin; x < inside_end; ++x)
          out[x] = row[x + column_shift] * g + o;
        std::fill(out + inside_end, out + w, o);
      } else {
        // Cropped column x' lands at w-1-x'.
        float* mirrored = out + (w - 1);
        std::fill(out + (w - inside_begin), out + w, o);
        for (std::int64_t x = inside_begin; x < inside_end; ++x)
          mirrored[-x] = row[x + column_shift] * g + o;
        std::fill(out, out + (w - inside_end), o);
      }
    }
  }
}

}  // namespace staticnet::runtime
