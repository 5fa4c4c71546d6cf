// libFuzzer target: safetensors files (the input is the file), through SafetensorsReader::parse,
// every tensor's bytes and, for checkpoints, the training state in the metadata and the listing
// `checkpoint show` prints.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "staticnet/runtime/checkpoints/checkpoint.hpp"
#include "staticnet/runtime/checkpoints/safetensors_reader.hpp"
#include "staticnet/runtime/tools/checkpoint_show.hpp"

using namespace staticnet::runtime;
using staticnet::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = staticnet::fuzz::as_bytes(data, size);
  try {
    const auto reader = SafetensorsReader::parse(file, "fuzz.safetensors");
    require(reader.data_buffer_offset() >= 8 && reader.data_buffer_offset() <= size,
            "the data buffer starts inside the file");
    const std::uint64_t buffer = size - reader.data_buffer_offset();
    std::uint64_t covered = 0;
    unsigned checksum = 0;
    for (const auto& tensor : reader.tensors()) {
      require(tensor.data_begin == covered, "tensors are contiguous, in data-buffer order");
      require(tensor.data_begin <= tensor.data_end && tensor.data_end <= buffer,
              "tensor offsets lie in the data buffer");
      require(tensor.element_count() * dtype_size(tensor.dtype) == tensor.byte_size(),
              "a tensor's size is its shape times its dtype");
      require(reader.find(tensor.name) == &tensor, "find() returns the tensor of that name");
      const auto bytes = reader.data(tensor);
      require(bytes.size() == tensor.byte_size(), "data() spans the tensor's bytes");
      for (auto b : bytes)  // every byte read, so a span past the input is a sanitizer report
        checksum += static_cast<unsigned>(b);
      covered = tensor.data_end;
    }
    require(covered == buffer, "the tensors cover the data buffer");
    (void)checksum;

    // A checkpoint keeps its training state in the metadata; decoding it must fail cleanly too.
    try {
      const auto state = decode_training_state(reader.metadata(), reader.source());
      const auto again = encode_training_state(state);
      require(decode_training_state(again, reader.source()) == state,
              "the training state survives encode and decode");
    } catch (const FormatError&) {
    }
    // The listing `checkpoint show` prints, values scanned (throws for a state that does not
    // decode, as above).
    try {
      const CheckpointListing listing = list_checkpoint(reader);
      require(listing.file_bytes == size && listing.tensor_bytes == covered,
              "the listing counts the file's bytes and the tensors'");
      (void)format_checkpoint_listing(listing);
    } catch (const FormatError&) {
    }
  } catch (const FormatError&) {
  }
  return 0;
}
