// .npy: the numpy-written fixtures (make_fixtures.py) load with their exact values in every
// supported dtype and version; malformed headers, found by editing a valid byte vector, are
// FormatErrors at the byte of the problem.
#include <cmath>
#include <cstring>

#include "staticnet/runtime/formats/npy.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

namespace {

std::unique_ptr<Dataset> open_fixtures(const std::string& inputs, const std::string& labels,
                                       const DatasetOptions& options = {}) {
  return open_npy(fixture(inputs), fixture(labels), options);
}

// A .npy file with the given dict text (padded to a multiple of 64 bytes, as numpy does).
Bytes npy_file(const std::string& dict, const Bytes& data, int major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  Bytes out = bytes({0x93, 'N', 'U', 'M', 'P', 'Y', major, 0});
  const auto n = header.size();
  if (major == 1) {
    append(out, bytes({int(n & 0xFF), int(n >> 8)}));
  } else {
    append(out, bytes({int(n & 0xFF), int((n >> 8) & 0xFF), int((n >> 16) & 0xFF), int(n >> 24)}));
  }
  append(out, text_bytes(header));
  append(out, data);
  return out;
}

Bytes two_f32() {
  return bytes({0, 0, 0xC0, 0x3F, 0, 0, 0x20, 0xC1});
}  // 1.5, -10
Bytes labels_u1() {
  return npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", bytes({1, 0}));
}

std::string header_error(const std::string& dict, const Bytes& data = two_f32()) {
  return format_error(
      [&] { open_npy(memory(npy_file(dict, data), "x.npy"), memory(labels_u1(), "y.npy")); });
}

}  // namespace

TEST_CASE("formats: npy fixtures load with exact values in every dtype") {
  SUBCASE("f4 inputs, i8 labels") {
    auto d = open_fixtures("inputs_f4.npy", "labels_i8.npy");
    CHECK(d->format_name() == "npy");
    CHECK(d->element_type() == ElementType::f32);
    CHECK(d->sample_shape() == std::vector<std::int64_t>{3});
    CHECK(sample(*d, 0) == std::vector<float>{0.5f, -1.25f, 2.0f});
    CHECK(sample(*d, 1) == std::vector<float>{3.0f, 4.75f, -0.125f});
    CHECK(d->label(0) == 1);
    CHECK(d->label(1) == 0);
    CHECK(d->num_classes() == 2);
    d->validate_all();
  }
  SUBCASE("f8") {
    auto d = open_fixtures("inputs_f8.npy", "labels_u1.npy");
    CHECK(d->element_type() == ElementType::f64);
    CHECK(sample(*d, 1) == std::vector<float>{3.0f, 4.75f, -0.125f});
    CHECK(d->label(0) == 2);
    CHECK(d->num_classes() == 3);
  }
  SUBCASE("u1") {
    auto d = open_fixtures("inputs_u1.npy", "labels_i4.npy");
    CHECK(d->element_type() == ElementType::u8);
    CHECK(sample(*d, 0) == std::vector<float>{0, 7, 255});
    CHECK(d->label(1) == 3);
  }
  SUBCASE("i1") {
    auto d = open_fixtures("inputs_i1.npy", "labels_i8.npy");
    CHECK(d->element_type() == ElementType::i8);
    CHECK(sample(*d, 0) == std::vector<float>{-128, -1, 127});
    CHECK(sample(*d, 1) == std::vector<float>{0, 5, -6});
  }
  SUBCASE("i4") {
    auto d = open_fixtures("inputs_i4.npy", "labels_i8.npy");
    CHECK(d->element_type() == ElementType::i32);
    CHECK(sample(*d, 0) == std::vector<float>{-100000, 0, 7});
  }
  SUBCASE("i8") {
    auto d = open_fixtures("inputs_i8.npy", "labels_i8.npy");
    CHECK(d->element_type() == ElementType::i64);
    CHECK(sample(*d, 1) == std::vector<float>{1099511627776.0f, -2, 3});
  }
  SUBCASE("version 2.0 and 3.0 headers") {
    auto v2 = open_fixtures("images_v2.npy", "labels_i8.npy");
    CHECK(v2->sample_shape() == std::vector<std::int64_t>{2, 2});
    CHECK(sample(*v2, 1) == std::vector<float>{4, 5, 6, 7});
    CHECK(parse_npy(ByteSource::from_file(fixture("images_v3.npy")).bytes(), "v3").major_version ==
          3);
    auto v3 = open_fixtures("images_v3.npy", "labels_i8.npy");
    CHECK(v3->element_type() == ElementType::u8);
    CHECK(sample(*v3, 0) == std::vector<float>{0, 1, 2, 3});
  }
  SUBCASE("regression targets") {
    auto d = open_fixtures("inputs_f4.npy", "targets_f4.npy");
    CHECK(d->label_kind() == LabelKind::regression);
    CHECK(d->num_classes() == 0);
    CHECK(d->target_shape() == std::vector<std::int64_t>{2});
    CHECK(target(*d, 1) == std::vector<float>{0.25f, 8.0f});
    CHECK_THROWS_AS(d->label(0), std::logic_error);
    auto one = open_fixtures("inputs_f4.npy", "targets_f8_1d.npy");
    CHECK(one->target_shape() == std::vector<std::int64_t>{1});
    CHECK(target(*one, 1) == std::vector<float>{-0.5f});
  }
}

TEST_CASE("formats: npy inputs alone are an unlabelled data set") {
  auto d = open_npy(ByteSource::from_file(fixture("inputs_f4.npy")));
  CHECK(d->label_kind() == LabelKind::none);
  CHECK(d->source() == fixture("inputs_f4.npy"));
  CHECK(d->size() == 2);
  CHECK(d->num_classes() == 0);
  CHECK(d->target_shape().empty());
  CHECK(sample(*d, 1) == std::vector<float>{3.0f, 4.75f, -0.125f});
  CHECK_THROWS_AS(d->label(0), std::logic_error);
  std::vector<float> t(1);
  CHECK_THROWS_AS(d->read_target(0, t), std::logic_error);
  d->validate_all();
  // The scan still covers the inputs: bad_nan.npy's NaN is found without a labels file.
  CHECK(format_error([&] {
          open_npy(ByteSource::from_file(fixture("bad_nan.npy")))->validate_all();
        }).find("NaN") != std::string::npos);
}

TEST_CASE("formats: npy float16 (NumPy's '<f2') loads exactly, and its infinities are found") {
  // numpy wrote the values (make_fixtures.py); the expected floats are what they are by hand.
  auto d = open_npy(ByteSource::from_file(fixture("inputs_f2.npy")));
  CHECK(d->element_type() == ElementType::f16);
  CHECK(d->size() == 3);
  CHECK(sample(*d, 0) == std::vector<float>{0.5f, -1.25f, 2.0f});
  CHECK(sample(*d, 1) == std::vector<float>{3.0f, 4.75f, -0.125f});
  const std::vector<float> edge = sample(*d, 2);
  CHECK(edge == std::vector<float>{65504.0f, 0x1p-24f, 0.0f});
  CHECK(std::signbit(edge[2]));
  d->validate_all();

  // 0x7C00 is +Inf: sample 1 (one element each), 2 bytes into the data, which starts at byte 128
  // (10 bytes of magic, version and length, then the dict padded to a multiple of 64).
  const Bytes inf = npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 1), }",
                             bytes({0x00, 0x3C, 0x00, 0x7C}));
  CHECK(format_error([&] { open_npy(memory(inf, "inf.npy"))->validate_all(); }) ==
        "inf.npy: byte 130: expected a finite value, found +Inf in sample 1, element 0");
}

TEST_CASE("formats: npy refuses big-endian, Fortran order and object arrays at the byte") {
  const auto big = format_error([] { open_fixtures("bad_big_endian.npy", "labels_i8.npy"); });
  CHECK(big.find(fixture("bad_big_endian.npy") +
                 ": byte 20: expected little-endian data ('<' or '|'), found big-endian dtype "
                 "'>f4'") == 0);
  CHECK(format_error([] { open_fixtures("bad_fortran.npy", "labels_i8.npy"); }) ==
        fixture("bad_fortran.npy") +
            ": byte 44: expected C-order data (fortran_order False), found fortran_order True "
            "(save with np.ascontiguousarray)");
  CHECK(format_error([] { open_fixtures("bad_object.npy", "labels_i8.npy"); }) ==
        fixture("bad_object.npy") +
            ": byte 20: expected a numeric dtype, found an object array '|O'");
}

TEST_CASE("formats: npy validate_all finds the NaN with sample index and offset") {
  auto d = open_fixtures("bad_nan.npy", "labels_i8.npy");
  // Data starts at byte 128; sample 1 element 1 is element 4, 16 bytes in.
  CHECK(format_error([&] { d->validate_all(); }) ==
        fixture("bad_nan.npy") +
            ": byte 144: expected a finite value, found NaN in sample 1, "
            "element 1");
  DatasetOptions allow;
  allow.allow_non_finite = true;
  open_fixtures("bad_nan.npy", "labels_i8.npy", allow)->validate_all();
}

TEST_CASE("formats: npy header parser is strict and reports offsets") {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  auto d = open_npy(memory(npy_file(good, two_f32()), "x.npy"), memory(labels_u1(), "y.npy"));
  CHECK(sample(*d, 0) == std::vector<float>{1.5f});
  CHECK(sample(*d, 1) == std::vector<float>{-10.0f});
  // Version 2.0 header built by hand, double-quoted strings, no trailing comma.
  auto v2 =
      npy_file("{\"descr\": \"<f4\", \"shape\": (2, 1), \"fortran_order\": False}", two_f32(), 2);
  CHECK(open_npy(memory(v2, "x.npy"), memory(labels_u1(), "y.npy"))->sample_shape() ==
        std::vector<std::int64_t>{1});

  // Header text starts at byte 10.
  CHECK(header_error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }")
            .find("x.npy: byte 20: expected one of the dtypes '<f4', '<f2', '<f8', '|u1', '|i1', '<i2', "
                  "'<i4', '<i8', found unsupported dtype '<c8'") == 0);
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}") ==
        "x.npy: byte 66: expected one of the keys 'descr', 'fortran_order', 'shape', found 'x'");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False}") ==
        "x.npy: byte 49: expected a 'shape' key, found '}'");
  CHECK(header_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}") ==
        "x.npy: byte 27: expected each key once, found a second 'descr'");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}") ==
        "x.npy: byte 44: expected True or False, found 'f'");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}") ==
        "x.npy: byte 64: expected a non-negative integer dimension, found 'x'");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}") ==
        "x.npy: byte 61: expected a non-negative integer dimension, found '-'");
  CHECK(header_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}") ==
        "x.npy: byte 20: expected a plain numeric dtype, found a structured dtype (a list of "
        "fields)");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x") ==
        "x.npy: byte 66: expected only spaces and a newline after the header dict, found 'x'");
  CHECK(header_error("{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}") ==
        "x.npy: byte 26: expected ',' or '}' after a value, found '''");
  CHECK(
      header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}") ==
      "x.npy: byte 61: expected a dimension that fits in 63 bits, found a longer number");
  CHECK(
      header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}") ==
      "x.npy: byte 60: expected a shape whose byte size fits in 63 bits, found shape with "
      "dimension 4611686018427387904, which overflows it");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", Bytes(4)) ==
        "x.npy: byte 60: expected inputs of shape (N, ...), found a scalar, shape ()");
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,0)}", {}) ==
        "x.npy: byte 60: expected inputs with non-zero sample dimensions, found shape (2, 0)");
}

TEST_CASE("formats: npy truncation, magic, version and size errors") {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const auto good = npy_file(dict, two_f32());
  const auto open_bytes = [](const Bytes& file) {
    return open_npy(memory(file, "x.npy"), memory(labels_u1(), "y.npy"));
  };
  Bytes wrong_magic = good;
  wrong_magic[3] = std::byte{'X'};
  CHECK(format_error([&] { open_bytes(wrong_magic); }) ==
        "x.npy: byte 3: expected the .npy magic \\x93NUMPY, found a different byte");
  Bytes wrong_version = good;
  wrong_version[6] = std::byte{4};
  CHECK(format_error([&] { open_bytes(wrong_version); }) ==
        "x.npy: byte 6: expected format version 1.0, 2.0 or 3.0, found version 4.0");
  CHECK(format_error([&] { open_bytes(Bytes(good.begin(), good.begin() + 9)); }) ==
        "x.npy: byte 9: expected 2-byte header length, found end of file");
  CHECK(format_error([&] { open_bytes(Bytes(good.begin(), good.begin() + 40)); }) ==
        "x.npy: byte 40: expected a header of 118 bytes (from byte 8), found end of file "
        "(truncated header)");
  CHECK(format_error([&] { open_bytes(Bytes(good.begin(), good.end() - 1)); }) ==
        "x.npy: byte 135: expected 8 bytes of data after the 128-byte header, found end of file "
        "after 7 (truncated file)");
  Bytes trailing = good;
  append(trailing, bytes({0}));
  CHECK(format_error([&] { open_bytes(trailing); }) ==
        "x.npy: byte 136: expected end of file, found 1 more bytes (trailing garbage)");
  CHECK(format_error([&] {
          open_npy(memory(good, "x.npy"),
                   memory(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (3,)}",
                                   bytes({0, 1, 2})),
                          "y.npy"));
        }) == "y.npy: byte 60: expected 2 labels (one per sample in x.npy), found 3");
  CHECK(format_error([&] {
          open_npy(memory(good, "x.npy"),
                   memory(npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2)}",
                                   Bytes(16)),
                          "y.npy"));
        }) ==
        "y.npy: byte 60: expected labels of shape (N,) holding class indices, or float "
        "regression targets, found an integer array of shape (2, 2) (for one-hot labels, "
        "store class indices instead)");
  CHECK(format_error([&] {
          open_npy(memory(good, "x.npy"),
                   memory(npy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (2,)}",
                                   bytes({0, 0xFF})),
                          "y.npy"));
        }) ==
        "y.npy: byte 129: expected a non-negative class label below 16777216, found label "
        "-1 for sample 1");
}
