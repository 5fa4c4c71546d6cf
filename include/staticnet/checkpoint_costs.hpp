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
// (every segment from one unit on, as the search asks for them), each priced from the one before
// it a unit shorter (extend_row); price() lays one segment out whole, for the rare row that
// cannot be extended so, and for the tests, which check that the two agree on every segment of
// 2,100 random models. The tails come from the plain plan's live bytes at each step.
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
      if (is_result(static_cast<int>(b))) {
        results_ += x.occupied();
        continue;
      }
      change[x.first_step] += x.occupied();
      change[x.last_step + 1] -= x.occupied();
      if (made_by(static_cast<int>(b)).kind == StepKind::forward && min_backward_[b] != never)
        read_back_before_[x.layer + 1] += x.occupied();
    }
    std::int64_t live = 0;
    for (std::size_t s = 0; s < p_.steps.size(); ++s) {
      live += change[s];
      live_[s] = live;
    }
    for (std::size_t i = 0; i < L; ++i)
      read_back_before_[i + 1] += read_back_before_[i];
    // The tails: unit i's tail runs the plain plan's steps from its first layer's forward to
    // that layer's backward as they are, with the losses and predictions alive from the loss step
    // on (from the first step, in micro-batches), and without what the layers before it keep.
    std::int64_t busiest = 0;
    std::int64_t last_step = loss_step_;
    const bool whole_step_results = g_.setup.micro_batches > 1;
    for (std::int64_t i = units_ - 1; i >= 0; --i) {
      const std::int32_t a = unit_first_[i];
      for (std::int64_t s = forward_step_[a];
           s < (i + 1 < units_ ? forward_step_[unit_first_[i + 1]] : loss_step_); ++s)
        busiest = max_of(busiest, live_[s] + (whole_step_results ? results_ : 0));
      for (; last_step <= backward_step_[a]; ++last_step)
        busiest = max_of(busiest, live_[last_step] + results_);
      tail_[i] = busiest - kept_before(a);
    }
    summarize_layers();
  }

  // checkpoint_search.hpp's Costs.
  constexpr std::int64_t units() const { return units_; }
  constexpr std::int64_t local(std::int64_t i, std::int64_t j) { return row(i, j).local; }
  constexpr std::int64_t kept(std::int64_t i, std::int64_t j) { return row(i, j).kept; }
  constexpr std::int64_t recompute(std::int64_t i, std::int64_t j) { return row(i, j).recompute; }
  constexpr std::int64_t tail(std::int64_t i) const { return tail_[i]; }
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
  constexpr bool is_result(int b) const {
    const BufferRole r = p_.buffers.items[b].role;
    return r == BufferRole::loss || r == BufferRole::predictions;
  }
  // Activation bytes a segment's steps count, but the losses and predictions.
  constexpr bool counted(int b) const {
    return in_activation_region(p_.buffers.items[b].role) && !is_result(b);
  }
  constexpr std::int64_t bytes(int b) const { return p_.buffers.items[b].occupied(); }

  // What extend_row() reads per layer and per unit, summed once: each step's buffers without
  // repeats; by layer, forward's bytes made, statistics made, bytes whose last forward reader it
  // is (but statistics: backward reads them), and of those, the ones its unit keeps while it is
  // a segment's last; by unit, what it keeps when last, and the gradients made after it that its
  // backward or an earlier one reads.
  constexpr void summarize_layers() {
    for (std::size_t s = 0; s < p_.steps.size(); ++s) {
      unique_first_[s] = unique_count_;
      const std::int64_t first = p_.steps.items[s].first_access;
      for (std::int64_t a = first; a < end_of_step(s); ++a) {
        const int b = Access::decode(p_.access_codes.items[a]).buffer;
        bool again = false;
        for (std::int64_t e = unique_first_[s]; e < unique_count_ && !again; ++e)
          again = unique_buffers_[e] == b;
        if (!again)
          unique_buffers_[unique_count_++] = b;
      }
    }
    unique_first_[p_.steps.size()] = unique_count_;
    for (std::int64_t u = 0; u < units_; ++u)
      for (std::int64_t k = unit_first_[u]; k <= unit_last_[u]; ++k)
        unit_of_[k] = static_cast<std::int32_t>(u);
    std::int64_t gradients_change[L + 2]{};
    for (std::size_t b = 0; b < buffer_capacity; ++b)
      droppable_maker_[b] = -1;
    for (std::size_t i = 0; i < p_.buffers.size(); ++i) {
      const int b = static_cast<int>(i);
      const Buffer& x = p_.buffers.items[b];
      if (!counted(b))
        continue;
      const Step& m = made_by(b);
      const bool statistics = x.role == BufferRole::batch_statistics;
      if (statistics && min_backward_[b] == never)
        rows_laid_out_ = true;            // (no planner makes one: backward reads them)
      if (m.kind != StepKind::forward) {  // a gradient: made by a backward, or the loss (after all)
        if (min_backward_[b] == never)
          continue;
        const std::int64_t maker = m.kind == StepKind::backward ? m.layer : std::int64_t{L};
        gradients_change[min_backward_[b]] += bytes(b);
        gradients_change[maker] -= bytes(b);
        continue;
      }
      made_[m.layer] += bytes(b);
      if (statistics) {
        statistics_made_[m.layer] += bytes(b);
        continue;
      }
      const std::int32_t u = unit_of_[x.layer];
      const int end = p_.layers[unit_last_[u]].output_buffer;
      const bool end_group = p_.layers[x.layer].output_buffer == end;
      droppable_maker_[b] = static_cast<std::int32_t>(x.layer);
      writes_unit_end_[b] = end_group;
      if (last_forward_[b] >= 0) {
        frees_[last_forward_[b]] += bytes(b);
        if (end_group && min_backward_[b] != never && unit_of_[last_forward_[b]] == u)
          kept_if_last_[last_forward_[b]] += bytes(b);
      }
      if (end_group && min_backward_[b] <= unit_last_[u]) {
        end_kept_[u] += bytes(b);
        if (b == end)
          end_bytes_[u] = bytes(b);
      }
    }
    std::int64_t gradients = 0;
    std::int64_t u = 0;
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(L); ++k) {
      gradients += gradients_change[k];
      if (u < units_ && unit_last_[u] == k)
        gradients_after_unit_[u++] = gradients;
    }
  }
  // Each buffer a step accesses, once (summarize_layers' lists).
  template <class F>
  constexpr void for_each_unique(std::int32_t step, const F& f) const {
    for (std::int64_t e = unique_first_[step]; e < unique_first_[step + 1]; ++e)
      f(unique_buffers_[e]);
  }

  // ---- A row, a unit at a time: segment a..z, extended to unit u's last layer -------------------
  // The segment's steps run in three phases, priced apart (price() lays them out at once; the
  // tests check that the two agree on every segment): forward of a..z, the recompute steps, and
  // backward of z..a. What a phase holds at a step depends on z only where the text says so, so
  // each extension prices the steps it adds and keeps the rest:
  //   forward: a step holds what the segment made and still needs in forward (the last unit's
  //     tensor and the buffers of the layers that write it are kept to the end of forward; a
  //     unit that is no longer the last drops them: its steps are priced again), its statistics
  //     and its input;
  //   recompute: what forward kept (input, statistics, the last unit's buffers that backward
  //     reads), the gradients that come from after z, the results, and the remade buffers alive;
  //     a layer that joins the recompute set after the last one so far appends its steps, any
  //     other change lays the recompute steps out again;
  //   backward: as without checkpointing, but for what the layers before a keep: the floor.
  // A row whose input no backward reads is laid out by price() (its lifetime then depends on
  // the recompute steps), as are all rows of a plan with statistics no backward reads.
  constexpr SegmentPrice extend_row(std::int64_t u) {
    const std::int64_t l0 = unit_first_[u], z = unit_last_[u];
    const bool first_unit = u == row_;
    const std::int64_t p0 = first_unit ? l0 : unit_first_[u - 1];
    layers_priced_ += (z - l0 + 1) + (z - p0 + 1) / 2;  // (the work, about, in price()'s layers)
    if (stopped())
      return {.local = std::int64_t{1} << 62};
    row_last_layer_ = z;

    // Forward. The previous last unit, its tensor now dropped after its last forward reader.
    if (!first_unit) {
      const auto settled = forward_of(p0, l0 - 1, forward_carry_, false);
      forward_settled_ = max_of(forward_settled_, settled.busiest);
      forward_carry_ = settled.after;
    }
    const std::int64_t forward_busiest =
        max_of(forward_settled_, forward_of(l0, z, forward_carry_, true).busiest);
    for (std::int64_t k = l0; k <= z; ++k)
      statistics_ += statistics_made_[k];
    // Recompute.
    const std::int64_t first_new = extend_recompute_set(u, p0);
    if (first_new <= z)
      lay_out_recompute_steps(u, first_new);
    const std::int64_t during_recompute =
        recompute_steps_ > 0 ? input_bytes_ + statistics_ + end_kept_[u] +
                                   gradients_after_unit_[u] + results_ + remade_busiest_
                             : 0;
    // Backward.
    floor_row(row_, u);

    SegmentPrice price;
    price.local = max_of(forward_busiest, max_of(during_recompute, row_floor_[u]));
    price.kept = input_bytes_ + statistics_ + end_kept_[u] - end_bytes_[u];
    price.recompute = recompute_flops_;
    return price;
  }

  // Whether the row's segment, ending with unit u, drops buffer b (of a layer up to its end):
  // what forward made in it but its statistics and the last unit's group.
  constexpr bool dropped(int b, std::int64_t u) const {
    const std::int32_t maker = droppable_maker_[b];
    return maker >= unit_first_[row_] && !(writes_unit_end_[b] && unit_of_[maker] == u);
  }
  constexpr bool remade(int b, std::int64_t u) const {
    return dropped(b, u) && row_recomputed_[droppable_maker_[b]];
  }

  // The recompute set of the segment extended to unit u (plan.hpp's mark_recomputed), from the
  // layers whose needs changed: the new unit's, the previous last unit's (from p0; its buffers
  // are now dropped), and down to the makers of what they newly need. Returns the first layer
  // newly recomputed (L: none).
  constexpr std::int64_t extend_recompute_set(std::int64_t u, std::int64_t p0) {
    const std::int64_t a = unit_first_[row_], z = unit_last_[u];
    const int end = p_.layers[z].output_buffer;
    std::int64_t down_to = p0;
    std::int64_t first_new = static_cast<std::int64_t>(L);
    auto need = [&](int b) {
      if (b == no_buffer || !dropped(b, u) || row_needed_[b])
        return;
      row_needed_[b] = true;
      if (p_.buffers.items[b].layer < down_to)
        down_to = p_.buffers.items[b].layer;
    };
    for (std::int64_t k = z; k >= a && k >= down_to; --k)
      if (mark_recomputed_layer(g_.nodes[k], p_.layers[k], p_.layers[k].output_buffer != end,
                                row_recomputed_[k], need, [&](int b) { return row_needed_[b]; })) {
        first_new = k;
        recompute_flops_ += recompute_flops_of(g_.nodes[k], g_.setup.micro_batches);
      }
    return first_new;
  }

  // The recompute steps, after layers from first_new on joined them: appended where every new
  // one comes after the last so far, unless a new one reads a remade buffer of an old one that
  // backward does not read (whose life it lengthens); else laid out again from the segment's
  // first layer. Keeps the most remade bytes alive at one of them, and those alive after.
  constexpr void lay_out_recompute_steps(std::int64_t u, std::int64_t first_new) {
    const std::int64_t a = unit_first_[row_], z = unit_last_[u];
    bool again = first_new <= last_recomputed_;
    for (std::int64_t k = last_recomputed_ + 1; k <= z && !again; ++k)
      if (row_recomputed_[k])
        for_each_unique(forward_step_[k], [&](int b) {
          if (remade(b, u) && droppable_maker_[b] <= last_recomputed_ && min_backward_[b] > z)
            again = true;
        });
    const std::int64_t from = again ? a : last_recomputed_ + 1;
    if (again) {
      recompute_steps_ = 0;
      remade_busiest_ = 0;
      remade_carry_ = 0;
    }
    for (std::int64_t k = from; k <= z; ++k) {
      if (!row_recomputed_[k])
        continue;
      recompute_position_[k] = recompute_steps_++;
      for_each_unique(forward_step_[k], [&](int b) {
        if (remade(b, u))
          last_reader_[b] = recompute_position_[k];
      });
      last_recomputed_ = k;
    }
    std::int64_t live = remade_carry_;
    for (std::int64_t k = from; k <= z; ++k) {
      if (!row_recomputed_[k])
        continue;
      for_each_unique(forward_step_[k], [&](int b) {
        if (remade(b, u) && droppable_maker_[b] == k)
          live += bytes(b);
      });
      remade_busiest_ = max_of(remade_busiest_, live);
      for_each_unique(forward_step_[k], [&](int b) {
        if (remade(b, u) && last_reader_[b] == recompute_position_[k] && min_backward_[b] > z)
          live -= bytes(b);
      });
    }
    remade_carry_ = live;
  }

  struct ForwardSteps {
    std::int64_t busiest = 0;  // the most bytes alive at one of the steps
    std::int64_t after = 0;    // alive after the last
  };
  // Forward of layers l0..l1 of the row's segment, `carry` bytes alive as they start (made before
  // l0); `last`: their unit is the segment's last, whose buffers that backward reads stay alive
  // (else they die after their last forward reader). The input and the statistics stay:
  // backward reads them.
  constexpr ForwardSteps forward_of(std::int64_t l0, std::int64_t l1, std::int64_t carry,
                                    bool last) const {
    ForwardSteps f{.after = carry};
    for (std::int64_t k = l0; k <= l1; ++k) {
      f.after += made_[k];
      f.busiest = max_of(f.busiest, f.after);
      f.after -= frees_[k] - (last ? kept_if_last_[k] : 0);
      if (row_input_ != no_buffer && last_forward_[row_input_] == k)
        f.after += bytes(row_input_);
    }
    return f;
  }

  // Leaves the row's scratch as it was found.
  constexpr void forget_row() {
    if (row_ < 0)
      return;
    for (std::int64_t k = unit_first_[row_]; k <= row_last_layer_; ++k) {
      auto forget = [&](int b) { row_needed_[b] = false; };
      for_each_unique(forward_step_[k], forget);
      for_each_unique(backward_step_[k], forget);
      row_recomputed_[k] = false;
    }
    row_last_layer_ = -1;
  }

  // The prices of units i..j checkpointed, from the row of unit i (computed up to j), and its
  // floors (the same).
  constexpr void start_row(std::int64_t i) {
    if (row_ == i)
      return;
    forget_row();
    row_ = i;
    row_known_ = i - 1;
    row_floored_ = i - 1;
    busiest_backward_ = 0;
    const std::int64_t a = unit_first_[i];
    const int input = input_of(a);
    row_input_ = input;
    row_slow_ = rows_laid_out_ || (input != no_buffer && min_backward_[input] == never);
    input_bytes_ = input != no_buffer ? bytes(input) : 0;
    statistics_ = 0;
    forward_settled_ = 0;
    forward_carry_ = input_bytes_ + (g_.setup.micro_batches > 1 ? results_ : 0);
    recompute_flops_ = 0;
    recompute_steps_ = 0;
    last_recomputed_ = -1;
    remade_busiest_ = 0;
    remade_carry_ = 0;
  }
  constexpr const SegmentPrice& row(std::int64_t i, std::int64_t j) {
    start_row(i);
    for (; row_known_ < j; ++row_known_) {
      const std::int64_t u = row_known_ + 1;
      row_prices_[u] = row_slow_ ? price(unit_first_[i], unit_last_[u], true) : extend_row(u);
    }
    return row_prices_[j];
  }
  // The segment's input (from layer a on), where its steps count it: what forward made before
  // layer a that the activation region holds (a Flatten's view may be of the model's input).
  constexpr int input_of(std::int64_t a) const {
    if (a == 0)
      return no_buffer;
    const int input = p_.layers[a - 1].output_buffer;
    return in_activation_region(p_.buffers.items[input].role) &&
                   made_by(input).kind == StepKind::forward
               ? input
               : no_buffer;
  }
  // What the plain plan holds, from layer a's forward to its backward, that the layers before a
  // made and keep: forward's bytes that a backward reads, but the segment's input.
  constexpr std::int64_t kept_before(std::int64_t a) const {
    const int input = input_of(a);
    return read_back_before_[a] - (input != no_buffer && min_backward_[input] != never
                                       ? p_.buffers.items[input].occupied()
                                       : 0);
  }
  constexpr void floor_row(std::int64_t i, std::int64_t j) {
    const std::int64_t before = kept_before(unit_first_[i]);
    for (; row_floored_ < j; ++row_floored_) {
      const std::int64_t u = row_floored_ + 1;
      for (std::int64_t l = unit_first_[u]; l <= unit_last_[u]; ++l)
        busiest_backward_ = max_of(busiest_backward_, live_[backward_step_[l]]);
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
  // local_floor's and the tails': by maker, the prefix sums of the bytes forward makes that a
  // backward reads; the losses' and predictions' bytes (live_, below: the plan's live bytes at
  // each step, without them).
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
  std::int64_t live_[PlanState<L>::step_capacity]{};  // the plain plan's, without the results
  bool rows_laid_out_ = false;                        // every segment laid out anew by price()
  // summarize_layers()'s.
  std::int32_t unique_first_[PlanState<L>::step_capacity + 1]{};
  std::int32_t unique_count_ = 0;
  std::int32_t unique_buffers_[Plan<L>::access_capacity]{};
  std::int32_t unit_of_[L]{};
  // A buffer forward makes that a segment may drop (not statistics): its layer (else -1), and
  // whether that layer writes its unit's last tensor (the group a last unit keeps).
  std::int32_t droppable_maker_[buffer_capacity]{};
  bool writes_unit_end_[buffer_capacity]{};
  std::int64_t made_[L]{};
  std::int64_t statistics_made_[L]{};
  std::int64_t frees_[L]{};
  std::int64_t kept_if_last_[L]{};
  std::int64_t end_kept_[L]{};
  std::int64_t end_bytes_[L]{};
  std::int64_t gradients_after_unit_[L]{};
  // The row's segment a..z, extended a unit at a time (extend_row).
  bool row_slow_ = false;  // this row's segments laid out anew by price()
  std::int64_t row_last_layer_ = -1;
  std::int64_t input_bytes_ = 0;      // the segment's input, kept to its backward
  std::int64_t statistics_ = 0;       // BatchNorm statistics made so far, kept
  std::int64_t forward_settled_ = 0;  // the busiest forward step before the last unit's
  std::int64_t forward_carry_ = 0;    // bytes alive as the last unit's forward starts
  int row_input_ = no_buffer;
  bool row_needed_[buffer_capacity]{};
  bool row_recomputed_[L]{};
  std::int64_t recompute_flops_ = 0;
  std::int64_t recompute_steps_ = 0;
  std::int64_t last_recomputed_ = -1;  // the last layer recomputed
  std::int64_t recompute_position_[L]{};
  std::int64_t last_reader_[buffer_capacity]{};  // a remade buffer's last recompute reader
  std::int64_t remade_busiest_ = 0;              // the most remade bytes alive at a recompute step
  std::int64_t remade_carry_ = 0;                // remade bytes alive after the recompute steps
};

}  // namespace staticnet::detail
