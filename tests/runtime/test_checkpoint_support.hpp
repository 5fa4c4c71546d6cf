#pragma once
// Helpers shared by the checkpoint and safetensors tests: temporary directories, byte buffers,
// hand-made safetensors files, and the fixture values make_fixtures.py writes.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "staticnet/runtime/checkpoints/safetensors.hpp"
#include "staticnet/runtime/error.hpp"

namespace staticnet::runtime::test {

namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "staticnet-ckpt-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

inline std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> bytes(text.size());
  if (!bytes.empty())
    std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

inline std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes_of(std::string_view(chars.data(), chars.size()));
}

inline void write_bytes(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// A safetensors file from a header text (as written, unpadded) and a data buffer of
// `data_size` bytes, with an explicit header length when `header_length` is given.
inline std::vector<std::byte> make_file(std::string_view header, std::size_t data_size = 0,
                                        std::optional<std::uint64_t> header_length = {}) {
  const std::uint64_t length = header_length.value_or(header.size());
  std::vector<std::byte> file;
  for (int i = 0; i < 8; ++i)
    file.push_back(static_cast<std::byte>((length >> (8 * i)) & 0xFF));
  const auto text = bytes_of(header);
  file.insert(file.end(), text.begin(), text.end());
  file.resize(file.size() + data_size, std::byte{0x5A});
  return file;
}

// The exact tensors make_fixtures.py writes into all_dtypes.safetensors (little-endian host).
struct ExpectedTensor {
  std::string name;
  Dtype dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;

  SafetensorsTensorRef ref() const { return {name, dtype, shape, data}; }
};

inline std::vector<std::uint16_t> f16_bits_of_fixture() {
  return {0x3C00, 0xC100, 0x7BFF, 0x0400};  // 1.0, -2.5, 65504, 2^-14
}

inline std::vector<ExpectedTensor> fixture_tensors() {
  const double inf = std::numeric_limits<double>::infinity();
  return {
      {"f64",
       Dtype::f64,
       {2, 3},
       bytes_of(std::vector<double>{0.0, -1.5, 3.141592653589793, 1e300, 5e-324, -inf})},
      {"f32", Dtype::f32, {3}, bytes_of(std::vector<float>{1.0f, -0.0f, 3.4028234663852886e38f})},
      {"f16", Dtype::f16, {2, 2}, bytes_of(f16_bits_of_fixture())},
      {"bf16", Dtype::bf16, {3}, bytes_of(std::vector<std::uint16_t>{0x3F80, 0xC000, 0x3F00})},
      {"i64",
       Dtype::i64,
       {2},
       bytes_of(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()})},
      {"i32",
       Dtype::i32,
       {2, 2},
       bytes_of(std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max(), 0, -1})},
      {"i16", Dtype::i16, {3}, bytes_of(std::vector<std::int16_t>{-32768, 32767, 12345})},
      {"i8", Dtype::i8, {4}, bytes_of(std::vector<std::int8_t>{-128, 127, 0, -1})},
      {"u8", Dtype::u8, {2, 3}, bytes_of(std::vector<std::uint8_t>{0, 1, 2, 253, 254, 255})},
      {"bool", Dtype::boolean, {4}, bytes_of(std::vector<std::uint8_t>{1, 0, 0, 1})},
      {"scalar", Dtype::f32, {}, bytes_of(std::vector<float>{42.5f})},
      {"empty", Dtype::f32, {0, 3}, {}},
  };
}

inline std::vector<SafetensorsTensorRef> refs_of(const std::vector<ExpectedTensor>& tensors) {
  std::vector<SafetensorsTensorRef> refs;
  for (const auto& tensor : tensors)
    refs.push_back(tensor.ref());
  return refs;
}

inline bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// The reader holds exactly `expected`: names, dtypes, shapes and bytes.
inline void check_matches(const SafetensorsReader& reader,
                          const std::vector<ExpectedTensor>& expected) {
  REQUIRE(reader.tensors().size() == expected.size());
  for (const auto& want : expected) {
    CAPTURE(want.name);
    const auto* info = reader.find(want.name);
    REQUIRE(info != nullptr);
    CHECK(info->dtype == want.dtype);
    CHECK(info->shape == want.shape);
    CHECK(same_bytes(reader.data(*info), want.data));
  }
}

inline std::string data_dir() {
  return std::string(STATICNET_TEST_DATA_DIR) + "/safetensors";
}

}  // namespace staticnet::runtime::test
