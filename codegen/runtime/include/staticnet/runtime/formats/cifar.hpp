#pragma once
// CIFAR binary batches. CIFAR-10: records of 1 label byte + 3072 pixel bytes (3x32x32, channel
// planes R, G, B). CIFAR-100: coarse label byte, fine label byte, 3072 pixel bytes. Several batch
// files (data_batch_1.bin .. data_batch_5.bin) form one data set, in the order given.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"

namespace staticnet::runtime {

enum class CifarVariant { cifar10, cifar100 };
// CIFAR-100's two label sets: 100 fine classes (the default) or 20 coarse superclasses.
enum class Cifar100Labels { fine, coarse };

inline constexpr std::int64_t cifar_pixel_bytes = 3 * 32 * 32;

// At open: each file's size is a whole number of records (else FormatError at the partial
// record's offset), and every label is below 10, 100 or 20 (else FormatError at the label byte).
// options.num_classes, when given, must equal that class count.
std::unique_ptr<Dataset> open_cifar(std::vector<ByteSource> batches, CifarVariant variant,
                                    const DatasetOptions& options = {},
                                    Cifar100Labels labels = Cifar100Labels::fine);
std::unique_ptr<Dataset> open_cifar(const std::vector<std::string>& batch_paths,
                                    CifarVariant variant, const DatasetOptions& options = {},
                                    Cifar100Labels labels = Cifar100Labels::fine);

}  // namespace staticnet::runtime
