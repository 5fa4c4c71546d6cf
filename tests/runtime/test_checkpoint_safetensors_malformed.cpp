// Malformed safetensors files: each is a FormatError naming the file, the byte offset and what
// was expected; none is undefined behaviour (the sanitizer builds run these too).
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "staticnet/runtime/checkpoints/safetensors.hpp"
#include "staticnet/runtime/error.hpp"
#include "test_checkpoint_support.hpp"

namespace staticnet::runtime::test {
namespace {

// The error parsing `file` raises (fails the test when there is none).
FormatError error_of(const std::vector<std::byte>& file) {
  try {
    SafetensorsReader::parse(file, "bad.safetensors");
  } catch (const FormatError& error) {
    return error;
  }
  FAIL("no FormatError");
  return FormatError({}, "", "");
}

// Checks offset and message text; `expected` and `found` are substrings of the message parts.
void check_error(const std::vector<std::byte>& file, std::uint64_t offset,
                 const std::string& expected, const std::string& found = "") {
  const auto error = error_of(file);
  const std::string message = error.what();
  CAPTURE(message);
  CHECK(error.where().file == "bad.safetensors");
  CHECK(error.where().byte_offset == offset);
  CHECK(error.expected().find(expected) != std::string::npos);
  CHECK(error.found().find(found) != std::string::npos);
  CHECK(std::string(error.what())
            .starts_with("bad.safetensors: byte " + std::to_string(offset) + ": expected "));
}

// A one-tensor header around `entry` (the tensor's JSON object); the key "w" is at byte 9.
std::string one_tensor(const std::string& entry) {
  return "{\"w\":" + entry + "}";
}

TEST_CASE("safetensors malformed: the header length") {
  check_error(std::vector<std::byte>(5), 0, "at least 8 bytes", "5 bytes");
  check_error(make_file("{}", 0, 100), 0, "header length of at most 2 bytes (the rest", "100");
  check_error(make_file("{}", 0, 200'000'000), 0, "at most 100000000 bytes",
              "200000000 (is this a safetensors file?)");
  check_error(make_file("{}", 0, ~std::uint64_t{0}), 0, "at most 100000000",
              "18446744073709551615");
  check_error(make_file("", 16), 8, "to start with '{'", "an empty header");
}

TEST_CASE("safetensors malformed: not JSON, not an object") {
  check_error(make_file("[1, 2]"), 8, "to start with '{'", "byte 91");
  check_error(make_file(" {}"), 8, "to start with '{'", "byte 32");
  check_error(make_file("{\"a\" 1}"), 13, "a JSON header", "syntax error");
  check_error(make_file("{\"a\": "), 14, "a JSON header", "syntax error");
  check_error(make_file("{} x"), 11, "a JSON header", "syntax error");
  check_error(make_file("{\"\xff\": 1}"), 10, "a JSON header", "UTF-8");
  // Found by the fuzzer: a number beyond double's range escaped as nlohmann's out_of_range.
  check_error(make_file("{\"__metadata__\": {\"a\": 1e4000}}"), 8, "numbers in range",
              "number overflow");
  const std::string deep = "{\"w\":" + std::string(40, '[') + std::string(40, ']') + "}";
  check_error(make_file(deep), 8 + 5 + 31, "nested at most 32 levels deep");
}

TEST_CASE("safetensors malformed: missing and ill-typed fields") {
  check_error(make_file(one_tensor("5")), 9, "tensor \"w\" to be an object", "5");
  check_error(make_file(one_tensor(R"({"shape":[1],"data_offsets":[0,4]})"), 4), 9,
              "tensor \"w\" to have a \"dtype\" field", "none");
  check_error(make_file(one_tensor(R"({"dtype":"F32","data_offsets":[0,4]})"), 4), 9,
              "\"shape\" field");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1]})"), 4), 9,
              "\"data_offsets\" field");
  check_error(make_file(one_tensor(R"({"dtype":4,"shape":[1],"data_offsets":[0,4]})"), 4), 9,
              "dtype to be one of F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL", "4");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":"1","data_offsets":[0,4]})"), 4), 9,
              "shape to be an array of non-negative integers", "the string \"1\"");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})"), 4), 9,
              "shape to be an array of non-negative integers", "-1");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})"), 4), 9,
              "non-negative integers", "1.0");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4,8]})"), 8), 9,
              "data_offsets to be [begin, end]", "an array of 3 elements");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})"), 4), 9,
              "data_offsets to be [begin, end]", "-4");
  check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":null})"), 4), 9,
              "data_offsets to be [begin, end]", "null");
}

TEST_CASE("safetensors malformed: dtypes staticnet does not support") {
  for (const char* dtype : {"U16", "U32", "U64", "F8_E4M3", "C64", "f32", ""}) {
    CAPTURE(dtype);
    const std::string entry =
        std::string(R"({"dtype":")") + dtype + R"(","shape":[1],"data_offsets":[0,2]})";
    check_error(make_file(one_tensor(entry), 2), 9, "dtype to be one of F64",
                std::string("the string \"") + dtype + "\"");
  }
}

TEST_CASE("safetensors malformed: shapes whose size overflows") {
  check_error(
      make_file(
          one_tensor(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]})"), 4),
      9, "element count that fits in 64 bits", "(4294967296, 4294967296)");
  check_error(
      make_file(
          one_tensor(R"({"dtype":"F32","shape":[4611686018427387904,2],"data_offsets":[0,4]})"), 4),
      9, "byte size that fits in 64 bits");
  check_error(make_file(one_tensor(
                  R"({"dtype":"U8","shape":[9223372036854775808,0],"data_offsets":[0,0]})")),
              9, "dimensions to be at most 2^63 - 1", "9223372036854775808");
  // A zero dimension anywhere makes the tensor empty, as in the reference.
  CHECK_NOTHROW(SafetensorsReader::parse(
      make_file(
          one_tensor(R"({"dtype":"F64","shape":[0,4611686018427387904],"data_offsets":[0,0]})")),
      "ok"));
}

TEST_CASE("safetensors malformed: data_offsets") {
  SUBCASE("reversed") {
    check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[8,4]})"), 8), 9,
                "begin <= end", "[8, 4]");
  }
  SUBCASE("beyond the data buffer") {
    check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[100],"data_offsets":[0,400]})"), 8),
                9, "within the data buffer of 8 bytes", "[0, 400]");
  }
  SUBCASE("not matching shape x dtype") {
    check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})"), 8), 9,
                "data_offsets to span 12 bytes (shape (3,) of F32)", "[0, 8], 8 bytes");
  }
  const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  SUBCASE("overlapping") {
    // "b" starts at byte 8 + 1 + a.size() + 1.
    const std::string b = R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]})";
    check_error(make_file("{" + a + "," + b + "}", 12), 8 + 1 + a.size() + 1,
                "tensor \"b\" to start at byte 8 of the data buffer, right after tensor \"a\"",
                "data_offsets [4, 12], overlapping tensor \"a\"");
  }
  SUBCASE("the same bytes twice") {
    const std::string b = R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
    check_error(make_file("{" + b + "," + a + "}", 8), 8 + 1 + b.size() + 1, "to start at byte 8",
                "overlapping");
  }
  SUBCASE("a hole between tensors") {
    const std::string b = R"("b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]})";
    check_error(make_file("{" + a + "," + b + "}", 20), 8 + 1 + a.size() + 1,
                "tensor \"b\" to start at byte 8",
                "leaving bytes [8, 12) of the data buffer unused");
  }
  SUBCASE("a hole at the start") {
    check_error(make_file(one_tensor(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), 8), 9,
                "tensor \"w\" to start at byte 0 of the data buffer",
                "leaving bytes [0, 4) of the data buffer unused");
  }
  SUBCASE("trailing bytes no tensor covers") {
    const std::string header = "{" + a + "}";
    check_error(make_file(header, 12), 8 + header.size() + 8,
                "tensors covering the whole data buffer of 12 bytes",
                "4 trailing bytes that belong to no tensor");
    check_error(make_file("{}", 1), 10, "whole data buffer of 1 bytes");
  }
  SUBCASE("tensors listed out of offset order are fine") {
    const std::string b = R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]})";
    const auto reader = SafetensorsReader::parse(make_file("{" + b + "," + a + "}", 16), "ok");
    CHECK(reader.tensors()[0].name == "a");
  }
}

TEST_CASE("safetensors malformed: duplicate tensor names") {
  const std::string w = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  const std::string v = R"({"dtype":"U8","shape":[1],"data_offsets":[1,2]})";
  const std::string header = "{\"w\":" + w + ",\"w\":" + v + "}";
  check_error(make_file(header, 2), 8 + 1 + 4 + w.size() + 1, "each tensor name at most once",
              "a second \"w\" (the first is at byte 9)");
  // The same name spelled with an escape is still the same name.
  check_error(make_file("{\"w\":" + w + ",\"\\u0077\":" + v + "}", 2), 8 + 1 + 4 + w.size() + 1,
              "at most once", "a second \"w\"");
  check_error(make_file(R"({"__metadata__":{},"__metadata__":{}})"), 8 + 19, "at most once");
}

TEST_CASE("safetensors malformed: __metadata__ must map strings to strings") {
  check_error(make_file(R"({"__metadata__":5})"), 9, "\"__metadata__\" to map strings to strings",
              "5");
  check_error(make_file(R"({"__metadata__":["a"]})"), 9, "map strings to strings", "an array");
  check_error(make_file(R"({"__metadata__":{"a":"b","n":1}})"), 9, "map strings to strings",
              "1 for key \"n\"");
  check_error(make_file(R"({"__metadata__":{"a":{"b":"c"}}})"), 9, "map strings to strings",
              "an object for key \"a\"");
  const auto reader = SafetensorsReader::parse(make_file(R"({"__metadata__":null})"), "ok");
  CHECK(reader.metadata().empty());
}

TEST_CASE("safetensors malformed: unknown fields are ignored, as by the reference") {
  const auto reader = SafetensorsReader::parse(
      make_file(one_tensor(R"({"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":[[1]]})"), 1),
      "ok");
  CHECK(reader.find("w") != nullptr);
}

TEST_CASE("safetensors malformed: random corruption is a FormatError or a valid file") {
  const auto tensors = fixture_tensors();
  const auto valid = serialize_safetensors(refs_of(tensors), {{"k", "v"}});
  std::mt19937_64 random(20240601);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    auto file = valid;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const auto position = random() % file.size();
      switch (random() % 4) {
        case 0:
          file[position] = static_cast<std::byte>(random());
          break;
        case 1:
          file.resize(position);
          break;
        case 2:
          file.insert(file.begin() + static_cast<std::ptrdiff_t>(position),
                      static_cast<std::byte>("{}[],:\"0 \\"[random() % 10]));
          break;
        default:
          file[position % 8] = static_cast<std::byte>(random());  // the header length
      }
      if (file.empty())
        break;
    }
    try {
      const auto reader = SafetensorsReader::parse(file, "fuzzed");
      for (const auto& info : reader.tensors()) {
        CHECK(reader.data(info).size() == info.element_count() * dtype_size(info.dtype));
      }
    } catch (const FormatError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);
}

}  // namespace
}  // namespace staticnet::runtime::test
