#pragma once
// Loss scaling's pass over the gradients on the CPU (Mixed<f16>; kernels/mixed_precision.hpp has
// the semantics): every gradient multiplied by 1/scale, and whether any of them, as scaled, was an
// Inf or a NaN, into the scaler's found_inf. The threads split the gradients into ranges and
// combine their answers: no scratch, no allocation.
#include <atomic>

#include "staticnet/cpu/launch.hpp"
#include "staticnet/kernels/mixed_precision.hpp"

namespace staticnet::cpu {

inline void unscale_gradients(ThreadPool& pool, float* gradients, index_t count,
                              kernels::LossScaleState& state) {
  const float inverse = kernels::inverse_scale(state);
  std::atomic<bool> found{false};
  pool.run([&](int t) {
    const Range range = split(count, pool.threads(), t);
    bool non_finite = false;
    for (index_t i = range.begin; i < range.end; ++i)
      non_finite |= kernels::unscale_gradient(i, gradients, inverse);
    if (non_finite)
      found.store(true, std::memory_order_relaxed);
  });
  state.found_inf = found.load(std::memory_order_relaxed) ? 1.0f : 0.0f;
}

}  // namespace staticnet::cpu
