// check_dataset and format_data_check, the library behind `staticnet data check`, on the
// fixtures in data/cli (values documented in make_fixtures.py) and on synthetic data.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/tools/data_check.hpp"

namespace {

using namespace staticnet::runtime;

std::string fixture(const std::string& name) {
  return std::string(STATICNET_TEST_DATA_DIR) + "/cli/" + name;
}

// A data set with one NaN and no validate_all of its own, like a foreign implementation.
class OneNanDataset : public Dataset {
 public:
  std::string format_name() const override { return "memory"; }
  std::string source() const override { return "memory"; }
  std::int64_t size() const override { return 4; }
  const std::vector<std::int64_t>& sample_shape() const override { return shape_; }
  ElementType element_type() const override { return ElementType::f32; }
  LabelKind label_kind() const override { return LabelKind::class_index; }
  std::int64_t num_classes() const override { return 2; }
  const std::vector<std::int64_t>& target_shape() const override { return target_shape_; }
  void read_sample(std::int64_t index, std::span<float> features) const override {
    for (std::size_t j = 0; j < features.size(); ++j)
      features[j] = static_cast<float>(index) + static_cast<float>(j);
    if (index == 3)
      features[1] = std::numeric_limits<float>::infinity();
  }
  std::int32_t label(std::int64_t index) const override {
    return static_cast<std::int32_t>(index % 2);
  }
  void read_target(std::int64_t, std::span<float>) const override {}

 private:
  std::vector<std::int64_t> shape_{3};
  std::vector<std::int64_t> target_shape_{};
};

}  // namespace

TEST_CASE("data check: an IDX pair gives its counts, range and balance") {
  std::vector<std::uint64_t> reports;
  const auto result = check_dataset({fixture("images.idx"), fixture("labels.idx")}, OpenOptions{},
                                    [&](std::uint64_t done) { reports.push_back(done); });
  const auto& s = result.summary;
  CHECK(s.format == "idx");
  CHECK(s.count == 10);
  CHECK(s.sample_shape == std::vector<std::int64_t>{4, 4});
  CHECK(s.element_type == ElementType::u8);
  CHECK(s.num_classes == 3);
  CHECK(s.min_label == 0);
  CHECK(s.max_label == 2);
  CHECK(s.class_counts == std::vector<std::int64_t>{4, 3, 3});
  CHECK(result.values_scanned == 160);
  CHECK(result.non_finite == 0);
  REQUIRE_FALSE(reports.empty());
  CHECK(reports.back() == 10);  // the last report is the whole data set

  const std::string text = format_data_check(result);
  CHECK(text.find("samples: 10 of shape (4, 4), u8\n") != std::string::npos);
  CHECK(text.find("labels: 3 classes, range 0..2\n") != std::string::npos);
  CHECK(text.find("  0: 4  40.0%\n  1: 3  30.0%\n  2: 3  30.0%\n") != std::string::npos);
  CHECK(text.find("smallest class: 1 (3), largest: 0 (4)\n") != std::string::npos);
}

TEST_CASE("data check: an npy pair and a CSV file") {
  const auto npy = check_dataset({fixture("inputs.npy"), fixture("labels.npy")}, OpenOptions{});
  CHECK(npy.summary.class_counts == std::vector<std::int64_t>{1, 4, 1, 2});
  CHECK(npy.summary.element_type == ElementType::f32);
  CHECK(npy.values_scanned == 48);

  const auto csv = check_dataset({fixture("table.csv")}, OpenOptions{});
  CHECK(csv.summary.format == "csv");
  CHECK(csv.summary.class_counts == std::vector<std::int64_t>{1, 2, 3});
  CHECK(format_data_check(csv).find("  2: 3  50.0%\n") != std::string::npos);
}

TEST_CASE("data check: a NaN is reported at its byte offset, or counted when allowed") {
  try {
    check_dataset({fixture("inputs_nan.npy"), fixture("labels.npy")}, OpenOptions{});
    FAIL("expected a FormatError");
  } catch (const FormatError& e) {
    CHECK(e.where().byte_offset == 128 + 2 * 24 + 4 * 4);  // sample 2, element 4 of 6 floats
    CHECK(std::string(e.what()).find("NaN in sample 2, element 4") != std::string::npos);
  }
  OpenOptions allow;
  allow.common.allow_non_finite = true;
  const auto result = check_dataset({fixture("inputs_nan.npy"), fixture("labels.npy")}, allow);
  CHECK(result.non_finite == 1);
  CHECK(format_data_check(result).find("1 NaN or Inf (allowed)") != std::string::npos);
}

TEST_CASE("data check: a non-finite value in a data set without its own scan is still caught") {
  const OneNanDataset dataset;
  try {
    check_dataset(dataset, false);
    FAIL("expected a FormatError");
  } catch (const FormatError& e) {
    CHECK(e.where().file == "memory");
    CHECK(e.found() == "+Inf in sample 3, element 1");
  }
  CHECK(check_dataset(dataset, true).non_finite == 1);
}

TEST_CASE("data check: bad files throw the parser's located error") {
  CHECK_THROWS_WITH_AS(
      check_dataset({fixture("truncated_images.idx"), fixture("labels.idx")}, OpenOptions{}),
      doctest::Contains("truncated_images.idx: byte 171"), FormatError);
  OpenOptions cifar;
  cifar.format = DatasetFormat::cifar10;
  CHECK_THROWS_WITH_AS(check_dataset({fixture("bad_label.bin")}, cifar),
                       doctest::Contains("byte 6146"), FormatError);
  CHECK_THROWS_AS(check_dataset({fixture("missing.npy"), fixture("labels.npy")}, OpenOptions{}),
                  IoError);
}

TEST_CASE("data check: synthetic data, classification and regression, with progress") {
  OpenOptions options;
  options.format = DatasetFormat::synthetic;
  options.synthetic.sample_shape = {3, 4};
  options.synthetic.size = 1000;
  options.synthetic.num_classes = 7;
  std::vector<std::uint64_t> reports;
  const auto result =
      check_dataset({}, options, [&](std::uint64_t done) { reports.push_back(done); });
  const auto& counts = result.summary.class_counts;
  CHECK(counts.size() == 7);
  CHECK(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}) == 1000);
  CHECK(result.values_scanned == 12000);
  CHECK(std::is_sorted(reports.begin(), reports.end()));
  CHECK(reports.size() == 1000 / 64 + 1);
  CHECK(reports.back() == 1000);

  options.synthetic.label_kind = LabelKind::regression;
  options.synthetic.target_shape = {2};
  const auto regression = check_dataset({}, options);
  CHECK(regression.values_scanned == 1000 * (12 + 2));
  CHECK(regression.summary.class_counts.empty());
  CHECK(format_data_check(regression).find("targets: regression, shape (2") != std::string::npos);
}

TEST_CASE("data check: many classes are summarised after the line limit") {
  DataCheckResult result;
  result.summary.format = "synthetic";
  result.summary.count = 5;
  result.summary.num_classes = 5;
  result.summary.class_counts = {1, 1, 1, 1, 1};
  result.summary.min_label = 0;
  result.summary.max_label = 4;
  const std::string text = format_data_check(result, 2);
  CHECK(text.find("  1: 1  20.0%\n  ... 3 more classes\n") != std::string::npos);
  CHECK(text.find("  2: 1") == std::string::npos);
}
