#pragma once
// A tiny, fully specified PRNG (splitmix64) and the seed mixing the batcher uses. The standard
// library's engines are specified but its distributions (std::uniform_int_distribution,
// std::shuffle) are implementation-defined, so the same seed could give a different epoch order
// under libstdc++ and libc++. Everything random in the batcher goes through this header instead,
// which makes every shuffle and every augmentation a pure function of its inputs on every
// platform.
#include <cstdint>

namespace staticnet::runtime {

// Steele, Lea and Flood's splitmix64: one 64-bit add and a mixing function per draw.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

  constexpr std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    return finalize(state_);
  }

  // Uniform in [0, bound) without modulo bias (rejection of the short top range); bound > 0.
  constexpr std::uint64_t below(std::uint64_t bound) noexcept {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold)
        return r % bound;
    }
  }

  // The splitmix64 output function, also a good 64-bit hash of its argument.
  static constexpr std::uint64_t finalize(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Independent streams for the uses of randomness, so that turning augmentation on cannot change
// the epoch order and vice versa, and neither changes a model's initial weights.
enum class RandomStream : std::uint64_t { shuffle = 1, augment = 2, initialize = 3 };

// A seed for (seed, stream, a, b): chained hashing so that neighbouring epochs or sample indices
// give unrelated streams.
constexpr std::uint64_t mix_seed(std::uint64_t seed, RandomStream stream, std::uint64_t a,
                                 std::uint64_t b = 0) noexcept {
  std::uint64_t h = SplitMix64::finalize(seed + 0x9e3779b97f4a7c15ULL);
  h = SplitMix64::finalize(h ^ static_cast<std::uint64_t>(stream));
  h = SplitMix64::finalize(h ^ (a + 0x632be59bd9b4e019ULL));
  return SplitMix64::finalize(h ^ (b + 0x8cb92ba72f3d8dd7ULL));
}

}  // namespace staticnet::runtime
