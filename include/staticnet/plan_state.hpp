#pragma once
// What the planner's stages (plan.hpp) hand each other: the buffers with their lifetimes (and,
// once placed, their offsets), the schedule's steps and accesses, and each layer's buffers. Only
// the last stage builds the Plan, with every layer described from its graph node.
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
  StaticVector<Step, Plan<L>::step_capacity> steps;
  StaticVector<std::int64_t, Plan<L>::access_capacity> access_codes;  // Access::encode
  // The version the next write of each buffer makes (made buffers start at 0, persistent ones
  // at 1: they enter the step holding version 0).
  std::int32_t next_version[buffer_capacity]{};
  LayerBuffers layers[L]{};
  int loss_buffer = no_buffer;  // training: what the loss step writes
  int predictions_buffer = no_buffer;
  std::int64_t micro_batches = 1;              // Accumulate<K>: K (the setup's)
  std::int64_t step_count = 0;                 // set by place()
  std::int64_t region_offset[region_count]{};  // set by place()
  std::int64_t region_size[region_count]{};    // set by place()
};

}  // namespace staticnet::detail
