#pragma once
// The per-epoch sample order: a Fisher-Yates shuffle driven by splitmix64 seeded from
// (seed, epoch), so the order of epoch e is the same on every run, platform and worker count.
#include <cstdint>
#include <span>
#include <vector>

namespace staticnet::runtime {

// Writes the order of `epoch` into `order` (a permutation of 0 .. order.size()-1).
void epoch_order(std::uint64_t seed, std::uint64_t epoch, std::span<std::int64_t> order);

// Convenience for tests and tools; the loader uses the span form on preallocated storage.
std::vector<std::int64_t> epoch_order(std::uint64_t seed, std::uint64_t epoch, std::int64_t size);

}  // namespace staticnet::runtime
