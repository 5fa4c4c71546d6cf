// libFuzzer target: IDX (MNIST) images and labels, through open_idx and every sample.
// Input: the option block (fuzz_support.hpp), a little-endian u32 length L, L bytes of the images
// file, then the labels file (the rest). make_corpus.py writes seeds in this layout.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/idx.hpp"
#include "staticnet/runtime/formats/open_dataset.hpp"

using namespace staticnet::runtime;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  staticnet::fuzz::InputReader in(staticnet::fuzz::as_bytes(data, size));
  const auto block = staticnet::fuzz::read_option_block(in);
  const auto images = in.take(in.u32());
  const auto labels = in.rest();

  // The header checks on their own (what `staticnet data check` and format detection use).
  (void)detect_format(images, "images");
  if (looks_like_idx(images)) {
    try {
      const auto header = parse_idx(images, "images");
      staticnet::fuzz::require(!header.dims.empty(), "an IDX header has dimensions");
      staticnet::fuzz::require(header.data_offset == 4 + 4 * header.dims.size(),
                               "the data follow the dimensions");
    } catch (const FormatError&) {
    }
  }

  try {
    const auto dataset = open_idx(ByteSource::from_memory(images, "images.idx"),
                                  ByteSource::from_memory(labels, "labels.idx"), block.options);
    staticnet::fuzz::exercise_dataset(*dataset, block.options);
  } catch (const FormatError&) {
  }
  return 0;
}
