#include "staticnet/runtime/batches/shuffle.hpp"

#include <cstddef>
#include <utility>

#include "staticnet/runtime/prng.hpp"

namespace staticnet::runtime {

void epoch_order(std::uint64_t seed, std::uint64_t epoch, std::span<std::int64_t> order) {
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<std::int64_t>(i);
  SplitMix64 rng(mix_seed(seed, RandomStream::shuffle, epoch));
  // Durstenfeld's form: position i takes a uniformly chosen element of [0, i].
  for (std::size_t i = order.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.below(i));
    std::swap(order[i - 1], order[j]);
  }
}

std::vector<std::int64_t> epoch_order(std::uint64_t seed, std::uint64_t epoch, std::int64_t size) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(size));
  epoch_order(seed, epoch, order);
  return order;
}

}  // namespace staticnet::runtime
