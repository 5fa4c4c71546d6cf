// libFuzzer target: CIFAR-10 and CIFAR-100 binary batches, through open_cifar and every sample.
// Input: the option block (fuzz_support.hpp; its target bits: bit 0 CIFAR-100, bit 1 coarse
// labels), a byte k (k % 5 batch files), then for each file but the last a little-endian u32
// length and that many bytes, and the last file (the rest). make_corpus.py writes seeds so.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "staticnet/runtime/formats/byte_source.hpp"
#include "staticnet/runtime/formats/cifar.hpp"

using namespace staticnet::runtime;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  staticnet::fuzz::InputReader in(staticnet::fuzz::as_bytes(data, size));
  const auto block = staticnet::fuzz::read_option_block(in);
  const auto variant = (block.target_bits & 0x01) ? CifarVariant::cifar100 : CifarVariant::cifar10;
  const auto labels = (block.target_bits & 0x02) ? Cifar100Labels::coarse : Cifar100Labels::fine;
  const std::size_t files = in.u8() % 5;

  std::vector<ByteSource> batches;
  for (std::size_t i = 0; i < files; ++i) {
    const auto bytes = i + 1 < files ? in.take(in.u32()) : in.rest();
    batches.push_back(
        ByteSource::from_memory(bytes, "data_batch_" + std::to_string(i + 1) + ".bin"));
  }

  try {
    const auto dataset = open_cifar(std::move(batches), variant, block.options, labels);
    staticnet::fuzz::exercise_dataset(*dataset, block.options);
    const std::int64_t classes = variant == CifarVariant::cifar10 ? 10
                                 : labels == Cifar100Labels::fine ? 100
                                                                  : 20;
    staticnet::fuzz::require(dataset->num_classes() == classes, "CIFAR's fixed class count");
  } catch (const FormatError&) {
  }
  return 0;
}
