#pragma once
// IDX, the MNIST format: two zero bytes, a type code (0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32,
// 0x0D f32, 0x0E f64), a dimension count, that many big-endian u32 dimensions, then the
// big-endian elements, and nothing after them. A data set is an images file (N, ...) and a
// labels file (N,) of u8, or the images file alone (unlabelled, for inference).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/dataset_options.hpp"

namespace staticnet::runtime {

struct IdxHeader {
  ElementType type = ElementType::u8;
  std::vector<std::int64_t> dims;  // dims[0] is the sample count
  std::uint64_t data_offset = 0;   // 4 + 4 * dims.size()
};

inline constexpr std::size_t idx_max_dimensions = 8;

// Parses and checks one IDX file: magic, type, 1..8 dimensions, each > 0, the size product
// (overflow-checked) and that the file holds exactly that much data. Throws FormatError.
IdxHeader parse_idx(std::span<const std::byte> bytes, const std::string& name);

// True when `head` starts like an IDX file (used to tell formats apart by content).
bool looks_like_idx(std::span<const std::byte> head) noexcept;

std::unique_ptr<Dataset> open_idx(ByteSource images, ByteSource labels,
                                  const DatasetOptions& options = {});
std::unique_ptr<Dataset> open_idx(const std::string& images_path, const std::string& labels_path,
                                  const DatasetOptions& options = {});
// Unlabelled: label_kind() is LabelKind::none.
std::unique_ptr<Dataset> open_idx(ByteSource images, const DatasetOptions& options = {});

}  // namespace staticnet::runtime
