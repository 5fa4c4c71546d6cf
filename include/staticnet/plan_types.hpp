#pragma once
// The memory plan's types: the schedule of one training step (or one forward pass under
// sn::Inference), the buffers it uses with their lifetimes and offsets, and the footprint.
// plan.hpp builds a Plan from a lowered graph.
//
// Schedule (training, L layers): steps 0..L-1 run layer i forward, step L the loss (which also
// writes the gradient of the output), steps L+1..2L run backward from layer L-1 down to layer 0,
// step 2L+1 the optimizer update. Under Inference, steps 0..L-1 only. That is today's order; what
// the planner reads is the list itself: each step names the buffers it reads and writes
// (Plan::accesses), and every lifetime is taken from those accesses, so a later stage may add
// steps (a forward run again to recompute what was not kept, a loop over micro-batches) without
// touching the ones before. Layers are nodes of a graph in an order where each follows the layers
// it reads (a Residual's Add reads two), so forward in order and backward in reverse order are
// both valid.
//
// Under Accumulate<K> (gradient accumulation) steps 0..2L are a loop body, run once per
// micro-batch of batch/K samples, and the update runs once after the K iterations (Plan::
// runs_per_step). The layers' shapes and buffers are one micro-batch's, the same in every
// iteration; the batch (input, labels or targets) and the per-sample losses and predictions are
// whole, each iteration reading or writing its slice; the gradients, persistent, add up. The loop
// is not unrolled into K copies of the steps: no lifetime differs between iterations, except the
// losses' and predictions', which span the loop (extend_lifetimes in plan.hpp).
//
// Every buffer is a tensor: a dtype and an element count, its bytes derived from both by
// bytes_of() (dtype.hpp). A buffer written more than once in a step (a layer in place over its
// input, a gradient a second reader adds to) holds one version after each write; an access
// names the version it reads or writes.
//
// The arena is one allocation, laid out as regions in this order, each 256-byte aligned (16-byte
// under Int8, for a microcontroller's SRAM; Buffer::occupied):
//   weights | non_trainable | gradients | optimizer_state | inputs | workspace | activations
// Parameters are one contiguous f32 vector (layer by layer: weight, then bias), so gradients and
// optimizer moments share its element offsets and zeroing or updating them is one kernel each.
// Non-trainable state (BatchNorm's running mean and variance, layer by layer) is a vector of its
// own, which the optimizer never touches. Every other buffer lives in the activation region,
// where buffers whose lifetimes do not overlap share bytes (placement.hpp).
//
// Under Int8 (inference) the weights region holds the int8 weights and the int32 channel numbers
// (BufferRole::quantization): constants, which a microcontroller keeps in flash. The rest is its
// arena in SRAM (budget.hpp counts the two apart): the activation region, where the input too is
// a tensor like the others (BufferRole::arena_input), so its bytes serve later tensors.
#include <array>
#include <cstddef>
#include <cstdint>

#include "staticnet/bytes.hpp"
#include "staticnet/diagnostic.hpp"
#include "staticnet/dtype.hpp"
#include "staticnet/graph.hpp"
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
  parameters,           // all weights and biases (f32; bf16 under Pure<bf16>)
  non_trainable,        // BatchNorm running means and variances, as the parameters
  gradients,            // one per parameter, as the parameters
  optimizer_moment1,    // SGDMomentum velocity, Adam/AdamW first moment
  optimizer_moment2,    // Adam/AdamW second moment
  input,                // the batch's inputs
  labels,               // CrossEntropy: int32 class index per sample
  targets,              // MSE: f32 targets shaped like the output
  next_batch,           // Prefetch: where the next batch (input, labels or targets) arrives
  workspace,            // scratch of the largest kernel (Conv2d im2col of one sample)
  parameter_copy,       // Mixed: the parameters in bf16 or f16, made from the master each step
  loss_scale,           // Mixed<f16>: the loss scaler's state (LossScaleState, loss_scale_bytes)
  quantization,         // Int8: per output channel of each product, int32 bias, multiplier, shift
  activation,           // a layer's output (also the next layer's input)
  window_index,         // MaxPool2d: the argmax position in each window
  activation_gradient,  // gradient of a layer's output or input
  loss,                 // per-sample loss values, read by the host after the step
  predictions,          // CrossEntropy: each sample's predicted class (int32), read by the host
  batch_statistics,     // BatchNorm: the batch's mean and 1/sqrt(var + eps) per channel (and
                        // under Accumulate<K> backward's two sums of the micro-batch)
  dropout_mask,         // Dropout: one bit per element, 1 where the element was kept
  // Int8: the model's input, in the shared region, whose bytes later tensors take once the layers
  // that read it have run (a microcontroller's arena, as TensorFlow Lite Micro's planner shares
  // them); elsewhere the input is `input`, which the next batch overwrites.
  arena_input,
  // (The activation region's roles are the last ones; in_activation_region relies on it.)
};
// The loss scaler's state under Mixed<f16>, as torch.amp.GradScaler keeps it on the device: the
// scale (f32), the count of steps since it last changed (i32) and whether this step's gradients
// hold an Inf or a NaN (f32, as GradScaler's found_inf).
inline constexpr std::int64_t loss_scale_bytes = 12;

// The roles, counted up to the last one (tests/core check that every named role is counted).
inline constexpr int buffer_role_count = static_cast<int>(BufferRole::arena_input) + 1;

// The activation region's roles come first: a plan has a few persistent buffers and thousands
// of activation-region ones, and clang's constant evaluator charges a step for every case it
// passes on the way to the one it takes.
constexpr Region region_of(BufferRole r) {
  switch (r) {
    case BufferRole::activation:
    case BufferRole::activation_gradient:
    case BufferRole::window_index:
    case BufferRole::batch_statistics:
    case BufferRole::dropout_mask:
    case BufferRole::arena_input:
    case BufferRole::loss:
    case BufferRole::predictions:
      return Region::activations;
    case BufferRole::parameters:
    case BufferRole::parameter_copy:
    case BufferRole::quantization:
      return Region::weights;
    case BufferRole::non_trainable:
      return Region::non_trainable;
    case BufferRole::gradients:
      return Region::gradients;
    case BufferRole::optimizer_moment1:
    case BufferRole::optimizer_moment2:
    case BufferRole::loss_scale:
      return Region::optimizer_state;
    case BufferRole::input:
    case BufferRole::labels:
    case BufferRole::targets:
    case BufferRole::next_batch:
      return Region::inputs;
    case BufferRole::workspace:
      return Region::workspace;
  }
  return Region::activations;
}

// The roles from `activation` on are those of the activation region, so the planner's loops,
// which ask this of every buffer many times, can tell with one comparison.
constexpr bool in_activation_region(BufferRole r) {
  return r >= BufferRole::activation;
}
static_assert(
    [] {
      for (int r = 0; r < buffer_role_count; ++r)
        if ((region_of(static_cast<BufferRole>(r)) == Region::activations) !=
            in_activation_region(static_cast<BufferRole>(r)))
          return false;
      return true;
    }(),
    "staticnet: BufferRole lists the activation region's roles last, from `activation` on");

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
    case BufferRole::next_batch:
      return "next_batch";
    case BufferRole::workspace:
      return "workspace";
    case BufferRole::parameter_copy:
      return "parameter_copy";
    case BufferRole::loss_scale:
      return "loss_scale";
    case BufferRole::quantization:
      return "quantization";
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
    case BufferRole::arena_input:
      return "arena_input";
  }
  return "?";
}

struct Buffer {
  BufferRole role = BufferRole::activation;
  DType dtype = DType::f32;  // of its values (a bit mask's: u8, its bytes)
  // It occupies its bytes rounded up to 2^alignment_log2: 256 (arena_alignment), or 16 under
  // Int8 (plan.hpp). A byte, in what would be the padding before `layer`, so a Buffer is no
  // larger; but clang's constant evaluator keeps every field of every buffer, and this one costs
  // the 10,001-layer chain 14 MiB (bench/RESULTS.md): one alignment per plan would not.
  std::uint8_t alignment_log2 = 8;
  // Checkpointing: the buffer a recompute step writes this one's values into again, which
  // backward reads instead of this one (dropped after its last forward reader), or no_buffer.
  // Four bytes, in what would be the padding before `layer`.
  std::int32_t recomputed_as = -1;
  std::int64_t layer = -1;      // the layer it belongs to (its output or a gradient), or -1
  std::int64_t size = 0;        // bytes_of(dtype, its elements); it occupies occupied()
  std::int64_t offset = 0;      // from the start of the arena, a multiple of the alignment
  std::int64_t first_step = 0;  // the first and last step that access it (persistent: all)
  std::int64_t last_step = 0;

  // The element count is not kept beside the bytes: clang keeps every planning stage's buffers to
  // the end of the translation unit, and each field costs it about 10 MiB on the 10,001-layer
  // chain (bench/RESULTS.md, "Compile cost of planning").
  constexpr std::int64_t elements() const { return size / size_of(dtype); }
  constexpr Region region() const { return region_of(role); }
  constexpr std::int64_t occupied() const {
    return align_up(size, std::int64_t{1} << alignment_log2);
  }
  constexpr bool alive_at(std::int64_t step) const {
    return first_step <= step && step <= last_step;
  }
};

// A recompute step runs a layer's forward again during backward, under checkpointing
// (plan.hpp, "Checkpointing"), writing the buffers Buffer::recomputed_as names.
enum class StepKind : std::uint8_t { forward, loss, backward, update, recompute };

inline constexpr int no_buffer = -1;

// Checkpointing: the buffer backward reads for buffer b of `buffers` (any array of Buffer): the one
// a recompute step wrote b's values into again (Buffer::recomputed_as), or b itself.
template <class Buffers>
constexpr int recomputed_or_same(const Buffers& buffers, int b) {
  return b == no_buffer || buffers[b].recomputed_as == no_buffer ? b : buffers[b].recomputed_as;
}

// How a step uses a buffer: reads a version of it, writes its next version (over whatever the
// bytes held), or updates it (reads a version and writes the next: a layer in place over its
// input, a gradient a second reader adds to, the optimizer's update of the parameters).
enum class AccessKind : std::uint8_t { read, write, update };

constexpr const char* name_of(AccessKind k) {
  switch (k) {
    case AccessKind::read:
      return "read";
    case AccessKind::write:
      return "write";
    case AccessKind::update:
      return "update";
  }
  return "?";
}

// One use of a buffer by a step. Versions count the buffer's writes within the step: a buffer
// made by the step is version 0 when first written; the persistent ones (the batch, and the
// parameters, gradients and optimizer state the steps' kinds imply) enter the step as version 0.
// An update reads `version - 1` and writes `version`.
struct Access {
  int buffer = no_buffer;  // index into Plan::buffers
  std::int32_t version = 0;
  AccessKind kind = AccessKind::read;

  constexpr bool reads() const { return kind != AccessKind::write; }
  constexpr bool writes() const { return kind != AccessKind::read; }
  friend constexpr bool operator==(const Access&, const Access&) = default;

  // The plan stores each access as one integer: the planner makes tens of thousands of them in
  // constant evaluation, where g++ spends about 440 bytes on writing an integer into an array and
  // 1.1 KB on constructing a struct there (bench/RESULTS.md, "Compile cost of planning").
  static constexpr std::int64_t encode(int buffer, std::int32_t version, AccessKind kind) {
    return std::int64_t{buffer} << 32 | std::int64_t{version} << 2 | static_cast<int>(kind);
  }
  static constexpr Access decode(std::int64_t code) {
    return Access{static_cast<int>(code >> 32), static_cast<std::int32_t>((code >> 2) & 0x3fffffff),
                  static_cast<AccessKind>(code & 3)};
  }
};

// A step of the schedule: what runs (a layer's forward or backward, the loss, the update). Its
// accesses are Plan::access(a) for a from its first_access to the next step's (Plan::
// first_access and end_access).
struct Step {
  StepKind kind = StepKind::forward;
  std::int64_t layer = -1;
  std::int32_t first_access = 0;
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

// What the generated trainer holds in host memory for a training step, beside the arena (which
// the CPU trainer keeps in host memory too), each part exactly this many bytes: the slots and the
// staging allocated once, the state's copy at each epoch's end (and when a run stops). What
// depends on the data set or the command line is not here (the trainer reports it:
// the shuffled epoch orders, a worker's scratch sample when augmenting, a data set read into
// memory, an --eval loader's slots), nor the program's code and libraries. An Inference plan's
// are 0.
struct HostFootprint {
  // The loader's ring of batches it fills ahead of the step (BatchSlots<N>, 2 by default), each as
  // the loader writes it: f32 inputs, then i32 labels or f32 targets.
  Bytes batch_slots;
  // The CUDA trainer's page-locked memory: two copies of the batch as the arena lays it out (one
  // filled while the other is copied in) and each sample's loss and prediction. The CPU trainer
  // has none.
  Bytes pinned_staging;
  // One f32 copy of the training state (parameters, the optimizer's moments, running
  // statistics), read from the arena at the end of each epoch to be checked for NaNs and written
  // to a checkpoint, and held while the evaluation set runs.
  Bytes checkpoint_state;

  // The CUDA trainer's host bytes: what a device that shares host memory adds (a Jetson's).
  constexpr Bytes total() const { return batch_slots + pinned_staging + checkpoint_state; }
  // The CPU trainer's: no pinned staging, and its arena (footprint.total()) is host memory.
  constexpr Bytes cpu_trainer_total(const Footprint& f) const {
    return batch_slots + checkpoint_state + f.total();
  }
  friend constexpr bool operator==(const HostFootprint&, const HostFootprint&) = default;
};

// The buffers one layer uses, as indices into Plan::buffers, and the bytes they hold for it: the
// part of a LayerPlan the planner's stages compute (plan.hpp).
struct LayerBuffers {
  std::int64_t saved_bytes = 0;      // bytes kept from forward for this layer's backward
  std::int64_t workspace_bytes = 0;  // scratch this layer's kernels need
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
};

// One layer of the plan: what it is (from its graph node) and the buffers it uses.
struct LayerPlan : LayerBuffers {
  LayerKind kind = LayerKind::Flatten;
  LayerDesc options;  // kernel, stride, bias as written; padding as applied (PaddingSame resolved)
  std::int32_t inputs[2] = {model_input, no_input};  // the layers whose outputs it reads
  Shape input_shape;                                 // with the batch extent
  Shape input2_shape;                                // an Add: its second input
  Shape output_shape;
  std::int64_t parameters = 0;
  // Element offsets into the parameter vector. Under Int8, of a convolution or Linear only: into
  // the int8 weights, and of its int32 biases in the channel numbers (multipliers follow at
  // bias_offset + C, shifts at + 2C; plan.hpp's quantized_parameters).
  std::int64_t weight_offset = 0;
  std::int64_t bias_offset = 0;
  std::int64_t non_trainable = 0;      // BatchNorm: running mean and variance, 2 per channel
  std::int64_t statistics_offset = 0;  // element offset of its running mean in that vector
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;
  // Checkpointing: the FLOPs of running its forward again during backward (a BatchNorm's only
  // normalises, by the kept statistics), 0 where it is not recomputed.
  std::int64_t recompute_flops = 0;
  bool runs_backward = false;  // has parameters, or reads a tensor that depends on parameters
  // Inference: a BatchNorm folded into the convolution or Linear before it (plan.hpp,
  // folded_batch_norm), in place over that layer's output and with no kernel of its own.
  bool folded = false;
  // Checkpointing: a recompute step runs its forward again in backward (recompute_flops prices it).
  bool recomputed = false;

  constexpr int input_count() const { return inputs[1] == no_input ? 1 : 2; }
};

template <std::size_t L>
struct Plan {
  // Per layer at most an output, a saved buffer (window index, statistics or mask) and two
  // input gradients, and under checkpointing the output and saved buffer it recomputes; at most
  // 9 persistent buffers; the loss, the predictions and the loss's gradient.
  static constexpr std::size_t buffer_capacity = 6 * L + 12;
  static constexpr std::size_t step_capacity = 3 * L + 2;
  // A layer's forward reads at most two inputs and writes its output and a saved buffer (4);
  // its backward reads dy and at most two saved buffers and writes two input gradients (5); its
  // recompute reads at most two inputs and the kept statistics and writes its output and a saved
  // buffer (5). The loss uses at most 5.
  static constexpr std::size_t access_capacity = 14 * L + 5;

  Mode mode = Mode::training;
  SetupDesc setup;
  Shape input_shape;                     // with the batch extent
  Shape output_shape;                    // with the batch extent
  std::int64_t parameter_count = 0;      // trainable
  std::int64_t non_trainable_count = 0;  // BatchNorm running statistics
  Footprint footprint;
  HostFootprint host;  // what the trainer holds in host memory beside the arena
  std::array<LayerPlan, L> layers{};
  StaticVector<Buffer, buffer_capacity> buffers;
  StaticVector<Step, step_capacity> schedule;
  // The steps' reads and writes, step by step, encoded (Access::encode; read them with access()).
  StaticVector<std::int64_t, access_capacity> access_codes;
  std::array<std::int64_t, region_count> region_offset{};  // start of each region in the arena
  Diagnostic error;  // set when the model or setup is wrong (the build has failed already)

  constexpr std::int64_t batch() const { return setup.batch; }
  // Accumulate<K>: K micro-batches of micro_batch() samples per step (else 1, of the batch).
  constexpr std::int64_t micro_batches() const { return setup.micro_batches; }
  constexpr std::int64_t micro_batch() const { return setup.micro_batch(); }
  // How often step s runs in one training step: the loop body once per micro-batch, the update
  // once.
  constexpr std::int64_t runs_per_step(std::int64_t s) const {
    return schedule.items[s].kind == StepKind::update ? 1 : micro_batches();
  }
  constexpr std::int64_t step_count() const { return static_cast<std::int64_t>(schedule.size()); }
  // The FLOPs of one training step (every micro-batch's): forward, backward, and what
  // checkpointing computes again (its price).
  constexpr std::int64_t forward_flops() const {
    std::int64_t sum = 0;
    for (const LayerPlan& l : layers)
      sum += l.forward_flops;
    return sum;
  }
  constexpr std::int64_t backward_flops() const {
    std::int64_t sum = 0;
    for (const LayerPlan& l : layers)
      sum += l.backward_flops;
    return sum;
  }
  constexpr std::int64_t recompute_flops() const {
    std::int64_t sum = 0;
    for (const LayerPlan& l : layers)
      sum += l.recompute_flops;
    return sum;
  }
  // The buffer backward reads for b: the one a recompute step wrote b's values into again, or b.
  constexpr int as_backward_reads(int b) const { return recomputed_or_same(buffers.items, b); }
  constexpr std::size_t layer_count() const { return L; }
  // The reads and writes of step s are access(a) for a in [first_access(s), end_access(s)), in
  // the order the step makes them.
  constexpr Access access(std::int64_t a) const { return Access::decode(access_codes.items[a]); }
  constexpr std::int64_t first_access(std::int64_t s) const {
    return schedule.items[s].first_access;
  }
  constexpr std::int64_t end_access(std::int64_t s) const {
    return s + 1 < step_count() ? schedule.items[s + 1].first_access
                                : static_cast<std::int64_t>(access_codes.size());
  }
  // Bytes of activation-region buffers alive at a step: a lower bound for footprint.activations.
  constexpr std::int64_t live_activation_bytes(std::int64_t step) const {
    std::int64_t sum = 0;
    for (const Buffer& b : buffers)
      if (b.region() == Region::activations && b.alive_at(step))
        sum += b.occupied();
    return sum;
  }
};

}  // namespace staticnet
