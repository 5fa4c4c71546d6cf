// safetensors write -> read round trips: every dtype with exact bytes, metadata, layout.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>

#include "staticnet/runtime/checkpoints/safetensors.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

TEST_CASE("safetensors: dtype names and sizes") {
  CHECK(supported_dtypes().size() == 10);
  for (auto dtype : supported_dtypes()) {
    CHECK(dtype_from_name(dtype_name(dtype)) == dtype);
  }
  CHECK(dtype_size(Dtype::bf16) == 2);
  CHECK(dtype_size(Dtype::boolean) == 1);
  CHECK(dtype_size(Dtype::i64) == 8);
  CHECK_FALSE(dtype_from_name("U16").has_value());
  CHECK_FALSE(dtype_from_name("f32").has_value());  // names are case-sensitive
}

TEST_CASE("safetensors: every dtype round-trips in memory with exact bytes") {
  const auto tensors = fixture_tensors();
  const std::map<std::string, std::string> metadata{{"format", "pt"}, {"k", "v \xe2\x9c\x93"}};
  const auto file = serialize_safetensors(refs_of(tensors), metadata);
  const auto reader = SafetensorsReader::parse(file, "memory");
  check_matches(reader, tensors);
  CHECK(reader.metadata() == metadata);
  CHECK(reader.source() == "memory");
}

TEST_CASE("safetensors: every dtype round-trips through a file") {
  TempDir dir;
  const auto tensors = fixture_tensors();
  write_safetensors(dir / "all.safetensors", refs_of(tensors), {});
  const auto reader = SafetensorsReader::open(dir / "all.safetensors");
  check_matches(reader, tensors);
  CHECK(reader.metadata().empty());
  // The mapping outlives copies of the reader.
  const SafetensorsReader copy = reader;
  CHECK(same_bytes(copy.data(*copy.find("i64")), tensors[4].data));
}

TEST_CASE("safetensors: the layout is the reference writer's (padded, aligned, contiguous)") {
  const auto tensors = fixture_tensors();
  const auto layout = plan_safetensors_layout(refs_of(tensors), {{"a", "b"}});
  CHECK(layout.header.size() % 8 == 0);
  const auto file = serialize_safetensors(refs_of(tensors), {{"a", "b"}});
  CHECK(file.size() == layout.file_size);
  const auto reader = SafetensorsReader::parse(file, "memory");
  CHECK(reader.data_buffer_offset() % 8 == 0);
  for (const auto& info : reader.tensors()) {
    CAPTURE(info.name);
    CHECK((reader.data_buffer_offset() + info.data_begin) % dtype_size(info.dtype) == 0);
  }
  // Larger elements first, then by name.
  CHECK(reader.tensors().front().dtype == Dtype::f64);
  CHECK(reader.tensors().back().dtype == Dtype::u8);
}

TEST_CASE("safetensors: an empty file set and zero-size tensors") {
  const auto empty = serialize_safetensors({}, {});
  const auto reader = SafetensorsReader::parse(empty, "memory");
  CHECK(reader.tensors().empty());

  const std::vector<ExpectedTensor> zeros{{"a", Dtype::f32, {0}, {}}, {"b", Dtype::i8, {2, 0}, {}}};
  const auto file = serialize_safetensors(refs_of(zeros), {});
  check_matches(SafetensorsReader::parse(file, "memory"), zeros);
}

TEST_CASE("safetensors: the writer rejects caller errors") {
  const std::vector<float> four(4, 1.0f);
  const auto data = bytes_of(four);
  auto write = [&](std::vector<SafetensorsTensorRef> refs,
                   std::map<std::string, std::string> metadata = {}) {
    return serialize_safetensors(refs, metadata);
  };
  CHECK_THROWS_AS(write({{"w", Dtype::f32, {3}, data}}), std::invalid_argument);
  CHECK_THROWS_AS(write({{"w", Dtype::f32, {-4}, data}}), std::invalid_argument);
  CHECK_THROWS_AS(write({{"", Dtype::f32, {4}, data}}), std::invalid_argument);
  CHECK_THROWS_AS(write({{"__metadata__", Dtype::f32, {4}, data}}), std::invalid_argument);
  CHECK_THROWS_AS(write({{"w", Dtype::f32, {4}, data}, {"w", Dtype::f32, {4}, data}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(write({{"bad\xff", Dtype::f32, {4}, data}}), std::invalid_argument);
  CHECK_THROWS_AS(write({}, {{"k", "bad\xff"}}), std::invalid_argument);
  CHECK_NOTHROW(write({{"w", Dtype::f32, {2, 2}, data}}));
}

TEST_CASE("safetensors: unusual but valid names survive") {
  const auto data = bytes_of(std::vector<std::uint8_t>{7});
  const std::vector<ExpectedTensor> tensors{
      {"quote\"back\\slash", Dtype::u8, {1}, data},
      {"unicode \xc3\xa9\xe2\x9c\x93", Dtype::u8, {1}, data},
      {"control\x01\n", Dtype::u8, {1}, data},
  };
  check_matches(SafetensorsReader::parse(serialize_safetensors(refs_of(tensors), {}), "m"),
                tensors);
}

}  // namespace
}  // namespace staticnet::runtime::test
