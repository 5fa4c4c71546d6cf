#pragma once
// What the planner's stages (plan.hpp) hand each other: the buffers with their lifetimes (and,
// once placed, their offsets) and each layer's buffers. Only the last stage builds the Plan, with
// every layer described from its graph node.
//
// Why not hand the Plan itself on: each stage is a constant of its own, and a compiler keeps
// every constant to the end of the translation unit. g++ holds a LayerPlan in about 4 KB of
// trees, so at ten thousand layers each Plan handed on cost about 40 MB to keep and as much again
// to copy (bench/RESULTS.md, "Compile cost of planning"). A LayerBuffers is a fifth of that.
#include <cstddef>
#include <cstdint>

#include "staticnet/plan_types.hpp"
#include "staticnet/static_vector.hpp"

namespace staticnet::detail {

template <std::size_t L>
struct PlanState {
  static constexpr std::size_t buffer_capacity = Plan<L>::buffer_capacity;
  static constexpr std::size_t step_capacity = Plan<L>::step_capacity;

  StaticVector<Buffer, buffer_capacity> buffers;
  LayerBuffers layers[L]{};
  std::int64_t step_count = 0;
  std::int64_t region_offset[region_count]{};  // set by place()
  std::int64_t region_size[region_count]{};    // set by place()
};

}  // namespace staticnet::detail
