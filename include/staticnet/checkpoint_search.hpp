#pragma once
// The search Checkpoint<Auto> is built on (issue 39): among all the ways to cut a model into
// checkpointed segments, the one that recomputes the fewest FLOPs while its busiest step's live
// bytes stay within a budget. Exact, not a heuristic: a dynamic program over the segments, whose
// answer the tests compare with exhaustive search.
//
// The model. A model is n units (checkpointing.hpp: from one allowed cut to the next), numbered
// 0..n-1. A cut set c_1 < ... < c_m (a cut after unit c) makes checkpointed segments
// S_1 = 0..c_1, S_2 = c_1+1..c_2, ..., S_m, and the tail c_m+1..n-1, kept whole (no cut: the
// whole model is the tail, as without checkpointing). Forward keeps, of a checkpointed segment,
// only what its backward cannot compute again (its last tensor, a BatchNorm's statistics):
// `kept(i, j)` bytes for the segment of units i..j. While a segment's own steps run (its forward,
// then its recompute and its backward), every segment before it still holds what it kept, and
// nothing of a segment after it but what the segment's own phases account for; so its busiest
// step holds
//     K_{j-1} + local(i, j),   K_{j-1} = kept(S_1) + ... + kept(S_{j-1}),
// and the tail's busiest step K_m + tail(c_m + 1). The step's live peak is the largest of these,
// and its recomputation the sum of recompute(i, j) over the checkpointed segments.
//
// `Costs` gives those four functions of units (i <= j, both inclusive), `units()`, and
// `local_floor(i, j)`: at most local(i, j), and never less for a larger j, where the search stops
// growing a segment (0 is always right, and stops nothing). checkpoint_costs.hpp derives them from
// the plan; the tests give arbitrary ones, for which the search must still be exact. The search
// asks for a segment's costs a row at a time: every segment from unit i on, in order, before
// those from i + 1.
//
// The search. A state is a prefix of segments, ending at a unit: what its segments keep (K), what
// they recompute, and their busiest bytes so far. One state beats another ending at the same
// unit when it keeps no more and is no worse in (recompute, peak), in that order: every way to
// go on from the second goes on as well from the first (a smaller K leaves every later segment
// more room), and ends recomputing less, or as much and peaking no higher. (Only the order, not
// each of the three, matters: a state that recomputes more than one keeping no less can never
// lead to the answer, whatever its peak. On models whose segments differ, such as MobileNetV1,
// that keeps a tenth of the states three-way dominance would.) So each unit keeps only states
// nobody beats, in order of K, and each is extended by every next segment that fits, or
// finished with the tail. Of the finished ones, the answer recomputes least, and, among those,
// peaks lowest (the first found of equal ones: the answer is deterministic). A state already
// worse than an answer found is not extended: recomputation and peak only grow.
#include <cstddef>
#include <cstdint>

namespace staticnet::detail {

// What the search answers: whether any cut set fits, and the best one.
template <std::size_t MaxUnits>
struct CutChoice {
  bool fits = false;
  // More fronts' states than the search's capacity, or more comparisons than its allowance: no
  // answer (never a wrong one).
  bool out_of_states = false;
  std::int64_t compared = 0;   // states compared: extended, and against a front's
  std::int64_t recompute = 0;  // FLOPs
  std::int64_t peak = 0;       // the busiest step's live bytes, by the Costs' model
  std::int64_t segments = 0;   // checkpointed ones (the cuts)
  bool cut_after[MaxUnits]{};  // cut after unit u
};

// A prefix of checkpointed segments whose last ends at unit `end` (-1: none yet).
struct CutState {
  std::int64_t kept = 0;
  std::int64_t recompute = 0;
  std::int64_t peak = 0;
  std::int32_t end = -1;
  std::int32_t previous = -1;   // the state this one extends (-1: the start)
  std::int32_t next_same = -1;  // the next state ending at the same unit (or a free slot)
};

// Whether a's (recompute, peak) is no worse than b's: less recomputation, or as much and a peak
// as low.
constexpr bool cheaper_or_as_cheap(const CutState& a, const CutState& b) {
  return a.recompute < b.recompute || (a.recompute == b.recompute && a.peak <= b.peak);
}

// The cut set with the least recomputation whose live peak is at most `budget` bytes, by the
// model above. MaxUnits bounds costs.units(); Capacity bounds the states held at once, and
// `max_compared` the comparisons (what a search costs: each state extended, and each state of a
// front compared with a new one).
template <std::size_t MaxUnits, std::size_t Capacity, class Costs>
constexpr CutChoice<MaxUnits> least_recompute_cuts(Costs& costs, std::int64_t budget,
                                                   std::int64_t max_compared = std::int64_t{1}
                                                                               << 62) {
  CutChoice<MaxUnits> best;
  const auto n = static_cast<std::int32_t>(costs.units());
  if (n <= 0 || static_cast<std::size_t>(n) > MaxUnits)
    return best;
  CutState states[Capacity]{};
  std::int32_t count = 1;  // states[0]: the start, no segment yet
  // first_at[u + 1]: the first state ending at unit u (-1: none; u = -1 is the start's).
  std::int32_t first_at[MaxUnits + 1]{};
  for (std::size_t u = 0; u <= MaxUnits; ++u)
    first_at[u] = -1;
  first_at[0] = 0;
  // States a better one replaced before their unit came, whose slots new states take first.
  std::int32_t free_list = -1;
  std::int32_t best_state = -1;
  // No state that recomputes more than the best answer so far, or as much with a peak as high,
  // can lead to a better one (both only grow).
  auto beaten = [&](const CutState& s) {
    return best_state != -1 &&
           (s.recompute > best.recompute || (s.recompute == best.recompute && s.peak >= best.peak));
  };

  // Adds `s` to its unit's front unless a state there beats it; unlinks those it beats (their
  // unit is still to come, so no state extends them yet). A front is kept in order of kept
  // bytes, ascending, and so of (recompute, peak), descending: of the states that keep less than
  // `s`, only the last can beat it, and those `s` beats follow where it goes. The states of one
  // unit, extended by one segment, arrive in that order too: each insert goes on from where the
  // one before it stopped (`at`; a new front starts at its first state). False: no room for it,
  // or the allowance of comparisons spent.
  struct Place {
    std::int32_t* link;       // where in the front the search stopped: the link to the next state
    std::int32_t keeps_less;  // the state before it (-1: none)
  };
  auto insert = [&](const CutState& s, Place& at) {
    for (; *at.link != -1 && states[*at.link].kept < s.kept;
         at.link = &states[*at.link].next_same) {
      if (++best.compared > max_compared)
        return false;
      at.keeps_less = *at.link;
    }
    if (at.keeps_less != -1 && cheaper_or_as_cheap(states[at.keeps_less], s))
      return true;
    if (*at.link != -1 && states[*at.link].kept == s.kept &&
        cheaper_or_as_cheap(states[*at.link], s))
      return true;
    while (*at.link != -1 && cheaper_or_as_cheap(s, states[*at.link])) {
      if (++best.compared > max_compared)
        return false;
      const std::int32_t beaten_state = *at.link;
      *at.link = states[beaten_state].next_same;
      states[beaten_state].next_same = free_list;
      free_list = beaten_state;
    }
    std::int32_t slot = free_list;
    if (slot != -1)
      free_list = states[slot].next_same;
    else if (static_cast<std::size_t>(count) < Capacity)
      slot = count++;
    else
      return false;
    states[slot] = s;
    states[slot].next_same = *at.link;
    *at.link = slot;
    return true;
  };

  // Units in order: every state ending at c was made while the units before c were extended.
  for (std::int32_t c = -1; c < n - 1; ++c) {
    // Finish: the tail from c + 1 on. (Also the least kept of the states going on.)
    std::int64_t least_kept = -1;
    for (std::int32_t k = first_at[c + 1]; k != -1; k = states[k].next_same) {
      const CutState& s = states[k];
      if (beaten(s))
        continue;
      const std::int64_t tail_peak = s.kept + costs.tail(c + 1);
      const std::int64_t peak = tail_peak > s.peak ? tail_peak : s.peak;
      if (peak <= budget && (best_state == -1 || s.recompute < best.recompute ||
                             (s.recompute == best.recompute && peak < best.peak))) {
        best_state = k;
        best.recompute = s.recompute;
        best.peak = peak;
      }
      if (least_kept == -1 || s.kept < least_kept)
        least_kept = s.kept;
    }
    if (least_kept == -1)
      continue;
    // Extend: a checkpointed segment c + 1..d, which needs a cut after d (so d < n - 1), its
    // costs asked for once for every state ending at c.
    for (std::int32_t d = c + 1; d < n - 1 && least_kept + costs.local_floor(c + 1, d) <= budget;
         ++d) {
      const std::int64_t local = costs.local(c + 1, d);
      const std::int64_t kept = costs.kept(c + 1, d);
      const std::int64_t recompute = costs.recompute(c + 1, d);
      Place at{&first_at[d + 1], -1};
      for (std::int32_t k = first_at[c + 1]; k != -1; k = states[k].next_same) {
        const CutState& s = states[k];
        const std::int64_t busiest = s.kept + local;
        if (busiest > budget || beaten(s))
          continue;
        if (++best.compared > max_compared) {
          best.out_of_states = true;
          return best;
        }
        CutState next;
        next.kept = s.kept + kept;
        next.recompute = s.recompute + recompute;
        next.peak = busiest > s.peak ? busiest : s.peak;
        next.end = d;
        next.previous = k;
        if (beaten(next))
          continue;
        if (!insert(next, at)) {
          best.out_of_states = true;
          return best;
        }
      }
    }
  }
  if (best_state == -1)
    return best;
  best.fits = true;
  for (std::int32_t k = best_state; k > 0; k = states[k].previous) {
    best.cut_after[states[k].end] = true;
    ++best.segments;
  }
  return best;
}

}  // namespace staticnet::detail
