// libFuzzer target: numeric CSV, through open_csv and every sample.
// Input: the option block (fuzz_support.hpp; its target bits: bits 0-1 the header mode, 0 detect,
// 1 present, 2 absent, 3 detect; bit 2 regression labels), a delimiter byte, a label-column byte
// c (0: the last column; 1: a name, given as a length byte and that many bytes; otherwise the
// index c - 3, so -1 and -2 reach the parser too), then the CSV text (the rest).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/csv.hpp"

using namespace staticnet::runtime;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  staticnet::fuzz::InputReader in(staticnet::fuzz::as_bytes(data, size));
  const auto block = staticnet::fuzz::read_option_block(in);
  CsvOptions csv;
  switch (block.target_bits & 0x03) {
    case 1:
      csv.header = CsvHeader::present;
      break;
    case 2:
      csv.header = CsvHeader::absent;
      break;
    default:
      csv.header = CsvHeader::detect;
      break;
  }
  csv.label_kind = (block.target_bits & 0x04) ? LabelKind::regression : LabelKind::class_index;
  csv.delimiter = static_cast<char>(in.u8());
  const auto column = in.u8();
  if (column == 1) {
    const auto name = in.take(in.u8());
    csv.label_column = std::string(reinterpret_cast<const char*>(name.data()), name.size());
  } else if (column != 0) {
    csv.label_column = static_cast<std::int64_t>(column) - 3;
  }
  const auto text = in.rest();

  try {
    const auto dataset = open_csv(ByteSource::from_memory(text, "data.csv"), block.options, csv);
    staticnet::fuzz::require(dataset->label_kind() == csv.label_kind, "the label kind asked for");
    staticnet::fuzz::exercise_dataset(*dataset, block.options);
  } catch (const FormatError&) {
  }
  return 0;
}
