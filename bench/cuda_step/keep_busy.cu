#include "conv_sweep.hpp"

namespace bench {
namespace {

// Spins until `nanoseconds` have passed on the GPU's global timer.
__global__ void spin(unsigned long long nanoseconds) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

}  // namespace

void keep_device_busy(cudaStream_t stream, int microseconds) {
  spin<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(microseconds) * 1000);
  staticnet::cuda::check_launch("keep_device_busy");
}

}  // namespace bench
