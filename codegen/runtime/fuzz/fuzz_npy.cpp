// libFuzzer target: NumPy .npy inputs and labels, through open_npy and every sample.
// Input: the option block (fuzz_support.hpp), a little-endian u32 length L, L bytes of the inputs
// file, then the labels file (the rest). make_corpus.py writes seeds in this layout.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/npy.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"

using namespace staticnet::runtime;

namespace {

// parse_npy alone accepts what open_npy refuses later (scalars, zero dimensions): check it keeps
// its own promise, that the data it describes is exactly the rest of the file.
void check_header(std::span<const std::byte> file, const char* name) {
  try {
    const auto header = parse_npy(file, name);
    staticnet::fuzz::require(header.major_version >= 1 && header.major_version <= 3,
                             "a supported .npy version");
    staticnet::fuzz::require(header.data_offset <= file.size(), "the data start inside the file");
    staticnet::fuzz::require(header.shape.size() <= 32, "at most 32 dimensions");
  } catch (const FormatError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  staticnet::fuzz::InputReader in(staticnet::fuzz::as_bytes(data, size));
  const auto block = staticnet::fuzz::read_option_block(in);
  const auto inputs = in.take(in.u32());
  const auto labels = in.rest();

  (void)detect_format(inputs, "inputs");
  check_header(inputs, "inputs.npy");
  check_header(labels, "labels.npy");

  try {
    const auto dataset = open_npy(ByteSource::from_memory(inputs, "inputs.npy"),
                                  ByteSource::from_memory(labels, "labels.npy"), block.options);
    staticnet::fuzz::exercise_dataset(*dataset, block.options);
  } catch (const FormatError&) {
  }
  return 0;
}
