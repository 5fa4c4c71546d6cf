#include "training_data.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"
#include "staticnet/runtime/trainer/train.hpp"
#include "staticnet/runtime/validation.hpp"

namespace staticnet::runtime {
namespace {

constexpr std::int64_t materialize_limit = std::int64_t{512} << 20;

// Every sample of another data set, read once into memory (in parallel) and served from there.
class MaterializedDataset final : public Dataset {
 public:
  explicit MaterializedDataset(std::unique_ptr<Dataset> source)
      : source_(std::move(source)),
        sample_(source_->sample_elements()),
        target_(shape_product(source_->target_shape())) {
    const std::int64_t n = source_->size();
    if (source_->label_kind() == LabelKind::none)
      throw std::logic_error("MaterializedDataset: " + source_->source() + " has no labels");
    const bool classes = source_->label_kind() == LabelKind::class_index;
    inputs_.resize(static_cast<std::size_t>(n * sample_));
    if (classes)
      labels_.resize(static_cast<std::size_t>(n));
    else
      targets_.resize(static_cast<std::size_t>(n * target_));
    const int threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (std::int64_t i = t; i < n; i += threads) {
          source_->read_sample(i,
                               {inputs_.data() + i * sample_, static_cast<std::size_t>(sample_)});
          if (classes)
            labels_[static_cast<std::size_t>(i)] = source_->label(i);
          else
            source_->read_target(
                i, {targets_.data() + i * target_, static_cast<std::size_t>(target_)});
        }
      });
    }
  }

  std::string format_name() const override { return source_->format_name(); }
  std::string source() const override { return source_->source(); }
  std::int64_t size() const override { return source_->size(); }
  const std::vector<std::int64_t>& sample_shape() const override { return source_->sample_shape(); }
  ElementType element_type() const override { return source_->element_type(); }
  LabelKind label_kind() const override { return source_->label_kind(); }
  std::int64_t num_classes() const override { return source_->num_classes(); }
  const std::vector<std::int64_t>& target_shape() const override { return source_->target_shape(); }
  void read_sample(std::int64_t index, std::span<float> features) const override {
    std::memcpy(features.data(), inputs_.data() + index * sample_,
                static_cast<std::size_t>(sample_) * sizeof(float));
  }
  std::int32_t label(std::int64_t index) const override {
    return labels_[static_cast<std::size_t>(index)];
  }
  void read_target(std::int64_t index, std::span<float> target) const override {
    std::memcpy(target.data(), targets_.data() + index * target_,
                static_cast<std::size_t>(target_) * sizeof(float));
  }
  std::int64_t memory_bytes() const override {
    return static_cast<std::int64_t>(inputs_.size() * sizeof(float) +
                                     labels_.size() * sizeof(std::int32_t) +
                                     targets_.size() * sizeof(float)) +
           source_->memory_bytes();
  }

 private:
  static std::int64_t shape_product(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (auto d : shape)
      n *= d;
    return n;
  }

  std::unique_ptr<Dataset> source_;
  std::int64_t sample_ = 0, target_ = 0;
  std::vector<float> inputs_;
  std::vector<std::int32_t> labels_;
  std::vector<float> targets_;
};

}  // namespace

std::optional<SyntheticSpec> parse_synthetic(const std::string& spec) {
  try {
    return parse_synthetic_spec(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void require_augmentation_fits(const Augmentation& augmentation, const ModelInfo& model) {
  if (!augmentation.enabled())
    return;
  const std::vector<std::int64_t>& shape = model.sample_shape;
  const std::string options = augmentation.crop_padding > 0 && augmentation.horizontal_flip
                                  ? "--crop and --flip apply"
                              : augmentation.crop_padding > 0 ? "--crop applies"
                                                              : "--flip applies";
  if (shape.size() != 3)
    throw UsageError(options + " to images, (C, H, W), but " + model.name + "'s input is " +
                     shape_to_string(shape));
  const std::int64_t side = std::min(shape[1], shape[2]);
  if (augmentation.crop_padding >= side)
    throw UsageError(fmt::format(
        "--crop {} pads the {} input by at least its {} ({}): some crops would hold padding "
        "only, no pixel of the image. Pad by at most {} (torchvision's CIFAR-10 recipe pads 32×32 "
        "images by 4)",
        augmentation.crop_padding, shape_to_string(shape),
        shape[1] <= shape[2] ? "height" : "width", side, side - 1));
}

std::unique_ptr<Dataset> open_training_data(const ModelInfo& model,
                                            const std::vector<std::string>& paths,
                                            DatasetFormat format, const std::string& option,
                                            std::int64_t synthetic_first_index,
                                            const TrainOptions& options) {
  if (paths.empty())
    throw UsageError(option + ": no data set given");
  if (const auto spec = parse_synthetic(paths.front())) {
    if (paths.size() > 1)
      throw UsageError(option + " synthetic:N takes no label file");
    SyntheticOptions s;
    s.sample_shape = model.sample_shape;
    s.size = spec->size;
    s.seed = spec->seed;
    s.random_labels = spec->random_labels;
    s.first_index = synthetic_first_index;
    s.class_separation = synthetic_class_separation;
    if (model.classifies()) {
      s.label_kind = LabelKind::class_index;
      s.num_classes = model.classes;
    } else {
      s.label_kind = LabelKind::regression;
      s.target_shape = model.target_shape;
      s.noise = 0.1;
    }
    auto data = make_synthetic(s);
    const std::int64_t bytes =
        spec->size *
        (model.sample_elements() + (model.classifies() ? 1 : model.target_elements())) * 4;
    if (bytes <= materialize_limit)
      return std::make_unique<MaterializedDataset>(std::move(data));
    return data;
  }
  OpenOptions open;
  open.format = format;
  open.common.expect_sample_shape = model.sample_shape;
  if (model.classifies()) {
    open.common.num_classes = model.classes;
  } else {
    open.csv.label_kind = LabelKind::regression;
  }
  open.csv.label_column = parse_label_column(options.label_column);
  open.csv.delimiter = options.csv_delimiter;
  open.csv.header = options.csv_header;
  open.cifar100_labels = options.cifar100_labels;
  auto data = open_dataset(paths, open);
  if (const auto misplaced = options_for_other_formats(*data, open); !misplaced.empty())
    throw UsageError(option + ": " + misplaced_options_message(misplaced, *data));
  // A labels file left off the command line, as the inference program's --output: a usage error.
  if (data->label_kind() == LabelKind::none)
    throw UsageError(option + ": " + data->source() +
                     " holds inputs only; training needs their labels or targets too "
                     "(IDX and .npy data are two files: the inputs, then the labels)");
  // Every value once, before the first step: a NaN in the data is the data's fault, and should
  // be reported as such (with its sample), not as a diverging loss many steps later.
  data->validate_all();
  return data;
}

std::string data_identity(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& file : files) {
    if (!text.empty())
      text += " + ";
    std::error_code error;
    const std::filesystem::path path = std::filesystem::weakly_canonical(file, error);
    if (const auto spec = parse_synthetic(file))
      text += synthetic_spec_text(*spec);
    else
      text += error ? file : path.string();
  }
  return text;
}
}  // namespace staticnet::runtime
