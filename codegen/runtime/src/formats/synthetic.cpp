#include "staticnet/runtime/formats/synthetic.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "array_dataset.hpp"
#include "staticnet/runtime/checked_math.hpp"
#include "staticnet/runtime/formats/element_decode.hpp"
#include "staticnet/runtime/validation.hpp"

// Bit-identical results need every a * b + c rounded twice, as written: no fused multiply-add.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace staticnet::runtime {
namespace {

constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A counter-based hash: every (seed, stream, a, b) names an independent 64-bit value.
constexpr std::uint64_t hash_key(std::uint64_t seed, std::uint64_t stream, std::uint64_t a,
                                 std::uint64_t b) noexcept {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ a) ^ b);
}

enum Stream : std::uint64_t { class_of_sample = 1, class_mean, sample_noise, weight, target_noise };

constexpr double two_pow_minus_53 = 1.0 / 9007199254740992.0;

// ln(x) for x in (0, 1]: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| < 0.172, series to s^25 (error < 1e-17).
double log_positive(double x) noexcept {
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // exact
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --exponent;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 25.0;
  for (int k = 23; k >= 1; k -= 2)
    series = 1.0 / k + s2 * series;
  return exponent * 0.69314718055994530942 + 2.0 * s * series;
}

// sin and cos of a in [0, pi/2] by Taylor series to degree 23 (error < 1e-17).
double sin_quadrant(double a) noexcept {
  const double a2 = a * a;
  double term = 1.0;
  for (int k = 23; k >= 3; k -= 2)
    term = 1.0 - a2 / (k * (k - 1)) * term;
  return a * term;
}
double cos_quadrant(double a) noexcept {
  const double a2 = a * a;
  double term = 1.0;
  for (int k = 22; k >= 2; k -= 2)
    term = 1.0 - a2 / (k * (k - 1)) * term;
  return term;
}

// cos(2 pi u) for u in [0, 1): the quadrant split is exact because u has 53 fraction bits.
double cos_turns(double u) noexcept {
  const double quarters = u * 4.0;
  const int quadrant = static_cast<int>(quarters);
  const double a = (quarters - quadrant) * 1.57079632679489661923;
  switch (quadrant) {
    case 0:
      return cos_quadrant(a);
    case 1:
      return -sin_quadrant(a);
    case 2:
      return -cos_quadrant(a);
    default:
      return sin_quadrant(a);
  }
}

std::int64_t checked_elements(const std::vector<std::int64_t>& shape, const char* what) {
  if (shape.empty())
    throw std::invalid_argument(std::string("synthetic: empty ") + what);
  std::uint64_t n = 1;
  for (auto d : shape) {
    if (d < 1)
      throw std::invalid_argument(std::string("synthetic: ") + what + " dimension < 1");
    auto next = checked_mul(n, static_cast<std::uint64_t>(d));
    if (!next || *next > INT32_MAX) {
      throw std::invalid_argument(std::string("synthetic: ") + what + " too large");
    }
    n = *next;
  }
  return static_cast<std::int64_t>(n);
}

class SyntheticDataset final : public Dataset {
 public:
  explicit SyntheticDataset(const SyntheticOptions& options) : options_(options) {
    if (options_.size < 1)
      throw std::invalid_argument("synthetic: size < 1");
    if (options_.first_index < 0)
      throw std::invalid_argument("synthetic: first_index < 0");
    elements_ = checked_elements(options_.sample_shape, "sample_shape");
    if (options_.label_kind == LabelKind::none)
      throw std::invalid_argument("synthetic: data are made with labels or targets, not none");
    if (options_.label_kind == LabelKind::class_index) {
      if (options_.num_classes < 2 || options_.num_classes > max_num_classes) {
        throw std::invalid_argument("synthetic: num_classes must be in [2, 2^31)");
      }
      options_.target_shape.clear();
    } else {
      target_elements_ = checked_elements(options_.target_shape, "target_shape");
      options_.num_classes = 0;
    }
    if (!(options_.noise >= 0) || !std::isfinite(options_.noise) ||
        !(options_.class_separation >= 0) || !std::isfinite(options_.class_separation)) {
      throw std::invalid_argument("synthetic: noise and class_separation must be finite, >= 0");
    }
  }

  std::string format_name() const override { return "synthetic"; }
  std::string source() const override {
    return "synthetic(seed " + std::to_string(options_.seed) + ", " +
           (options_.random_labels ? "random " : "learnable ") +
           (options_.label_kind == LabelKind::class_index ? "labels" : "targets") + ")";
  }
  std::int64_t size() const override { return options_.size; }
  const std::vector<std::int64_t>& sample_shape() const override { return options_.sample_shape; }
  ElementType element_type() const override { return ElementType::f32; }
  LabelKind label_kind() const override { return options_.label_kind; }
  std::int64_t num_classes() const override { return options_.num_classes; }
  const std::vector<std::int64_t>& target_shape() const override { return options_.target_shape; }

  void read_sample(std::int64_t index, std::span<float> features) const override {
    check_sample_index(index, options_.size);
    check_span_size(features.size(), elements_, "features");
    const auto seed = options_.seed;
    const auto sample = key_of(index);
    if (options_.label_kind == LabelKind::class_index) {
      const auto k = static_cast<std::uint64_t>(label_of(index));
      for (std::size_t j = 0; j < features.size(); ++j) {
        // Random labels: every class's mean is 0, so the features say nothing of the label.
        const double mean = options_.random_labels ? 0.0
                                                   : options_.class_separation *
                                                         synthetic_normal(seed, class_mean, k, j);
        const double value =
            mean + options_.noise * synthetic_normal(seed, sample_noise, sample, j);
        features[j] = static_cast<float>(value);
      }
    } else {
      for (std::size_t j = 0; j < features.size(); ++j) {
        features[j] = static_cast<float>(synthetic_normal(seed, sample_noise, sample, j));
      }
    }
  }

  std::int32_t label(std::int64_t index) const override {
    if (options_.label_kind != LabelKind::class_index) {
      throw std::logic_error("synthetic: label() called on a regression data set");
    }
    check_sample_index(index, options_.size);
    return label_of(index);
  }

  void read_target(std::int64_t index, std::span<float> target) const override {
    if (options_.label_kind != LabelKind::regression) {
      throw std::logic_error("synthetic: read_target() called on a classification data set");
    }
    check_sample_index(index, options_.size);
    check_span_size(target.size(), target_elements_, "target");
    const auto seed = options_.seed;
    const auto sample = key_of(index);
    if (options_.random_labels) {  // nothing of the features in the target
      for (std::size_t t = 0; t < target.size(); ++t)
        target[t] =
            static_cast<float>(options_.noise * synthetic_normal(seed, target_noise, sample, t));
      return;
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(elements_));
    // Each feature is made once (features outer, targets inner); every target still sums its
    // terms in feature order, so the values do not depend on the loop order. The sums live in a
    // per-thread buffer that only grows, so reading a target allocates nothing in steady state.
    thread_local std::vector<double> sums;
    sums.assign(target.size(), 0.0);
    for (std::int64_t j = 0; j < elements_; ++j) {
      // The feature exactly as read_sample rounds it, so target and input agree bit for bit.
      const auto x = static_cast<float>(
          synthetic_normal(seed, sample_noise, sample, static_cast<std::uint64_t>(j)));
      for (std::size_t t = 0; t < target.size(); ++t)
        sums[t] += synthetic_normal(seed, weight, t, static_cast<std::uint64_t>(j)) * x;
    }
    for (std::size_t t = 0; t < target.size(); ++t) {
      const double noise = options_.noise * synthetic_normal(seed, target_noise, sample, t);
      target[t] = static_cast<float>(sums[t] * scale + noise);
    }
  }

 private:
  // The generator's sample number for this data set's index.
  std::uint64_t key_of(std::int64_t index) const noexcept {
    return static_cast<std::uint64_t>(options_.first_index + index);
  }
  std::int32_t label_of(std::int64_t index) const noexcept {
    const auto h = hash_key(options_.seed, class_of_sample, key_of(index), 0);
    return static_cast<std::int32_t>(h % static_cast<std::uint64_t>(options_.num_classes));
  }

  SyntheticOptions options_;
  std::int64_t elements_ = 0;
  std::int64_t target_elements_ = 0;
};

}  // namespace

double synthetic_normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t a,
                        std::uint64_t b) noexcept {
  const std::uint64_t h1 = hash_key(seed, stream, a, b);
  const std::uint64_t h2 = splitmix64(h1);
  const double u1 = static_cast<double>((h1 >> 11) + 1) * two_pow_minus_53;  // (0, 1]
  const double u2 = static_cast<double>(h2 >> 11) * two_pow_minus_53;        // [0, 1)
  return std::sqrt(-2.0 * log_positive(u1)) * cos_turns(u2);
}

std::unique_ptr<Dataset> make_synthetic(const SyntheticOptions& options) {
  return std::make_unique<SyntheticDataset>(options);
}

std::optional<SyntheticSpec> parse_synthetic_spec(std::string_view text) {
  constexpr std::string_view prefix = "synthetic:";
  if (!text.starts_with(prefix))
    return std::nullopt;
  const std::string whole(text);
  auto bad = [&](const std::string& what) {
    return std::invalid_argument("\"" + whole + "\": " + what +
                                 "; write synthetic:N, or synthetic:N:seed=S,labels=random");
  };
  text.remove_prefix(prefix.size());
  const std::size_t colon = text.find(':');
  const std::string_view count = text.substr(0, colon);
  SyntheticSpec spec;
  const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), spec.size);
  if (count.empty() || error != std::errc() || end != count.data() + count.size() || spec.size < 1)
    throw bad("N must be a positive number of samples");
  std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (colon != std::string_view::npos && rest.empty())
    throw bad("nothing after the second ':'");
  bool seed_given = false, labels_given = false;
  for (bool more = !rest.empty(); more;) {
    const std::size_t cut = rest.find_first_of(",:");
    const std::string_view option = rest.substr(0, cut);
    more = cut != std::string_view::npos;
    rest = more ? rest.substr(cut + 1) : "";
    const std::size_t eq = option.find('=');
    const std::string_view key = option.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : option.substr(eq + 1);
    if (option.empty())
      throw bad("an empty option between separators");
    if ((key == "seed" && std::exchange(seed_given, true)) ||
        (key == "labels" && std::exchange(labels_given, true)))
      throw bad(std::string(key) + " is given twice");
    if (key == "seed") {
      const auto [seed_end, seed_error] =
          std::from_chars(value.data(), value.data() + value.size(), spec.seed);
      if (value.empty() || seed_error != std::errc() || seed_end != value.data() + value.size())
        throw bad("seed=" + std::string(value) + " is not a number from 0 to 2^64 - 1");
    } else if (key == "labels") {
      if (value != "learnable" && value != "random")
        throw bad("labels=" + std::string(value) + ": labels are learnable or random");
      spec.random_labels = value == "random";
    } else {
      throw bad("unknown option '" + std::string(option) + "' (the options are seed and labels)");
    }
  }
  return spec;
}

std::string synthetic_spec_text(const SyntheticSpec& spec) {
  std::string options;
  if (spec.seed != 0)
    options = "seed=" + std::to_string(spec.seed);
  if (spec.random_labels)
    options += (options.empty() ? "" : ",") + std::string("labels=random");
  return "synthetic:" + std::to_string(spec.size) + (options.empty() ? "" : ":" + options);
}

}  // namespace staticnet::runtime
