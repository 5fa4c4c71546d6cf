#pragma once
// Writes safetensors files that the Python package, PyTorch and the Rust crate read: the header
// is padded with spaces to a multiple of 8 bytes and tensors follow in decreasing element size,
// then by name, so that every tensor is aligned to its element size in the file (as the
// reference writer does). Files are replaced atomically (see atomic_file.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "staticnet/runtime/checkpoints/atomic_file.hpp"
#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"

namespace staticnet::runtime {

// A tensor to write; `data` is borrowed and must hold exactly product(shape) x dtype_size bytes.
struct SafetensorsTensorRef {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> data;
};

struct SafetensorsLayout {
  std::vector<std::byte> header;        // the 8-byte length and the padded JSON
  std::vector<std::size_t> data_order;  // indices of the tensors, in the order their bytes follow
  std::uint64_t file_size = 0;
};

// Throws std::invalid_argument for a caller error: an empty, duplicate or "__metadata__" name,
// a negative dimension, data whose size does not match, a name or metadata that is not UTF-8.
// Empty `metadata` writes no "__metadata__" entry.
SafetensorsLayout plan_safetensors_layout(std::span<const SafetensorsTensorRef> tensors,
                                          const std::map<std::string, std::string>& metadata);

// The whole file in memory (small files, tests, fuzz seeds).
std::vector<std::byte> serialize_safetensors(std::span<const SafetensorsTensorRef> tensors,
                                             const std::map<std::string, std::string>& metadata);

// Streams the file to disk without copying tensor data; atomic, throws IoError on failure.
void write_safetensors(const std::filesystem::path& path,
                       std::span<const SafetensorsTensorRef> tensors,
                       const std::map<std::string, std::string>& metadata,
                       const AtomicWriteOptions& options = {});

}  // namespace staticnet::runtime
