#pragma once
// Placement of the plan's activation region: every buffer gets an offset such that buffers alive
// at the same step never share a byte. Both strategies put each buffer at offset 0 or at the end
// of another buffer, so the region has no byte that no buffer covers.
//
// Online: an online walk over the steps with best-fit holes, O(buffers × holes). Offline, for
// models with up to 256 buffers: greedy placements by size (up to 128 buffers also by lifetime
// and by size × lifetime), O(buffers²) each. The smallest wins, and the search stops once one
// meets the live-bytes bound, which no placement can beat.
//
// These run inside constant evaluation, where every call and every std::array subscript is
// charged against the compiler's limit, and every expression costs g++ memory (see
// static_vector.hpp): hot loops subscript built-in arrays, so a model of ten thousand layers
// places within the default limits.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/plan_state.hpp"
#include "staticnet/plan_types.hpp"
#include "staticnet/static_vector.hpp"

namespace staticnet::detail {

// Each buffer's offset in the activation region, by buffer index. A struct around a built-in
// array: placements are compared and the best one copied whole.
template <std::size_t L>
struct Offsets {
  std::int64_t at[PlanState<L>::buffer_capacity]{};
};

// Online: walk the buffers in the order of their first steps; before placing one, free those
// whose last step is behind its first; place it in the smallest free hole that fits (best fit),
// else at the top. Returns the region size.
template <std::size_t L>
constexpr std::int64_t place_by_step(const PlanState<L>& plan, Offsets<L>& offsets) {
  constexpr std::size_t cap = PlanState<L>::buffer_capacity;
  const auto& buffers = plan.buffers.items;
  const int count = static_cast<int>(plan.buffers.size());
  auto& offset = offsets.at;

  // The region's buffers by first step. The planner makes each buffer at its first step, walking
  // the steps in order, so the order they were made in is that order already; sort only if not.
  int by_first[cap]{};
  int n = 0;
  bool made_in_order = true;
  for (int i = 0; i < count; ++i) {
    if (!in_activation_region(buffers[i].role))
      continue;
    made_in_order =
        made_in_order && (n == 0 || buffers[by_first[n - 1]].first_step <= buffers[i].first_step);
    by_first[n++] = i;
  }
  if (!made_in_order) {  // an insertion sort, stable: never taken for the planner's own plans
    for (int k = 1; k < n; ++k) {
      const int i = by_first[k];
      int at = k;
      for (; at > 0 && buffers[by_first[at - 1]].first_step > buffers[i].first_step; --at)
        by_first[at] = by_first[at - 1];
      by_first[at] = i;
    }
  }
  // By last step, a counting sort: by_last[last_start[s] .. last_start[s + 1]) end at step s.
  int by_last[cap]{};
  int last_start[PlanState<L>::step_capacity + 1]{};
  for (int k = 0; k < n; ++k)
    ++last_start[buffers[by_first[k]].last_step + 1];
  for (std::int64_t s = 0; s < plan.step_count; ++s)
    last_start[s + 1] += last_start[s];
  for (int k = 0; k < n; ++k)
    by_last[last_start[buffers[by_first[k]].last_step]++] = by_first[k];

  // The free holes below `top`, sorted by offset and coalesced, as two arrays of scalars: g++
  // spends memory on every struct it copies in a constant evaluation, and shifting holes copies.
  std::int64_t hole_offset[cap + 1]{};
  std::int64_t hole_size[cap + 1]{};
  std::size_t holes = 0;
  auto erase_hole = [&](std::size_t at) {
    for (std::size_t h = at; h + 1 < holes; ++h) {
      hole_offset[h] = hole_offset[h + 1];
      hole_size[h] = hole_size[h + 1];
    }
    --holes;
  };
  std::int64_t top = 0;
  auto release = [&](int i) {
    const std::int64_t start = offset[i];
    std::size_t at = 0;
    while (at < holes && hole_offset[at] < start)
      ++at;
    for (std::size_t h = holes; h > at; --h) {
      hole_offset[h] = hole_offset[h - 1];
      hole_size[h] = hole_size[h - 1];
    }
    hole_offset[at] = start;
    hole_size[at] = buffers[i].occupied();
    ++holes;
    if (at + 1 < holes && hole_offset[at] + hole_size[at] == hole_offset[at + 1]) {
      hole_size[at] += hole_size[at + 1];
      erase_hole(at + 1);
    }
    if (at > 0 && hole_offset[at - 1] + hole_size[at - 1] == hole_offset[at]) {
      hole_size[at - 1] += hole_size[at];
      erase_hole(at);
    }
  };
  auto place = [&](int i) {
    const std::int64_t need = buffers[i].occupied();
    std::size_t best = holes;
    for (std::size_t h = 0; h < holes; ++h)
      if (hole_size[h] >= need && (best == holes || hole_size[h] < hole_size[best]))
        best = h;
    if (best != holes) {
      offset[i] = hole_offset[best];
      hole_offset[best] += need;
      hole_size[best] -= need;
      if (hole_size[best] == 0)
        erase_hole(best);
      return;
    }
    // No hole fits: grow the region, starting in the last hole when it reaches the top.
    if (holes > 0 && hole_offset[holes - 1] + hole_size[holes - 1] == top) {
      offset[i] = hole_offset[holes - 1];
      top = hole_offset[holes - 1] + need;
      --holes;
      return;
    }
    offset[i] = top;
    top += need;
  };

  int released = 0;  // by_last[0 .. released) are free
  for (int k = 0; k < n; ++k) {
    const int i = by_first[k];
    while (released < n && buffers[by_last[released]].last_step < buffers[i].first_step)
      release(by_last[released++]);
    place(i);
  }
  return top;
}

// The orders the offline placement can take buffers in.
enum class PlacementOrder : std::uint8_t {
  largest_first,        // TensorFlow Lite's greedy by size
  longest_lived_first,  // buffers that constrain the most steps first
  largest_area_first,   // size × lifetime, the buffer's area in the step × byte plane
};

// Offline, greedy by size (as TensorFlow Lite's arena planner): largest buffers first, each at
// the lowest offset where it overlaps no placed buffer whose lifetime meets its own.
// O(buffers²), so used only for models with few buffers. Returns the region size.
template <std::size_t L>
constexpr std::int64_t place_by_size(const PlanState<L>& plan, Offsets<L>& offsets,
                                     PlacementOrder how = PlacementOrder::largest_first) {
  constexpr std::size_t cap = PlanState<L>::buffer_capacity;
  const auto& buffers = plan.buffers.items;
  auto& offset = offsets.at;
  StaticVector<int, cap> order;
  for (std::size_t i = 0; i < plan.buffers.size(); ++i)
    if (in_activation_region(buffers[i].role))
      order.push_back(static_cast<int>(i));
  // By the key, largest first; among equals the larger, the earlier-born, then the earlier-made
  // (a strict total order, so the result does not depend on the sort's stability).
  auto key = [&](const Buffer& x) -> std::int64_t {
    const std::int64_t life = x.last_step - x.first_step + 1;
    switch (how) {
      case PlacementOrder::longest_lived_first:
        return life;
      case PlacementOrder::largest_area_first:
        return life * x.occupied();
      case PlacementOrder::largest_first:
        break;
    }
    return x.occupied();
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Buffer& x = buffers[a];
    const Buffer& y = buffers[b];
    if (key(x) != key(y))
      return key(x) > key(y);
    if (x.occupied() != y.occupied())
      return x.occupied() > y.occupied();
    if (x.first_step != y.first_step)
      return x.first_step < y.first_step;
    return a < b;
  });
  std::int64_t top = 0;
  StaticVector<int, cap> by_offset;  // the placed buffers, sorted by offset
  const auto& placed = by_offset.items;
  for (int i : order) {
    const Buffer& b = buffers[i];
    const std::int64_t need = b.occupied();
    // Walk the placed buffers upwards; those alive with b push the candidate past their end,
    // until one starts far enough above it to leave room.
    std::int64_t candidate = 0;
    const std::size_t n = by_offset.size();
    for (std::size_t k = 0; k < n; ++k) {
      const int c = placed[k];
      const Buffer& o = buffers[c];
      if (o.first_step > b.last_step || b.first_step > o.last_step)
        continue;
      if (offset[c] >= candidate + need)
        break;
      const std::int64_t end = offset[c] + o.occupied();
      candidate = candidate > end ? candidate : end;
    }
    offset[i] = candidate;
    top = top > candidate + need ? top : candidate + need;
    std::size_t at = n;
    while (at > 0 && offset[placed[at - 1]] > candidate)
      --at;
    by_offset.insert(at, i);
  }
  return top;
}

// Above this many buffers only the online placement runs, to keep compile times low; above the
// second limit only one offline order is tried.
inline constexpr std::size_t offline_placement_limit = 256;
inline constexpr std::size_t extra_orders_limit = 128;

// The most bytes of activation buffers alive at one step: no placement can do with less.
// A sweep: each buffer adds its bytes at its first step and takes them away after its last.
template <std::size_t L>
constexpr std::int64_t live_bytes_bound(const PlanState<L>& plan) {
  std::int64_t change[PlanState<L>::step_capacity + 1]{};
  for (const Buffer& b : plan.buffers) {
    if (!in_activation_region(b.role))
      continue;
    change[b.first_step] += b.occupied();
    change[b.last_step + 1] -= b.occupied();
  }
  std::int64_t live = 0, bound = 0;
  for (std::int64_t s = 0; s < plan.step_count; ++s) {
    live += change[s];
    bound = bound > live ? bound : live;
  }
  return bound;
}

// Places the activation region at `base` and returns its size. Several placements are tried,
// cheapest first, and the smallest kept; the search stops once one meets the live-bytes bound.
// Meeting it matters beyond the bytes saved: the bound scales with the batch, so plans that meet
// it grow linearly and monotonically with the batch, which max_batch relies on.
template <std::size_t L>
constexpr std::int64_t place_activations(PlanState<L>& plan, std::int64_t base) {
  Offsets<L> best{};
  std::int64_t best_size = place_by_step(plan, best);
  const std::size_t count = plan.buffers.size();
  if (count <= offline_placement_limit) {
    const std::int64_t bound = count <= extra_orders_limit ? live_bytes_bound(plan) : 0;
    constexpr PlacementOrder orders[] = {PlacementOrder::largest_first,
                                         PlacementOrder::longest_lived_first,
                                         PlacementOrder::largest_area_first};
    for (PlacementOrder how : orders) {
      if (best_size <= bound)
        break;
      Offsets<L> candidate{};
      const std::int64_t size = place_by_size(plan, candidate, how);
      if (size < best_size) {
        best_size = size;
        best = candidate;
      }
      if (count > extra_orders_limit)
        break;
    }
  }
  auto& buffers = plan.buffers.items;
  const auto& offset = best.at;
  for (std::size_t i = 0; i < count; ++i)
    if (in_activation_region(buffers[i].role))
      buffers[i].offset = base + offset[i];
  return best_size;
}

}  // namespace staticnet::detail
