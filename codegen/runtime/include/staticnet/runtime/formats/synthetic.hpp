#pragma once
// A learnable data set of any sample shape and size, generated on the fly from (seed, index):
// O(1) memory, and bit-identical across runs, compilers and IEEE-754 platforms because it uses
// only its own PRNG (splitmix64) and its own Box-Muller with its own log/cos polynomials (the
// standard distributions and libm functions differ between implementations).
//
// classification: label = hash(seed, index) mod K; features = mean[label] + noise * N(0, 1),
//   where mean[k] is a fixed N(0, separation^2) vector per class: learnable labels, which a
//   model learns to predict on samples it never saw.
// regression: features ~ N(0, 1); target = W * features / sqrt(E) + noise * N(0, 1), W a fixed
//   N(0, 1) matrix of shape (target elements, sample elements).
// With random_labels, labels and targets are drawn as above but the features carry nothing of
// them (features ~ noise * N(0, 1); a target is noise * N(0, 1)): a model can only memorise its
// training set, and held-out samples stay at chance.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/dataset.hpp"

namespace staticnet::runtime {

struct SyntheticOptions {
  std::vector<std::int64_t> sample_shape{16};
  std::int64_t size = 1024;
  std::uint64_t seed = 0;
  LabelKind label_kind = LabelKind::class_index;
  std::int64_t num_classes = 10;              // classification
  std::vector<std::int64_t> target_shape{1};  // regression
  // Sample i of this data set is sample first_index + i of the generator's endless sequence, so
  // a training set and an evaluation set can be disjoint slices of the same distribution.
  std::int64_t first_index = 0;
  double noise = 1.0;
  double class_separation = 1.0;  // std-dev of the class means, in units of noise
  bool random_labels = false;     // see above
};

// The programs' synthetic:N (the trainers', the quantizers'): classes whose means differ by a
// small fraction of the noise per feature, so that a model has something to learn for a few
// epochs.
inline constexpr double synthetic_class_separation = 0.15;

// A synthetic data set as the trainer's --data names it: "synthetic:N" or
// "synthetic:N:seed=S,labels=random" (options after the second colon, separated by commas or
// colons; labels=learnable is the default, seed 0 too).
struct SyntheticSpec {
  std::int64_t size = 0;
  std::uint64_t seed = 0;
  bool random_labels = false;
};

// nullopt for a text that does not start with "synthetic:"; throws std::invalid_argument naming
// what is wrong (a count that is no positive integer, an unknown, empty or repeated option, a bad
// value).
std::optional<SyntheticSpec> parse_synthetic_spec(std::string_view text);

// The spec in one spelling, defaults left out: "synthetic:4096",
// "synthetic:4096:seed=3,labels=random" (a checkpoint keeps its data by this text, so two spellings
// of one data set are one).
std::string synthetic_spec_text(const SyntheticSpec& spec);

// Throws std::invalid_argument for options that describe no data set (size < 1, a dimension
// < 1, fewer than 2 classes, element counts that overflow).
std::unique_ptr<Dataset> make_synthetic(const SyntheticOptions& options);

// The generator's normal deviate for a key, exposed for tests of its determinism.
double synthetic_normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t a,
                        std::uint64_t b) noexcept;

}  // namespace staticnet::runtime
