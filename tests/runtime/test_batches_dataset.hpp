#pragma once
// Small in-memory data sets for the batcher tests: every value is known, so batches can be
// checked element by element against hand-computed expectations.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime::testing {

// Sample i holds the values first_value(i) + 0, 1, 2, ... (first_value(i) = 100 * i), label
// i % classes, and (regression) target {i, -i}.
class MemoryDataset : public Dataset {
 public:
  MemoryDataset(std::int64_t size, std::vector<std::int64_t> shape, std::int64_t classes = 10)
      : size_(size), shape_(std::move(shape)), classes_(classes) {}

  static float value(std::int64_t index, std::int64_t element) {
    return static_cast<float>(100 * index + element);
  }

  // Makes read_sample of `index` throw a FormatError, as a parser does for a corrupt record.
  void corrupt(std::int64_t index) { corrupt_index_ = index; }
  // Makes read_sample sleep, to keep workers busy while the test stops the loader.
  void set_read_delay(std::chrono::microseconds d) { delay_ = d; }
  void make_regression(std::vector<std::int64_t> target_shape) {
    kind_ = LabelKind::regression;
    target_shape_ = std::move(target_shape);
    classes_ = 0;
  }
  void make_unlabelled() {
    kind_ = LabelKind::none;
    classes_ = 0;
  }
  void set_label_override(std::int64_t index, std::int32_t label) {
    override_index_ = index;
    override_label_ = label;
  }
  std::int64_t reads() const { return reads_.load(); }

  std::string format_name() const override { return "memory"; }
  std::string source() const override { return "memory.bin"; }
  std::int64_t size() const override { return size_; }
  const std::vector<std::int64_t>& sample_shape() const override { return shape_; }
  ElementType element_type() const override { return ElementType::f32; }
  LabelKind label_kind() const override { return kind_; }
  std::int64_t num_classes() const override { return classes_; }
  const std::vector<std::int64_t>& target_shape() const override { return target_shape_; }

  void read_sample(std::int64_t index, std::span<float> features) const override {
    reads_.fetch_add(1, std::memory_order_relaxed);
    if (delay_.count() > 0)
      std::this_thread::sleep_for(delay_);
    if (index == corrupt_index_) {
      throw FormatError(Location{"memory.bin", static_cast<std::uint64_t>(index * 4), {}, {}},
                        "a finite value", "NaN bits");
    }
    for (std::size_t k = 0; k < features.size(); ++k) {
      features[k] = value(index, static_cast<std::int64_t>(k));
    }
  }
  std::int32_t label(std::int64_t index) const override {
    if (index == override_index_)
      return override_label_;
    return static_cast<std::int32_t>(index % classes_);
  }
  void read_target(std::int64_t index, std::span<float> target) const override {
    for (std::size_t k = 0; k < target.size(); ++k) {
      target[k] = static_cast<float>(k % 2 == 0 ? index : -index);
    }
  }

 private:
  std::int64_t size_;
  std::vector<std::int64_t> shape_;
  std::int64_t classes_;
  LabelKind kind_ = LabelKind::class_index;
  std::vector<std::int64_t> target_shape_;
  std::int64_t corrupt_index_ = -1;
  std::int64_t override_index_ = -1;
  std::int32_t override_label_ = 0;
  std::chrono::microseconds delay_{0};
  mutable std::atomic<std::int64_t> reads_{0};
};

}  // namespace staticnet::runtime::testing
