#pragma once
// What a generated CUDA program (trainer or inference program) does first: open its device and
// make its one arena, measuring what each took with cudaMemGetInfo, so that it can report the
// context's and the libraries' memory beside the plan's.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "staticnet/cuda/check.hpp"

namespace staticnet::cuda {

struct OpenedDevice {
  std::string name;         // "NVIDIA H100 80GB HBM3"
  int sm = 0;               // 90
  std::int64_t total = 0;   // the device's memory
  std::int64_t in_use = 0;  // bytes in use once the context exists
};

// Selects `device` and creates its context. Throws Error ("no CUDA device: this <who> needs an
// NVIDIA GPU and its driver (CUDA says <why>)") where there is none.
inline OpenedDevice open_device(int device, const char* who) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Error(std::string("no CUDA device: this ") + who +
                " needs an NVIDIA GPU and its driver (CUDA says " + why + ")");
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaFree(nullptr), "creating the CUDA context");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  return {properties.name, properties.major * 10 + properties.minor,
          static_cast<std::int64_t>(properties.totalGlobalMem), device_memory_in_use()};
}

// The one allocation: exactly `bytes` (cudaMalloc aligns to at least 256 bytes), zeroed.
// `measured` is how much the device's free memory fell.
inline std::byte* allocate_arena(std::int64_t bytes, std::int64_t& measured) {
  const long long before = device_memory_in_use();
  void* arena = nullptr;
  check(cudaMalloc(&arena, static_cast<std::size_t>(bytes)),
        "allocating the arena of the plan's footprint");
  check(cudaMemset(arena, 0, static_cast<std::size_t>(bytes)), "zeroing the arena");
  // cudaMemset may return before it is done, on the legacy stream, which the program's
  // non-blocking stream does not wait for: the parameters written next must land after it.
  check(cudaDeviceSynchronize(), "zeroing the arena");
  measured = device_memory_in_use() - before;
  return static_cast<std::byte*>(arena);
}

}  // namespace staticnet::cuda
