#pragma once
// Shared by the data-set fuzz targets: how the first bytes of an input choose the parser's
// options and split the rest into files, and the walk over a data set that opened (every sample,
// label and target, then validate_all, summarize and data check's scan), checking on the way what
// the parsers promise (labels in [0, num_classes), nothing non-finite once validate_all accepted
// the data).
//
// A FormatError is a correct answer to any input; every other exception escapes the target and
// libFuzzer reports it as a crash, as it does sanitizer reports and broken invariants (abort).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"
#include "staticnet/runtime/formats/dataset_summary.hpp"
#include "staticnet/runtime/tools/data_check.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::fuzz {

using runtime::Dataset;
using runtime::DatasetOptions;
using runtime::FormatError;
using runtime::LabelKind;

[[noreturn]] inline void invariant_broken(const char* what) {
  std::fprintf(stderr, "fuzz target invariant broken: %s\n", what);
  std::abort();
}

inline void require(bool condition, const char* what) {
  if (!condition)
    invariant_broken(what);
}

// Reads fields from the front of the input; bytes past its end read as zero, spans as empty.
class InputReader {
 public:
  explicit InputReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  std::uint8_t u8() {
    if (pos_ >= bytes_.size())
      return 0;
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }
  std::uint16_t u16() {  // little-endian
    const std::uint16_t low = u8();
    return static_cast<std::uint16_t>(low | (u8() << 8));
  }
  std::uint32_t u32() {  // little-endian
    const std::uint32_t low = u16();
    return low | (static_cast<std::uint32_t>(u16()) << 16);
  }
  // The next `n` bytes, or as many as are left.
  std::span<const std::byte> take(std::size_t n) {
    const std::size_t count = n < remaining() ? n : remaining();
    const auto part = bytes_.subspan(pos_, count);
    pos_ += count;
    return part;
  }
  std::span<const std::byte> rest() { return take(remaining()); }
  std::size_t remaining() const noexcept { return bytes_.size() - pos_; }

 private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
};

// The 6-byte option block every data-set target's input starts with (make_corpus.py writes it):
//   byte 0: flags. bit 0 allow_non_finite; bit 1 num_classes given (byte 1, as a signed byte, so
//           negative and zero counts reach the parser too); bits 2-3 expect_sample_shape:
//           0 none, 1 {a}, 2 {a, b}, 3 {1, a, b}; bits 4-7 belong to the target.
//   bytes 2-3, 4-5: a and b, little-endian u16 (0 makes an invalid expected shape).
struct OptionBlock {
  DatasetOptions options;
  std::uint8_t target_bits = 0;  // flags >> 4
};

inline OptionBlock read_option_block(InputReader& in) {
  OptionBlock block;
  const auto flags = in.u8();
  const auto classes = static_cast<std::int8_t>(in.u8());
  const std::int64_t a = in.u16();
  const std::int64_t b = in.u16();
  block.options.allow_non_finite = (flags & 0x01) != 0;
  if (flags & 0x02)
    block.options.num_classes = classes;
  switch ((flags >> 2) & 0x03) {
    case 1:
      block.options.expect_sample_shape = std::vector<std::int64_t>{a};
      break;
    case 2:
      block.options.expect_sample_shape = std::vector<std::int64_t>{a, b};
      break;
    case 3:
      block.options.expect_sample_shape = std::vector<std::int64_t>{1, a, b};
      break;
    default:
      break;
  }
  block.target_bits = static_cast<std::uint8_t>(flags >> 4);
  return block;
}

// Reads everything a trainer would read from a data set that opened. FormatError from
// validate_all is a correct outcome (non-finite data); the caller catches it.
inline void exercise_dataset(const Dataset& dataset, const DatasetOptions& options) {
  const std::int64_t count = dataset.size();
  require(count > 0, "an open data set has at least one sample");
  for (auto d : dataset.sample_shape())
    require(d > 0, "sample dimensions are positive");
  const std::int64_t elements = dataset.sample_elements();
  require(elements > 0, "a sample has at least one element");
  if (options.expect_sample_shape)
    require(dataset.sample_shape() == *options.expect_sample_shape,
            "sample_shape() is the expected shape when one was given");

  const bool classes = dataset.label_kind() == LabelKind::class_index;
  const bool targets = dataset.label_kind() == LabelKind::regression;
  std::int64_t target_elements = 0;
  if (!classes && !targets) {
    require(dataset.num_classes() == 0 && dataset.target_shape().empty(),
            "an unlabelled data set reports no classes and no target shape");
  } else if (classes) {
    require(dataset.num_classes() > 0, "a classification data set has classes");
    require(dataset.num_classes() <= runtime::max_num_classes, "num_classes fits an i32");
    if (options.num_classes)
      require(dataset.num_classes() == *options.num_classes, "num_classes is the one given");
  } else {
    require(dataset.num_classes() == 0, "a regression data set reports 0 classes");
    require(!dataset.target_shape().empty(), "a regression data set has a target shape");
    target_elements = 1;
    for (auto d : dataset.target_shape()) {
      require(d > 0, "target dimensions are positive");
      target_elements *= d;
    }
  }

  std::vector<float> features(static_cast<std::size_t>(elements));
  std::vector<float> target(static_cast<std::size_t>(target_elements));
  bool all_finite = true;
  for (std::int64_t i = 0; i < count; ++i) {
    dataset.read_sample(i, features);
    for (float v : features)
      all_finite = all_finite && std::isfinite(v);
    if (classes) {
      const auto label = dataset.label(i);
      require(label >= 0 && label < dataset.num_classes(), "labels lie in [0, num_classes)");
    } else if (targets) {
      dataset.read_target(i, target);
      for (float v : target)
        all_finite = all_finite && std::isfinite(v);
    }
  }

  bool validated = false;
  try {
    dataset.validate_all();
    validated = true;
  } catch (const FormatError&) {
    require(!options.allow_non_finite, "validate_all accepts everything with allow_non_finite");
  }
  if (validated && !options.allow_non_finite)
    require(all_finite, "no non-finite value once validate_all accepted the data");

  {  // summarize and data check's scan: bounded since max_num_classes is 2^24 (finding F2)
    const auto summary = runtime::summarize(dataset);
    require(summary.count == count, "the summary counts every sample");
    (void)runtime::to_string(summary);

    // `staticnet data check`'s scan over the open data set: every sample again, then the summary.
    try {
      const auto check = runtime::check_dataset(dataset, options.allow_non_finite);
      require(options.allow_non_finite || check.non_finite == 0,
              "data check passes non-finite values only when they are allowed");
      require(check.summary.count == count, "data check counts every sample");
      (void)runtime::format_data_check(check);
    } catch (const FormatError&) {
      require(!options.allow_non_finite && !all_finite,
              "data check fails on an open data set only for non-finite values");
    }
  }
}

inline std::span<const std::byte> as_bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const std::byte*>(data), size};
}

}  // namespace staticnet::fuzz
