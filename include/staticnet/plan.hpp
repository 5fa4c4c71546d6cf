#pragma once
// Plans one training step (or one forward pass under sn::Inference) of a lowered graph: the
// schedule, every buffer with its lifetime, and their offsets in one arena (see plan_types.hpp
// for the schedule and the arena's regions, placement.hpp for how the activation region is
// shared).
//
// Gradients in a graph. A tensor read by one layer gets its gradient as a chain does: written by
// that layer's backward, or, through an Add, a Flatten, or an elementwise layer or Dropout that
// ran in place, the same buffer as the gradient of that layer's output. A tensor read by two layers
// (a Residual's input) gets a buffer of its own: the first backward to reach it writes it, the
// second adds to it (LayerPlan::accumulates_*). No buffer is ever changed in place while another
// tensor's gradient that shares it has yet to be read.
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/graph.hpp"
#include "staticnet/lower.hpp"
#include "staticnet/placement.hpp"
#include "staticnet/plan_state.hpp"
#include "staticnet/plan_types.hpp"
#include "staticnet/static_vector.hpp"

namespace staticnet {

namespace detail {

// Lifetime bookkeeping while the buffers are created. The list's storage is a built-in array,
// subscripted directly, which constant evaluation charges least (see static_vector.hpp).
template <std::size_t L>
struct PlanBuilder {
  StaticVector<Buffer, PlanState<L>::buffer_capacity>& list;
  std::int64_t last_step;

  constexpr int add(BufferRole role, std::int64_t layer, std::int64_t size, std::int64_t first) {
    Buffer b;
    b.role = role;
    b.layer = layer;
    b.size = size;
    b.first_step = b.last_step = first;
    return static_cast<int>(list.push_back(b));
  }
  constexpr int add_persistent(BufferRole role, std::int64_t size) {
    const int b = add(role, -1, size, 0);
    list.items[b].last_step = last_step;
    return b;
  }
  // The buffer is read at `step`: keep it alive until then.
  constexpr void use(int b, std::int64_t step) {
    if (b != no_buffer && list.items[b].last_step < step)
      list.items[b].last_step = step;
  }
};

// Steps in the schedule (see plan_types.hpp): forward, loss, backward and update in training.
constexpr std::int64_t step_count_of(Mode mode, std::int64_t layers) {
  return mode == Mode::training ? 2 * layers + 2 : layers;
}

// Scratch a layer's kernels need: Conv2d lowers each sample (each group of it) to a column
// matrix (im2col) of Cin/G·KH·KW rows by Ho·Wo columns, reused by forward, dW and dx (col2im).
// A depthwise convolution reads its input directly and needs none. (A 1x1 convolution at stride 1
// is counted too: the CPU backend reads its input as the column matrix and does not touch the
// workspace, but cuDNN, which the CUDA backend lets use it, may.)
constexpr std::int64_t workspace_bytes(const Node& n) {
  if (n.desc.kind != LayerKind::Conv2d)
    return 0;
  return n.input[1] / n.desc.groups * n.desc.kernel_h * n.desc.kernel_w * n.output[2] *
         n.output[3] * activation_bytes_per_element;
}

// Who reads each layer's output: how many inputs name it.
template <std::size_t L>
constexpr void count_readers(const Node (&nodes)[L], std::int32_t (&readers)[L]) {
  for (std::size_t i = 0; i < L; ++i)
    for (int k = 0; k < nodes[i].input_count(); ++k)
      if (nodes[i].inputs[k] != model_input)
        ++readers[nodes[i].inputs[k]];
}

// The first stage of plan(): the persistent buffers, and forward's buffers with what backward
// keeps. A graph that carries an error gives an empty state.
template <std::size_t L>
constexpr PlanState<L> plan_forward(const Graph<L>& g) {
  PlanState<L> p;
  if (!g.error.ok())
    return p;
  const bool training = g.setup.mode == Mode::training;
  const auto layers = static_cast<std::int64_t>(L);
  auto backward_step = [&](std::int64_t i) { return 2 * layers - i; };
  p.step_count = step_count_of(g.setup.mode, layers);
  PlanBuilder<L> build{p.buffers, p.step_count - 1};
  const auto& nodes = g.nodes;
  auto& layers_out = p.layers;
  const auto& buffers = p.buffers.items;

  // ---- persistent buffers, made before any other (place() relies on it)
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
  const std::int64_t input_bytes = g.input.elements() * size_of(g.setup.input_dtype);
  const int input = build.add_persistent(BufferRole::input, input_bytes);
  std::int64_t batch_bytes = align_up(input_bytes);  // the inputs region's layout, so far
  if (training) {
    const std::int64_t answer_bytes =
        g.setup.loss == LossKind::CrossEntropy ? batch * 4 : g.output.elements() * 4;
    build.add_persistent(
        g.setup.loss == LossKind::CrossEntropy ? BufferRole::labels : BufferRole::targets,
        answer_bytes);
    batch_bytes += answer_bytes;
  }
  // Prefetch: a copy of the batch's layout (input, then labels or targets), after it.
  if (g.setup.prefetch)
    build.add_persistent(BufferRole::next_batch, batch_bytes);
  std::int64_t workspace = 0;
  for (std::size_t i = 0; i < L; ++i) {
    layers_out[i].workspace_bytes = workspace_bytes(nodes[i]);
    workspace =
        workspace > layers_out[i].workspace_bytes ? workspace : layers_out[i].workspace_bytes;
  }
  if (workspace > 0)
    build.add_persistent(BufferRole::workspace, workspace);

  // ---- the last layer that reads each layer's output (none: 0)
  std::int64_t last_reader[L]{};
  for (std::int64_t i = 0; i < layers; ++i)
    for (int k = 0; k < nodes[i].input_count(); ++k)
      if (nodes[i].inputs[k] != model_input)
        last_reader[nodes[i].inputs[k]] = i;
  int output_of[L]{};  // each layer's output buffer
  auto buffer_of = [&](std::int32_t tensor) {
    return tensor == model_input ? input : output_of[tensor];
  };

  // ---- forward: outputs, what backward keeps, parameter offsets
  // needed_by_backward[b]: some layer's backward reads buffer b, so nothing may overwrite it.
  // last_read[b]: the last forward step that reads a tensor held in b (views and in-place
  // layers put several tensors in one buffer), so nothing overwrites b before then.
  bool needed_by_backward[PlanState<L>::buffer_capacity]{};
  std::int64_t last_read[PlanState<L>::buffer_capacity]{};
  for (std::int64_t i = 0; i < layers; ++i) {
    const Node& n = nodes[i];
    LayerBuffers& lp = layers_out[i];

    const int x = buffer_of(n.inputs[0]);
    lp.input_buffer = x;
    build.use(x, i);
    if (n.input_count() == 2) {
      lp.input2_buffer = buffer_of(n.inputs[1]);
      build.use(lp.input2_buffer, i);
    }
    // A view shares its input's storage; an elementwise layer, a Dropout or an Add may write
    // over its (first) input when nothing reads that storage later, and so may a BatchNorm under
    // Inference, a per-channel affine map of its input (folded_batch_norm() says when it is
    // folded into the layer before).
    const bool view =
        n.desc.kind == LayerKind::Flatten || (n.desc.kind == LayerKind::Dropout && !training);
    const bool elementwise = is_elementwise(n.desc.kind);
    const bool can_overwrite = elementwise || n.desc.kind == LayerKind::Dropout ||
                               n.desc.kind == LayerKind::Add ||
                               (!training && is_batch_norm(n.desc.kind));
    const std::int64_t output_bytes = n.output.elements() * activation_bytes_per_element;
    if (view || (can_overwrite && in_activation_region(buffers[x].role) && !needed_by_backward[x] &&
                 last_read[x] <= i)) {
      lp.in_place = true;
      lp.output_buffer = x;
    } else {
      lp.output_buffer = build.add(BufferRole::activation, i, output_bytes, i);
    }
    output_of[i] = lp.output_buffer;
    if (last_read[lp.output_buffer] < last_reader[i])
      last_read[lp.output_buffer] = last_reader[i];

    if (n.output_needs_gradient) {
      const std::int64_t bwd = backward_step(i);
      if (saves_input(n.desc.kind)) {
        needed_by_backward[x] = true;
        lp.saved_bytes = buffers[x].size;
        build.use(x, bwd);
        if (is_batch_norm(n.desc.kind)) {
          lp.statistics_buffer = build.add(BufferRole::batch_statistics, i, n.statistics * 4, i);
          build.use(lp.statistics_buffer, bwd);
          lp.saved_bytes += buffers[lp.statistics_buffer].size;
        }
      } else if (elementwise) {
        build.use(lp.output_buffer, bwd);
        needed_by_backward[lp.output_buffer] = true;
        lp.saved_bytes = output_bytes;
      } else if (n.desc.kind == LayerKind::MaxPool2d) {
        lp.window_index_buffer = build.add(BufferRole::window_index, i,
                                           n.output.elements() * window_index_bytes(n.desc), i);
        build.use(lp.window_index_buffer, bwd);
        lp.saved_bytes = buffers[lp.window_index_buffer].size;
      } else if (n.desc.kind == LayerKind::Dropout) {
        lp.mask_buffer = build.add(BufferRole::dropout_mask, i, (n.output.elements() + 7) / 8, i);
        build.use(lp.mask_buffer, bwd);
        lp.saved_bytes = buffers[lp.mask_buffer].size;
      }
    }
  }
  if (!training)
    build.use(output_of[L - 1], build.last_step);  // the host reads the output after the pass
  return p;
}

// The second stage of plan(): in training, the loss's buffers and backward's gradient buffers.
template <std::size_t L>
constexpr PlanState<L> plan_backward(const Graph<L>& g, const PlanState<L>& forward) {
  PlanState<L> p = forward;
  if (!g.error.ok() || g.setup.mode != Mode::training)
    return p;
  const auto layers = static_cast<std::int64_t>(L);
  const std::int64_t loss_step = layers;
  auto backward_step = [&](std::int64_t i) { return 2 * layers - i; };
  PlanBuilder<L> build{p.buffers, p.step_count - 1};
  const auto& nodes = g.nodes;
  auto& layers_out = p.layers;
  const std::int64_t batch = g.setup.batch;
  std::int32_t readers[L]{};
  count_readers(nodes, readers);
  const int output = layers_out[L - 1].output_buffer;
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
  int gradient_of[L]{};
  for (std::size_t t = 0; t < L; ++t)
    gradient_of[t] = no_buffer;
  std::int32_t unread[PlanState<L>::buffer_capacity]{};
  gradient_of[L - 1] = build.add(BufferRole::activation_gradient, layers - 1,
                                 g.output.elements() * activation_bytes_per_element, loss_step);
  unread[gradient_of[L - 1]] = 1;
  for (std::int64_t i = layers - 1; i >= 0; --i) {
    const Node& n = nodes[i];
    LayerBuffers& lp = layers_out[i];
    // A layer whose output reaches no loss (possible only in hand-made node lists) gets no dy.
    if (!n.output_needs_gradient || gradient_of[i] == no_buffer)
      continue;
    const std::int64_t step = backward_step(i);
    const int dy = gradient_of[i];
    lp.output_gradient_buffer = dy;
    build.use(dy, step);
    --unread[dy];
    for (int k = 0; k < n.input_count(); ++k) {
      const std::int32_t t = n.inputs[k];
      if (!g.needs_gradient(t))
        continue;
      int& dx = k == 0 ? lp.input_gradient_buffer : lp.input2_gradient_buffer;
      const std::int64_t bytes = g.shape_of(t).elements() * activation_bytes_per_element;
      if (gradient_of[t] != no_buffer) {
        // Another reader of t went first: add this part to its buffer.
        dx = gradient_of[t];
        build.use(dx, step);
        (k == 0 ? lp.accumulates_input_gradient : lp.accumulates_input2_gradient) = true;
        continue;
      }
      const bool pass_through = n.desc.kind == LayerKind::Add || n.desc.kind == LayerKind::Flatten;
      if (readers[t] == 1 && (pass_through || (lp.in_place && unread[dy] == 0))) {
        dx = dy;  // the same values (Add, Flatten), or dy overwritten in place
      } else {
        dx = build.add(BufferRole::activation_gradient, i, bytes, step);
      }
      gradient_of[t] = dx;
      ++unread[dx];
    }
  }

  return p;
}

// The third stage of plan(): the regions' offsets and sizes, and the activation region's
// placement.
template <std::size_t L>
constexpr PlanState<L> place(const PlanState<L>& unplaced) {
  PlanState<L> p = unplaced;
  if (p.buffers.empty())  // the graph carries an error
    return p;
  // ---- regions and offsets. The persistent buffers are the first ones made (plan_forward), so
  // the walk stops at the first buffer of the activation region.
  constexpr int activations = static_cast<int>(Region::activations);
  auto& buffers = p.buffers.items;
  std::size_t persistent = 0;
  while (persistent < p.buffers.size() && !in_activation_region(buffers[persistent].role)) {
    Buffer& b = buffers[persistent++];
    b.offset = p.region_size[static_cast<int>(b.region())];  // relative until bases are known
    p.region_size[static_cast<int>(b.region())] += b.occupied();
  }
  std::int64_t base = 0;
  for (int r = 0; r < region_count; ++r) {
    if (r == activations)
      continue;
    p.region_offset[r] = base;
    base += p.region_size[r];
  }
  p.region_offset[activations] = base;
  for (std::size_t i = 0; i < persistent; ++i)
    buffers[i].offset += p.region_offset[static_cast<int>(buffers[i].region())];
  p.region_size[activations] = place_activations(p, base);
  return p;
}

// Under Inference, a BatchNorm that reads a convolution's or a Linear's output, which nothing
// else reads, is folded into that layer (as TensorFlow Lite's converter and PyTorch's
// fuse_conv_bn_eval do): W' = W·γ/√(var + ε) per output channel, b' = (b − mean)·γ/√(var + ε) + β.
// It then runs no kernel of its own; plan_forward() already lets it write over its input.
template <std::size_t L>
constexpr bool folded_batch_norm(const Node (&nodes)[L], const std::int32_t (&readers)[L],
                                 std::size_t i, Mode mode) {
  const Node& n = nodes[i];
  if (mode != Mode::inference || !is_batch_norm(n.desc.kind) || n.inputs[0] == model_input)
    return false;
  const LayerKind producer = nodes[n.inputs[0]].desc.kind;
  return readers[n.inputs[0]] == 1 &&
         (producer == LayerKind::Conv2d || producer == LayerKind::DepthwiseConv2d ||
          producer == LayerKind::Linear);
}

// What each layer is, from its node: kind, options, shapes, parameter offsets and FLOPs; and the
// buffers the stages gave it.
template <std::size_t L>
constexpr void describe_layers(const Graph<L>& g, const PlanState<L>& s, Plan<L>& p) {
  const bool training = p.mode == Mode::training;
  std::int64_t parameter_offset = 0, statistics_offset = 0;
  const auto& nodes = g.nodes;
  LayerPlan* const layers = p.layers.data();
  std::int32_t readers[L]{};  // only folding (Inference) asks; training is spared the count
  if (!training)
    count_readers(nodes, readers);
  for (std::size_t i = 0; i < L; ++i) {
    const Node& n = nodes[i];
    LayerPlan& lp = layers[i];
    static_cast<LayerBuffers&>(lp) = s.layers[i];
    lp.kind = n.desc.kind;
    lp.options = n.desc;
    lp.inputs[0] = n.inputs[0];
    lp.inputs[1] = n.inputs[1];
    lp.input_shape = n.input;
    lp.input2_shape = n.input2;
    lp.output_shape = n.output;
    lp.parameters = n.weights + n.biases;
    lp.weight_offset = parameter_offset;
    lp.bias_offset = parameter_offset + n.weights;
    parameter_offset += lp.parameters;
    lp.non_trainable = n.statistics;
    lp.statistics_offset = statistics_offset;
    statistics_offset += n.statistics;
    lp.forward_flops = n.forward_flops;
    lp.backward_flops = training ? n.backward_flops : 0;
    // Adding a part to another reader's gradient is one more add per element.
    if (lp.accumulates_input_gradient)
      lp.backward_flops += n.input.elements();
    if (lp.accumulates_input2_gradient)
      lp.backward_flops += n.input2.elements();
    lp.runs_backward = n.output_needs_gradient;
    if (folded_batch_norm(nodes, readers, i, p.mode)) {
      lp.folded = true;
      // Folding costs nothing per element, unless the layer before had no bias: then it gains
      // one, an add per element.
      lp.forward_flops = nodes[n.inputs[0]].desc.bias ? 0 : n.output.elements();
    }
  }
}

// The last stage of plan(): the Plan, from the graph and the placed buffers.
template <std::size_t L>
constexpr Plan<L> assemble(const Graph<L>& g, const PlanState<L>& s) {
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
  // The schedule, written field by field into the defaults (forward, no layer): g++ spent about
  // 1 KB on each push_back of a Step.
  const auto layers = static_cast<std::int64_t>(L);
  auto& steps = p.schedule.items;
  for (std::int64_t i = 0; i < layers; ++i)
    steps[i].layer = i;
  if (p.mode == Mode::training) {
    steps[layers].kind = StepKind::loss;
    for (std::int64_t i = 0; i < layers; ++i) {
      steps[layers + 1 + i].kind = StepKind::backward;
      steps[layers + 1 + i].layer = layers - 1 - i;
    }
    steps[2 * layers + 1].kind = StepKind::update;
  }
  p.schedule.count = static_cast<std::size_t>(step_count_of(p.mode, layers));
  describe_layers(g, s, p);
  p.buffers = s.buffers;
  for (std::size_t r = 0; r < p.region_offset.size(); ++r)
    p.region_offset[r] = s.region_offset[r];
  auto size = [&](Region r) { return Bytes{s.region_size[static_cast<int>(r)]}; };
  p.footprint = Footprint{.weights = size(Region::weights),
                          .gradients = size(Region::gradients),
                          .optimizer_state = size(Region::optimizer_state),
                          .activations = size(Region::activations),
                          .workspace = size(Region::workspace),
                          .inputs = size(Region::inputs),
                          .non_trainable = size(Region::non_trainable)};
  return p;
}

}  // namespace detail

// Plans a lowered graph. A graph that carries an error gives an empty plan with that error.
template <std::size_t L>
constexpr Plan<L> plan(const Graph<L>& g) {
  return detail::assemble(g, detail::place(detail::plan_backward(g, detail::plan_forward(g))));
}

// ---- the type-level entry points -------------------------------------------------------------
//
// Each stage is a constant of its own, so each is its own constant evaluation with its own
// budget under the compilers' limits (g++'s -fconstexpr-ops-limit, clang's -fconstexpr-steps):
// lowering, forward's buffers, backward's, their placement, the Plan. A model of ten thousand
// layers plans within the default limits of both (bench/RESULTS.md, "Compile cost of planning").

namespace detail {
template <Model M, Setup S>
inline constexpr auto forward_v = plan_forward(lower<M, S>());
template <Model M, Setup S>
inline constexpr auto backward_v = plan_backward(lower<M, S>(), forward_v<M, S>);
template <Model M, Setup S>
inline constexpr auto placed_v = place(backward_v<M, S>);
}  // namespace detail

template <Model M, Setup S>
inline constexpr auto plan_v = detail::assemble(lower<M, S>(), detail::placed_v<M, S>);

// The plan of Model trained (or run) as Setup says. Evaluated once per program, at compile time.
template <Model M, Setup S>
constexpr const auto& plan() {
  return plan_v<M, S>;
}

}  // namespace staticnet
