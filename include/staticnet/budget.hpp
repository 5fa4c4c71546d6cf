#pragma once
// Budgets, checked by the compiler: does a plan fit a device, and what is the largest batch
// that does. Required memory = footprint.total() + the device's runtime overhead. fit.hpp finds
// the remedy that makes a plan fit, and assert_fits fails a build naming it.
#include <cstdint>

#include "staticnet/bytes.hpp"
#include "staticnet/device.hpp"
#include "staticnet/device_memory.hpp"
#include "staticnet/plan.hpp"

namespace staticnet {

template <Model M, Setup S>
constexpr bool fits(const Device& d) {
  constexpr auto& p = plan_v<M, S>;
  return required_memory(p, d) <= d.memory && required_flash(p, d) <= d.flash &&
         host_fits(p.host, d);
}

// How far max_batch looks past the bisection's answer (see below).
inline constexpr std::int64_t max_batch_scan = 32;

namespace detail {
// `Layers`: the model's flattened nodes (std::array<NodeDesc, L>), or a chain of LayerDescs.
// What a batch costs: the bytes it needs in the memory `budget` counts (all of them, or on a
// microcontroller, `device` with flash, all but what stays in its flash; on a device that shares
// host memory, with the trainer's host bytes), and its arithmetic. `total` is negative when the
// batch does not plan, or when the trainer's host bytes exceed the host budget the device names:
// no budget admits it.
struct Priced {
  std::int64_t total = -1;
  std::int64_t activations = 0;      // of total: the one region checkpointing changes
  std::int64_t step_flops = 0;       // forward and backward, as without checkpointing
  std::int64_t recompute_flops = 0;  // what checkpointing adds to them
};
template <class Layers>
constexpr Priced price_for_batch(const Layers& layers, SetupDesc setup, std::int64_t batch,
                                 const Device& device = {}) {
  setup.batch = batch;
  const auto p = plan(lower(layers, setup));
  if (!p.error.ok() || !host_fits(p.host, device))
    return {};
  const Footprint& f = p.footprint;
  return {(f.total() - flash_part(f, setup, device) + shared_host_part(p.host, device)).count,
          f.activations.count, p.forward_flops() + p.backward_flops(), p.recompute_flops()};
}
template <class Layers>
constexpr std::int64_t total_for_batch(const Layers& layers, SetupDesc setup, std::int64_t batch,
                                       const Device& device = {}) {
  return price_for_batch(layers, setup, batch, device).total;
}
// The fewest samples a micro-batch may have: one, or two where a BatchNorm has no positions to
// count (one value per channel does not plan: the one error a larger batch can mend).
template <class Layers>
constexpr std::int64_t smallest_micro_batch(const Layers& layers, SetupDesc s) {
  s.batch = s.micro_batches;
  return lower(layers, s).error.ok() ? 1 : 2;
}
// On a microcontroller (a device with flash), whether the weights it keeps in flash, with the
// firmware's code, exceed the flash: then no batch helps. False on any other device.
template <class Layers>
constexpr bool outgrows_flash(const Layers& layers, const SetupDesc& setup, const Device& d) {
  if (!d.has_flash())
    return false;
  const Footprint f = plan(lower(layers, setup)).footprint;
  return flash_part(f, setup, d) + d.flash_overhead > d.flash;
}
// max_batch over values (the search itself; see max_batch below). Under Accumulate<K> the
// candidates are the batches K divides: the search is over the micro-batch, b samples each, and
// the answer K · b.
template <class Layers>
constexpr std::int64_t max_batch_for(const Layers& layers, const SetupDesc& setup, Bytes budget,
                                     const Device& device = {}) {
  const std::int64_t k = setup.micro_batches > 0 ? setup.micro_batches : 1;
  auto fits_at = [&](std::int64_t b) {
    const std::int64_t total = total_for_batch(layers, setup, k * b, device);
    return total >= 0 && total <= budget.count;
  };
  const std::int64_t smallest = smallest_micro_batch(layers, setup);
  if (!fits_at(smallest))
    return 0;
  const std::int64_t ceiling =
      (std::int64_t{1} << 40) / k;  // micro-batches: k · b stays below 2^40
  std::int64_t fits_batch = smallest, too_big = 2 * smallest;  // fits; unknown yet
  while (too_big < ceiling && fits_at(too_big)) {
    fits_batch = too_big;
    too_big *= 2;
  }
  if (too_big >= ceiling)
    return k * fits_batch;
  while (too_big - fits_batch > 1) {  // now too_big does not fit
    const std::int64_t mid = fits_batch + (too_big - fits_batch) / 2;
    if (fits_at(mid))
      fits_batch = mid;
    else
      too_big = mid;
  }
  for (std::int64_t b = fits_batch + 1; b - fits_batch <= max_batch_scan && b < ceiling; ++b)
    if (fits_at(b))
      fits_batch = b;
  return k * fits_batch;
}
}  // namespace detail

// The largest batch whose whole step fits in `budget` bytes (0 when even the smallest does not: 1,
// or 2 with a BatchNorm in a model without positions, as a BatchNorm1d after a Linear).
// Each candidate is planned in full, so the batch returned always fits, to the byte. The search
// bisects, then scans upwards until 32 batches in a row do not fit: placement is a heuristic
// whose 256-byte rounding can make the total dip by a few slots as the batch grows, and the scan
// finds a larger batch that fits after such a dip. A dip wider than 32 batches would hide one;
// the property tests (brute force on random models) have not met any. Under Accumulate<K> it is
// the largest multiple of K whose K micro-batches fit.
template <Model M, Setup S>
constexpr std::int64_t max_batch(Bytes budget) {
  (void)lower<M, S>();  // a wrong model fails here with its own error
  return detail::max_batch_for(flatten<M>(), S::desc(), budget);
}

// The largest batch that fits on a device, after its runtime overhead; on a microcontroller, in
// its SRAM, with the weights in its flash (0 when they do not fit there: no batch helps).
template <Model M, Setup S>
constexpr std::int64_t max_batch(const Device& d) {
  (void)lower<M, S>();
  if (detail::outgrows_flash(flatten<M>(), S::desc(), d))  // the flash does not grow with b
    return 0;
  return detail::max_batch_for(flatten<M>(), S::desc(), d.available(), d);
}

}  // namespace staticnet
