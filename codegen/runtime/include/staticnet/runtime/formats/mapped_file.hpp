#pragma once
// A read-only memory map of a whole file. Data sets map rather than read their files so that a
// data set larger than RAM still trains: the kernel pages samples in on demand and drops them
// under memory pressure.
#include <cstddef>
#include <span>
#include <string>

namespace staticnet::runtime {

class MappedFile {
 public:
  // Throws IoError("<path>: <what failed>: <strerror>") when the file cannot be opened,
  // stat'ed or mapped. An empty file maps to an empty span (mmap refuses 0 bytes).
  static MappedFile open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  std::size_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }

 private:
  void release() noexcept;

  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace staticnet::runtime
