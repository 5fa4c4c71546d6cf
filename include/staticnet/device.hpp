#pragma once
// Device profiles: the memory a device has and what its runtime takes before the model gets a
// byte. Both are properties of the device, not of the model; a budget check adds the overhead
// to the plan's footprint.
//
// memory: the total nvidia-smi reports for discrete GPUs (MiB as printed, e.g. 81559 MiB on an
//   H100 SXM 80GB, 40960 MiB on an A100-SXM4-40GB, 15360 MiB on a T4 with ECC on), and the
//   nominal LPDDR size for Jetsons, whose CPU and GPU share one memory.
// overhead: what is gone before the model allocates. On a discrete GPU that starts with memory
//   CUDA never sees: cudaMemGetInfo's total is less than nvidia-smi's (480 MiB less on the H100,
//   615 MiB on the H200), which the measured profiles below count.
//   Discrete GPUs: the CUDA context plus cuBLAS/cuDNN handles and their kernels. With CUDA's
//   lazy module loading (default since CUDA 11.7) this is a few hundred MiB; we budget 512 MiB,
//   the upper end of what PyTorch users report for "memory used before the first tensor" on
//   Ampere cards. Measured on an H100 80GB with the generated CUDA trainer (cudaMemGetInfo
//   before and after; CUDA 13.0, driver 580, cuDNN 9.19, 2026-11-23, bench/RESULTS.md): the
//   context took 526.8 MiB and the cuDNN + cuBLASLt handles and plans 14.0 MiB. On an H200
//   (2026-11-27, same software) the context took the same 526.8 MiB to the byte, the libraries
//   12 to 16 MiB by model, and modules loaded at the first steps 2 MiB more. With the memory CUDA
//   does not see: H100 480 + 526.8 + 16 + 2 = 1024.8 MiB, budgeted as 1088; H200 615.1 + 526.8 +
//   16 + 2 = 1159.9 MiB, budgeted as 1216 (each rounded up to the next 64 MiB).
//   The other discrete profiles are not measured, and their 512 MiB leaves out the memory CUDA
//   does not see: measure yours (below) before trusting a margin of under a GiB.
//   Jetsons: their CPU and GPU share the one memory, so the trainer's own host bytes (plan.host:
//   the loader's batch slots, pinned staging, the checkpoint's copy of the state) take from it
//   beside the arena (shares_host_memory). The overhead is the same CUDA/cuDNN share plus Linux
//   for Tegra itself, which NVIDIA's forums put at roughly 0.6-1 GiB headless. We budget 1.5 GiB
//   on the 4 GB Nano (whose desktop alone is about 1 GiB) and 2 GiB on the larger modules.
//   Running headless lowers it: make your own profile with sn::Device{.memory = ..., .overhead =
//   ..., .shares_host_memory = true} when you have measured yours.
#include <cstddef>

#include "staticnet/bytes.hpp"

namespace staticnet {

// A short name carried inside a Device, which must stay a structural type (a template argument
// of assert_fits) and so cannot hold a pointer to a string literal.
struct DeviceName {
  char text[32]{};
  constexpr DeviceName() = default;
  template <std::size_t N>
  requires(N <= 32) constexpr DeviceName(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i)
      text[i] = s[i];
  }
  friend constexpr bool operator==(const DeviceName&, const DeviceName&) = default;
};

struct Device {
  Bytes memory;  // what the device has (a microcontroller: the SRAM block its arena lies in)
  Bytes
      overhead;  // what its runtime takes first (a microcontroller: the firmware's stack and data)
  DeviceName name{};
  // A microcontroller's flash, where an Int8 plan's weights stay as constants (budget.hpp);
  // 0: none, everything is in `memory`. flash_overhead: what the firmware's code takes of it.
  Bytes flash{};
  Bytes flash_overhead{};
  // One memory for the CPU and the GPU (a Jetson's): the trainer's host bytes (plan.host) take
  // from `memory` too, so a budget check adds them.
  bool shares_host_memory = false;
  // The host's own memory, for a device that does not share it: 0 leaves the host unchecked;
  // else plan.host must fit in it too (budget.hpp). The trainer's host bytes only: the
  // program's code, its libraries and the rest of the machine are not counted.
  Bytes host_memory{};

  constexpr Bytes available() const { return memory - overhead; }
  constexpr bool has_flash() const { return flash.count > 0; }
  friend constexpr bool operator==(const Device&, const Device&) = default;
};

namespace device {

inline constexpr Bytes discrete_gpu_overhead = MiB(512);
inline constexpr Bytes h100_overhead = MiB(1088);  // measured: 1024.8 MiB (see above)
inline constexpr Bytes h200_overhead = MiB(1216);  // measured: 1159.9 MiB (see above)

inline constexpr Device jetson_nano{
    .memory = GiB(4), .overhead = MiB(1536), .name = "Jetson Nano 4GB", .shares_host_memory = true};
inline constexpr Device jetson_orin_nano{.memory = GiB(8),
                                         .overhead = GiB(2),
                                         .name = "Jetson Orin Nano 8GB",
                                         .shares_host_memory = true};
inline constexpr Device jetson_agx_orin_32{.memory = GiB(32),
                                           .overhead = GiB(2),
                                           .name = "Jetson AGX Orin 32GB",
                                           .shares_host_memory = true};
inline constexpr Device jetson_agx_orin_64{.memory = GiB(64),
                                           .overhead = GiB(2),
                                           .name = "Jetson AGX Orin 64GB",
                                           .shares_host_memory = true};
inline constexpr Device rtx_3060{MiB(12288), discrete_gpu_overhead, "GeForce RTX 3060 12GB"};
inline constexpr Device t4{MiB(15360), discrete_gpu_overhead, "Tesla T4 16GB"};
inline constexpr Device a100_40gb{MiB(40960), discrete_gpu_overhead, "A100 40GB"};
inline constexpr Device a100_80gb{MiB(81920), discrete_gpu_overhead, "A100 80GB"};
inline constexpr Device h100_80gb{MiB(81559), h100_overhead, "H100 80GB"};
inline constexpr Device h200_141gb{MiB(143771), h200_overhead, "H200 141GB"};

// Microcontrollers: two budgets, SRAM for the arena and flash for the weights.
//
// memory is the largest contiguous SRAM block, since the arena is one array: the STM32H743 has
// 1 MB of SRAM in all, but as five blocks, the largest the 512 KB AXI SRAM (RM0433, "Memory
// map"); the nRF52840's 256 KB is one block (its product specification, "Memory"). flash is the
// whole on-chip flash (2 MB and 1 MB).
// overhead and flash_overhead are what the firmware around the model takes, not measured yet:
// 16 KiB of SRAM for its stack and data, and 64 KiB of flash for its code, start-up and the
// generated inference (TensorFlow Lite Micro's interpreter alone is larger). Measure yours
// (arm-none-eabi-size on the firmware) and make a profile with sn::Device{...}.
inline constexpr Bytes mcu_overhead = KiB(16);
inline constexpr Bytes mcu_flash_overhead = KiB(64);
inline constexpr Device stm32h743{KiB(512), mcu_overhead, "STM32H743 (AXI SRAM)", MiB(2),
                                  mcu_flash_overhead};
inline constexpr Device nrf52840{KiB(256), mcu_overhead, "nRF52840", MiB(1), mcu_flash_overhead};

// Every profile above under its identifier, for tools that take a device by name
// (`staticnet analyze --device jetson_nano`), in the order above.
struct Profile {
  const char* id;
  Device device;
};
inline constexpr Profile profiles[] = {
    {"jetson_nano", jetson_nano},
    {"jetson_orin_nano", jetson_orin_nano},
    {"jetson_agx_orin_32", jetson_agx_orin_32},
    {"jetson_agx_orin_64", jetson_agx_orin_64},
    {"rtx_3060", rtx_3060},
    {"t4", t4},
    {"a100_40gb", a100_40gb},
    {"a100_80gb", a100_80gb},
    {"h100_80gb", h100_80gb},
    {"h200_141gb", h200_141gb},
};
// The microcontrollers, apart: their budgets are two (SRAM and flash), which `staticnet analyze
// --device` reports side by side.
inline constexpr Profile microcontroller_profiles[] = {
    {"stm32h743", stm32h743},
    {"nrf52840", nrf52840},
};

}  // namespace device
}  // namespace staticnet
