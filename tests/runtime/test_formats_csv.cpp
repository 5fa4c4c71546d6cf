// Numeric CSV: values, header detection, label column by index or name, and errors with 1-based
// line and character column quoting the offending text.
#include <cmath>

#include "staticnet/runtime/formats/csv.hpp"
#include "test_formats_support.hpp"

using namespace staticnet::runtime;
using namespace formats_test;

namespace {

std::unique_ptr<Dataset> open_text(const std::string& text, const DatasetOptions& options = {},
                                   const CsvOptions& csv = {}) {
  return open_csv(memory(text_bytes(text), "d.csv"), options, csv);
}

std::string error_text(const std::string& text, const DatasetOptions& options = {},
                       const CsvOptions& csv = {}) {
  return format_error([&] { open_text(text, options, csv); });
}

}  // namespace

TEST_CASE("formats: csv loads values, detects a header, label defaults to the last column") {
  auto d = open_text("a,b,label\n1.5,-2,1\r\n +3e2 , 0.25 ,0\n\n");
  CHECK(d->format_name() == "csv");
  CHECK(d->size() == 2);
  CHECK(d->sample_shape() == std::vector<std::int64_t>{2});
  CHECK(d->num_classes() == 2);
  CHECK(sample(*d, 0) == std::vector<float>{1.5f, -2.0f});
  CHECK(sample(*d, 1) == std::vector<float>{300.0f, 0.25f});
  CHECK(d->label(0) == 1);
  CHECK(d->label(1) == 0);

  auto no_header = open_text("1,2,3\n4,5,6\n");
  CHECK(no_header->size() == 2);
  CHECK(sample(*no_header, 0) == std::vector<float>{1, 2});
  CHECK(no_header->label(1) == 6);
}

TEST_CASE("formats: csv label column by index or name, delimiter, explicit header, regression") {
  CsvOptions by_name;
  by_name.label_column = std::string("y");
  auto named = open_text("y;x1;x2\n2;0.5;1\n0;7;8\n", {}, [&] {
    auto o = by_name;
    o.delimiter = ';';
    return o;
  }());
  CHECK(named->label(0) == 2);
  CHECK(sample(*named, 1) == std::vector<float>{7, 8});

  CsvOptions by_index;
  by_index.label_column = std::int64_t{0};
  by_index.header = CsvHeader::absent;
  auto indexed = open_text("1,10,20\n0,30,40\n", {}, by_index);
  CHECK(indexed->label(0) == 1);
  CHECK(sample(*indexed, 0) == std::vector<float>{10, 20});

  CsvOptions numeric_header;
  numeric_header.header = CsvHeader::present;
  CHECK(open_text("1,2\n3,4\n", {}, numeric_header)->size() == 1);

  CsvOptions regression;
  regression.label_kind = LabelKind::regression;
  auto r = open_text("x,t\n1,0.5\n2,-1.5\n", {}, regression);
  CHECK(r->label_kind() == LabelKind::regression);
  CHECK(r->target_shape() == std::vector<std::int64_t>{1});
  CHECK(target(*r, 1) == std::vector<float>{-1.5f});

  DatasetOptions reshape;
  reshape.expect_sample_shape = std::vector<std::int64_t>{2, 2};
  CHECK(open_text("1,2,3,4,0\n", reshape)->sample_shape() == std::vector<std::int64_t>{2, 2});
}

TEST_CASE("formats: csv after a UTF-8 byte order mark (Excel's CSV UTF-8)") {
  CsvOptions by_name;
  by_name.label_column = std::string("species");
  auto d = open_text("\xEF\xBB\xBFspecies,x1\n2,0.5\n1,7\n", {}, by_name);
  CHECK(d->size() == 2);
  CHECK(d->label(0) == 2);
  CHECK(sample(*d, 1) == std::vector<float>{7});
}

TEST_CASE("formats: csv without a label column: every field an input") {
  CsvOptions unlabelled;
  unlabelled.label_kind = LabelKind::none;
  unlabelled.label_column = std::int64_t{0};  // ignored: there is no label
  auto d = open_text("a,b,c\n1,2,3\n4,5,6\n", {}, unlabelled);
  CHECK(d->label_kind() == LabelKind::none);
  CHECK(d->size() == 2);
  CHECK(d->sample_shape() == std::vector<std::int64_t>{3});
  CHECK(sample(*d, 0) == std::vector<float>{1, 2, 3});
  CHECK(sample(*d, 1) == std::vector<float>{4, 5, 6});
  CHECK(d->num_classes() == 0);
  CHECK_THROWS_AS(d->label(0), std::logic_error);
  // As `--no-labels` opens it: no column named, under a header. There is no label column to name
  // in a note (it once read one past the fields).
  CsvOptions no_labels;
  no_labels.label_kind = LabelKind::none;
  const auto headed = open_text("x0,x1,label\n1,2,3\n", {}, no_labels);
  CHECK(headed->size() == 1);
  CHECK(sample(*headed, 0) == std::vector<float>{1, 2, 3});
  // One column is a sample of one input, not a missing label.
  CHECK(open_text("0.5\n-1\n", {}, unlabelled)->sample_shape() == std::vector<std::int64_t>{1});
  // Non-finite inputs are still found, in the right column.
  CHECK(error_text("1,2\n3,nan\n", {}, unlabelled) ==
        "d.csv: line 2, column 3: expected a finite value, found NaN in "
        "sample 1, element 1");
}

TEST_CASE("formats: csv errors carry line, character column and the offending text") {
  CHECK(error_text("a,b,c\n1,2,0\n1,x2,0\n") ==
        "d.csv: line 3, column 3: expected a number, found 'x2'");
  // Columns count characters, not bytes: 'é' is two bytes.
  CHECK(error_text("1,2,0\n\"é\",oops,1\n") ==
        "d.csv: line 2, column 2: expected a number, found 'é'");
  CHECK(error_text("1,2,0\n1,,0\n") ==
        "d.csv: line 2, column 3: expected a number, found an empty field");
  CHECK(
      error_text("1,2,0\n1,2\n") ==
      "d.csv: line 2, column 4: expected 3 fields like the first row, found 2 fields (ragged row)");
  CHECK(
      error_text("1,2,0\n1,2,0,4\n") ==
      "d.csv: line 2, column 6: expected 3 fields like the first row, found 4 fields (ragged row)");
  // A label that does not read, where nobody named its column, says which column was read.
  const std::string last =
      " (the label is read from the last column, the default: "
      "--label-column names another)";
  CHECK(error_text("1,2,0\n1,2,0.5\n") ==
        "d.csv: line 2, column 5: expected an integer class label, found '0.5'" + last);
  CHECK(error_text("1,2,0\n1,2,-1\n") ==
        "d.csv: line 2, column 5: expected a non-negative class label below 16777216, found "
        "label -1 for sample 1" +
            last);
  // Found by the fuzzer: a legal i32 label made summarize() allocate a counter per class (16 GiB).
  CHECK(error_text("1,2,0\n1,2,2147483646\n") ==
        "d.csv: line 2, column 5: expected a non-negative class label below 16777216, found "
        "label 2147483646 for sample 1" +
            last);
  DatasetOptions three;
  three.num_classes = 3;
  CHECK(error_text("1,2,0\n\n1,2,3\n", three) ==
        "d.csv: line 3, column 5: expected a class label in [0, 3), found label 3 for sample 1" +
            last);
  // Under a header the column is named; a column the user named gets no note.
  CHECK(error_text("x,y,label\n1,2,0.5\n") ==
        "d.csv: line 2, column 5: expected an integer class label, found '0.5' (the label is read "
        "from the last column, 'label', the default: --label-column names another)");
  CsvOptions named;
  named.label_column = std::int64_t{2};
  CHECK(error_text("1,2,0\n1,2,0.5\n", {}, named) ==
        "d.csv: line 2, column 5: expected an integer class label, found '0.5'");
  CHECK(error_text("1,nan,0\n") ==
        "d.csv: line 1, column 3: expected a finite value, found NaN in "
        "sample 0, element 1");
  CHECK(error_text("x,y\n-inf,0\n") ==
        "d.csv: line 2, column 1: expected a finite value, found -Inf "
        "in sample 0, element 0");
  DatasetOptions allow;
  allow.allow_non_finite = true;
  CHECK(std::isinf(sample(*open_text("x,y\n-inf,0\n", allow), 0)[0]));
  CHECK(error_text("") ==
        "d.csv: line 1, column 1: expected at least one data row, found end of file");
  CHECK(error_text("a,b\n") ==
        "d.csv: line 1, column 1: expected at least one data row, found end of file");
  CHECK(error_text("1\n2\n") ==
        "d.csv: line 1, column 2: expected at least 2 columns (features and a label), found 1 "
        "column (is the delimiter ',' right?)");
  CsvOptions missing;
  missing.label_column = std::string("z");
  CHECK(error_text("a,b\n1,0\n", {}, missing) ==
        "d.csv: line 1, column 1: expected a column named 'z', found columns 'a', 'b'");
  CsvOptions out_of_range;
  out_of_range.label_column = std::int64_t{5};
  CHECK(error_text("1,0\n", {}, out_of_range) ==
        "d.csv: line 1, column 1: expected a label column index in [0, 2), found 5");
  CsvOptions absent;
  absent.header = CsvHeader::absent;
  CHECK(error_text("a,b\n1,0\n", {}, absent) ==
        "d.csv: line 1, column 1: expected a number, found 'a'");
  DatasetOptions shape;
  shape.expect_sample_shape = std::vector<std::int64_t>{3};
  CHECK(error_text("1,2,0\n", shape) ==
        "d.csv: expected sample shape (3,), found sample shape (2,)");
}

TEST_CASE("formats: csv from a file") {
  TempFile file("data.csv", text_bytes("f,l\n0.5,1\n"));
  auto d = open_csv(file.path());
  CHECK(d->source() == file.path());
  CHECK(sample(*d, 0) == std::vector<float>{0.5f});
}
