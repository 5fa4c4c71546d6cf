#pragma once
// The memory plan of one training step (or one forward pass under sn::Inference).
//
// Schedule (training, L layers): steps 0..L-1 run layer i forward, step L the loss (which also
// writes the gradient of the output), steps L+1..2L run backward from layer L-1 down to layer 0
// (layer i at step 2L-i), step 2L+1 the optimizer update. Under Inference, steps 0..L-1 only.
// Layers are nodes of a graph in an order where each follows the layers it reads (a Residual's
// Add reads two), so forward in order and backward in reverse order are both valid.
//
// The arena is one allocation, laid out as regions in this order, each 256-byte aligned:
//   weights | non_trainable | gradients | optimizer_state | inputs | workspace | activations
// Parameters are one contiguous f32 vector (layer by layer: weight, then bias), so gradients and
// optimizer moments share its element offsets and zeroing or updating them is one kernel each.
// Non-trainable state (BatchNorm's running mean and variance, layer by layer) is a vector of its
// own, which the optimizer never touches. Every other buffer lives in the activation region,
// where buffers whose lifetimes do not overlap share bytes.
//
// Gradients in a graph. A tensor read by one layer gets its gradient as a chain does: written by
// that layer's backward, or, through an Add, a Flatten, or an elementwise layer or Dropout that
// ran in place, the same buffer as the gradient of that layer's output. A tensor read by two layers
// (a Residual's input) gets a buffer of its own: the first backward to reach it writes it, the
// second adds to it (LayerPlan::accumulates_*). No buffer is ever changed in place while another
// tensor's gradient that shares it has yet to be read.
//
// Placement (see place_activations): an online walk over the steps with best-fit holes, and for
// models with up to 256 buffers also offline greedy placements (by size; up to 128 buffers also
// by lifetime and by size × lifetime); the smallest wins. All put each buffer at offset 0 or at
// the end of another, so no byte of the region goes unused.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/bytes.hpp"
#include "staticnet/graph.hpp"
#include "staticnet/lower.hpp"
#include "staticnet/static_vector.hpp"

namespace staticnet {

enum class Region : std::uint8_t {
  weights,
  non_trainable,
  gradients,
  optimizer_state,
  inputs,
  workspace,
  activations,
};
inline constexpr int region_count = 7;

enum class BufferRole : std::uint8_t {
  parameters,           // all weights and biases, f32
  non_trainable,        // BatchNorm running means and variances, f32
  gradients,            // one per parameter, f32
  optimizer_moment1,    // SGDMomentum velocity, Adam/AdamW first moment
  optimizer_moment2,    // Adam/AdamW second moment
  input,                // the batch's inputs
  labels,               // CrossEntropy: int32 class index per sample
  targets,              // MSE: f32 targets shaped like the output
  workspace,            // scratch of the largest kernel (Conv2d im2col of one sample)
  activation,           // a layer's output (also the next layer's input)
  window_index,         // MaxPool2d: the argmax position in each window
  activation_gradient,  // gradient of a layer's output or input
  loss,                 // per-sample loss values, read by the host after the step
  predictions,          // CrossEntropy: each sample's predicted class (int32), read by the host
  batch_statistics,     // BatchNorm: the batch's mean and 1/sqrt(var + eps) per channel
  dropout_mask,         // Dropout: one bit per element, 1 where the element was kept
};

constexpr Region region_of(BufferRole r) {
  switch (r) {
    case BufferRole::parameters:
      return Region::weights;
    case BufferRole::non_trainable:
      return Region::non_trainable;
    case BufferRole::gradients:
      return Region::gradients;
    case BufferRole::optimizer_moment1:
    case BufferRole::optimizer_moment2:
      return Region::optimizer_state;
    case BufferRole::input:
    case BufferRole::labels:
    case BufferRole::targets:
      return Region::inputs;
    case BufferRole::workspace:
      return Region::workspace;
    case BufferRole::activation:
    case BufferRole::window_index:
    case BufferRole::activation_gradient:
    case BufferRole::loss:
    case BufferRole::predictions:
    case BufferRole::batch_statistics:
    case BufferRole::dropout_mask:
      return Region::activations;
  }
  return Region::activations;
}

// "optimizer_state": the region's name in reports and in the analyzer's JSON.
constexpr const char* name_of(Region r) {
  switch (r) {
    case Region::weights:
      return "weights";
    case Region::non_trainable:
      return "non_trainable";
    case Region::gradients:
      return "gradients";
    case Region::optimizer_state:
      return "optimizer_state";
    case Region::inputs:
      return "inputs";
    case Region::workspace:
      return "workspace";
    case Region::activations:
      return "activations";
  }
  return "?";
}

constexpr const char* name_of(BufferRole r) {
  switch (r) {
    case BufferRole::parameters:
      return "parameters";
    case BufferRole::non_trainable:
      return "non_trainable";
    case BufferRole::gradients:
      return "gradients";
    case BufferRole::optimizer_moment1:
      return "optimizer_moment1";
    case BufferRole::optimizer_moment2:
      return "optimizer_moment2";
    case BufferRole::input:
      return "input";
    case BufferRole::labels:
      return "labels";
    case BufferRole::targets:
      return "targets";
    case BufferRole::workspace:
      return "workspace";
    case BufferRole::activation:
      return "activation";
    case BufferRole::window_index:
      return "window_index";
    case BufferRole::activation_gradient:
      return "activation_gradient";
    case BufferRole::loss:
      return "loss";
    case BufferRole::predictions:
      return "predictions";
    case BufferRole::batch_statistics:
      return "batch_statistics";
    case BufferRole::dropout_mask:
      return "dropout_mask";
  }
  return "?";
}

struct Buffer {
  BufferRole role = BufferRole::activation;
  std::int64_t layer = -1;  // the layer that writes it, or -1
  std::int64_t size = 0;    // bytes the buffer holds; it occupies align_up(size) in the arena
  std::int64_t offset = 0;  // from the start of the arena, a multiple of 256
  std::int64_t first_step = 0;
  std::int64_t last_step = 0;

  constexpr Region region() const { return region_of(role); }
  constexpr std::int64_t occupied() const { return align_up(size); }
  constexpr bool alive_at(std::int64_t step) const {
    return first_step <= step && step <= last_step;
  }
};

enum class StepKind : std::uint8_t { forward, loss, backward, update };

struct Step {
  StepKind kind = StepKind::forward;
  std::int64_t layer = -1;
};

struct Footprint {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer_state;
  Bytes activations;
  Bytes workspace;
  Bytes inputs;
  Bytes non_trainable;  // BatchNorm running statistics: kept and checkpointed, never trained

  constexpr Bytes total() const {
    return weights + non_trainable + gradients + optimizer_state + activations + workspace + inputs;
  }
  constexpr Bytes of(Region r) const {
    switch (r) {
      case Region::weights:
        return weights;
      case Region::non_trainable:
        return non_trainable;
      case Region::gradients:
        return gradients;
      case Region::optimizer_state:
        return optimizer_state;
      case Region::inputs:
        return inputs;
      case Region::workspace:
        return workspace;
      case Region::activations:
        return activations;
    }
    return Bytes{};
  }
  friend constexpr bool operator==(const Footprint&, const Footprint&) = default;
};

inline constexpr int no_buffer = -1;

struct LayerPlan {
  LayerKind kind = LayerKind::Flatten;
  LayerDesc options;  // kernel, stride, bias as written; padding as applied (PaddingSame resolved)
  std::int32_t inputs[2] = {model_input, no_input};  // the layers whose outputs it reads
  Shape input_shape;                                 // with the batch extent
  Shape input2_shape;                                // an Add: its second input
  Shape output_shape;
  std::int64_t parameters = 0;
  std::int64_t weight_offset = 0;  // element offsets into the parameter vector
  std::int64_t bias_offset = 0;
  std::int64_t non_trainable = 0;      // BatchNorm: running mean and variance, 2 per channel
  std::int64_t statistics_offset = 0;  // element offset of its running mean in that vector
  std::int64_t saved_bytes = 0;        // bytes kept from forward for this layer's backward
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;
  std::int64_t workspace_bytes = 0;  // scratch this layer's kernels need
  bool runs_backward = false;        // has parameters, or reads a tensor that depends on parameters
  bool in_place = false;          // output written over the first input (elementwise, Dropout, Add,
                                  // Flatten)
  int input_buffer = no_buffer;   // indices into Plan::buffers
  int input2_buffer = no_buffer;  // an Add: the second input
  int output_buffer = no_buffer;
  int window_index_buffer = no_buffer;     // MaxPool2d
  int statistics_buffer = no_buffer;       // BatchNorm in training: batch mean and 1/std
  int mask_buffer = no_buffer;             // Dropout in training
  int output_gradient_buffer = no_buffer;  // dy, read by backward
  int input_gradient_buffer = no_buffer;   // dx, written by backward (none if no one needs it)
  int input2_gradient_buffer = no_buffer;  // an Add: the gradient of its second input
  // The input's gradient buffer already holds another reader's part: backward adds to it.
  bool accumulates_input_gradient = false;
  bool accumulates_input2_gradient = false;

  constexpr int input_count() const { return inputs[1] == no_input ? 1 : 2; }
};

template <std::size_t L>
struct Plan {
  // Per layer at most an output, a saved buffer (window index, statistics or mask) and two
  // input gradients; at most 8 persistent buffers; the loss, the predictions and the loss's
  // gradient.
  static constexpr std::size_t buffer_capacity = 4 * L + 11;
  static constexpr std::size_t step_capacity = 2 * L + 2;

  Mode mode = Mode::training;
  SetupDesc setup;
  Shape input_shape;                     // with the batch extent
  Shape output_shape;                    // with the batch extent
  std::int64_t parameter_count = 0;      // trainable
  std::int64_t non_trainable_count = 0;  // BatchNorm running statistics
  Footprint footprint;
  std::array<LayerPlan, L> layers{};
  StaticVector<Buffer, buffer_capacity> buffers;
  StaticVector<Step, step_capacity> schedule;
  std::array<std::int64_t, region_count> region_offset{};  // start of each region in the arena
  Diagnostic error;  // set when the model or setup is wrong (the build has failed already)

  constexpr std::int64_t batch() const { return setup.batch; }
  constexpr std::int64_t step_count() const { return static_cast<std::int64_t>(schedule.size()); }
  constexpr std::size_t layer_count() const { return L; }
  // Bytes of activation-region buffers alive at a step: a lower bound for footprint.activations.
  constexpr std::int64_t live_activation_bytes(std::int64_t step) const {
    std::int64_t sum = 0;
    for (const Buffer& b : buffers)
      if (b.region() == Region::activations && b.alive_at(step))
        sum += b.occupied();
    return sum;
  }
};

namespace detail {

// Lifetime bookkeeping while the buffers are created.
template <std::size_t L>
struct PlanBuilder {
  Plan<L>& plan;
  std::int64_t last_step;

  constexpr int add(BufferRole role, std::int64_t layer, std::int64_t size, std::int64_t first) {
    Buffer b;
    b.role = role;
    b.layer = layer;
    b.size = size;
    b.first_step = b.last_step = first;
    return static_cast<int>(plan.buffers.push_back(b));
  }
  constexpr int add_persistent(BufferRole role, std::int64_t size) {
    const int b = add(role, -1, size, 0);
    plan.buffers[b].last_step = last_step;
    return b;
  }
  // The buffer is read at `step`: keep it alive until then.
  constexpr void use(int b, std::int64_t step) {
    if (b != no_buffer && plan.buffers[b].last_step < step)
      plan.buffers[b].last_step = step;
  }
};

// Scratch a layer's kernels need: Conv2d lowers each sample (each group of it) to a column
// matrix (im2col) of Cin/G·KH·KW rows by Ho·Wo columns, reused by forward, dW and dx (col2im).
// A depthwise convolution reads its input directly and needs none.
constexpr std::int64_t workspace_bytes(const Node& n) {
  if (n.desc.kind != LayerKind::Conv2d)
    return 0;
  return n.input[1] / n.desc.groups * n.desc.kernel_h * n.desc.kernel_w * n.output[2] *
         n.output[3] * activation_bytes_per_element;
}

// Placement of the activation region. Both strategies below put every buffer at offset 0 or at
// the end of another buffer, so the region has no byte that no buffer covers.
template <std::size_t L>
using Offsets = std::array<std::int64_t, Plan<L>::buffer_capacity>;

// Online: walk the steps, free buffers after their last step, place new ones in the smallest
// free hole that fits (best fit), else at the top. O(buffers × holes). Returns the region size.
template <std::size_t L>
constexpr std::int64_t place_by_step(const Plan<L>& plan, Offsets<L>& offset) {
  struct Hole {
    std::int64_t offset = 0, size = 0;
  };
  constexpr std::size_t cap = Plan<L>::buffer_capacity;
  const std::int64_t steps = plan.step_count();
  // Buffers of the region, bucketed by first and by last step (counting sort).
  std::array<int, cap> by_first{}, by_last{};
  std::array<int, Plan<L>::step_capacity + 1> first_start{}, last_start{};
  for (const Buffer& b : plan.buffers) {
    if (b.region() != Region::activations)
      continue;
    ++first_start[b.first_step + 1];
    ++last_start[b.last_step + 1];
  }
  for (std::int64_t s = 0; s < steps; ++s) {
    first_start[s + 1] += first_start[s];
    last_start[s + 1] += last_start[s];
  }
  {
    auto fill_first = first_start;
    auto fill_last = last_start;
    for (std::size_t i = 0; i < plan.buffers.size(); ++i) {
      const Buffer& b = plan.buffers[i];
      if (b.region() != Region::activations)
        continue;
      by_first[fill_first[b.first_step]++] = static_cast<int>(i);
      by_last[fill_last[b.last_step]++] = static_cast<int>(i);
    }
  }

  StaticVector<Hole, cap + 1> holes;  // free space below `top`, sorted by offset, coalesced
  std::int64_t top = 0;
  auto release = [&](int i) {
    Hole h{offset[i], plan.buffers[i].occupied()};
    std::size_t at = 0;
    while (at < holes.size() && holes[at].offset < h.offset)
      ++at;
    holes.insert(at, h);
    if (at + 1 < holes.size() && holes[at].offset + holes[at].size == holes[at + 1].offset) {
      holes[at].size += holes[at + 1].size;
      holes.erase(at + 1);
    }
    if (at > 0 && holes[at - 1].offset + holes[at - 1].size == holes[at].offset) {
      holes[at - 1].size += holes[at].size;
      holes.erase(at);
    }
  };
  auto place = [&](int i) {
    const std::int64_t need = plan.buffers[i].occupied();
    std::size_t best = holes.size();
    for (std::size_t h = 0; h < holes.size(); ++h)
      if (holes[h].size >= need && (best == holes.size() || holes[h].size < holes[best].size))
        best = h;
    if (best != holes.size()) {
      offset[i] = holes[best].offset;
      holes[best].offset += need;
      holes[best].size -= need;
      if (holes[best].size == 0)
        holes.erase(best);
      return;
    }
    // No hole fits: grow the region, starting in the last hole when it reaches the top.
    if (!holes.empty() && holes.back().offset + holes.back().size == top) {
      offset[i] = holes.back().offset;
      top = holes.back().offset + need;
      holes.erase(holes.size() - 1);
      return;
    }
    offset[i] = top;
    top += need;
  };

  for (std::int64_t s = 0; s < steps; ++s) {
    if (s > 0)
      for (int k = last_start[s - 1]; k < last_start[s]; ++k)
        release(by_last[k]);
    for (int k = first_start[s]; k < first_start[s + 1]; ++k)
      place(by_first[k]);
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
constexpr std::int64_t place_by_size(const Plan<L>& plan, Offsets<L>& offset,
                                     PlacementOrder how = PlacementOrder::largest_first) {
  constexpr std::size_t cap = Plan<L>::buffer_capacity;
  StaticVector<int, cap> order;
  for (std::size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].region() == Region::activations)
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
    const Buffer& x = plan.buffers[a];
    const Buffer& y = plan.buffers[b];
    if (key(x) != key(y))
      return key(x) > key(y);
    if (x.occupied() != y.occupied())
      return x.occupied() > y.occupied();
    if (x.first_step != y.first_step)
      return x.first_step < y.first_step;
    return a < b;
  });
  std::int64_t top = 0;
  StaticVector<int, cap> placed;  // sorted by offset
  for (int i : order) {
    const Buffer& b = plan.buffers[i];
    // Walk the placed buffers upwards; those alive with b push the candidate past their end,
    // until one starts far enough above it to leave room.
    std::int64_t candidate = 0;
    for (int c : placed) {
      const Buffer& o = plan.buffers[c];
      if (o.first_step > b.last_step || b.first_step > o.last_step)
        continue;
      if (offset[c] >= candidate + b.occupied())
        break;
      const std::int64_t end = offset[c] + o.occupied();
      candidate = candidate > end ? candidate : end;
    }
    offset[i] = candidate;
    top = top > candidate + b.occupied() ? top : candidate + b.occupied();
    std::size_t at = placed.size();
    while (at > 0 && offset[placed[at - 1]] > candidate)
      --at;
    placed.insert(at, i);
  }
  return top;
}

// Above this many buffers only the online placement runs, to keep compile times low; above the
// second limit only one offline order is tried.
inline constexpr std::size_t offline_placement_limit = 256;
inline constexpr std::size_t extra_orders_limit = 128;

// The most bytes of activation buffers alive at one step: no placement can do with less.
template <std::size_t L>
constexpr std::int64_t live_bytes_bound(const Plan<L>& plan) {
  std::int64_t bound = 0;
  for (std::int64_t s = 0; s < plan.step_count(); ++s) {
    const std::int64_t live = plan.live_activation_bytes(s);
    bound = bound > live ? bound : live;
  }
  return bound;
}

// Places the activation region at `base` and returns its size. Several placements are tried,
// cheapest first, and the smallest kept; the search stops once one meets the live-bytes bound.
// Meeting it matters beyond the bytes saved: the bound scales with the batch, so plans that meet
// it grow linearly and monotonically with the batch, which max_batch relies on.
template <std::size_t L>
constexpr std::int64_t place_activations(Plan<L>& plan, std::int64_t base) {
  Offsets<L> best{};
  std::int64_t best_size = place_by_step(plan, best);
  const std::size_t buffers = plan.buffers.size();
  if (buffers <= offline_placement_limit) {
    const std::int64_t bound = buffers <= extra_orders_limit ? live_bytes_bound(plan) : 0;
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
      if (buffers > extra_orders_limit)
        break;
    }
  }
  for (std::size_t i = 0; i < buffers; ++i)
    if (plan.buffers[i].region() == Region::activations)
      plan.buffers[i].offset = base + best[i];
  return best_size;
}

}  // namespace detail

// Plans a lowered graph. A graph that carries an error gives an empty plan with that error.
template <std::size_t L>
constexpr Plan<L> plan(const Graph<L>& g) {
  Plan<L> p;
  p.error = g.error;
  p.setup = g.setup;
  p.mode = g.setup.mode;
  if (!g.error.ok())
    return p;
  p.input_shape = g.input;
  p.output_shape = g.output;
  p.parameter_count = g.parameter_count;
  p.non_trainable_count = g.non_trainable_count;

  const bool training = p.mode == Mode::training;
  const auto layers = static_cast<std::int64_t>(L);
  const std::int64_t loss_step = layers;
  auto backward_step = [&](std::int64_t i) { return 2 * layers - i; };

  // ---- schedule
  for (std::int64_t i = 0; i < layers; ++i)
    p.schedule.push_back({StepKind::forward, i});
  if (training) {
    p.schedule.push_back({StepKind::loss, -1});
    for (std::int64_t i = layers - 1; i >= 0; --i)
      p.schedule.push_back({StepKind::backward, i});
    p.schedule.push_back({StepKind::update, -1});
  }
  detail::PlanBuilder<L> build{p, p.step_count() - 1};

  // ---- persistent buffers
  const std::int64_t parameter_bytes = g.parameter_count * 4;
  const std::int64_t batch = g.setup.batch;
  build.add_persistent(BufferRole::parameters, parameter_bytes);
  if (g.non_trainable_count > 0)
    build.add_persistent(BufferRole::non_trainable, g.non_trainable_count * 4);
  if (training) {
    build.add_persistent(BufferRole::gradients, parameter_bytes);
    const std::int64_t copies = optimizer_state_copies(g.setup.optimizer);
    if (copies >= 1)
      build.add_persistent(BufferRole::optimizer_moment1, parameter_bytes);
    if (copies >= 2)
      build.add_persistent(BufferRole::optimizer_moment2, parameter_bytes);
  }
  const int input =
      build.add_persistent(BufferRole::input, g.input.elements() * size_of(g.setup.input_dtype));
  if (training) {
    if (g.setup.loss == LossKind::CrossEntropy)
      build.add_persistent(BufferRole::labels, batch * 4);
    else
      build.add_persistent(BufferRole::targets, g.output.elements() * 4);
  }
  std::int64_t workspace = 0;
  for (const Node& n : g.nodes)
    workspace = workspace > detail::workspace_bytes(n) ? workspace : detail::workspace_bytes(n);
  if (workspace > 0)
    build.add_persistent(BufferRole::workspace, workspace);

  // ---- who reads each layer's output: how many inputs name it, and the last layer that does
  std::array<std::int32_t, L> readers{};
  std::array<std::int64_t, L> last_reader{};
  for (std::int64_t i = 0; i < layers; ++i) {
    const Node& n = g.nodes[i];
    for (int k = 0; k < n.input_count(); ++k) {
      if (n.inputs[k] == model_input)
        continue;
      ++readers[n.inputs[k]];
      last_reader[n.inputs[k]] = i;
    }
  }
  std::array<int, L> output_of{};  // each layer's output buffer
  auto buffer_of = [&](std::int32_t tensor) {
    return tensor == model_input ? input : output_of[tensor];
  };

  // ---- forward: outputs, what backward keeps, parameter offsets
  // needed_by_backward[b]: some layer's backward reads buffer b, so nothing may overwrite it.
  // last_read[b]: the last forward step that reads a tensor held in b (views and in-place
  // layers put several tensors in one buffer), so nothing overwrites b before then.
  std::array<bool, Plan<L>::buffer_capacity> needed_by_backward{};
  std::array<std::int64_t, Plan<L>::buffer_capacity> last_read{};
  std::int64_t parameter_offset = 0, statistics_offset = 0;
  for (std::int64_t i = 0; i < layers; ++i) {
    const Node& n = g.nodes[i];
    LayerPlan& lp = p.layers[i];
    lp.kind = n.desc.kind;
    lp.options = n.desc;
    lp.inputs[0] = n.inputs[0];
    lp.inputs[1] = n.inputs[1];
    lp.input_shape = n.input;
    lp.input2_shape = n.input2;
    lp.output_shape = n.output;
    lp.parameters = n.parameters();
    lp.weight_offset = parameter_offset;
    lp.bias_offset = parameter_offset + n.weights;
    parameter_offset += n.parameters();
    lp.non_trainable = n.statistics;
    lp.statistics_offset = statistics_offset;
    statistics_offset += n.statistics;
    lp.forward_flops = n.forward_flops;
    lp.backward_flops = training ? n.backward_flops : 0;
    lp.workspace_bytes = detail::workspace_bytes(n);
    lp.runs_backward = n.output_needs_gradient;

    const int x = buffer_of(n.inputs[0]);
    lp.input_buffer = x;
    build.use(x, i);
    if (n.input_count() == 2) {
      lp.input2_buffer = buffer_of(n.inputs[1]);
      build.use(lp.input2_buffer, i);
    }
    // A view shares its input's storage; an elementwise layer, a Dropout or an Add may write
    // over its (first) input when nothing reads that storage later.
    const bool view =
        n.desc.kind == LayerKind::Flatten || (n.desc.kind == LayerKind::Dropout && !training);
    const bool can_overwrite = is_elementwise(n.desc.kind) || n.desc.kind == LayerKind::Dropout ||
                               n.desc.kind == LayerKind::Add;
    const std::int64_t output_bytes = n.output.elements() * activation_bytes_per_element;
    if (view || (can_overwrite && p.buffers[x].region() == Region::activations &&
                 !needed_by_backward[x] && last_read[x] <= i)) {
      lp.in_place = true;
      lp.output_buffer = x;
    } else {
      lp.output_buffer = build.add(BufferRole::activation, i, output_bytes, i);
    }
    output_of[i] = lp.output_buffer;
    if (readers[i] > 0 && last_read[lp.output_buffer] < last_reader[i])
      last_read[lp.output_buffer] = last_reader[i];

    if (lp.runs_backward) {
      const std::int64_t bwd = backward_step(i);
      if (saves_input(n.desc.kind)) {
        needed_by_backward[x] = true;
        lp.saved_bytes = p.buffers[x].size;
        build.use(x, bwd);
        if (is_batch_norm(n.desc.kind)) {
          lp.statistics_buffer = build.add(BufferRole::batch_statistics, i, n.statistics * 4, i);
          build.use(lp.statistics_buffer, bwd);
          lp.saved_bytes += p.buffers[lp.statistics_buffer].size;
        }
      } else if (is_elementwise(n.desc.kind)) {
        build.use(lp.output_buffer, bwd);
        needed_by_backward[lp.output_buffer] = true;
        lp.saved_bytes = output_bytes;
      } else if (n.desc.kind == LayerKind::MaxPool2d) {
        lp.window_index_buffer = build.add(BufferRole::window_index, i,
                                           n.output.elements() * window_index_bytes(n.desc), i);
        build.use(lp.window_index_buffer, bwd);
        lp.saved_bytes = p.buffers[lp.window_index_buffer].size;
      } else if (n.desc.kind == LayerKind::Dropout) {
        lp.mask_buffer = build.add(BufferRole::dropout_mask, i, (n.output.elements() + 7) / 8, i);
        build.use(lp.mask_buffer, bwd);
        lp.saved_bytes = p.buffers[lp.mask_buffer].size;
      }
    }
  }
  const int output = output_of[L - 1];

  if (!training) {
    build.use(output, build.last_step);  // the host reads the output after the pass
  } else {
    // ---- loss: reads the output and the labels, writes per-sample losses and d(output), and
    // under CrossEntropy each sample's predicted class: the host reads losses and predictions
    // after the whole step (for the loss and accuracy it reports), when backward has long since
    // reused the logits' bytes.
    build.use(output, loss_step);
    const int loss = build.add(BufferRole::loss, -1, batch * 4, loss_step);
    build.use(loss, build.last_step);
    if (g.setup.loss == LossKind::CrossEntropy) {
      const int predictions = build.add(BufferRole::predictions, -1, batch * 4, loss_step);
      build.use(predictions, build.last_step);
    }
    // ---- backward, in reverse layer order. gradient_of[t]: the buffer holding d(tensor t).
    // unread[b]: how many tensors whose gradient is buffer b have yet to be read by their
    // layer's backward; a layer may overwrite its dy in place only when it is the last.
    std::array<int, L> gradient_of{};
    gradient_of.fill(no_buffer);
    std::array<std::int32_t, Plan<L>::buffer_capacity> unread{};
    gradient_of[L - 1] = build.add(BufferRole::activation_gradient, layers - 1,
                                   g.output.elements() * activation_bytes_per_element, loss_step);
    unread[gradient_of[L - 1]] = 1;
    for (std::int64_t i = layers - 1; i >= 0; --i) {
      LayerPlan& lp = p.layers[i];
      // A layer whose output reaches no loss (possible only in hand-made node lists) gets no dy.
      if (!lp.runs_backward || gradient_of[i] == no_buffer)
        continue;
      const std::int64_t step = backward_step(i);
      const int dy = gradient_of[i];
      lp.output_gradient_buffer = dy;
      build.use(dy, step);
      --unread[dy];
      for (int k = 0; k < lp.input_count(); ++k) {
        const std::int32_t t = lp.inputs[k];
        if (!g.needs_gradient(t))
          continue;
        int& dx = k == 0 ? lp.input_gradient_buffer : lp.input2_gradient_buffer;
        const std::int64_t bytes = g.shape_of(t).elements() * activation_bytes_per_element;
        if (gradient_of[t] != no_buffer) {
          // Another reader of t went first: add this part to its buffer.
          dx = gradient_of[t];
          build.use(dx, step);
          (k == 0 ? lp.accumulates_input_gradient : lp.accumulates_input2_gradient) = true;
          lp.backward_flops += bytes / activation_bytes_per_element;
          continue;
        }
        const bool pass_through = lp.kind == LayerKind::Add || lp.kind == LayerKind::Flatten;
        if (readers[t] == 1 && (pass_through || (lp.in_place && unread[dy] == 0))) {
          dx = dy;  // the same values (Add, Flatten), or dy overwritten in place
        } else {
          dx = build.add(BufferRole::activation_gradient, i, bytes, step);
        }
        gradient_of[t] = dx;
        ++unread[dx];
      }
    }
  }

  // ---- regions and offsets
  std::array<std::int64_t, region_count> region_size{};
  constexpr int activations = static_cast<int>(Region::activations);
  for (Buffer& b : p.buffers) {
    if (b.region() == Region::activations)
      continue;
    b.offset = region_size[static_cast<int>(b.region())];  // relative until bases are known
    region_size[static_cast<int>(b.region())] += b.occupied();
  }
  std::int64_t base = 0;
  for (int r = 0; r < region_count; ++r) {
    if (r == activations)
      continue;
    p.region_offset[r] = base;
    base += region_size[r];
  }
  p.region_offset[activations] = base;
  for (Buffer& b : p.buffers)
    if (b.region() != Region::activations)
      b.offset += p.region_offset[static_cast<int>(b.region())];
  region_size[activations] = detail::place_activations(p, base);

  auto size = [&](Region r) { return Bytes{region_size[static_cast<int>(r)]}; };
  p.footprint = Footprint{.weights = size(Region::weights),
                          .gradients = size(Region::gradients),
                          .optimizer_state = size(Region::optimizer_state),
                          .activations = size(Region::activations),
                          .workspace = size(Region::workspace),
                          .inputs = size(Region::inputs),
                          .non_trainable = size(Region::non_trainable)};
  return p;
}

// ---- the type-level entry points -------------------------------------------------------------

template <Model M, Setup S>
inline constexpr auto plan_v = plan(lower<M, S>());

// The plan of Model trained (or run) as Setup says. Evaluated once per program, at compile time.
template <Model M, Setup S>
constexpr const auto& plan() {
  return plan_v<M, S>;
}

}  // namespace staticnet
