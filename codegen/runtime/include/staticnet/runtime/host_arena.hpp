#pragma once
// The CPU programs' one allocation (the generated trainer's and inference program's): the plan's
// footprint.total() bytes of host memory, 256-byte aligned as the plan laid them out, zeroed once
// (optimizer moments start at zero, and every buffer's padding is defined).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

namespace staticnet::runtime {

class HostArena {
 public:
  static constexpr std::align_val_t alignment{256};

  explicit HostArena(std::int64_t bytes)
      : bytes_(
            static_cast<std::byte*>(::operator new[](static_cast<std::size_t>(bytes), alignment))) {
    std::memset(bytes_.get(), 0, static_cast<std::size_t>(bytes));
  }

  std::byte* data() const { return bytes_.get(); }

 private:
  struct AlignedFree {
    void operator()(std::byte* p) const noexcept { ::operator delete[](p, alignment); }
  };
  std::unique_ptr<std::byte[], AlignedFree> bytes_;
};

// "CPU, 2 threads, OpenBLAS": how the CPU programs describe where they run.
inline std::string cpu_description(int threads) {
  return "CPU, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads") + ", OpenBLAS";
}

}  // namespace staticnet::runtime
