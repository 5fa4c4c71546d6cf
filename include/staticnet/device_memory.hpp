#pragma once
// What of a plan counts against a device's memory: the rules budget.hpp's fits and max_batch,
// fit.hpp and Checkpoint<Auto> (checkpoint_auto.hpp) share. Required memory = the footprint, less
// what stays in a microcontroller's flash, plus the trainer's host bytes where host and device
// share one memory, plus the device's runtime overhead.
#include "staticnet/bytes.hpp"
#include "staticnet/device.hpp"
#include "staticnet/plan_types.hpp"
#include "staticnet/setup.hpp"

namespace staticnet {

// What of a plan a device keeps in flash: on a microcontroller, an Int8 plan's weights and
// per-channel numbers, constants the firmware compiles in; nothing elsewhere. (An FP32 inference
// program writes its weights at load time, folding BatchNorms into them: SRAM.)
constexpr Bytes flash_part(const Footprint& f, const SetupDesc& setup, const Device& d) {
  return d.has_flash() && precision_dtypes(setup.precision).quantized ? f.weights + f.non_trainable
                                                                      : Bytes{};
}

// What of the trainer's host memory counts against a device's memory: all of it (plan.host) on a
// device whose CPU and GPU share one memory, none elsewhere.
constexpr Bytes shared_host_part(const HostFootprint& h, const Device& d) {
  return d.shares_host_memory ? h.total() : Bytes{};
}

// The memory (a microcontroller's SRAM) a plan needs on a device, with its runtime overhead and,
// where host and device share one memory, the trainer's host bytes.
template <std::size_t L>
constexpr Bytes required_memory(const Plan<L>& p, const Device& d) {
  return p.footprint.total() - flash_part(p.footprint, p.setup, d) + shared_host_part(p.host, d) +
         d.overhead;
}
// Whether the trainer's host bytes fit the host budget a device names (always, where it names
// none).
constexpr bool host_fits(const HostFootprint& h, const Device& d) {
  return d.host_memory.count == 0 || h.total() <= d.host_memory;
}
// The flash a plan needs on a microcontroller, with the firmware's code (0 on other devices).
template <std::size_t L>
constexpr Bytes required_flash(const Plan<L>& p, const Device& d) {
  return d.has_flash() ? flash_part(p.footprint, p.setup, d) + d.flash_overhead : Bytes{};
}

}  // namespace staticnet
