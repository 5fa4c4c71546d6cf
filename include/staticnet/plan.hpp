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

#include "staticnet/checkpointing.hpp"
#include "staticnet/graph.hpp"
#include "staticnet/lower.hpp"
#include "staticnet/placement.hpp"
#include "staticnet/plan_state.hpp"
#include "staticnet/plan_types.hpp"
#include "staticnet/static_vector.hpp"

namespace staticnet {

namespace detail {

// Makes the buffers and the schedule: the steps, and each step's reads and writes, from which
// every lifetime is taken (a buffer lives from the step that first writes it to the last step
// that touches it). The lists' storage is built-in arrays, subscripted directly, which constant
// evaluation charges least (see static_vector.hpp).
//
// The schedule is made by the stages that make the buffers, in the loops that make them, rather
// than by a stage of its own: with a stage that walked the layers again to record the same
// accesses, g++ planned the 10,001-layer chain in 531 MiB (389 before the schedule, 426 this
// way), past the 500 MB that planning may take (bench/RESULTS.md, "Compile cost of planning").
// A later stage adds steps (a forward run again to recompute what was not kept, a loop over
// micro-batches) with the same calls.
template <std::size_t L>
struct PlanBuilder {
  PlanState<L>& p;
  std::int64_t now = 0;  // the current step
  constexpr int add(BufferRole role, std::int64_t layer, DType dtype, std::int64_t elements) {
    Buffer b;
    b.role = role;
    b.dtype = dtype;
    b.layer = layer;
    b.size = bytes_of(dtype, elements);
    b.first_step = now;  // a buffer is made at the step that first writes it
    const auto index = static_cast<int>(p.buffers.push_back(b));
    if (!in_activation_region(role))
      p.next_version[index] = 1;  // it enters the step holding version 0
    return index;
  }
  constexpr int add_persistent(BufferRole role, DType dtype, std::int64_t elements) {
    return add(role, -1, dtype, elements);
  }

  // Starts the next step; the accesses that follow are its own. Field by field into the defaults
  // (forward, no layer): g++ spends memory on every struct a constant evaluation copies.
  constexpr void step(StepKind kind, std::int64_t layer) {
    now = static_cast<std::int64_t>(p.steps.count);
    Step& s = p.steps.items[p.steps.count++];
    s.kind = kind;
    s.layer = layer;
    s.first_access = static_cast<std::int32_t>(p.access_codes.count);
  }
  // The current step reads, writes or updates buffer b (not no_buffer: callers test optional
  // ones, which costs clang's step count less than a call).
  constexpr void read(int b) { access(b, p.next_version[b] - 1, AccessKind::read); }
  constexpr void write(int b) { access(b, p.next_version[b]++, AccessKind::write); }
  constexpr void update(int b) { access(b, p.next_version[b]++, AccessKind::update); }

 private:
  // A buffer lives from the step that makes it to the last that accesses it (a persistent one,
  // the whole step: place() sets it).
  constexpr void access(int b, std::int32_t version, AccessKind kind) {
    p.access_codes.items[p.access_codes.count++] = Access::encode(b, version, kind);
    p.buffers.items[b].last_step = now;
  }
};

// The persistent buffer of a role (plan_forward makes them first), or no_buffer.
template <std::size_t L>
constexpr int persistent_buffer(const PlanState<L>& p, BufferRole role) {
  for (std::size_t b = 0; b < p.buffers.size() && !in_activation_region(p.buffers.items[b].role);
       ++b)
    if (p.buffers.items[b].role == role)
      return static_cast<int>(b);
  return no_buffer;
}

// Layers whose backward passes dy on as their input's gradient unchanged (an Add to both inputs).
constexpr bool is_pass_through(LayerKind k) {
  return k == LayerKind::Add || k == LayerKind::Flatten;
}

// The plan's typing: the dtype of a layer's output (and so of its gradient) under the setup's
// precision, from the dtypes of its inputs. Under FP32 every activation is f32. Otherwise, as
// torch.autocast decides it: a Linear or a convolution computes in the precision's low dtype; an
// Add of two dtypes gives the wider (PyTorch's type promotion); every other layer keeps its
// input's dtype (layers.hpp lists them). Integer inputs are taken as f32 (the first layer converts
// them as it reads).
constexpr DType output_dtype(const Node& n, const PrecisionDtypes& precision, DType input,
                             DType input2) {
  switch (n.desc.kind) {
    case LayerKind::Linear:
    case LayerKind::Conv2d:
    case LayerKind::DepthwiseConv2d:
      return precision.products;
    case LayerKind::Add:
      return input == DType::f32 || input2 == DType::f32 ? DType::f32 : input;
    default:
      return input;
  }
}

// The dtype the model's input counts as for the typing: the products' under Pure (the model runs
// on bf16 input as it arrives), else f32.
constexpr DType model_input_dtype(const SetupDesc& s) {
  const PrecisionDtypes precision = precision_dtypes(s.precision);
  return precision.model_input_is_low ? precision.products : DType::f32;
}

// Scratch a layer's kernels need: Conv2d lowers each sample (each group of it) to a column
// matrix (im2col) of Cin/G·KH·KW rows by Ho·Wo columns, reused by forward, dW and dx (col2im).
// A depthwise convolution reads its input directly and needs none. (A 1x1 convolution at stride 1
// is counted too: the CPU backend reads its input as the column matrix and does not touch the
// workspace, but cuDNN, which the CUDA backend lets use it, may.)
constexpr std::int64_t workspace_elements(const Node& n) {
  if (n.desc.kind != LayerKind::Conv2d)
    return 0;
  return n.input[1] / n.desc.groups * n.desc.kernel_h * n.desc.kernel_w * n.output[2] * n.output[3];
}

// Under Int8, what a convolution or Linear keeps in flash (TensorFlow Lite's scheme, with what
// TensorFlow Lite Micro computes into its arena at start-up computed at build time instead): its
// int8 weights, and per output channel an int32 bias (zero where the layer has none and no
// BatchNorm folds into it), the requantization's int32 multiplier and its shift (an int32, as
// TensorFlow Lite Micro keeps it). A layer's channel numbers are three runs of C values: biases,
// multipliers, shifts.
inline constexpr std::int64_t channel_numbers_per_channel = 3;
// 16 bytes: TensorFlow Lite Micro's arena alignment (MicroArenaBufferAlignment), which its
// kernels and CMSIS-NN's assume; a microcontroller's SRAM is too small for 256-byte slots.
inline constexpr std::uint8_t quantized_alignment_log2 = 4;

constexpr bool is_quantized_product(LayerKind k) {
  return k == LayerKind::Conv2d || k == LayerKind::DepthwiseConv2d || k == LayerKind::Linear;
}
// The channels a product's output has: (batch, C, H, W) or (batch, F).
constexpr std::int64_t output_channels(const Node& n) {
  return n.output[1];
}

struct QuantizedParameters {
  std::int64_t weights = 0;          // int8 elements
  std::int64_t channel_numbers = 0;  // int32 elements
};
template <std::size_t L>
constexpr QuantizedParameters quantized_parameters(const Node (&nodes)[L]) {
  QuantizedParameters q;
  for (const Node& n : nodes) {
    if (!is_quantized_product(n.desc.kind))
      continue;
    q.weights += n.weights;
    q.channel_numbers += channel_numbers_per_channel * output_channels(n);
  }
  return q;
}

// The first stage of plan(): the persistent buffers, and forward's buffers with what backward
// keeps. A graph that carries an error gives an empty state.
template <std::size_t L>
constexpr PlanState<L> plan_forward(const Graph<L>& g) {
  PlanState<L> p;
  if (!g.error.ok())
    return p;
  p.micro_batches = g.setup.micro_batches;
  const bool training = g.setup.mode == Mode::training;
  const auto layers = static_cast<std::int64_t>(L);
  PlanBuilder<L> build{p};
  const auto& nodes = g.nodes;
  auto& layers_out = p.layers;
  const auto& buffers = p.buffers.items;
  const PrecisionDtypes precision = precision_dtypes(g.setup.precision);

  // ---- persistent buffers, made before any other (place() relies on it). The parameters, their
  // gradients, the optimizer's state and the running statistics are in the precision's
  // parameter dtype; the working copy, where there is one, mirrors the whole parameter region (a
  // BatchNorm's γ and β too, which autocast leaves in f32: 2 bytes each, so that one pass over the
  // region makes the copy and each layer finds its part at its master's offset).
  const std::int64_t batch = g.setup.batch;
  const DType parameters = precision.parameters;
  if (precision.quantized) {
    // Int8: the weights and each product's per-channel numbers, constants in flash; every
    // BatchNorm is folded into them (lower() has checked that each can be), so there are no
    // running statistics. Buffers are aligned as TensorFlow Lite Micro aligns its arena's.
    const QuantizedParameters q = quantized_parameters(g.nodes);
    build.add_persistent(BufferRole::parameters, DType::i8, q.weights);
    build.add_persistent(BufferRole::quantization, DType::i32, q.channel_numbers);
  } else {
    build.add_persistent(BufferRole::parameters, parameters, g.parameter_count);
    if (precision.has_working_copy() && g.parameter_count > 0)
      build.add_persistent(BufferRole::parameter_copy, precision.working_copy, g.parameter_count);
    if (g.non_trainable_count > 0)
      build.add_persistent(BufferRole::non_trainable, parameters, g.non_trainable_count);
  }
  if (training) {
    build.add_persistent(BufferRole::gradients, parameters, g.parameter_count);
    const std::int64_t copies = optimizer_state_copies(g.setup.optimizer);
    if (copies >= 1)
      build.add_persistent(BufferRole::optimizer_moment1, parameters, g.parameter_count);
    if (copies >= 2)
      build.add_persistent(BufferRole::optimizer_moment2, parameters, g.parameter_count);
    if (precision.scales_loss)
      build.add_persistent(BufferRole::loss_scale, DType::u8, loss_scale_bytes);
  }
  int input = no_buffer;
  std::int64_t batch_bytes = 0;  // the inputs region's layout, so far
  if (!precision.quantized) {
    // The whole batch, every micro-batch's slice of it (g.input is one micro-batch's).
    input = build.add_persistent(BufferRole::input, g.setup.input_dtype,
                                 g.input.elements() * g.setup.micro_batches);
    batch_bytes = buffers[input].occupied();
  }
  if (training) {
    const int answer = g.setup.loss == LossKind::CrossEntropy
                           ? build.add_persistent(BufferRole::labels, DType::i32, batch)
                           : build.add_persistent(BufferRole::targets, DType::f32,
                                                  g.output.elements() * g.setup.micro_batches);
    batch_bytes += buffers[answer].size;
  }
  // Prefetch: a copy of the batch's layout (input, then labels or targets), after it: bytes of
  // more than one type, so u8.
  if (g.setup.prefetch)
    build.add_persistent(BufferRole::next_batch, DType::u8, batch_bytes);
  std::int64_t workspace = 0;  // elements of the largest scratch
  // (Int8's kernels read their inputs where they are: no im2col, no scratch.)
  if (!precision.quantized) {
    for (std::size_t i = 0; i < L; ++i) {
      const std::int64_t elements = workspace_elements(nodes[i]);
      layers_out[i].workspace_bytes = bytes_of(DType::f32, elements);
      workspace = workspace > elements ? workspace : elements;
    }
  }
  if (workspace > 0)
    build.add_persistent(BufferRole::workspace, DType::f32, workspace);
  // Int8: the input, quantized as TensorFlow Lite's int8 models take it, is the first tensor of
  // the shared region; it holds version 0 when the pass starts, as a persistent buffer does, and
  // lives until its last reader.
  if (precision.quantized) {
    input = build.add(BufferRole::arena_input, -1, DType::i8, g.input.elements());
    p.next_version[input] = 1;
  }

  // ---- the last layer that reads each layer's output (none: 0)
  std::int64_t last_reader[L]{};
  for (std::int64_t i = 0; i < layers; ++i)
    for (int k = 0; k < nodes[i].input_count(); ++k)
      if (nodes[i].inputs[k] != model_input)
        last_reader[nodes[i].inputs[k]] = i;
  // Int8's input is in the shared region, where a layer may run in place over it: not before its
  // last reader (a residual block's shortcut reads it after the body's first layer).
  std::int64_t input_last_reader = 0;
  if (precision.quantized)
    for (std::int64_t i = 0; i < layers; ++i)
      for (int k = 0; k < nodes[i].input_count(); ++k)
        if (nodes[i].inputs[k] == model_input)
          input_last_reader = i;
  int output_of[L]{};  // each layer's output buffer
  auto buffer_of = [&](std::int32_t tensor) {
    return tensor == model_input ? input : output_of[tensor];
  };
  // A tensor's dtype: its buffer's, but the model's input is counted as model_input_dtype(),
  // and so is a view of it (a Flatten of the model's input holds the input's bytes).
  const DType model_input_type = model_input_dtype(g.setup);
  auto dtype_of = [&](std::int32_t tensor) {
    const Buffer& b = buffers[buffer_of(tensor)];
    return b.role == BufferRole::input || b.role == BufferRole::arena_input ? model_input_type
                                                                            : b.dtype;
  };
  // Under FP32 every activation is f32, and the typing is skipped: clang counts its steps on
  // every layer of a 10,001-layer chain.
  const bool typed = g.setup.precision != PrecisionKind::FP32;

  // ---- forward: outputs, what backward keeps, parameter offsets
  // needed_by_backward[b]: some layer's backward reads buffer b, so nothing may overwrite it.
  // last_read[b]: the last forward step that reads a tensor held in b (views and in-place
  // layers put several tensors in one buffer), so nothing overwrites b before then.
  // (Under checkpointing, a segment's input counts as needed: its recompute reads it.)
  bool needed_by_backward[PlanState<L>::buffer_capacity]{};
  std::int64_t last_read[PlanState<L>::buffer_capacity]{};
  const Segments<L> segments = checkpoint_segments(g.setup, nodes, g.checkpoint_cut_words);
  if (precision.quantized)
    last_read[input] = input_last_reader;
  for (std::int64_t i = 0; i < layers; ++i) {
    const Node& n = nodes[i];
    LayerBuffers& lp = layers_out[i];
    build.step(StepKind::forward, i);

    const int x = buffer_of(n.inputs[0]);
    lp.input_buffer = x;
    if (n.input_count() == 2)
      lp.input2_buffer = buffer_of(n.inputs[1]);
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
    DType output_type = DType::f32;
    if (typed)
      output_type = output_dtype(n, precision, dtype_of(n.inputs[0]),
                                 n.input_count() == 2 ? dtype_of(n.inputs[1]) : DType::f32);
    // (An Add of a bf16 and an f32 tensor writes f32: not over its bf16 input.)
    lp.in_place =
        view || (can_overwrite && in_activation_region(buffers[x].role) && !needed_by_backward[x] &&
                 last_read[x] <= i && buffers[x].dtype == output_type);
    // What it reads and writes: its inputs, and its output, over its input when in place (a view
    // writes nothing).
    if (!lp.in_place)
      build.read(x);
    if (lp.input2_buffer != no_buffer)
      build.read(lp.input2_buffer);
    if (view) {
      lp.output_buffer = x;
      build.read(x);
    } else if (lp.in_place) {
      lp.output_buffer = x;
      build.update(x);
    } else {
      lp.output_buffer = build.add(BufferRole::activation, i, output_type, n.output.elements());
      build.write(lp.output_buffer);
    }
    output_of[i] = lp.output_buffer;
    if (segments.ends[i])
      needed_by_backward[lp.output_buffer] = true;
    if (last_read[lp.output_buffer] < last_reader[i])
      last_read[lp.output_buffer] = last_reader[i];

    // What its backward keeps (backward's reads of them are plan_backward's).
    if (n.output_needs_gradient) {
      if (saves_input(n.desc.kind)) {
        needed_by_backward[x] = true;
        // (Of the model's input, the micro-batch's slice: Accumulate<K> keeps the whole batch.)
        lp.saved_bytes = x == input ? buffers[x].size / g.setup.micro_batches : buffers[x].size;
        if (is_batch_norm(n.desc.kind)) {
          // Under Accumulate<K> twice as many: backward keeps the micro-batch's own Σdy and
          // Σ dy·x̂ there, as the parameters' gradients hold every micro-batch's so far.
          lp.statistics_buffer =
              build.add(BufferRole::batch_statistics, i, DType::f32,
                        g.setup.micro_batches > 1 ? 2 * n.statistics : n.statistics);
          build.write(lp.statistics_buffer);
          lp.saved_bytes += bytes_of(DType::f32, n.statistics);  // (not backward's own sums)
        }
      } else if (elementwise) {
        needed_by_backward[lp.output_buffer] = true;
        lp.saved_bytes = buffers[lp.output_buffer].size;
      } else if (n.desc.kind == LayerKind::MaxPool2d) {
        lp.window_index_buffer =
            build.add(BufferRole::window_index, i, window_index_dtype(n.desc), n.output.elements());
        build.write(lp.window_index_buffer);
        lp.saved_bytes = buffers[lp.window_index_buffer].size;
      } else if (n.desc.kind == LayerKind::Dropout) {
        // One bit per element, packed into bytes.
        lp.mask_buffer =
            build.add(BufferRole::dropout_mask, i, DType::u8, (n.output.elements() + 7) / 8);
        build.write(lp.mask_buffer);
        lp.saved_bytes = buffers[lp.mask_buffer].size;
      }
    }
  }
  // Int8: every buffer in a 16-byte slot, set once here, where the stage that makes Int8's buffers
  // ends (Inference has no backward stage), rather than tested in every add().
  if (precision.quantized)
    for (std::size_t b = 0; b < p.buffers.size(); ++b)
      p.buffers.items[b].alignment_log2 = quantized_alignment_log2;
  return p;
}

// ---- Checkpointing -------------------------------------------------------------------------
//
// Under Checkpoint<P> (checkpointing.hpp cuts the model into segments) forward runs as without it,
// except that nothing runs in place over a segment's input. What it writes for a checkpointed
// segment's layers is dropped once forward has read it, except BatchNorm's statistics and what
// the segment's last layer writes (with the layers it runs in place over): that layer's output is
// the next segment's input. Before the backward of a segment's last layer, recompute steps run
// forward again, in forward order, for the layers whose dropped buffers backward reads and for the
// layers those read: each writes its dropped buffers' values into new buffers
// (Buffer::recomputed_as) and reads the new buffers of the layers before it, and backward reads
// the new buffers. They are ordinary buffers of the activation region, alive from their recompute
// step to their last reader, placed as every other buffer is. A recomputed BatchNorm reads the
// statistics its forward kept (and updates no running statistics), a recomputed Dropout writes the
// mask its forward wrote (its bits are a hash of the seed, the step, the layer and the element).

// Layer k's forward is dropped (computed again in backward): its segment is checkpointed and k is
// not the segment's last layer, nor one that layer runs in place over.
template <std::size_t L>
constexpr bool is_dropped(const Segments<L>& segments, const PlanState<L>& p, std::int64_t k) {
  return segments.checkpointed(k) &&
         p.layers[k].output_buffer != p.layers[segments.end_of(k)].output_buffer;
}

// One layer of mark_recomputed's walk (below), from the last layer down: what its backward reads is
// needed (need(b) marks it, where dropped); and, where the layer is dropped and not yet recomputed,
// it is recomputed if it writes something needed (is_needed(b)), which then needs its inputs.
// Returns whether it was newly recomputed. (checkpoint_costs.hpp walks only the layers whose needs
// changed, with the same rule.)
template <class Need, class IsNeeded>
constexpr bool mark_recomputed_layer(const Node& n, const LayerBuffers& lp, bool dropped,
                                     bool& recomputed, const Need& need,
                                     const IsNeeded& is_needed) {
  if (n.output_needs_gradient) {
    if (saves_input(n.desc.kind))
      need(lp.input_buffer);
    else if (is_elementwise(n.desc.kind))
      need(lp.output_buffer);
    need(lp.window_index_buffer);
    need(lp.mask_buffer);
  }
  if (!dropped || recomputed)
    return false;
  const int writes[] = {lp.output_buffer, lp.window_index_buffer, lp.mask_buffer};
  for (int b : writes)
    if (b != no_buffer && is_needed(b))
      recomputed = true;
  if (recomputed) {
    need(lp.input_buffer);
    need(lp.input2_buffer);
  }
  return recomputed;
}

// Which layers of the checkpointed segment first..last run again before its backward, and which
// of its dropped buffers are needed again: from the last layer down, what each layer's backward
// reads is needed, and a dropped layer (dropped_layer(k), is_dropped's answer) that writes
// something needed runs again, which needs its inputs. `needed` (by buffer) and `recomputed` (by
// layer) are the caller's, false for this segment's buffers and layers. Also what
// checkpoint_costs.hpp prices a segment with.
template <std::size_t L, class DroppedLayer>
constexpr void mark_recomputed(const Graph<L>& g, const PlanState<L>& p, std::int64_t first,
                               std::int64_t last, const DroppedLayer& dropped_layer, bool* needed,
                               bool* recomputed) {
  const auto& buffers = p.buffers.items;
  // A dropped buffer: what a dropped layer made (its output, window index or mask).
  auto dropped = [&](int b) {
    const Buffer& x = buffers[b];
    return in_activation_region(x.role) && x.role != BufferRole::batch_statistics &&
           x.layer >= first && x.layer <= last && dropped_layer(x.layer);
  };
  auto need = [&](int b) {
    if (b != no_buffer && dropped(b))
      needed[b] = true;
  };
  for (std::int64_t k = last; k >= first; --k)
    mark_recomputed_layer(g.nodes[k], p.layers[k], dropped_layer(k), recomputed[k], need,
                          [&](int b) { return needed[b]; });
}

// What running a layer's forward again costs, every micro-batch: its forward, or a BatchNorm's
// normalisation only (it reads the statistics its forward kept).
constexpr std::int64_t recompute_flops_of(const Node& n, std::int64_t micro_batches) {
  const std::int64_t flops = is_batch_norm(n.desc.kind) ? 2 * n.output.elements() : n.forward_flops;
  return flops * micro_batches;
}

// The recompute steps of the segment of layers first..last, in the stage that plans backward
// (before last's backward step). `needed` and `recomputed` are the callers', false for this
// segment's buffers and layers (segments do not share any).
template <std::size_t L>
constexpr void recompute_segment(PlanBuilder<L>& build, const Graph<L>& g,
                                 const Segments<L>& segments, std::int64_t first, std::int64_t last,
                                 bool* needed, bool* recomputed) {
  PlanState<L>& p = build.p;
  auto& buffers = p.buffers.items;
  mark_recomputed(
      g, p, first, last, [&](std::int64_t k) { return is_dropped(segments, p, k); }, needed,
      recomputed);
  // Then forward again, in order, into new buffers.
  auto again = [&](int b) { return recomputed_or_same(buffers, b); };
  auto remake = [&](int b, std::int64_t k) {
    const int made = build.add(buffers[b].role, k, buffers[b].dtype, buffers[b].elements());
    build.write(made);
    buffers[b].recomputed_as = made;
  };
  for (std::int64_t k = first; k <= last; ++k) {
    if (!recomputed[k])
      continue;
    const LayerBuffers& lp = p.layers[k];
    build.step(StepKind::recompute, k);
    // (A view, a Flatten, writes nothing: its step reads what its readers will, as forward's does.)
    if (g.nodes[k].desc.kind == LayerKind::Flatten)
      build.read(again(lp.input_buffer));
    else if (lp.in_place)
      build.update(again(lp.input_buffer));
    else
      build.read(again(lp.input_buffer));
    if (lp.input2_buffer != no_buffer)
      build.read(again(lp.input2_buffer));
    if (lp.statistics_buffer != no_buffer)
      build.read(lp.statistics_buffer);
    if (!lp.in_place)
      remake(lp.output_buffer, k);
    if (lp.window_index_buffer != no_buffer)
      remake(lp.window_index_buffer, k);
    if (lp.mask_buffer != no_buffer)
      remake(lp.mask_buffer, k);
  }
}

// The second stage of plan(): in training, the loss's buffers and backward's gradient buffers.
template <std::size_t L>
constexpr PlanState<L> plan_backward(const Graph<L>& g, const PlanState<L>& forward) {
  PlanState<L> p = forward;
  if (!g.error.ok() || g.setup.mode != Mode::training)
    return p;
  const auto layers = static_cast<std::int64_t>(L);
  PlanBuilder<L> build{p};
  const auto& nodes = g.nodes;
  auto& layers_out = p.layers;
  const std::int64_t batch = g.setup.batch;
  // A gradient has its tensor's dtype: its buffer's, as plan_forward() typed it (a view of the
  // model's input holds the input's bytes and counts as model_input_dtype()). Only layers' outputs
  // get gradients here: the model's input needs none (needs_gradient).
  auto dtype_of = [&](std::int64_t layer) {
    const Buffer& b = p.buffers.items[layers_out[layer].output_buffer];
    return b.role == BufferRole::input ? model_input_dtype(g.setup) : b.dtype;
  };

  const bool typed = g.setup.precision != PrecisionKind::FP32;  // else all f32, as in forward
  std::int32_t readers[L]{};
  count_readers(nodes, readers);
  // ---- loss: reads the output and the labels or targets; writes per-sample losses, d(output),
  // and under CrossEntropy each sample's predicted class. The host reads losses and predictions
  // after the whole step (for the loss and accuracy it reports), when backward has long since
  // reused the logits' bytes (place() keeps them to the end).
  build.step(StepKind::loss, -1);
  build.read(layers_out[L - 1].output_buffer);
  build.read(persistent_buffer(
      p, g.setup.loss == LossKind::CrossEntropy ? BufferRole::labels : BufferRole::targets));
  p.loss_buffer = build.add(BufferRole::loss, -1, DType::f32, batch);
  build.write(p.loss_buffer);
  if (g.setup.loss == LossKind::CrossEntropy) {
    p.predictions_buffer = build.add(BufferRole::predictions, -1, DType::i32, batch);
    build.write(p.predictions_buffer);
  }
  // ---- backward, in reverse layer order: each layer reads dy and what it kept, and writes (or
  // adds to) its inputs' gradients and its parameters' slice of the gradients.
  // gradient_of[t]: the buffer holding d(tensor t). unread[b]: how many tensors whose gradient
  // is buffer b have yet to be read by their layer's backward; a layer may overwrite its dy in
  // place only when it is the last.
  int gradient_of[L]{};
  for (std::size_t t = 0; t < L; ++t)
    gradient_of[t] = no_buffer;
  std::int32_t unread[PlanState<L>::buffer_capacity]{};
  gradient_of[L - 1] = build.add(BufferRole::activation_gradient, layers - 1, dtype_of(layers - 1),
                                 g.output.elements());
  build.write(gradient_of[L - 1]);
  unread[gradient_of[L - 1]] = 1;
  // Checkpointing: a checkpointed segment's recompute steps come before its last layer's
  // backward, and backward reads what they wrote (again()).
  const Segments<L> segments = checkpoint_segments(g.setup, nodes, g.checkpoint_cut_words);
  bool needed[PlanState<L>::buffer_capacity]{};
  bool recomputed[L]{};
  auto again = [&](int b) { return recomputed_or_same(p.buffers.items, b); };
  for (std::int64_t i = layers - 1; i >= 0; --i) {
    const Node& n = nodes[i];
    LayerBuffers& lp = layers_out[i];
    if (segments.ends[i]) {
      std::int64_t first = i;
      while (first > 0 && segments.end_of(first - 1) == i)
        --first;
      recompute_segment(build, g, segments, first, i, needed, recomputed);
    }
    build.step(StepKind::backward, i);
    // A layer whose output reaches no loss (possible only in hand-made node lists) gets no dy.
    if (!n.output_needs_gradient || gradient_of[i] == no_buffer)
      continue;
    const int dy = gradient_of[i];
    lp.output_gradient_buffer = dy;
    --unread[dy];
    // An elementwise layer or a Dropout that ran in place writes its input's gradient over dy
    // when that input has no other reader and no other gradient shares dy; the update reads dy.
    const std::int32_t t0 = n.inputs[0];
    const bool over_dy = lp.in_place && !is_pass_through(n.desc.kind) && g.needs_gradient(t0) &&
                         readers[t0] == 1 && unread[dy] == 0;
    if (!over_dy)
      build.read(dy);
    // What forward kept for it (or a recompute step wrote again).
    if (saves_input(n.desc.kind))
      build.read(again(lp.input_buffer));
    else if (is_elementwise(n.desc.kind))
      build.read(again(lp.output_buffer));
    if (lp.statistics_buffer != no_buffer && g.setup.micro_batches > 1)
      build.update(lp.statistics_buffer);  // its second half: this micro-batch's sums
    else if (lp.statistics_buffer != no_buffer)
      build.read(lp.statistics_buffer);
    else if (lp.window_index_buffer != no_buffer)
      build.read(again(lp.window_index_buffer));
    else if (lp.mask_buffer != no_buffer)
      build.read(again(lp.mask_buffer));
    for (int k = 0; k < n.input_count(); ++k) {
      const std::int32_t t = n.inputs[k];
      if (!g.needs_gradient(t))
        continue;
      int& dx = k == 0 ? lp.input_gradient_buffer : lp.input2_gradient_buffer;
      if (gradient_of[t] != no_buffer) {
        // Another reader of t went first: add this part to its buffer.
        dx = gradient_of[t];
        (k == 0 ? lp.accumulates_input_gradient : lp.accumulates_input2_gradient) = true;
        build.update(dx);
        continue;
      }
      // (A pass-through's gradient is dy itself only where the input has dy's dtype.)
      if (readers[t] == 1 && is_pass_through(n.desc.kind) &&
          (!typed || dtype_of(t) == dtype_of(i))) {
        dx = dy;  // the same values: nothing to write
      } else if (k == 0 && over_dy) {
        dx = dy;
        build.update(dx);
      } else {
        dx = build.add(BufferRole::activation_gradient, i, typed ? dtype_of(t) : DType::f32,
                       g.shape_of(t).elements());
        build.write(dx);
      }
      gradient_of[t] = dx;
      ++unread[dx];
    }
  }
  // ---- the optimizer's update: the state its kind implies (gradients, parameters, moments)
  build.step(StepKind::update, -1);
  return p;
}

// What the accesses leave out of lifetimes: the persistent buffers live through the whole step,
// and so do the buffers the host reads after it (the loss and the predictions in training, the
// output under Inference).
template <std::size_t L>
constexpr void extend_lifetimes(PlanState<L>& p) {
  auto& buffers = p.buffers.items;
  const std::int64_t last = p.step_count - 1;
  for (std::size_t b = 0; b < p.buffers.size() && !in_activation_region(buffers[b].role); ++b) {
    buffers[b].first_step = 0;
    buffers[b].last_step = last;
  }
  const int results[] = {p.loss_buffer, p.predictions_buffer,
                         p.loss_buffer == no_buffer ? p.layers[L - 1].output_buffer : no_buffer};
  for (int b : results)
    if (b != no_buffer)
      buffers[b].last_step = last;
  // Under Accumulate<K> the steps before the update run once per micro-batch, each writing its
  // slice of the losses and predictions: those hold the earlier slices through the later
  // micro-batches' forward steps, so they live from the first step.
  // (An array, not a braced list: nvcc 13's front end rewrites a range-for over a braced list in
  // this template into code the host compiler rejects; tests/compile_fail's nvcc_plan_compiles.)
  const int spanning[] = {p.loss_buffer, p.predictions_buffer};
  if (p.micro_batches > 1)
    for (int b : spanning)
      if (b != no_buffer)
        buffers[b].first_step = 0;
}

// The third stage of plan(): the regions' offsets and sizes, and the activation region's
// placement.
template <std::size_t L>
constexpr PlanState<L> place(const PlanState<L>& unplaced) {
  PlanState<L> p = unplaced;
  if (p.buffers.empty())  // the graph carries an error
    return p;
  p.step_count = static_cast<std::int64_t>(p.steps.size());
  extend_lifetimes(p);
  // The schedule stays with the stage that made it (assemble() reads it there): clang keeps every
  // stage's constant to the end of the translation unit, and a copy here cost it about 5 MB on
  // the 10,001-layer chain.
  p.steps = decltype(p.steps){};
  p.access_codes = decltype(p.access_codes){};
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

// What each layer is, from its node: kind, options, shapes, parameter offsets and FLOPs; and the
// buffers the stages gave it.
template <std::size_t L>
constexpr void describe_layers(const Graph<L>& g, const PlanState<L>& s, Plan<L>& p) {
  const bool training = p.mode == Mode::training;
  std::int64_t parameter_offset = 0, statistics_offset = 0, channel_offset = 0;
  const bool quantized = precision_dtypes(p.setup.precision).quantized;
  const std::int64_t micro_batches = p.setup.micro_batches;
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
    if (!quantized) {
      lp.weight_offset = parameter_offset;
      lp.bias_offset = parameter_offset + n.weights;
      parameter_offset += lp.parameters;
    } else if (is_quantized_product(n.desc.kind)) {
      // Int8: into the int8 weights and the int32 channel numbers (quantized_parameters).
      lp.weight_offset = parameter_offset;
      lp.bias_offset = channel_offset;
      parameter_offset += n.weights;
      channel_offset += channel_numbers_per_channel * output_channels(n);
    }
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
    // The node counts one micro-batch; a step runs every one (Accumulate<K>: K, else 1).
    lp.forward_flops *= micro_batches;
    lp.backward_flops *= micro_batches;
    lp.runs_backward = n.output_needs_gradient;
    if (folded_batch_norm(nodes, readers, i, p.mode)) {
      lp.folded = true;
      // Folding costs nothing per element, unless the layer before had no bias: then it gains
      // one, an add per element.
      lp.forward_flops = nodes[n.inputs[0]].desc.bias ? 0 : n.output.elements();
    }
  }
}

// The footprint of regions of these sizes (PlanState::region_size, indexed by Region).
constexpr Footprint footprint_of(const std::int64_t (&region_size)[region_count]) {
  auto size = [&](Region r) { return Bytes{region_size[static_cast<int>(r)]}; };
  return Footprint{.weights = size(Region::weights),
                   .gradients = size(Region::gradients),
                   .optimizer_state = size(Region::optimizer_state),
                   .activations = size(Region::activations),
                   .workspace = size(Region::workspace),
                   .inputs = size(Region::inputs),
                   .non_trainable = size(Region::non_trainable)};
}

// What the trainer holds in host memory beside the arena (HostFootprint), from the setup and the
// placed arena: the loader's slots hold the whole batch (every micro-batch's), f32 as the loader
// writes it whatever the arena's input dtype; the CUDA trainer's staging holds the batch as the
// arena lays it out.
template <std::size_t L>
constexpr HostFootprint host_footprint(const Graph<L>& g, const PlanState<L>& s,
                                       const Footprint& f) {
  HostFootprint h;
  if (g.setup.mode != Mode::training)
    return h;
  const std::int64_t batch = g.setup.batch, k = g.setup.micro_batches;
  const std::int64_t answer = g.setup.loss == LossKind::CrossEntropy
                                  ? bytes_of(DType::i32, batch)
                                  : bytes_of(DType::f32, g.output.elements() * k);
  h.batch_slots =
      Bytes{g.setup.batch_slots * (bytes_of(DType::f32, g.input.elements() * k) + answer)};
  // The batch as the CUDA trainer copies it: the inputs region, or under Prefetch the batch's
  // layout mirrored in next_batch (the region's end then holds that copy).
  std::int64_t staged = f.inputs.count;
  for (std::size_t b = 0; b < s.buffers.size(); ++b)
    if (s.buffers.items[b].role == BufferRole::next_batch)
      staged = s.buffers.items[b].size;
  h.pinned_staging = Bytes{2 * staged + bytes_of(DType::f32, batch) + bytes_of(DType::i32, batch)};
  const std::int64_t copies = 1 + optimizer_state_copies(g.setup.optimizer);
  h.checkpoint_state =
      Bytes{bytes_of(DType::f32, g.parameter_count * copies + g.non_trainable_count)};
  return h;
}

// The last stage of plan(): the Plan, from the graph, the placed buffers and the schedule (kept by
// the stage that made it).
template <std::size_t L>
constexpr Plan<L> assemble(const Graph<L>& g, const PlanState<L>& s,
                           const PlanState<L>& scheduled) {
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
  p.schedule = scheduled.steps;
  p.access_codes = scheduled.access_codes;
  describe_layers(g, s, p);
  // Checkpointing's price: each recompute step's forward once more (a BatchNorm's normalisation
  // only: it reads the statistics its forward kept), every micro-batch.
  for (const Step& step : scheduled.steps) {
    if (step.kind != StepKind::recompute)
      continue;
    LayerPlan& l = p.layers[static_cast<std::size_t>(step.layer)];
    l.recomputed = true;
    l.recompute_flops = recompute_flops_of(g.nodes[step.layer], g.setup.micro_batches);
  }
  p.buffers = s.buffers;
  for (std::size_t r = 0; r < p.region_offset.size(); ++r)
    p.region_offset[r] = s.region_offset[r];
  p.footprint = footprint_of(s.region_size);
  p.host = host_footprint(g, s, p.footprint);
  return p;
}

}  // namespace detail

namespace detail {
// Under Checkpoint<Auto>, the stage before plan_forward: the graph with its cut set chosen
// (checkpoint_auto.hpp, included at the end of this header: it plans).
template <std::size_t L>
constexpr Graph<L> with_least_recompute(const Graph<L>& g);
}  // namespace detail

// Plans a lowered graph. A graph that carries an error gives an empty plan with that error.
template <std::size_t L>
constexpr Plan<L> plan(const Graph<L>& g) {
  if (g.error.ok() && g.setup.mode == Mode::training &&
      g.setup.checkpoint == CheckpointKind::least && !g.checkpoint_chosen)
    return plan(detail::with_least_recompute(g));
  const detail::PlanState<L> scheduled = detail::plan_backward(g, detail::plan_forward(g));
  return detail::assemble(g, detail::place(scheduled), scheduled);
}

}  // namespace staticnet

// The stage plan() declares above, Checkpoint<Auto>'s choice of cuts; here, since it plans with
// the stages above, and the type-level entry points below run it.
#include "staticnet/checkpoint_auto.hpp"

namespace staticnet {

// ---- the type-level entry points -------------------------------------------------------------
//
// Each stage is a constant of its own, so each is its own constant evaluation with its own
// budget under the compilers' limits (g++'s -fconstexpr-ops-limit, clang's -fconstexpr-steps):
// lowering, (under Checkpoint<Auto>) the cut set, forward's buffers and steps, backward's, their
// placement, the Plan. A model of ten
// thousand layers plans within the default limits of both (bench/RESULTS.md, "Compile cost of
// planning").

namespace detail {
// Under Checkpoint<Auto> (checkpoint_auto.hpp), more stages come first: the plan without
// checkpointing (forward, backward), which prices every cut set; then each try at choosing them,
// and the activations its plan places, until one fits.
template <Model M, Setup S>
inline constexpr auto unsegmented_graph_v = without_checkpointing(lower<M, S>());
template <Model M, Setup S>
inline constexpr auto unsegmented_forward_v = plan_forward(unsegmented_graph_v<M, S>);
template <Model M, Setup S>
inline constexpr auto unsegmented_backward_v = plan_backward(unsegmented_graph_v<M, S>,
                                                             unsegmented_forward_v<M, S>);
template <Model M, Setup S>
inline constexpr std::int64_t first_share_v = activation_share(unsegmented_graph_v<M, S>,
                                                               unsegmented_backward_v<M, S>);
template <Model M, Setup S, int T>
constexpr std::int64_t try_share();
template <Model M, Setup S, int T>
constexpr std::int64_t placed_before();
template <Model M, Setup S, int T>
inline constexpr auto try_graph_v = choose_cuts(lower<M, S>(), unsegmented_backward_v<M, S>,
                                                try_share<M, S, T>(), first_share_v<M, S>,
                                                placed_before<M, S, T>());
template <Model M, Setup S, int T>
inline constexpr std::int64_t try_placed_v = placed_activations(try_graph_v<M, S, T>);
template <Model M, Setup S, int T>
constexpr std::int64_t placed_before() {
  if constexpr (T == 0)
    return 0;
  else
    return try_placed_v<M, S, T - 1>;
}
template <Model M, Setup S, int T>
constexpr std::int64_t try_share() {
  if constexpr (T == 0)
    return first_share_v<M, S>;
  else
    return next_share(try_share<M, S, T - 1>(), try_graph_v<M, S, T - 1>.checkpoint_live_peak,
                      try_placed_v<M, S, T - 1>, first_share_v<M, S>);
}
// The first try that fits, or fails with its error, or the last. (Each condition in an
// `if constexpr` of its own: a try's placed plan is planned only when that try is reached.)
template <Model M, Setup S, int T = 0>
constexpr int chosen_try() {
  if constexpr (!try_graph_v<M, S, T>.error.ok() || T + 1 == auto_tries)
    return T;
  else if constexpr (try_placed_v<M, S, T> <= first_share_v<M, S>)
    return T;
  else
    return chosen_try<M, S, T + 1>();
}
// The last try, when it too places above the budget, with the error that says so.
template <Model M, Setup S>
inline constexpr auto over_budget_v = over_budget(try_graph_v<M, S, auto_tries - 1>,
                                                  try_placed_v<M, S, auto_tries - 1>,
                                                  first_share_v<M, S>);
template <Model M, Setup S>
constexpr const auto& auto_graph() {
  constexpr int tried = chosen_try<M, S>();
  if constexpr (tried + 1 < auto_tries || !try_graph_v<M, S, tried>.error.ok())
    return try_graph_v<M, S, tried>;
  else if constexpr (try_placed_v<M, S, tried> <= first_share_v<M, S>)
    return try_graph_v<M, S, tried>;
  else
    return over_budget_v<M, S>;
}
// The graph the stages plan: lower()'s, or under Checkpoint<Auto> the one with its cuts chosen,
// whose error, when no cut set fits, fails here.
template <Model M, Setup S>
constexpr const auto& planned_graph() {
  if constexpr (S::desc().checkpoint == CheckpointKind::least) {
    constexpr const auto& graph = auto_graph<M, S>();
    if constexpr (!graph.error.ok())
      (void)sizeof(error::reporter<graph.error, nesting_of_t<M, graph.error.layer>>);
    return graph;
  } else {
    return lower<M, S>();
  }
}
template <Model M, Setup S>
inline constexpr auto forward_v = plan_forward(planned_graph<M, S>());
template <Model M, Setup S>
inline constexpr auto backward_v = plan_backward(planned_graph<M, S>(), forward_v<M, S>);
template <Model M, Setup S>
inline constexpr auto placed_v = place(backward_v<M, S>);
}  // namespace detail

template <Model M, Setup S>
inline constexpr auto plan_v = detail::assemble(detail::planned_graph<M, S>(),
                                                detail::placed_v<M, S>, detail::backward_v<M, S>);

// The plan of Model trained (or run) as Setup says. Evaluated once per program, at compile time.
template <Model M, Setup S>
constexpr const auto& plan() {
  return plan_v<M, S>;
}

}  // namespace staticnet
