#pragma once
// Runs a plan on tags instead of numbers (see test_planner_graphs.cpp for what this checks and
// why): every buffer holds a set of values ("the output of layer 3", "the gradient of layer 5's
// output with 1 of its 2 parts summed"); each step reads what the plan says it reads and fails
// unless the buffer still holds it; each write replaces what the buffer held and wipes every
// other buffer of its region that shares a byte with it. simulate() returns the first problem,
// or "" when the plan runs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/staticnet.hpp"

namespace staticnet::testing {

using std::int32_t;
using std::int64_t;

enum class What : std::uint8_t {
  output,
  gradient,
  statistics,
  mask,
  window_index,
  loss,
  predictions
};

struct Tag {
  What what;
  int32_t tensor;  // a layer, or model_input
  int parts;       // gradient: how many readers' parts it holds
  friend bool operator==(const Tag&, const Tag&) = default;
};

template <std::size_t L>
class Simulation {
 public:
  explicit Simulation(const staticnet::Plan<L>& p) : p_(p), held_(p.buffers.size()) {}

  // The first problem, or "" when the plan runs.
  std::string run() {
    count_readers();
    // The input: a persistent buffer, or under Int8 the first of the shared region.
    const int arena_input = find(staticnet::BufferRole::arena_input);
    held_[arena_input != staticnet::no_buffer ? arena_input : find(staticnet::BufferRole::input)] =
        {{What::output, staticnet::model_input, 0}};
    const int64_t layers = static_cast<int64_t>(L);
    for (int64_t step = 0; step < p_.step_count() && problem_.empty(); ++step) {
      const staticnet::Step s = p_.schedule[step];
      step_ = step;
      if (s.kind == staticnet::StepKind::forward)
        forward(s.layer);
      else if (s.kind == staticnet::StepKind::loss)
        loss(layers);
      else if (s.kind == staticnet::StepKind::backward)
        backward(s.layer);
      else if (s.kind == staticnet::StepKind::recompute)
        forward(s.layer, true);
    }
    if (problem_.empty() && p_.mode == staticnet::Mode::training) {
      step_ = p_.step_count() - 1;  // the host reads these after the step
      read(find(staticnet::BufferRole::loss), {What::loss, -1, 0}, "the loss, after the step");
      if (p_.setup.loss == staticnet::LossKind::CrossEntropy)
        read(find(staticnet::BufferRole::predictions), {What::predictions, -1, 0},
             "the predictions");
    }
    if (problem_.empty() && p_.mode == staticnet::Mode::inference)
      read(p_.layers[L - 1].output_buffer, {What::output, static_cast<int32_t>(L - 1), 0},
           "the output, after the pass");
    return problem_;
  }

 private:
  void count_readers() {
    readers_.assign(L, 0);
    for (const staticnet::LayerPlan& l : p_.layers)
      for (int k = 0; k < l.input_count(); ++k)
        if (l.inputs[k] >= 0)
          ++readers_[l.inputs[k]];
  }
  int find(BufferRole role) const {
    for (std::size_t i = 0; i < p_.buffers.size(); ++i)
      if (p_.buffers[i].role == role)
        return static_cast<int>(i);
    return staticnet::no_buffer;
  }
  void fail(const std::string& what, int64_t layer) {
    if (problem_.empty())
      problem_ = "step " + std::to_string(step_) + ", layer " + std::to_string(layer) + ": " + what;
  }
  bool alive(int b, const char* what, int64_t layer) {
    if (b == staticnet::no_buffer || b < 0 || b >= static_cast<int>(p_.buffers.size())) {
      fail(std::string("no buffer for ") + what, layer);
      return false;
    }
    if (!p_.buffers[b].alive_at(step_)) {
      fail(std::string(what) + ": buffer " + std::to_string(b) + " used outside its lifetime",
           layer);
      return false;
    }
    return true;
  }
  bool holds(int b, const Tag& t) const {
    return std::find(held_[b].begin(), held_[b].end(), t) != held_[b].end();
  }
  void read(int b, const Tag& t, const char* what, int64_t layer = -1) {
    if (alive(b, what, layer) && !holds(b, t))
      fail(std::string(what) + ": buffer " + std::to_string(b) + " no longer holds it", layer);
  }
  // Replaces what b holds and wipes every other activation buffer sharing a byte with it.
  void write(int b, std::vector<Tag> values, const char* what, int64_t layer) {
    if (!alive(b, what, layer))
      return;
    const staticnet::Buffer& w = p_.buffers[b];
    for (std::size_t i = 0; i < p_.buffers.size(); ++i) {
      const staticnet::Buffer& o = p_.buffers[i];
      if (static_cast<int>(i) != b && o.region() == w.region() &&
          o.offset < w.offset + w.occupied() && w.offset < o.offset + o.occupied())
        held_[i].clear();
    }
    held_[b] = std::move(values);
  }

  // A layer's forward, or under checkpointing its recompute (`again`): the same reads and writes
  // in the buffers the recompute steps write (Plan::as_backward_reads), and the statistics of the
  // first pass read, not written.
  void forward(int64_t i, bool again = false) {
    const staticnet::LayerPlan& l = mapped(p_.layers[i], again);
    const auto me = static_cast<int32_t>(i);
    read(l.input_buffer, {What::output, l.inputs[0], 0}, "forward input", i);
    if (l.input_count() == 2)
      read(l.input2_buffer, {What::output, l.inputs[1], 0}, "forward second input", i);
    if (!problem_.empty())
      return;
    const bool training = p_.mode == staticnet::Mode::training;
    const bool view = l.kind == staticnet::LayerKind::Flatten ||
                      (l.kind == staticnet::LayerKind::Dropout && !training);
    if (view) {
      if (l.output_buffer != l.input_buffer)
        fail("a view has storage of its own", i);
      else
        held_[l.output_buffer].push_back({What::output, me, 0});
    } else {
      write(l.output_buffer, {{What::output, me, 0}}, "forward output", i);
    }
    if (l.statistics_buffer != staticnet::no_buffer && again)
      read(l.statistics_buffer, {What::statistics, me, 0}, "the first pass's statistics", i);
    else if (l.statistics_buffer != staticnet::no_buffer)
      write(l.statistics_buffer, {{What::statistics, me, 0}}, "batch statistics", i);
    if (l.mask_buffer != staticnet::no_buffer)
      write(l.mask_buffer, {{What::mask, me, 0}}, "dropout mask", i);
    if (l.window_index_buffer != staticnet::no_buffer)
      write(l.window_index_buffer, {{What::window_index, me, 0}}, "window index", i);
    if (training && l.runs_backward && staticnet::is_batch_norm(l.kind) &&
        l.statistics_buffer == staticnet::no_buffer)
      fail("a BatchNorm that trains keeps no batch statistics", i);
    if (training && l.runs_backward && l.kind == staticnet::LayerKind::Dropout &&
        l.mask_buffer == staticnet::no_buffer)
      fail("a Dropout that trains keeps no mask", i);
  }

  void loss(int64_t layers) {
    const auto last = static_cast<int32_t>(layers - 1);
    read(p_.layers[last].output_buffer, {What::output, last, 0}, "the loss's input", last);
    write(find(staticnet::BufferRole::loss), {{What::loss, -1, 0}}, "the loss", -1);
    if (p_.setup.loss == staticnet::LossKind::CrossEntropy)
      write(find(staticnet::BufferRole::predictions), {{What::predictions, -1, 0}},
            "the predictions", -1);
    for (std::size_t b = 0; b < p_.buffers.size(); ++b)
      if (p_.buffers[b].role == staticnet::BufferRole::activation_gradient &&
          p_.buffers[b].first_step == step_)
        write(static_cast<int>(b), {{What::gradient, last, 1}}, "d(output)", last);
  }

  // Layer l as backward and the recompute steps see it: every buffer through
  // Plan::as_backward_reads (gradients are never recomputed, and map to themselves).
  staticnet::LayerPlan mapped(const staticnet::LayerPlan& l, bool again = true) const {
    staticnet::LayerPlan m = l;
    if (!again)
      return m;
    for (int* b : {&m.input_buffer, &m.input2_buffer, &m.output_buffer, &m.window_index_buffer,
                   &m.mask_buffer, &m.statistics_buffer})
      *b = p_.as_backward_reads(*b);
    return m;
  }

  void backward(int64_t i) {
    const staticnet::LayerPlan l = mapped(p_.layers[i]);
    const auto me = static_cast<int32_t>(i);
    const bool needs_any = std::any_of(l.inputs, l.inputs + l.input_count(), [&](int32_t t) {
      return t >= 0 && p_.layers[t].runs_backward;
    });
    if (!l.runs_backward) {
      if (l.parameters > 0 || needs_any)
        fail("a layer with parameters, or after one, runs no backward", i);
      return;
    }
    read(l.output_gradient_buffer, {What::gradient, me, std::max(1, readers_[i])}, "whole dy", i);
    if (staticnet::saves_input(l.kind))
      read(l.input_buffer, {What::output, l.inputs[0], 0}, "saved input", i);
    if (staticnet::is_elementwise(l.kind))
      read(l.output_buffer, {What::output, me, 0}, "saved output", i);
    if (l.statistics_buffer != staticnet::no_buffer)
      read(l.statistics_buffer, {What::statistics, me, 0}, "saved statistics", i);
    if (l.mask_buffer != staticnet::no_buffer)
      read(l.mask_buffer, {What::mask, me, 0}, "saved mask", i);
    if (l.window_index_buffer != staticnet::no_buffer)
      read(l.window_index_buffer, {What::window_index, me, 0}, "saved window index", i);
    if (!problem_.empty())
      return;
    const int dy = l.output_gradient_buffer;
    for (int k = 0; k < l.input_count(); ++k) {
      const int32_t t = l.inputs[k];
      const int dx = k == 0 ? l.input_gradient_buffer : l.input2_gradient_buffer;
      const bool accumulates =
          k == 0 ? l.accumulates_input_gradient : l.accumulates_input2_gradient;
      const bool needed = t >= 0 && p_.layers[t].runs_backward;
      if (!needed) {
        if (dx != staticnet::no_buffer)
          fail("a gradient nobody reads is written", i);
        continue;
      }
      if (dx == staticnet::no_buffer) {
        fail("the gradient of an input that needs one is not written", i);
        continue;
      }
      if (accumulates) {
        // Read-modify-write: dx must hold a part already, and must not be what this step reads.
        if (dx == dy || dx == l.input_buffer || dx == l.statistics_buffer)
          fail("a gradient sum is written over a buffer this backward reads", i);
        int parts = 0;
        if (alive(dx, "gradient sum", i))
          for (Tag& tag : held_[dx])
            if (tag.what == What::gradient && tag.tensor == t)
              parts = ++tag.parts;
        if (parts < 2)
          fail("a gradient sum finds no part to add to", i);
      } else if (dx == dy) {
        // The same values (Add, Flatten) or dy overwritten in place (elementwise, Dropout).
        const bool same_values =
            l.kind == staticnet::LayerKind::Add || l.kind == staticnet::LayerKind::Flatten;
        if (same_values)
          held_[dx].push_back({What::gradient, t, 1});
        else
          held_[dx] = {{What::gradient, t, 1}};
      } else {
        write(dx, {{What::gradient, t, 1}}, "dx", i);
      }
    }
  }

  const staticnet::Plan<L>& p_;
  std::vector<std::vector<Tag>> held_;
  std::vector<int> readers_;
  int64_t step_ = 0;
  std::string problem_;
};

template <std::size_t L>
std::string simulate(const staticnet::Plan<L>& p) {
  return Simulation<L>(p).run();
}

// Activation buffers alive at a common step share no byte; the region is at least the bytes
// alive at its busiest step.
template <std::size_t L>
std::string check_layout(const staticnet::Plan<L>& p) {
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    for (std::size_t j = i + 1; j < p.buffers.size(); ++j) {
      const staticnet::Buffer& x = p.buffers[i];
      const staticnet::Buffer& y = p.buffers[j];
      if (x.region() != y.region() || x.occupied() == 0 || y.occupied() == 0)
        continue;
      const bool meet = x.first_step <= y.last_step && y.first_step <= x.last_step;
      if (meet && x.offset < y.offset + y.occupied() && y.offset < x.offset + x.occupied())
        return "buffers " + std::to_string(i) + " and " + std::to_string(j) + " overlap";
    }
  int64_t bound = 0;
  for (int64_t s = 0; s < p.step_count(); ++s)
    bound = std::max(bound, p.live_activation_bytes(s));
  if (p.footprint.activations.count < bound)
    return "activations below the live bytes";
  return "";
}

}  // namespace staticnet::testing
