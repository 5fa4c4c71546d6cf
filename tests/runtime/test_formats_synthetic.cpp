// Synthetic data: deterministic by seed (pinned bit patterns), any shape, learnable labels.
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "staticnet/runtime/formats/synthetic.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

TEST_CASE("formats: synthetic normal deviates are pinned and normally distributed") {
  // Pinned values: any change to the PRNG, the Box-Muller or the polynomials changes them, and
  // so would change every generated data set. They must be equal on every platform.
  const double a = synthetic_normal(0, 1, 2, 3);
  const double b = synthetic_normal(42, 3, 0, 0);
  CHECK(std::bit_cast<std::uint64_t>(a) == 13830880782599558176ULL);
  CHECK(std::bit_cast<std::uint64_t>(b) == 4610874676595994959ULL);
  double sum = 0, sum_sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double z = synthetic_normal(7, 3, static_cast<std::uint64_t>(i), 0);
    sum += z;
    sum_sq += z * z;
  }
  CHECK(std::abs(sum / n) < 0.03);
  CHECK(std::abs(sum_sq / n - 1.0) < 0.05);
}

namespace {

// How many of samples [half, 2·half) a nearest-class-mean classifier fit on samples [0, half)
// gets right: well above chance where the features carry the label.
int nearest_mean_correct(const Dataset& d, int half) {
  const auto classes = static_cast<std::size_t>(d.num_classes());
  const auto elements = static_cast<std::size_t>(d.sample_elements());
  std::vector<std::vector<double>> means(classes, std::vector<double>(elements, 0.0));
  std::vector<int> counts(classes, 0);
  for (int i = 0; i < half; ++i) {
    const auto x = sample(d, i);
    const auto k = static_cast<std::size_t>(d.label(i));
    ++counts[k];
    for (std::size_t j = 0; j < elements; ++j)
      means[k][j] += x[j];
  }
  for (std::size_t k = 0; k < classes; ++k) {
    REQUIRE(counts[k] > 0);
    for (auto& m : means[k])
      m /= counts[k];
  }
  int correct = 0;
  for (int i = half; i < 2 * half; ++i) {
    const auto x = sample(d, i);
    std::size_t best = 0;
    double best_distance = 1e300;
    for (std::size_t k = 0; k < classes; ++k) {
      double distance = 0;
      for (std::size_t j = 0; j < elements; ++j)
        distance += (x[j] - means[k][j]) * (x[j] - means[k][j]);
      if (distance < best_distance) {
        best_distance = distance;
        best = k;
      }
    }
    correct += static_cast<int>(best) == d.label(i);
  }
  return correct;
}

}  // namespace

TEST_CASE("formats: synthetic classification is deterministic, shaped and learnable") {
  SyntheticOptions options;
  options.sample_shape = {2, 3, 4};
  options.size = 500;
  options.num_classes = 4;
  options.seed = 11;
  options.class_separation = 2.0;
  auto d = make_synthetic(options);
  auto again = make_synthetic(options);
  CHECK(d->format_name() == "synthetic");
  CHECK(d->source() == "synthetic(seed 11, learnable labels)");
  CHECK(d->size() == 500);
  CHECK(d->sample_elements() == 24);
  CHECK(d->num_classes() == 4);
  CHECK(sample(*d, 17) == sample(*again, 17));
  CHECK(d->label(17) == again->label(17));
  options.seed = 12;
  CHECK(sample(*make_synthetic(options), 17) != sample(*d, 17));

  // Learnable: a nearest-class-mean classifier fit on the first half does well on the second.
  CHECK(nearest_mean_correct(*d, 250) > 225);  // > 90%
}

TEST_CASE("formats: synthetic random labels can only be memorised") {
  SyntheticOptions options;
  options.sample_shape = {24};
  options.size = 2000;
  options.num_classes = 4;
  options.seed = 11;
  options.class_separation = 2.0;  // the separation that makes learnable labels 90% right
  options.random_labels = true;
  auto d = make_synthetic(options);
  CHECK(d->source() == "synthetic(seed 11, random labels)");
  // The same labels as the learnable set of this seed, but features that carry none of them:
  // held out, the classifier is at chance (250 of 1000 expected; 4 standard deviations of a
  // binomial(1000, 1/4) are 55).
  options.random_labels = false;
  CHECK(d->label(5) == make_synthetic(options)->label(5));
  const int correct = nearest_mean_correct(*d, 1000);
  CHECK(correct > 195);
  CHECK(correct < 305);
}

TEST_CASE("formats: synthetic data sets as the trainer names them") {
  const auto plain = parse_synthetic_spec("synthetic:4096");
  REQUIRE(plain);
  CHECK(plain->size == 4096);
  CHECK(plain->seed == 0);
  CHECK_FALSE(plain->random_labels);
  const auto both = parse_synthetic_spec("synthetic:100:seed=3,labels=random");
  REQUIRE(both);
  CHECK(both->size == 100);
  CHECK(both->seed == 3);
  CHECK(both->random_labels);
  const auto colons =
      parse_synthetic_spec("synthetic:7:labels=learnable:seed=18446744073709551615");
  REQUIRE(colons);
  CHECK(colons->seed == 18446744073709551615ull);
  CHECK_FALSE(colons->random_labels);
  CHECK(synthetic_spec_text(*both) == "synthetic:100:seed=3,labels=random");
  // One spelling per data set, defaults left out (a checkpoint keeps its data by it).
  CHECK(synthetic_spec_text(*parse_synthetic_spec("synthetic:100:labels=learnable,seed=0")) ==
        "synthetic:100");
  CHECK(synthetic_spec_text(*parse_synthetic_spec("synthetic:100:labels=random")) ==
        "synthetic:100:labels=random");
  CHECK_FALSE(parse_synthetic_spec("train.npy"));
  auto refused = [](const char* text) {
    try {
      (void)parse_synthetic_spec(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("synthetic:0").find("N must be a positive number") != std::string::npos);
  CHECK(refused("synthetic:").find("N must be a positive number") != std::string::npos);
  CHECK(refused("synthetic:10:").find("nothing after") != std::string::npos);
  CHECK(refused("synthetic:10:seed=-1").find("seed=-1 is not a number") != std::string::npos);
  CHECK(refused("synthetic:10:labels=noisy").find("labels are learnable or random") !=
        std::string::npos);
  CHECK(refused("synthetic:10:seed=1,").find("an empty option") != std::string::npos);
  CHECK(refused("synthetic:10:seed=1,seed=2").find("seed is given twice") != std::string::npos);
  CHECK(refused("synthetic:10:colour=red").find("unknown option 'colour=red'") !=
        std::string::npos);
}

TEST_CASE("formats: synthetic regression targets follow a fixed linear map") {
  SyntheticOptions options;
  options.label_kind = LabelKind::regression;
  options.sample_shape = {8};
  options.target_shape = {2};
  options.noise = 0.0;
  options.size = 10;
  auto d = make_synthetic(options);
  CHECK(d->num_classes() == 0);
  CHECK(d->target_shape() == std::vector<std::int64_t>{2});
  // Linear with no noise: target(x) for two samples is consistent with a fixed W, so
  // target of the same index is identical and differs between samples.
  CHECK(target(*d, 3) == target(*d, 3));
  CHECK(target(*d, 3) != target(*d, 4));
  CHECK_THROWS_AS(d->label(0), std::logic_error);
  CHECK(std::isfinite(target(*d, 9)[1]));
  SyntheticOptions bad;
  bad.size = 0;
  CHECK_THROWS_AS(make_synthetic(bad), std::invalid_argument);
  bad = {};
  bad.sample_shape = {4, 0};
  CHECK_THROWS_AS(make_synthetic(bad), std::invalid_argument);
  bad = {};
  bad.num_classes = 1;
  CHECK_THROWS_AS(make_synthetic(bad), std::invalid_argument);
}
