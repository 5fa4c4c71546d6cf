#pragma once
// The live peak and recomputation checkpoint_costs.hpp's prices give a cut set (bit u: a cut after
// unit u; a mask names the first 64 cuts), by checkpoint_search.hpp's model: K_{j-1} + local for
// each checkpointed segment, K_m + tail for the tail. The tests compare it with the planner's.
#include <algorithm>
#include <cstdint>
#include <utility>

#include <staticnet/checkpoint_costs.hpp>

namespace staticnet::testing {

template <std::size_t L>
std::pair<std::int64_t, std::int64_t> priced(detail::CheckpointPricer<L>& pricer,
                                             std::uint64_t cuts) {
  std::int64_t kept = 0, peak = 0, recompute = 0, start = 0;
  for (std::int64_t u = 0; u + 1 < pricer.units(); ++u) {
    if (u >= 64 || ((cuts >> u) & 1) == 0)
      continue;
    peak = std::max(peak, kept + pricer.local(start, u));
    recompute += pricer.recompute(start, u);
    kept += pricer.kept(start, u);
    start = u + 1;
  }
  return {std::max(peak, kept + pricer.tail(start)), recompute};
}

}  // namespace staticnet::testing
