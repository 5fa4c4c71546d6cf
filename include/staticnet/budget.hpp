#pragma once
// Budgets, checked by the compiler: does a plan fit a device, and what is the largest batch
// that does. Required memory = footprint.total() + the device's runtime overhead.
#include <cstdint>

#include "staticnet/bytes.hpp"
#include "staticnet/device.hpp"
#include "staticnet/errors.hpp"
#include "staticnet/plan.hpp"

namespace staticnet {

template <std::size_t L>
constexpr Bytes required_memory(const Plan<L>& p, const Device& d) {
  return p.footprint.total() + d.overhead;
}

template <Model M, Setup S>
constexpr bool fits(const Device& d) {
  return required_memory(plan_v<M, S>, d) <= d.memory;
}

// Fails the build when the plan does not fit D, naming required and budget bytes and the
// breakdown. Returns true, so it also reads well inside static_assert at namespace scope.
template <Model M, Setup S, Device D>
constexpr bool assert_fits() {
  constexpr auto& p = plan_v<M, S>;
  constexpr std::int64_t required = required_memory(p, D).count;
  if constexpr (p.error.ok() && required > D.memory.count) {
    constexpr Footprint f = p.footprint;
    (void)sizeof(
        error::does_not_fit<error::required_bytes<required>, error::budget_bytes<D.memory.count>,
                            error::weights<f.weights.count>, error::gradients<f.gradients.count>,
                            error::optimizer_state<f.optimizer_state.count>,
                            error::activations<f.activations.count>,
                            error::workspace<f.workspace.count>, error::inputs<f.inputs.count>,
                            error::device_overhead<D.overhead.count>>);
  }
  return true;
}

namespace detail {
template <std::size_t L>
constexpr Bytes total_for_batch(const std::array<LayerDesc, L>& layers, SetupDesc setup,
                                std::int64_t batch) {
  setup.batch = batch;
  return plan(lower(layers, setup)).footprint.total();
}
}  // namespace detail

// The largest batch whose whole step fits in `budget` bytes (0 when even a batch of 1 does not).
// Each candidate is planned in full, so alignment and placement are exact, not extrapolated.
template <Model M, Setup S>
constexpr std::int64_t max_batch(Bytes budget) {
  constexpr auto layers = flatten<M>();
  constexpr SetupDesc setup = S::desc();
  (void)lower<M, S>();  // a wrong model fails here with its own error
  if (detail::total_for_batch(layers, setup, 1) > budget)
    return 0;
  std::int64_t fits_batch = 1, too_big = 2;  // invariant: fits_batch fits, too_big is unknown
  constexpr std::int64_t ceiling = std::int64_t{1} << 40;
  while (too_big < ceiling && detail::total_for_batch(layers, setup, too_big) <= budget) {
    fits_batch = too_big;
    too_big *= 2;
  }
  if (too_big >= ceiling)
    return fits_batch;
  while (too_big - fits_batch > 1) {  // now too_big does not fit
    const std::int64_t mid = fits_batch + (too_big - fits_batch) / 2;
    if (detail::total_for_batch(layers, setup, mid) <= budget)
      fits_batch = mid;
    else
      too_big = mid;
  }
  return fits_batch;
}

// The largest batch that fits on a device, after its runtime overhead.
template <Model M, Setup S>
constexpr std::int64_t max_batch(const Device& d) {
  return max_batch<M, S>(d.available());
}

}  // namespace staticnet
