#pragma once
// Reads safetensors files (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON describing each tensor, then the tensors' bytes. The reader
// validates everything the Rust reference implementation validates (offsets cover the data buffer
// exactly, in order, without holes or overlaps; sizes match shape x dtype) plus duplicate names,
// and reports each problem as a FormatError naming the file, the byte offset and what was
// expected. No input, however malformed, is undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/checkpoints/safetensors_dtype.hpp"

namespace staticnet::runtime {

// Headers larger than this are rejected before they are parsed (the reference's limit).
inline constexpr std::uint64_t safetensors_max_header_bytes = 100'000'000;

struct SafetensorsTensorInfo {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::uint64_t data_begin = 0;  // relative to the start of the data buffer
  std::uint64_t data_end = 0;

  std::uint64_t element_count() const noexcept;
  std::uint64_t byte_size() const noexcept { return data_end - data_begin; }
};

class SafetensorsReader {
 public:
  // Maps the file read-only; the tensors' bytes are read from the mapping, never copied.
  // Throws IoError when the file cannot be opened or mapped, FormatError when it is malformed.
  static SafetensorsReader open(const std::filesystem::path& path);

  // Parses bytes the caller owns and keeps alive for as long as the reader is used. `source`
  // names them in error messages. This is the entry point of the fuzz target.
  static SafetensorsReader parse(std::span<const std::byte> file_bytes, std::string source);

  const std::string& source() const noexcept { return source_; }
  // In data-buffer order.
  const std::vector<SafetensorsTensorInfo>& tensors() const noexcept { return tensors_; }
  // nullptr when there is no tensor of that name.
  const SafetensorsTensorInfo* find(std::string_view name) const noexcept;
  std::span<const std::byte> data(const SafetensorsTensorInfo& tensor) const noexcept;
  // The header's "__metadata__" (empty when absent).
  const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
  // Where the data buffer starts in the file: 8 + header length.
  std::uint64_t data_buffer_offset() const noexcept { return data_buffer_offset_; }

 private:
  std::shared_ptr<const void> keep_alive_;  // the mapping, for readers made by open()
  std::string source_;
  std::span<const std::byte> data_buffer_;
  std::uint64_t data_buffer_offset_ = 0;
  std::vector<SafetensorsTensorInfo> tensors_;
  std::map<std::string, std::size_t, std::less<>> index_by_name_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace staticnet::runtime
