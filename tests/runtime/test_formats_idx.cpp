// IDX parser: every element type decodes to the values of hand-written big-endian bytes, and
// every malformed file is refused with a FormatError naming the file and the byte.
#include <cmath>

#include "staticnet/runtime/formats/idx.hpp"
#include "staticnet/runtime/formats/mapped_file.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

namespace {

Bytes idx_file(int type, std::initializer_list<std::uint32_t> dims, const Bytes& data) {
  Bytes out = bytes({0, 0, type, static_cast<int>(dims.size())});
  for (auto d : dims)
    append_be32(out, d);
  append(out, data);
  return out;
}

Bytes two_labels() {
  return idx_file(0x08, {2}, bytes({1, 0}));
}

std::unique_ptr<Dataset> open(const Bytes& images, const Bytes& labels,
                              const DatasetOptions& options = {}) {
  return open_idx(memory(images, "images.idx"), memory(labels, "labels.idx"), options);
}

}  // namespace

TEST_CASE("formats: idx u8 images load with shape, values and labels") {
  const auto images =
      idx_file(0x08, {2, 2, 3}, bytes({0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}));
  const auto labels = idx_file(0x08, {2}, bytes({7, 3}));
  auto dataset = open(images, labels);
  CHECK(dataset->format_name() == "idx");
  CHECK(dataset->size() == 2);
  CHECK(dataset->sample_shape() == std::vector<std::int64_t>{2, 3});
  CHECK(dataset->element_type() == ElementType::u8);
  CHECK(dataset->label_kind() == LabelKind::class_index);
  CHECK(dataset->num_classes() == 8);  // inferred: max label + 1
  CHECK(sample(*dataset, 0) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(sample(*dataset, 1) == std::vector<float>{250, 251, 252, 253, 254, 255});
  CHECK(dataset->label(0) == 7);
  CHECK(dataset->label(1) == 3);
  dataset->validate_all();
}

TEST_CASE("formats: idx images alone are an unlabelled data set") {
  const auto images = idx_file(0x08, {2, 3}, bytes({9, 8, 7, 6, 5, 4}));
  auto dataset = open_idx(memory(images, "images.idx"));
  CHECK(dataset->label_kind() == LabelKind::none);
  CHECK(dataset->source() == "images.idx");
  CHECK(dataset->size() == 2);
  CHECK(dataset->sample_shape() == std::vector<std::int64_t>{3});
  CHECK(sample(*dataset, 1) == std::vector<float>{6, 5, 4});
  CHECK_THROWS_AS(dataset->label(0), std::logic_error);
}

TEST_CASE("formats: idx decodes every big-endian element type") {
  SUBCASE("i8") {
    auto d = open(idx_file(0x09, {2, 1}, bytes({0xFF, 0x80})), two_labels());
    CHECK(d->element_type() == ElementType::i8);
    CHECK(sample(*d, 0) == std::vector<float>{-1});
    CHECK(sample(*d, 1) == std::vector<float>{-128});
  }
  SUBCASE("i16") {
    auto d = open(idx_file(0x0B, {2, 2}, bytes({0xFF, 0xFE, 0x01, 0x00, 0x7F, 0xFF, 0x80, 0x00})),
                  two_labels());
    CHECK(d->element_type() == ElementType::i16);
    CHECK(sample(*d, 0) == std::vector<float>{-2, 256});
    CHECK(sample(*d, 1) == std::vector<float>{32767, -32768});
  }
  SUBCASE("i32") {
    auto d = open(idx_file(0x0C, {2, 1}, bytes({0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFD})),
                  two_labels());
    CHECK(sample(*d, 0) == std::vector<float>{65536});
    CHECK(sample(*d, 1) == std::vector<float>{-3});
  }
  SUBCASE("f32") {
    auto d =
        open(idx_file(0x0D, {2, 1}, bytes({0x3F, 0xC0, 0, 0, 0xC1, 0x20, 0, 0})), two_labels());
    CHECK(d->element_type() == ElementType::f32);
    CHECK(sample(*d, 0) == std::vector<float>{1.5f});
    CHECK(sample(*d, 1) == std::vector<float>{-10.0f});
  }
  SUBCASE("f64") {
    auto d = open(idx_file(0x0E, {2, 1},
                           bytes({0xC0, 0x04, 0, 0, 0, 0, 0, 0,  //
                                  0x3F, 0xD0, 0, 0, 0, 0, 0, 0})),
                  two_labels());
    CHECK(d->element_type() == ElementType::f64);
    CHECK(sample(*d, 0) == std::vector<float>{-2.5f});
    CHECK(sample(*d, 1) == std::vector<float>{0.25f});
  }
}

TEST_CASE("formats: idx malformed headers are FormatErrors with the byte") {
  const auto labels = two_labels();
  const auto good_data = bytes({1, 2, 3, 4});
  SUBCASE("file shorter than the magic") {
    CHECK(
        format_error([&] {
          open(bytes({0, 0}), labels);
        }) ==
        "images.idx: byte 2: expected a 4-byte IDX magic number, found end of file after 2 bytes");
  }
  SUBCASE("wrong magic") {
    auto file = idx_file(0x08, {2, 2}, good_data);
    file[1] = std::byte{0x01};
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 0: expected IDX magic starting with two zero bytes, found 0x00 0x01");
  }
  SUBCASE("unknown type code") {
    CHECK(format_error([&] {
            open(idx_file(0x0A, {2, 2}, good_data), labels);
          }).find("images.idx: byte 2: expected an IDX type code") == 0);
  }
  SUBCASE("too many dimensions") {
    auto file = idx_file(0x08, {2, 2}, good_data);
    file[3] = std::byte{9};
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 3: expected 1 to 8 dimensions, found 9");
  }
  SUBCASE("truncated dimensions") {
    Bytes file = bytes({0, 0, 8, 3, 0, 0, 0, 2, 0, 0});
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 10: expected 3 4-byte dimensions, found end of file");
  }
  SUBCASE("zero samples") {
    CHECK(format_error([&] {
            open(idx_file(0x08, {0, 2}, {}), labels);
          }) == "images.idx: byte 4: expected at least 1 sample, found 0");
  }
  SUBCASE("overflowing dimension product") {
    const auto file = idx_file(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, good_data);
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 8: expected dimensions whose product fits in 63 bits, found "
          "dimension 4294967295, which overflows it");
  }
  SUBCASE("truncated data") {
    const auto file = idx_file(0x08, {2, 2}, bytes({1, 2, 3}));
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 15: expected 4 bytes of data after the 12-byte header, found end of "
          "file after 3 (truncated file)");
  }
  SUBCASE("trailing garbage") {
    const auto file = idx_file(0x08, {2, 2}, bytes({1, 2, 3, 4, 5, 6}));
    CHECK(format_error([&] { open(file, labels); }) ==
          "images.idx: byte 16: expected end of file, found 2 more bytes (trailing garbage)");
  }
}

TEST_CASE("formats: idx label files are checked against the images") {
  const auto images = idx_file(0x08, {2, 2}, bytes({1, 2, 3, 4}));
  SUBCASE("count mismatch") {
    CHECK(format_error([&] {
            open(images, idx_file(0x08, {3}, bytes({0, 1, 2})));
          }) == "labels.idx: byte 4: expected 2 labels (one per sample in images.idx), found 3");
  }
  SUBCASE("labels not u8") {
    CHECK(format_error([&] {
            open(images, idx_file(0x09, {2}, bytes({0, 1})));
          }) == "labels.idx: byte 2: expected labels of type u8 (0x08), found i8");
  }
  SUBCASE("labels not 1-D") {
    CHECK(format_error([&] {
            open(images, idx_file(0x08, {2, 1}, bytes({0, 1})));
          }) == "labels.idx: byte 3: expected 1-dimensional labels, found 2 dimensions");
  }
  SUBCASE("label out of the given range names value, sample and byte") {
    DatasetOptions options;
    options.num_classes = 10;
    CHECK(format_error([&] {
            open(images, idx_file(0x08, {2}, bytes({3, 12})), options);
          }) ==
          "labels.idx: byte 9: expected a class label in [0, 10), found label 12 for sample 1");
  }
  SUBCASE("label in the given range") {
    DatasetOptions options;
    options.num_classes = 10;
    auto d = open(images, idx_file(0x08, {2}, bytes({3, 9})), options);
    CHECK(d->num_classes() == 10);
  }
}

TEST_CASE("formats: idx expect_sample_shape accepts unit dims and flattening, refuses others") {
  const auto images = idx_file(0x08, {2, 2, 2}, bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  DatasetOptions options;
  options.expect_sample_shape = std::vector<std::int64_t>{1, 2, 2};
  CHECK(open(images, two_labels(), options)->sample_shape() == std::vector<std::int64_t>{1, 2, 2});
  options.expect_sample_shape = std::vector<std::int64_t>{4};
  CHECK(open(images, two_labels(), options)->sample_shape() == std::vector<std::int64_t>{4});
  options.expect_sample_shape = std::vector<std::int64_t>{3, 3};
  CHECK(format_error([&] { open(images, two_labels(), options); }) ==
        "images.idx: byte 16: expected sample shape (3, 3), found sample shape (2, 2)");
  options.expect_sample_shape = std::vector<std::int64_t>{4, 1, 1};
  CHECK(format_error([&] { open(images, two_labels(), options); }) ==
        "images.idx: byte 16: expected sample shape (4, 1, 1), found sample shape (2, 2)");
}

TEST_CASE("formats: idx validate_all finds NaN and Inf unless allowed") {
  // Sample 1, element 0 is NaN (0x7FC00000) at byte 12 + 4 = 16.
  const auto images = idx_file(0x0D, {2, 1}, bytes({0x3F, 0x80, 0, 0, 0x7F, 0xC0, 0, 0}));
  auto dataset = open(images, two_labels());  // opening does not scan the data
  CHECK(format_error([&] { dataset->validate_all(); }) ==
        "images.idx: byte 16: expected a finite value, found NaN in "
        "sample 1, element 0");
  const auto inf = idx_file(0x0D, {2, 1}, bytes({0xFF, 0x80, 0, 0, 0, 0, 0, 0}));
  CHECK(format_error([&] { open(inf, two_labels())->validate_all(); }).find("byte 12:") !=
        std::string::npos);
  DatasetOptions allow;
  allow.allow_non_finite = true;
  auto allowed = open(images, two_labels(), allow);
  allowed->validate_all();
  CHECK(std::isnan(sample(*allowed, 1)[0]));
}

TEST_CASE("formats: idx opens memory-mapped files, and misuse throws instead of reading past") {
  TempFile images("img.idx", idx_file(0x08, {2, 2}, bytes({1, 2, 3, 4})));
  TempFile labels("lbl.idx", two_labels());
  auto dataset = open_idx(images.path(), labels.path());
  CHECK(sample(*dataset, 1) == std::vector<float>{3, 4});
  CHECK(dataset->source() == images.path() + ", " + labels.path());
  std::vector<float> wrong(3);
  CHECK_THROWS_AS(dataset->read_sample(0, wrong), std::invalid_argument);
  std::vector<float> right(2);
  CHECK_THROWS_AS(dataset->read_sample(2, right), std::out_of_range);
  CHECK_THROWS_AS(dataset->read_sample(-1, right), std::out_of_range);
  CHECK_THROWS_AS(dataset->read_target(0, right), std::logic_error);
}

TEST_CASE("formats: mapped_file handles empty and missing files") {
  TempFile empty("empty.idx", {});
  auto mapped = MappedFile::open(empty.path());
  CHECK(mapped.size() == 0);
  CHECK(mapped.bytes().empty());
  MappedFile moved = std::move(mapped);
  CHECK(moved.path() == empty.path());
  CHECK(format_error([&] { open_idx(empty.path(), empty.path()); }) ==
        empty.path() +
            ": byte 0: expected a 4-byte IDX magic number, found end of file after 0 bytes");
  try {
    MappedFile::open("/nonexistent/staticnet/file.idx");
    FAIL("no IoError");
  } catch (const IoError& error) {
    CHECK(std::string(error.what()) ==
          "/nonexistent/staticnet/file.idx: cannot open: No such file or directory");
  }
  CHECK_THROWS_AS(MappedFile::open(std::filesystem::temp_directory_path().string()), IoError);
}
