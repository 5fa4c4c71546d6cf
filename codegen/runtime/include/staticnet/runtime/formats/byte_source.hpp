#pragma once
// The bytes a parser reads, with the name its messages use. Every parser takes a ByteSource, so
// the same code serves files (memory-mapped) and in-memory buffers (tests, libFuzzer targets).
// Copies share the underlying bytes; a data set keeps its sources alive by holding them.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace staticnet::runtime {

class ByteSource {
 public:
  // Maps the file (throws IoError); the name is the path as given.
  static ByteSource from_file(const std::string& path);
  // Copies `bytes`, so the caller's buffer may die before the data set does.
  static ByteSource from_memory(std::span<const std::byte> bytes, std::string name);

  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  std::size_t size() const noexcept { return bytes_.size(); }
  const std::string& name() const noexcept { return name_; }

 private:
  std::string name_;
  std::shared_ptr<const void> owner_;  // a MappedFile or a std::vector<std::byte>
  std::span<const std::byte> bytes_;
};

}  // namespace staticnet::runtime
