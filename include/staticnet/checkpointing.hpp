#pragma once
// Gradient checkpointing's segments (Checkpoint<P>, setup.hpp): where the model may be
// cut, and where the setup's policy cuts it. plan.hpp's stages read the result: plan_forward keeps
// each segment's input, and plan_backward computes the segment's dropped tensors again before its
// backward (plan.hpp, "Checkpointing").
//
// A cut after layer i is allowed where tensor i is one every path from the input to the loss
// crosses: no later layer reads a tensor made before it (in a residual network, between blocks).
// Recomputing a segment then needs its input and nothing else. Nor is a layer cut from one that
// writes its output into its input's buffer (an elementwise activation, a Dropout or an Add that
// may run in place over it, a Flatten that views it): forward keeps a segment's input, so a cut
// there would change what runs in place, and a segment's first tensor would be its input's. So
// forward's buffers are the same under every cut set, and one plan prices them all
// (checkpoint_costs.hpp).
//
// The cuts split the layers into units, from one allowed cut to the next; a segment is a run of
// whole units. Every<K> makes segments of K units, Sqrt of ⌈√n⌉ of the n units; under
// CheckpointKind::cuts, SetupDesc::checkpoint_cuts names the cuts (bit i: the i-th allowed one),
// and under Auto the Graph does (checkpoint_auto.hpp).
#include <cstddef>
#include <cstdint>

#include "staticnet/node.hpp"
#include "staticnet/setup.hpp"

namespace staticnet::detail {

// Where each layer stands under the setup's checkpointing.
template <std::size_t L>
struct Segments {
  // A checkpointed segment ends at this layer: its output is the next segment's input, kept
  // from forward to backward. The last segment (from the last cut on) keeps everything.
  bool ends[L]{};
  // One past the last layer of the checkpointed segment each layer is in, or 0 where its segment
  // is the last, kept whole (so that the zeros every plan starts with mean "not checkpointed").
  std::int64_t end_after[L]{};

  constexpr bool checkpointed(std::int64_t layer) const { return end_after[layer] > 0; }
  // The last layer of layer's segment (a checkpointed one's).
  constexpr std::int64_t end_of(std::int64_t layer) const { return end_after[layer] - 1; }
};

// True where a cut after layer i is allowed (above). The last layer is never cut after.
template <std::size_t L>
constexpr void allowed_cuts(const Node (&nodes)[L], bool (&allowed)[L]) {
  // shared[t]: a layer reading tensor t may write its output into t's buffer: over it in place
  // (plan_forward's rule, in training: an elementwise layer, a Dropout, an Add that takes t first),
  // or as a view of it (a Flatten).
  bool shared[L]{};
  for (std::size_t r = 0; r < L; ++r) {
    const LayerKind kind = nodes[r].desc.kind;
    for (int k = 0; k < nodes[r].input_count(); ++k) {
      const std::int32_t t = nodes[r].inputs[k];
      if (t != model_input && (is_elementwise(kind) || kind == LayerKind::Dropout ||
                               kind == LayerKind::Flatten || (kind == LayerKind::Add && k == 0)))
        shared[t] = true;
    }
  }
  // earliest: the earliest tensor a layer after j reads (model_input, -1, the earliest).
  std::int64_t earliest = static_cast<std::int64_t>(L);
  for (std::size_t j = L; j-- > 0;) {
    allowed[j] = j + 1 < L && earliest >= static_cast<std::int64_t>(j) && !shared[j];
    for (int k = 0; k < nodes[j].input_count(); ++k)
      if (nodes[j].inputs[k] < earliest)
        earliest = nodes[j].inputs[k];
  }
}

// The smallest K with K·K >= n.
constexpr std::int64_t ceil_sqrt(std::int64_t n) {
  std::int64_t k = 0;
  while (k * k < n)
    ++k;
  return k;
}

// The segments the setup's policy makes, for a graph's nodes and, under Checkpoint<Auto>, the
// cut set it chose (Graph::checkpoint_cut_words). Under Checkpoint<None> (and in inference)
// there are none: nothing is checkpointed.
template <std::size_t L>
constexpr Segments<L> checkpoint_segments(const SetupDesc& setup, const Node (&nodes)[L],
                                          const std::uint64_t* chosen_cuts) {
  Segments<L> s;
  if (setup.mode != Mode::training || setup.checkpoint == CheckpointKind::none)
    return s;
  bool allowed[L]{};
  allowed_cuts(nodes, allowed);
  std::int64_t units = 1;
  for (bool a : allowed)
    units += a ? 1 : 0;
  // (Every<K> asserts K >= 1; a SetupDesc made by hand with 0 gets segments of one unit.)
  const std::int64_t per_segment = setup.checkpoint == CheckpointKind::sqrt ? ceil_sqrt(units)
                                   : setup.checkpoint_every > 1             ? setup.checkpoint_every
                                                                            : 1;
  // Cut after every per_segment-th allowed cut, or where the cut set says.
  std::int64_t seen = 0;
  for (std::size_t i = 0; i < L; ++i) {
    if (!allowed[i])
      continue;
    switch (setup.checkpoint) {
      case CheckpointKind::cuts:
        s.ends[i] = seen < 64 && ((setup.checkpoint_cuts >> seen) & 1) != 0;
        break;
      case CheckpointKind::least:
        s.ends[i] = ((chosen_cuts[seen / 64] >> (seen % 64)) & 1) != 0;
        break;
      default:
        s.ends[i] = (seen + 1) % per_segment == 0;
    }
    ++seen;
  }
  // Each layer up to the last cut is in a checkpointed segment: the one ending at the next cut.
  std::int64_t end_after = 0;
  for (std::size_t i = L; i-- > 0;) {
    if (s.ends[i])
      end_after = static_cast<std::int64_t>(i) + 1;
    s.end_after[i] = end_after;
  }
  return s;
}

}  // namespace staticnet::detail
