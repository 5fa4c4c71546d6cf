// open_dataset tells formats apart by content, then name, then option; summarize reports shape,
// type, label range and class balance.
#include "staticnet/runtime/formats/dataset_summary.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

namespace {

// One label byte, then 3072 pixel bytes of 5. (Built at its final size: g++ 12 -O3 reports a false
// -Warray-bounds for growing a one-byte vector with resize.)
Bytes cifar10_record(int label) {
  Bytes out(3073, std::byte{5});
  out[0] = static_cast<std::byte>(label);
  return out;
}

}  // namespace

TEST_CASE("formats: a summary of many classes lists only those that occur") {
  DatasetSummary summary;
  summary.format = "npy";
  summary.count = 3;
  summary.sample_shape = {2};
  summary.label_kind = LabelKind::class_index;
  summary.num_classes = 151;  // labels 0, 150, 150: 151 classes, 149 of them without a sample
  summary.min_label = 0;
  summary.max_label = 150;
  summary.class_counts.assign(151, 0);
  summary.class_counts[0] = 1;
  summary.class_counts[150] = 2;
  CHECK(to_string(summary).find("labels: 151 classes, 0..150\nclass counts (the 2 classes that "
                                "occur; 149 have no sample): 0: 1, 150: 2\n") != std::string::npos);
  // At the limit every class is still listed, empty ones included.
  summary.num_classes = 100;
  summary.max_label = 99;
  summary.class_counts.assign(100, 0);
  summary.class_counts[99] = 1;
  const std::string every = to_string(summary);
  CHECK(every.find("class counts: 0: 0, 1: 0, ") != std::string::npos);
  CHECK(every.find(", 98: 0, 99: 1\n") != std::string::npos);
}

TEST_CASE("formats: detect_format uses magic first, then the file name") {
  const auto npy = bytes({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
  const auto idx = bytes({0, 0, 8, 1, 0, 0, 0, 1, 7});
  CHECK(detect_format(npy, "weird.bin") == DatasetFormat::npy);
  CHECK(detect_format(idx, "data.csv") == DatasetFormat::idx);
  CHECK(detect_format(bytes({'1', ','}), "dir/d.csv") == DatasetFormat::csv);
  CHECK(detect_format(bytes({3}), "cifar/data_batch_4.bin") == DatasetFormat::cifar10);
  CHECK(detect_format(bytes({3}), "test_batch.bin") == DatasetFormat::cifar10);
  CHECK(detect_format(bytes({3}), "x/train.bin") == DatasetFormat::cifar100);
  CHECK(detect_format(bytes({3}), "data_batch_.bin") == std::nullopt);
  CHECK(detect_format({}, "notes.txt") == std::nullopt);
  CHECK(parse_dataset_format("cifar100") == DatasetFormat::cifar100);
  CHECK(parse_dataset_format("tfrecord") == std::nullopt);
  CHECK(dataset_format_name(DatasetFormat::npy) == "npy");
}

TEST_CASE("formats: open_dataset opens each format from files and summarizes it") {
  SUBCASE("npy by magic, with a summary") {
    auto d = open_dataset({fixture("inputs_u1.npy"), fixture("labels_u1.npy")});
    CHECK(d->format_name() == "npy");
    const auto summary = summarize(*d);
    CHECK(summary.count == 2);
    CHECK(summary.sample_shape == std::vector<std::int64_t>{3});
    CHECK(summary.element_type == ElementType::u8);
    CHECK(summary.num_classes == 3);
    CHECK(summary.min_label == 1);
    CHECK(summary.max_label == 2);
    CHECK(summary.class_counts == std::vector<std::int64_t>{0, 1, 1});
    const auto text = to_string(summary);
    CHECK(text.find("samples: 2 of shape (3,), u8\n") != std::string::npos);
    CHECK(text.find("labels: 3 classes, 1..2\nclass counts: 0: 0, 1: 1, 2: 1\n") !=
          std::string::npos);
  }
  SUBCASE("cifar10 by name, several batches") {
    Bytes first = cifar10_record(1);
    append(first, cifar10_record(1));
    TempFile a("data_batch_1.bin", first);
    TempFile b("data_batch_2.bin", cifar10_record(4));
    // TempFile prefixes names, so the name rule does not apply: say the format.
    OpenOptions options;
    options.format = DatasetFormat::cifar10;
    auto d = open_dataset({a.path(), b.path()}, options);
    const auto summary = summarize(*d);
    CHECK(summary.count == 3);
    CHECK(summary.class_counts == std::vector<std::int64_t>{0, 2, 0, 0, 1, 0, 0, 0, 0, 0});
  }
  SUBCASE("csv by name") {
    TempFile csv("d.csv", text_bytes("a,b,y\n1,2,0\n3,4,1\n"));
    auto d = open_dataset({csv.path()});
    CHECK(d->format_name() == "csv");
    CHECK(summarize(*d).class_counts == std::vector<std::int64_t>{1, 1});
  }
  SUBCASE("synthetic regression summary") {
    OpenOptions options;
    options.format = DatasetFormat::synthetic;
    options.synthetic.label_kind = LabelKind::regression;
    auto d = open_dataset({}, options);
    const auto summary = summarize(*d);
    CHECK(summary.label_kind == LabelKind::regression);
    CHECK(summary.class_counts.empty());
    CHECK(to_string(summary).find("targets: regression, shape (1,)") != std::string::npos);
  }
}

TEST_CASE("formats: open_dataset opens IDX and .npy inputs alone as unlabelled") {
  auto npy = open_dataset({fixture("inputs_f4.npy")});
  CHECK(npy->format_name() == "npy");
  CHECK(npy->label_kind() == LabelKind::none);
  CHECK(to_string(summarize(*npy)).find("labels: none (inputs only)\n") != std::string::npos);
  TempFile images("images-idx3-ubyte", bytes({0, 0, 8, 2, 0, 0, 0, 1, 0, 0, 0, 2, 4, 5}));
  auto idx = open_dataset({images.path()});
  CHECK(idx->format_name() == "idx");
  CHECK(idx->label_kind() == LabelKind::none);
  CHECK(idx->sample_shape() == std::vector<std::int64_t>{2});
}

TEST_CASE("formats: open_dataset refusals") {
  TempFile unknown("notes.txt", text_bytes("hello"));
  CHECK(format_error([&] {
          open_dataset({unknown.path()});
        }).find(unknown.path() + ": byte 0: expected a recognisable data set") == 0);
  CHECK_THROWS_WITH_AS(
      open_dataset({fixture("inputs_f4.npy"), fixture("labels_i8.npy"), fixture("labels_i8.npy")}),
      (fixture("inputs_f4.npy") +
       ": npy data is 2 files (inputs, labels), or the inputs alone, but 3 files were given")
          .c_str(),
      UsageError);
  // The count is checked before the files after the first are opened: a missing third file
  // is no I/O error but one file too many.
  CHECK_THROWS_WITH_AS(
      open_dataset({fixture("inputs_f4.npy"), fixture("labels_i8.npy"), "/nonexistent/x.npy"}),
      (fixture("inputs_f4.npy") +
       ": npy data is 2 files (inputs, labels), or the inputs alone, but 3 files were given")
          .c_str(),
      UsageError);
  CHECK_THROWS_WITH_AS(open_dataset({}), "no data file given", UsageError);
  TempFile empty("empty.npy", text_bytes(""));
  CHECK(format_error([&] { open_dataset({empty.path()}); }) ==
        empty.path() + ": expected a data set, found an empty file");
  CHECK_THROWS_AS(open_dataset({"/nonexistent/x.csv"}), IoError);
}
