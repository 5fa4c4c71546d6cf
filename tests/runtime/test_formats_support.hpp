#pragma once
// Helpers shared by the test_formats_*.cpp files: byte vectors written by hand, in-memory byte
// sources, temporary files, and capturing a FormatError's message.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "staticnet/runtime/dataset.hpp"
#include "staticnet/runtime/error.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"

namespace formats_test {

using Bytes = std::vector<std::byte>;

inline Bytes bytes(std::initializer_list<int> values) {
  Bytes out;
  for (int v : values)
    out.push_back(static_cast<std::byte>(v));
  return out;
}

inline Bytes text_bytes(const std::string& text) {
  Bytes out;
  for (char c : text)
    out.push_back(static_cast<std::byte>(c));
  return out;
}

inline void append(Bytes& to, const Bytes& more) {
  to.insert(to.end(), more.begin(), more.end());
}

inline void append_be32(Bytes& to, std::uint32_t v) {
  append(to, bytes({int(v >> 24), int((v >> 16) & 0xFF), int((v >> 8) & 0xFF), int(v & 0xFF)}));
}

inline staticnet::runtime::ByteSource memory(const Bytes& data, const std::string& name) {
  return staticnet::runtime::ByteSource::from_memory(data, name);
}

// The message of the FormatError `action` throws; fails the test when it throws nothing else.
inline std::string format_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const staticnet::runtime::FormatError& error) {
    return error.what();
  } catch (const std::exception& other) {
    FAIL("expected FormatError, got another exception: " << other.what());
    return {};
  }
  FAIL("expected FormatError, nothing was thrown");
  return {};
}

inline std::vector<float> sample(const staticnet::runtime::Dataset& dataset, std::int64_t index) {
  std::vector<float> out(static_cast<std::size_t>(dataset.sample_elements()));
  dataset.read_sample(index, out);
  return out;
}

inline std::vector<float> target(const staticnet::runtime::Dataset& dataset, std::int64_t index) {
  std::int64_t n = 1;
  for (auto d : dataset.target_shape())
    n *= d;
  std::vector<float> out(static_cast<std::size_t>(n));
  dataset.read_target(index, out);
  return out;
}

// A file under the system temp directory, removed when the object dies.
class TempFile {
 public:
  TempFile(const std::string& name, const Bytes& content)
      : path_(std::filesystem::temp_directory_path() /
              ("staticnet_formats_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream out(path_, std::ios::binary);
    out.write(reinterpret_cast<const char*>(content.data()),
              static_cast<std::streamsize>(content.size()));
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline std::string fixture(const std::string& name) {
  return std::string(STATICNET_TEST_DATA_DIR) + "/formats/" + name;
}

}  // namespace formats_test
