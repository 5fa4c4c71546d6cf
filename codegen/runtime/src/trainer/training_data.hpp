#pragma once
// Private to the trainer: opening --data and --eval for a model.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/runtime/batches/augment.hpp"
#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"
#include "staticnet/runtime/formats/synthetic.hpp"
#include "staticnet/runtime/trainer/model_info.hpp"
#include "staticnet/runtime/trainer/train.hpp"

namespace staticnet::runtime {

// "synthetic:N[:seed=S,labels=random]" -> its size, seed and labels; nullopt for anything else.
// Throws UsageError for a "synthetic:" that says no data set (see parse_synthetic_spec).
std::optional<SyntheticSpec> parse_synthetic(const std::string& spec);

// The training data's files as a checkpoint keeps them ("data"): absolute, links resolved and
// joined by " + ", so that the same files given another way are recognised ("synthetic:N" as
// given).
std::string data_identity(const std::vector<std::string>& files);

// --crop and --flip apply to images, (C, H, W), and --crop pads by less than the image's height
// and width (more lets a crop hold padding only, no pixel of the image). Throws UsageError.
void require_augmentation_fits(const Augmentation& augmentation, const ModelInfo& model);

// Opens the files (or the synthetic set) the user named for `option` ("--data", "--eval"),
// expecting the model's sample shape and, for classifiers, labels in [0, classes). A synthetic
// set of up to 512 MiB is generated once into memory (its generator is far slower than a step);
// `synthetic_first_index` makes an evaluation set disjoint from a training set of the same
// seed. CSV files are read as `options` says (label column, delimiter, header).
std::unique_ptr<Dataset> open_training_data(const ModelInfo& model,
                                            const std::vector<std::string>& paths,
                                            DatasetFormat format, const std::string& option,
                                            std::int64_t synthetic_first_index,
                                            const TrainOptions& options);

}  // namespace staticnet::runtime
