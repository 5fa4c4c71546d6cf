#pragma once
// What every way of checkpointing a model costs, priced from one plan of it without
// checkpointing: the numbers checkpoint_search.hpp's search takes (Checkpoint<Auto>).
//
// Why one plan is enough. Forward's buffers and accesses are the same under every cut set
// (checkpointing.hpp allows no cut where a layer could write into the cut's buffer), and so are
// backward's. Checkpointing a segment changes three things only: its dropped buffers die after
// their last forward reader, recompute steps before its backward write copies of those backward
// reads, and its steps come in another order (forward of every segment, then the tail's
// backward, then each checkpointed segment's recompute and backward, the last first). So a
// segment's own steps can be laid out again from the plain plan's accesses, with each buffer's
// lifetime on them, and so can the tail's. plan.hpp's mark_recomputed says which layers run
// again, for the planner and for this.
//
// What a segment of layers a..z costs, as checkpoint_search.hpp's model has it:
//   local: the most bytes alive at once during its own steps, other than what the segments before
//          it keep: its buffers and their copies, its input (the tensor before a) while alive, the
//          gradients that reach it from after z, the losses and predictions where alive;
//   kept:  what stays alive after its forward for its recompute and backward, so every later
//          segment's steps see it: its BatchNorms' statistics, the last layer's buffers backward
//          reads, and its input where a recompute step or a backward reads it (its own last
//          tensor is the next segment's input, counted there);
//   recompute: the FLOPs of its recompute steps.
// The tests check that the largest K_{j-1} + local of the segments and K_m + tail is the live
// peak of the plan a cut set makes, for every cut set of random models ("every segmentation ...",
// test_planner_graphs.cpp) and for cut sets of the sample models (test_checkpoint_auto.cpp).
#include <cstddef>
#include <cstdint>

#include "staticnet/checkpoint_search.hpp"
#include "staticnet/checkpointing.hpp"
#include "staticnet/plan.hpp"

namespace staticnet::detail {

struct SegmentPrice {
  std::int64_t local = 0;
  std::int64_t kept = 0;
  std::int64_t recompute = 0;
};

// The Costs checkpoint_search.hpp's least_recompute_cuts takes, for a graph and its plan without
// checkpointing (plan_backward's state: every step and access, lifetimes not yet extended). Of the
// graph it reads the nodes and the micro-batches, never its checkpointing policy.
// Units are those of checkpointing.hpp. A checkpointed segment's prices are kept a row at a time
// (every segment from one unit on, as the search asks for them); each is laid out anew.
template <std::size_t L>
class CheckpointPricer {
 public:
  static constexpr std::size_t buffer_capacity = PlanState<L>::buffer_capacity;
  static constexpr std::int32_t never = static_cast<std::int32_t>(L);  // no backward reads it

  constexpr CheckpointPricer(const Graph<L>& g, const PlanState<L>& plain) : g_(g), p_(plain) {
    bool allowed[L]{};
    allowed_cuts(g.nodes, allowed);
    for (std::size_t i = 0; i < L; ++i) {
      if (i == 0 || allowed[i - 1])
        unit_first_[units_++] = static_cast<std::int32_t>(i);
      unit_last_[units_ - 1] = static_cast<std::int32_t>(i);
    }
    for (std::size_t b = 0; b < buffer_capacity; ++b) {
      last_forward_[b] = -1;
      min_backward_[b] = never;
      last_recompute_[b] = -1;
    }
    for (std::size_t s = 0; s < p_.steps.size(); ++s) {
      const Step& step = p_.steps.items[s];
      if (step.kind == StepKind::forward)
        forward_step_[step.layer] = static_cast<std::int32_t>(s);
      else if (step.kind == StepKind::backward)
        backward_step_[step.layer] = static_cast<std::int32_t>(s);
      else if (step.kind == StepKind::loss)
        loss_step_ = static_cast<std::int32_t>(s);
      for (std::int64_t a = step.first_access; a < end_of_step(s); ++a) {
        const int b = Access::decode(p_.access_codes.items[a]).buffer;
        if (step.kind == StepKind::forward && step.layer > last_forward_[b])
          last_forward_[b] = static_cast<std::int32_t>(step.layer);
        if (step.kind == StepKind::backward && step.layer < min_backward_[b])
          min_backward_[b] = static_cast<std::int32_t>(step.layer);
      }
    }
    // The floor (local_floor): the plan's live activation bytes at each backward step, the bytes
    // forward makes that a backward reads, by maker, and the losses and predictions.
    std::int64_t change[PlanState<L>::step_capacity + 1]{};
    for (std::size_t b = 0; b < p_.buffers.size(); ++b) {
      const Buffer& x = p_.buffers.items[b];
      if (!in_activation_region(x.role))
        continue;
      change[x.first_step] += x.occupied();
      change[x.last_step + 1] -= x.occupied();
      if (made_by(static_cast<int>(b)).kind == StepKind::forward && min_backward_[b] != never)
        read_back_before_[x.layer + 1] += x.occupied();
      if (x.role == BufferRole::loss || x.role == BufferRole::predictions)
        results_ += x.occupied();
    }
    std::int64_t live = 0;
    for (std::size_t s = 0; s < p_.steps.size(); ++s) {
      live += change[s];
      if (p_.steps.items[s].kind == StepKind::backward)
        live_at_backward_[p_.steps.items[s].layer] = live;
    }
    for (std::size_t i = 0; i < L; ++i)
      read_back_before_[i + 1] += read_back_before_[i];
  }

  // checkpoint_search.hpp's Costs.
  constexpr std::int64_t units() const { return units_; }
  constexpr std::int64_t local(std::int64_t i, std::int64_t j) { return row(i, j).local; }
  constexpr std::int64_t kept(std::int64_t i, std::int64_t j) { return row(i, j).kept; }
  constexpr std::int64_t recompute(std::int64_t i, std::int64_t j) { return row(i, j).recompute; }
  constexpr std::int64_t tail(std::int64_t i) {
    if (!tail_known_[i]) {
      tail_[i] = price(unit_first_[i], static_cast<std::int64_t>(L) - 1, false).local;
      tail_known_[i] = true;
    }
    return tail_[i];
  }
  // At most local(i, j), and never less for a larger j: the busiest of the segment's backward
  // steps. Checkpointing leaves them as they are without it, but for what the layers before the
  // segment keep: there, what forward made before it that a backward reads, less its input
  // (which the segment's own steps count), and here, the losses and predictions (which the plan
  // without checkpointing drops after the loss step, before extend_lifetimes keeps them). The
  // search stops growing a segment there.
  constexpr std::int64_t local_floor(std::int64_t i, std::int64_t j) {
    start_row(i);
    floor_row(i, j);
    return row_floor_[j];
  }
  // The layers price() has laid out so far, summed over its calls, and whether they passed
  // `limit`: from then on, price() gives every segment more bytes than any budget has (so a
  // search ends), and the caller reports that it stopped (checkpoint_auto.hpp).
  constexpr std::int64_t layers_priced() const { return layers_priced_; }
  constexpr void stop_after(std::int64_t limit) { limit_ = limit; }
  constexpr bool stopped() const { return layers_priced_ > limit_; }

  // The layers of a unit.
  constexpr std::int64_t first_layer(std::int64_t unit) const { return unit_first_[unit]; }
  constexpr std::int64_t last_layer(std::int64_t unit) const { return unit_last_[unit]; }

  // The prices of layers a..z, checkpointed or (the tail) kept whole.
  constexpr SegmentPrice price(std::int64_t a, std::int64_t z, bool checkpointed) {
    const std::int64_t length = z - a + 1;
    layers_priced_ += length;
    if (stopped())
      return {.local = std::int64_t{1} << 62};
    std::int64_t recomputes = 0;
    SegmentPrice price;
    const int end_output = p_.layers[z].output_buffer;
    if (checkpointed) {
      mark_recomputed(
          g_, p_, a, z, [&](std::int64_t k) { return p_.layers[k].output_buffer != end_output; },
          needed_, recomputed_);
      for (std::int64_t k = a; k <= z; ++k) {
        if (!recomputed_[k])
          continue;
        recompute_at_[k] = length + recomputes++;
        price.recompute += recompute_flops_of(g_.nodes[k], g_.setup.micro_batches);
        for_each_access(forward_step_[k], [&](int b) { last_recompute_[b] = recompute_at_[k]; });
      }
    }
    // The segment's steps, in order: forward of a..z; then its recompute steps (checkpointed) or
    // the loss (the tail); then backward of z..a.
    const std::int64_t after_forward = length;  // the first recompute or backward step, or the loss
    const std::int64_t backward = checkpointed ? length + recomputes : length + 1;
    const std::int64_t last = backward + length - 1;
    auto backward_of = [&](std::int64_t layer) { return backward + (z - layer); };
    for (std::int64_t t = 0; t <= last + 1; ++t)
      alive_change_[t] = 0;
    auto alive = [&](int b, std::int64_t from, std::int64_t to) {
      alive_change_[from] += p_.buffers.items[b].occupied();
      alive_change_[to + 1] -= p_.buffers.items[b].occupied();
    };
    const bool whole_step_results = g_.setup.micro_batches > 1;  // plan.hpp's extend_lifetimes
    auto visit = [&](int b) {
      const Buffer& x = p_.buffers.items[b];
      if (seen_[b] || !in_activation_region(x.role))
        return;
      seen_[b] = true;
      const Step& maker = made_by(b);
      const std::int32_t read_back = min_backward_[b];
      const bool read_back_here = read_back >= a && read_back <= z;
      const bool read_back_after = read_back < a;  // by a backward after this segment's
      std::int64_t last_use = read_back_here ? backward_of(read_back) : -1;
      if (x.role == BufferRole::loss || x.role == BufferRole::predictions) {
        alive(b, whole_step_results ? 0 : after_forward, last);
      } else if (maker.kind != StepKind::forward) {  // a gradient (the loss makes the output's)
        const std::int64_t made = maker.kind == StepKind::backward && maker.layer <= z
                                      ? backward_of(maker.layer)
                                      : after_forward;
        alive(b, made, read_back_after ? last : last_use);
      } else if (maker.layer < a) {  // the segment's input
        last_use = max_of(last_use, max_of(last_forward_[b] - a, last_recompute_[b]));
        alive(b, 0, read_back_after ? last : last_use);
        if (checkpointed && (read_back != never || last_recompute_[b] >= 0))
          price.kept += x.occupied();
      } else if (!checkpointed) {  // the tail keeps everything
        const bool loss_reads = b == p_.layers[L - 1].output_buffer;
        last_use = max_of(last_use, max_of(last_forward_[b] - a, loss_reads ? after_forward : -1));
        alive(b, maker.layer - a, last_use);
      } else if (x.role == BufferRole::batch_statistics ||
                 p_.layers[x.layer].output_buffer == end_output) {  // not dropped
        const bool later = last_forward_[b] > z || read_back != never || last_recompute_[b] >= 0;
        alive(b, maker.layer - a, later ? length - 1 : last_forward_[b] - a);
        last_use = read_back_after ? last : max_of(last_use, last_recompute_[b]);
        if (last_use >= 0) {
          alive(b, after_forward, last_use);
          if (b != end_output)
            price.kept += x.occupied();
        }
      } else {  // dropped after its last forward reader
        alive(b, maker.layer - a, last_forward_[b] - a);
        // Its layer's recompute step writes all it wrote again, needed or not (plan.hpp).
        if (recomputed_[maker.layer])
          alive(b, recompute_at_[maker.layer], max_of(last_use, last_recompute_[b]));
      }
    };
    for (std::int64_t k = a; k <= z; ++k) {
      for_each_access(forward_step_[k], visit);
      for_each_access(backward_step_[k], visit);
    }
    if (checkpointed) {  // the losses and predictions: made before, read after
      if (p_.loss_buffer != no_buffer)
        visit(p_.loss_buffer);
      if (p_.predictions_buffer != no_buffer)
        visit(p_.predictions_buffer);
    } else {
      for_each_access(loss_step_, visit);
    }
    std::int64_t bytes = 0;
    for (std::int64_t t = 0; t <= last; ++t) {
      bytes += alive_change_[t];
      price.local = max_of(price.local, bytes);
    }
    // Leave the scratch as it was found.
    auto forget = [&](int b) {
      seen_[b] = false;
      needed_[b] = false;
      last_recompute_[b] = -1;
    };
    for (std::int64_t k = a; k <= z; ++k) {
      for_each_access(forward_step_[k], forget);
      for_each_access(backward_step_[k], forget);
      recomputed_[k] = false;
    }
    for_each_access(loss_step_, forget);  // the losses and predictions
    return price;
  }

 private:
  static constexpr std::int64_t max_of(std::int64_t x, std::int64_t y) { return x > y ? x : y; }
  constexpr std::int64_t end_of_step(std::size_t s) const {
    return s + 1 < p_.steps.size() ? p_.steps.items[s + 1].first_access
                                   : static_cast<std::int64_t>(p_.access_codes.size());
  }
  template <class F>
  constexpr void for_each_access(std::int32_t step, const F& f) const {
    const auto s = static_cast<std::size_t>(step);
    for (std::int64_t a = p_.steps.items[s].first_access; a < end_of_step(s); ++a)
      f(Access::decode(p_.access_codes.items[a]).buffer);
  }
  constexpr const Step& made_by(int b) const {
    return p_.steps.items[p_.buffers.items[b].first_step];
  }
  // The prices of units i..j checkpointed, from the row of unit i (computed up to j), and its
  // floors (the same).
  constexpr void start_row(std::int64_t i) {
    if (row_ == i)
      return;
    row_ = i;
    row_known_ = i - 1;
    row_floored_ = i - 1;
    busiest_backward_ = 0;
  }
  constexpr const SegmentPrice& row(std::int64_t i, std::int64_t j) {
    start_row(i);
    for (; row_known_ < j; ++row_known_)
      row_prices_[row_known_ + 1] = price(unit_first_[i], unit_last_[row_known_ + 1], true);
    return row_prices_[j];
  }
  constexpr void floor_row(std::int64_t i, std::int64_t j) {
    const std::int64_t a = unit_first_[i];
    std::int64_t before = read_back_before_[a];
    if (a > 0) {  // the segment's input is its own steps' to count, where forward made it
      const int input = p_.layers[a - 1].output_buffer;  // (a Flatten's: maybe the model's input)
      if (in_activation_region(p_.buffers.items[input].role) &&
          made_by(input).kind == StepKind::forward && min_backward_[input] != never)
        before -= p_.buffers.items[input].occupied();
    }
    for (; row_floored_ < j; ++row_floored_) {
      const std::int64_t u = row_floored_ + 1;
      for (std::int64_t l = unit_first_[u]; l <= unit_last_[u]; ++l)
        busiest_backward_ = max_of(busiest_backward_, live_at_backward_[l]);
      row_floor_[u] = busiest_backward_ - before + results_;
    }
  }

  const Graph<L>& g_;
  const PlanState<L>& p_;
  std::int64_t units_ = 0;
  std::int64_t layers_priced_ = 0;
  std::int64_t limit_ = std::int64_t{1} << 62;
  std::int32_t unit_first_[L]{};
  std::int32_t unit_last_[L]{};
  std::int32_t forward_step_[L]{};
  std::int32_t backward_step_[L]{};
  std::int32_t loss_step_ = 0;
  std::int32_t last_forward_[buffer_capacity]{};  // the last layer whose forward touches it
  std::int32_t min_backward_[buffer_capacity]{};  // the last layer whose backward does (never)
  // local_floor's: the plan's live bytes at each layer's backward step; by maker, the prefix sums
  // of the bytes forward makes that a backward reads; the losses' and predictions' bytes.
  std::int64_t live_at_backward_[L]{};
  std::int64_t read_back_before_[L + 1]{};
  std::int64_t results_ = 0;
  // Scratch for price(), left as it was found.
  bool seen_[buffer_capacity]{};
  bool needed_[buffer_capacity]{};
  std::int64_t last_recompute_[buffer_capacity]{};  // its last recompute step in the segment, or -1
  bool recomputed_[L]{};
  std::int64_t recompute_at_[L]{};
  std::int64_t alive_change_[3 * L + 3]{};
  // The row of checkpointed segments being priced, and the tails.
  std::int64_t row_ = -1;
  std::int64_t row_known_ = -1;
  SegmentPrice row_prices_[L]{};
  std::int64_t row_floored_ = -1;
  std::int64_t busiest_backward_ = 0;
  std::int64_t row_floor_[L]{};
  std::int64_t tail_[L]{};
  bool tail_known_[L]{};
};

}  // namespace staticnet::detail
