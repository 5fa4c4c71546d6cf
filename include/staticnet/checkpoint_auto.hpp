#pragma once
// Checkpoint<Auto<Budget>>: the cut set with the least recomputation whose whole step fits the
// budget, counted as fits() counts it (device_memory.hpp). The planning stage before plan_forward
// under Auto: it returns the graph with the cuts chosen (Graph::checkpoint_cut_words), or with
// the error that says no cut set fits.
//
// How. Checkpointing changes the activation region and nothing else, so the other regions, the
// trainer's host bytes where they count and the device's overhead are what they are without it:
// the budget less those is what the activations may take. checkpoint_costs.hpp prices every
// segment from the plan without checkpointing, and checkpoint_search.hpp finds the least
// recomputation whose busiest step's live bytes fit that (exactly: the tests compare it with
// exhaustive search over every cut set). Placement may then lay those live bytes out in a larger
// region (a gap between buffers: 5.7 % of the random models' plans have one); so the chosen cut
// set is planned in full, and if its step exceeds the budget the search runs again with the
// activations' share lowered by the excess (and below that cut set's live bytes), at most eight
// times. The first try's answer, where it fits, is the least recomputation of any cut set that
// fits; a later try's is the least at its lowered budget, not always the least of all that fit
// (test_planner_graphs.cpp counts how often that happens on random models).
//
// plan.hpp includes this header before its type-level entry points (plan() calls the stage
// below, which plans with plan.hpp's stages, and the entry points run its tries as constants).
#include <cstddef>
#include <cstdint>

#include "staticnet/checkpoint_costs.hpp"
#include "staticnet/checkpoint_search.hpp"
#include "staticnet/device_memory.hpp"
#include "staticnet/plan.hpp"

namespace staticnet::detail {

// checkpoint_costs.hpp's, declared here too: a program that includes checkpoint_costs.hpp first
// comes here through plan.hpp before its definition (both are complete where anything plans).
template <std::size_t L>
class CheckpointPricer;

// What Auto takes on before it stops with checkpoint_search_too_large, rather than run the
// compiler past its limits (g++'s -fconstexpr-ops-limit, which it reaches after about three
// seconds of evaluation: it charges every value read and written): the layers CheckpointPricer
// lays out (a row's segments a unit at a time: each unit's layers, and half the previous unit's
// again), and the states the search compares (each extended, and each of a front passed on the
// way to where a new one goes), both over the whole choice, the refusal's search for the least
// need included. Measured at Sqrt's budget (bench/RESULTS.md, "Checkpoint<Auto>"): a chain of 101
// units (201 layers) lays out 5,872 layers and compares 29,354 states, and plans in 2.4 s; one of
// 151 units needs 10,790 and 66,380, which at these allowances' next step up (10,000 and 60,000)
// ran past g++'s limit, and so stops here; ResNet-50 needs 920 and 446, MobileNetV1 2,502 and
// 18,990.
inline constexpr std::int64_t auto_pricing_limit = 8'000;
inline constexpr std::int64_t auto_comparison_limit = 50'000;

// What the search holds at once, at most: ample for the chains and residual networks measured
// (bench/compile_cost/checkpoint.py); more makes the error checkpoint_search_too_large.
template <std::size_t L>
inline constexpr std::size_t auto_search_states = 16 * L + 1024;

// The step's bytes other than its activations, as required_memory() counts them on device d:
// the other regions, the host's part where it shares the device's memory, the overhead.
template <std::size_t L>
constexpr std::int64_t bytes_besides_activations(const Graph<L>& g, const PlanState<L>& s,
                                                 const Device& d) {
  std::int64_t region_size[region_count]{};  // as place() sums them, but the activations (0)
  for (std::size_t b = 0; b < s.buffers.size(); ++b) {
    const Buffer& x = s.buffers.items[b];
    if (!in_activation_region(x.role))
      region_size[static_cast<int>(x.region())] += x.occupied();
  }
  const Footprint f = footprint_of(region_size);
  return (f.total() - flash_part(f, g.setup, d) + shared_host_part(host_footprint(g, s, f), d) +
          d.overhead)
      .count;
}

// A search's Costs with every recomputation free: it then finds the lowest peak.
template <class Costs>
struct PeakOnly {
  Costs& costs;
  constexpr std::int64_t units() const { return costs.units(); }
  constexpr std::int64_t local(std::int64_t i, std::int64_t j) { return costs.local(i, j); }
  constexpr std::int64_t kept(std::int64_t i, std::int64_t j) { return costs.kept(i, j); }
  constexpr std::int64_t recompute(std::int64_t, std::int64_t) const { return 0; }
  constexpr std::int64_t tail(std::int64_t i) { return costs.tail(i); }
  constexpr std::int64_t local_floor(std::int64_t i, std::int64_t j) {
    return costs.local_floor(i, j);
  }
};

template <std::size_t L>
constexpr void set_cuts(Graph<L>& g, const CutChoice<L>& choice) {
  for (std::uint64_t& word : g.checkpoint_cut_words)
    word = 0;
  for (std::size_t u = 0; u < L; ++u)
    if (choice.cut_after[u])
      g.checkpoint_cut_words[u / 64] |= std::uint64_t{1} << (u % 64);
}

// The graph as it plans without checkpointing, which Auto prices from.
template <std::size_t L>
constexpr Graph<L> without_checkpointing(const Graph<L>& g) {
  Graph<L> plain = g;
  plain.setup.checkpoint = CheckpointKind::none;
  return plain;
}

// What the activations may take of the budget: all that the rest of the step leaves.
template <std::size_t L>
constexpr std::int64_t activation_share(const Graph<L>& plain, const PlanState<L>& unsegmented) {
  const Device& d = plain.setup.checkpoint_budget;
  return d.memory.count - bytes_besides_activations(plain, unsegmented, d);
}

// One try: `g` with the cut set that recomputes least among those whose live peak is at most
// `share` bytes (Graph::checkpoint_live_peak: that peak; no cut at all where the step fits
// without one), priced from `unsegmented`, the plan without checkpointing; or with the error
// that none is. `first_share` is what the whole budget leaves the activations
// (activation_share()); a later try, at a share below it, has `placed_before`: the activations
// the try before it placed, which a failure reports.
template <std::size_t L>
constexpr Graph<L> choose_cuts(const Graph<L>& g, const PlanState<L>& unsegmented,
                               std::int64_t share, std::int64_t first_share,
                               std::int64_t placed_before = 0) {
  Graph<L> chosen = g;
  if (!g.error.ok())
    return chosen;
  chosen.checkpoint_chosen = true;
  CheckpointPricer<L> prices(g, unsegmented);
  const std::int64_t whole = prices.tail(0);  // no cut: all of it laid out once
  if (whole <= share) {                       // it fits as it is: nothing to recompute, no search
    chosen.checkpoint_live_peak = whole;
    return chosen;
  }
  const std::int64_t memory = g.setup.checkpoint_budget.memory.count;
  auto fail = [&](ErrorCode code, std::int64_t a, std::int64_t b) {
    chosen.error.code = code;
    chosen.error.a = a;
    chosen.error.b = b;
    return chosen;
  };
  prices.stop_after(prices.layers_priced() + auto_pricing_limit);
  const auto choice =
      least_recompute_cuts<L, auto_search_states<L>>(prices, share, auto_comparison_limit);
  if (choice.out_of_states || prices.stopped())
    return fail(ErrorCode::checkpoint_search_too_large, prices.units(), 0);
  if (choice.fits) {
    set_cuts(chosen, choice);
    chosen.checkpoint_live_peak = choice.peak;
    return chosen;
  }
  // Nothing fits the share. Below the first, cut sets did fit by their live bytes, but the arena
  // laid the last one tried out past the budget: what it needed.
  if (share < first_share)
    return fail(ErrorCode::checkpoint_placement_over_budget, memory,
                memory - first_share + placed_before);
  // The least any cut set needs, by its live bytes: the search with recomputation free, within
  // budgets that widen from the share on (a wide one prices long segments that a narrow one
  // never asks for), all within what the allowances have left.
  PeakOnly<CheckpointPricer<L>> peak_only{prices};
  std::int64_t comparisons_left = auto_comparison_limit - choice.compared;
  const std::int64_t from = share > 0 ? share : 0;  // (the rest of the step may overrun it)
  for (std::int64_t gap = from / 16 + 4096;; gap *= 4) {
    const std::int64_t within = from + gap < whole ? from + gap : whole;
    const auto lowest =
        least_recompute_cuts<L, auto_search_states<L>>(peak_only, within, comparisons_left);
    comparisons_left -= lowest.compared;
    if (prices.stopped() || lowest.out_of_states)
      return fail(ErrorCode::checkpoint_search_too_large, prices.units(), 0);
    if (lowest.fits)  // as it must within `whole`: no cut fits that
      return fail(ErrorCode::checkpoint_budget_too_small, memory,
                  memory - first_share + lowest.peak);
  }
}

// The error after the last try, whose activations were placed in `placed` bytes, past the first
// share: what that try needs, over the budget.
template <std::size_t L>
constexpr Graph<L> over_budget(Graph<L> tried, std::int64_t placed, std::int64_t first_share) {
  tried.error.code = ErrorCode::checkpoint_placement_over_budget;
  tried.error.a = tried.setup.checkpoint_budget.memory.count;
  tried.error.b = tried.error.a - first_share + placed;
  return tried;
}

// The share of the next try, after one whose activations were placed in `placed` bytes, past the
// first share: lowered by the excess, and below the tried cut set's live peak, so that the next
// try is another.
constexpr std::int64_t next_share(std::int64_t share, std::int64_t live_peak, std::int64_t placed,
                                  std::int64_t first_share) {
  const std::int64_t lowered = share - (placed - first_share);
  return lowered < live_peak - 1 ? lowered : live_peak - 1;
}
inline constexpr int auto_tries = 8;

// The activation region a graph's plan places (one constant evaluation: the whole plan but the
// Plan itself).
template <std::size_t L>
constexpr std::int64_t placed_activations(const Graph<L>& g) {
  return place(plan_backward(g, plan_forward(g)))
      .region_size[static_cast<int>(Region::activations)];
}

// The stage, in one evaluation (plan() calls it; the type-level entry points run each try as
// constants of their own, plan.hpp): under Checkpoint<Auto>, the graph with its cut set chosen;
// any other graph as it is.
template <std::size_t L>
constexpr Graph<L> with_least_recompute(const Graph<L>& g) {
  if (!g.error.ok() || g.setup.mode != Mode::training ||
      g.setup.checkpoint != CheckpointKind::least || g.checkpoint_chosen)
    return g;
  const Graph<L> plain = without_checkpointing(g);
  const PlanState<L> unsegmented = plan_backward(plain, plan_forward(plain));
  const std::int64_t first = activation_share(plain, unsegmented);
  std::int64_t share = first, placed = 0;
  for (int t = 0;; ++t) {
    Graph<L> chosen = choose_cuts(g, unsegmented, share, first, placed);
    if (!chosen.error.ok())
      return chosen;
    placed = placed_activations(chosen);
    if (placed <= first)
      return chosen;
    if (t + 1 == auto_tries)
      return over_budget(chosen, placed, first);
    share = next_share(share, chosen.checkpoint_live_peak, placed, first);
  }
}

}  // namespace staticnet::detail
