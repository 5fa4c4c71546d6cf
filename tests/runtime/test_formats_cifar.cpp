// CIFAR-10 / CIFAR-100 binary batches: records decode to their pixel bytes, batches concatenate,
// and partial records or out-of-range labels are refused at the right byte.
#include "staticnet/runtime/formats/cifar.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

namespace {

// A record whose pixels are (seed + i) mod 256, after the given label bytes.
Bytes record(std::initializer_list<int> label_bytes, int seed) {
  Bytes out = bytes(label_bytes);
  for (int i = 0; i < 3072; ++i)
    out.push_back(static_cast<std::byte>((seed + i) % 256));
  return out;
}

}  // namespace

TEST_CASE("formats: cifar10 batches load and concatenate") {
  Bytes first = record({3}, 0);
  append(first, record({9}, 100));
  const Bytes second = record({0}, 7);
  auto dataset = open_cifar({memory(first, "data_batch_1.bin"), memory(second, "data_batch_2.bin")},
                            CifarVariant::cifar10);
  CHECK(dataset->format_name() == "cifar10");
  CHECK(dataset->size() == 3);
  CHECK(dataset->sample_shape() == std::vector<std::int64_t>{3, 32, 32});
  CHECK(dataset->num_classes() == 10);
  CHECK(dataset->label(0) == 3);
  CHECK(dataset->label(1) == 9);
  CHECK(dataset->label(2) == 0);
  const auto pixels = sample(*dataset, 1);
  CHECK(pixels[0] == 100);
  CHECK(pixels[155] == 255);
  CHECK(pixels[156] == 0);
  CHECK(pixels[3071] == static_cast<float>((100 + 3071) % 256));
  CHECK(sample(*dataset, 2)[0] == 7);
  CHECK(dataset->source() == "data_batch_1.bin, data_batch_2.bin");
}

TEST_CASE("formats: cifar100 picks fine (default) or coarse labels") {
  Bytes file = record({19, 99}, 1);
  append(file, record({0, 42}, 2));
  auto fine = open_cifar({memory(file, "train.bin")}, CifarVariant::cifar100);
  CHECK(fine->num_classes() == 100);
  CHECK(fine->label(0) == 99);
  CHECK(fine->label(1) == 42);
  CHECK(sample(*fine, 0)[0] == 1);
  auto coarse =
      open_cifar({memory(file, "train.bin")}, CifarVariant::cifar100, {}, Cifar100Labels::coarse);
  CHECK(coarse->num_classes() == 20);
  CHECK(coarse->label(0) == 19);
  CHECK(coarse->label(1) == 0);
}

TEST_CASE("formats: cifar malformed batches are FormatErrors at the byte") {
  SUBCASE("partial record") {
    Bytes file = record({1}, 0);
    append(file, bytes({2, 3, 4}));
    CHECK(format_error([&] { open_cifar({memory(file, "b.bin")}, CifarVariant::cifar10); }) ==
          "b.bin: byte 3073: expected whole 3073-byte cifar10 records, found a partial record of 3 "
          "bytes");
  }
  SUBCASE("empty file") {
    CHECK(format_error([&] { open_cifar({memory({}, "b.bin")}, CifarVariant::cifar10); }) ==
          "b.bin: byte 0: expected whole 3073-byte cifar10 records, found an empty file");
  }
  SUBCASE("cifar100 file read as cifar10 is caught by its size") {
    const Bytes file = record({1, 2}, 0);
    CHECK(format_error([&] {
            open_cifar({memory(file, "b.bin")}, CifarVariant::cifar10);
          }).find("b.bin: byte 3073: expected whole 3073-byte") == 0);
  }
  SUBCASE("cifar10 label out of range in the second file") {
    Bytes second = record({1}, 0);
    append(second, record({10}, 0));
    CHECK(format_error([&] {
            open_cifar({memory(record({1}, 0), "a.bin"), memory(second, "b.bin")},
                       CifarVariant::cifar10);
          }) == "b.bin: byte 3073: expected a class label in [0, 10), found label 10 for sample 2");
  }
  SUBCASE("cifar100 fine and coarse labels out of range") {
    const Bytes file = record({20, 100}, 0);
    CHECK(format_error([&] { open_cifar({memory(file, "t.bin")}, CifarVariant::cifar100); }) ==
          "t.bin: byte 1: expected a class label in [0, 100), found label 100 for sample 0");
    CHECK(format_error([&] {
            open_cifar({memory(file, "t.bin")}, CifarVariant::cifar100, {}, Cifar100Labels::coarse);
          }) == "t.bin: byte 0: expected a class label in [0, 20), found label 20 for sample 0");
  }
  SUBCASE("wrong sample shape") {
    DatasetOptions options;
    options.expect_sample_shape = std::vector<std::int64_t>{32, 32, 3};
    CHECK(format_error([&] {
            open_cifar({memory(record({1}, 0), "a.bin")}, CifarVariant::cifar10, options);
          }) == "a.bin: expected sample shape (32, 32, 3), found sample shape (3, 32, 32)");
    options.expect_sample_shape = std::vector<std::int64_t>{3072};
    CHECK(open_cifar({memory(record({1}, 0), "a.bin")}, CifarVariant::cifar10, options)
              ->sample_shape() == std::vector<std::int64_t>{3072});
  }
  SUBCASE("num_classes disagreeing with the variant") {
    DatasetOptions options;
    options.num_classes = 12;
    CHECK(format_error([&] {
            open_cifar({memory(record({1}, 0), "a.bin")}, CifarVariant::cifar10, options);
          }) == "a.bin: expected 10 classes, as cifar10 has, found 12");
    options.num_classes = 10;  // a CIFAR-10 model given CIFAR-100
    CHECK(format_error([&] {
            open_cifar({memory(record({1, 2}, 0), "b.bin")}, CifarVariant::cifar100, options);
          }) ==
          "b.bin: expected 100 classes, as cifar100's fine labels have (its coarse labels "
          "have 20), found 10 (--cifar100-labels chooses)");
  }
}
