// Normalisation and crop/flip augmentation, checked element by element on images small enough to
// work out by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "staticnet/runtime/batches/augment.hpp"
#include "staticnet/runtime/batches/loader_config.hpp"
#include "staticnet/runtime/batches/normalize.hpp"

namespace sr = staticnet::runtime;

namespace {

// 1x3x3 image
//   1 2 3
//   4 5 6
//   7 8 9
const std::vector<float> kImage{1, 2, 3, 4, 5, 6, 7, 8, 9};
const std::vector<std::int64_t> kImageShape{1, 3, 3};

std::vector<float> crop_flip(std::int64_t row_offset, std::int64_t column_offset, bool flip) {
  const sr::ChannelAffine identity(sr::Normalization{}, kImageShape);
  std::vector<float> out(9, -100.0f);
  sr::augment_and_normalize(kImage.data(), out.data(), {1, 3, 3}, 1,
                            {row_offset, column_offset, flip}, identity);
  return out;
}

}  // namespace

TEST_CASE("batches: crop with padding 1 on a 1x3x3 image") {
  // The padded image is 5x5 with the image in its middle; offsets pick the 3x3 window's corner.
  CHECK(crop_flip(1, 1, false) == kImage);                     // centred: unchanged
  CHECK(crop_flip(0, 0, false) == std::vector<float>{0, 0, 0,  //
                                                     0, 1, 2,  //
                                                     0, 4, 5});
  CHECK(crop_flip(2, 1, false) == std::vector<float>{4, 5, 6,  //
                                                     7, 8, 9,  //
                                                     0, 0, 0});
  CHECK(crop_flip(2, 2, false) == std::vector<float>{5, 6, 0,  //
                                                     8, 9, 0,  //
                                                     0, 0, 0});
}

TEST_CASE("batches: horizontal flip, alone and after a crop") {
  CHECK(crop_flip(1, 1, true) == std::vector<float>{3, 2, 1,  //
                                                    6, 5, 4,  //
                                                    9, 8, 7});
  // Crop first (window one column right: 2 3 0 / 5 6 0 / 8 9 0), then flip.
  CHECK(crop_flip(1, 2, true) == std::vector<float>{0, 3, 2,  //
                                                    0, 6, 5,  //
                                                    0, 9, 8});
  // Window one row up and one column left (0 0 0 / 0 1 2 / 0 4 5), then flip.
  CHECK(crop_flip(0, 0, true) == std::vector<float>{0, 0, 0,  //
                                                    2, 1, 0,  //
                                                    5, 4, 0});
}

TEST_CASE("batches: per-channel normalisation is fused with the crop, and padding is a raw zero") {
  // 2x2x2 image, scale 0.5, mean {1, 0}, stddev {2, 4}:
  //   channel 0: 2 4 / 6 8  -> (x/2 - 1)/2 = x/4 - 1/2 -> 0 0.5 / 1 1.5, padding -> -0.5
  //   channel 1: 8 16 / 24 32 -> (x/2)/4 = x/8         -> 1 2 / 3 4,     padding -> 0
  const std::vector<float> image{2, 4, 6, 8, 8, 16, 24, 32};
  const sr::ChannelAffine affine(sr::Normalization{0.5f, {1.0f, 0.0f}, {2.0f, 4.0f}}, {2, 2, 2});
  CHECK_FALSE(affine.is_identity());
  std::vector<float> out(8);

  sr::augment_and_normalize(image.data(), out.data(), {2, 2, 2}, 1, {1, 1, false}, affine);
  CHECK(out == std::vector<float>{0, 0.5f, 1, 1.5f, 1, 2, 3, 4});

  // Window one row up, one column right: out(y, x) = in(y - 1, x + 1).
  sr::augment_and_normalize(image.data(), out.data(), {2, 2, 2}, 1, {0, 2, false}, affine);
  CHECK(out == std::vector<float>{-0.5f, -0.5f, 0.5f, -0.5f,  //
                                  0, 0, 2, 0});
  // The same window flipped.
  sr::augment_and_normalize(image.data(), out.data(), {2, 2, 2}, 1, {0, 2, true}, affine);
  CHECK(out == std::vector<float>{-0.5f, -0.5f, -0.5f, 0.5f,  //
                                  0, 0, 0, 2});
}

TEST_CASE("batches: ChannelAffine in place, broadcasting and validation") {
  std::vector<float> sample{0, 255, 51, 102};  // shape {2, 2}: two channels of two
  sr::ChannelAffine scale_only(sr::Normalization{1.0f / 255.0f, {}, {}}, {2, 2});
  scale_only.apply(sample);
  CHECK(sample[0] == 0.0f);
  CHECK(sample[1] == doctest::Approx(1.0f));
  CHECK(sample[2] == doctest::Approx(0.2f));

  std::vector<float> features{1, 2, 3};  // 1-D sample: each feature is a channel
  sr::ChannelAffine per_feature(sr::Normalization{1.0f, {1, 2, 3}, {1}}, {3});
  per_feature.apply(features);
  CHECK(features == std::vector<float>{0, 0, 0});

  CHECK(sr::ChannelAffine(sr::Normalization{}, {3, 4, 4}).is_identity());
  CHECK_THROWS_AS(sr::ChannelAffine(sr::Normalization{1.0f, {0, 0}, {}}, {3, 4, 4}),
                  sr::LoaderConfigError);
  CHECK_THROWS_WITH_AS(sr::ChannelAffine(sr::Normalization{1.0f, {}, {1, 0, 1}}, {3, 4, 4}),
                       doctest::Contains("stddev of channel 1"), sr::LoaderConfigError);
}

TEST_CASE("batches: augmentation choices are a pure function of (seed, epoch, index)") {
  const sr::Augmentation a{2, true};
  std::set<std::int64_t> rows, columns;
  int flips = 0;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const auto c = sr::draw_augmentation(a, 5, 3, i);
    const auto again = sr::draw_augmentation(a, 5, 3, i);
    REQUIRE(c.row_offset == again.row_offset);
    REQUIRE(c.column_offset == again.column_offset);
    REQUIRE(c.flip == again.flip);
    REQUIRE(c.row_offset >= 0);
    REQUIRE(c.row_offset <= 4);
    REQUIRE(c.column_offset >= 0);
    REQUIRE(c.column_offset <= 4);
    rows.insert(c.row_offset);
    columns.insert(c.column_offset);
    flips += c.flip ? 1 : 0;
  }
  CHECK(rows.size() == 5);
  CHECK(columns.size() == 5);
  CHECK(flips > 900);
  CHECK(flips < 1100);

  // Another epoch gives other choices.
  int same = 0;
  for (std::int64_t i = 0; i < 100; ++i) {
    const auto x = sr::draw_augmentation(a, 5, 3, i);
    const auto y = sr::draw_augmentation(a, 5, 4, i);
    same +=
        (x.row_offset == y.row_offset && x.column_offset == y.column_offset && x.flip == y.flip);
  }
  CHECK(same < 20);

  // Disabled parts draw nothing: centred window, no flip.
  const auto none = sr::draw_augmentation(sr::Augmentation{3, false}, 1, 1, 1);
  CHECK_FALSE(none.flip);
  const auto flip_only = sr::draw_augmentation(sr::Augmentation{0, true}, 1, 1, 1);
  CHECK(flip_only.row_offset == 0);
  CHECK(flip_only.column_offset == 0);
}
