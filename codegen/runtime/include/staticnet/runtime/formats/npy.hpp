#pragma once
// NumPy .npy files, versions 1.0, 2.0 and 3.0: "\x93NUMPY", major and minor version bytes, the
// header length (u16 little-endian for 1.0, u32 for 2.0 and 3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (N, ...), } padded with spaces and a newline,
// then the raw C-order elements and nothing after them.
//
// Supported dtypes: '<f4' '<f8' '|u1' '|i1' '<i2' '<i4' '<i8'. Big-endian, Fortran order, object,
// structured and every other dtype are refused with a FormatError naming what was found.
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

struct NpyHeader {
  int major_version = 1;
  ElementType type = ElementType::f32;
  std::vector<std::int64_t> shape;  // () for a scalar
  std::uint64_t data_offset = 0;    // where the elements start
  std::uint64_t shape_offset = 0;   // byte offset of the shape tuple, for messages
};

// Parses and checks the whole file: magic, version, header dict (a small strict parser for the
// Python literal subset numpy writes), dtype, shape (overflow-checked) and that the file holds
// exactly the data the shape implies. Throws FormatError with the byte offset of the problem.
NpyHeader parse_npy(std::span<const std::byte> bytes, const std::string& name);

bool looks_like_npy(std::span<const std::byte> head) noexcept;

// inputs: shape (N, ...), any supported dtype. labels: shape (N,) integer class indices, or a
// float array (N, ...) of regression targets.
std::unique_ptr<Dataset> open_npy(ByteSource inputs, ByteSource labels,
                                  const DatasetOptions& options = {});
std::unique_ptr<Dataset> open_npy(const std::string& inputs_path, const std::string& labels_path,
                                  const DatasetOptions& options = {});
// Unlabelled (inputs alone): label_kind() is LabelKind::none.
std::unique_ptr<Dataset> open_npy(ByteSource inputs, const DatasetOptions& options = {});

}  // namespace staticnet::runtime
