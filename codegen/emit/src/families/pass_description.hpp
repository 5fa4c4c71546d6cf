// One description of a layer family's passes, which each backend renders (issue 38, item 4).
//
// A family says once what its forward and backward do: the tensors each direction touches (how
// the generated code names them, their element type, whether they are written, where they live),
// and its passes, each an index space whose every point runs one call of a shared
// `__host__ __device__` body from staticnet/kernels/. A backend only renders that: the CPU as a
// loop split across the thread pool (staticnet/cpu/launch.hpp), CUDA as one thread per point
// (staticnet/cuda/launch.hpp), with the same call text in both. A third backend is a third
// renderer of these descriptions, not a third copy of the families.
//
// Described here: the families that map an element or a window (an activation, a pool, the global
// average pool, a residual sum, Dropout; maps.cpp), BatchNorm (batch_norm.cpp), the direct
// convolutions (direct_conv.cpp), the products (products.cpp: a Linear's or Conv2d's GEMM or
// library call is the one pass each backend makes its own way) and the step's own passes (a
// Flatten's gradient, the loss, the update, the inference folds; step_passes.cpp).
//
// Where a host and a GPU split a pass differently (a BatchNorm's normalisation a plane per call on
// the CPU, an element per thread on CUDA; its sums a channel per thread, or a block of threads per
// channel), the pass carries both forms over the same tensors, and each backend renders its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "staticnet/codegen/arena_text.hpp"
#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/model_view.hpp"
#include "staticnet/codegen/printer.hpp"

namespace staticnet::codegen {

// A tensor one direction of a group touches.
struct TensorUse {
  std::string name;     // in the generated code: "x", "dy", "window"
  std::string element;  // "float", "k::WindowIndex8", "k::MaskByte"
  bool written = false;
  std::string pointer;  // "f32(arena, 1'024)", or "nullptr" where the plan keeps none
  std::string note;     // the comment beside it: "// activation_3 (in place)"
  // Under Accumulate<K>: the pointer is a micro-batch's slice of a whole-batch buffer (the input,
  // the labels or targets, the losses, the predictions), at `micro`, which the function on the
  // plan's buffers then takes (ArenaText::sliced).
  bool sliced = false;
};

// One way to split a pass into calls: every point of an index space runs `call`.
struct PassForm {
  std::vector<std::string> axes;      // the call's index names: {"i"} or {"plane", "p"}
  std::vector<std::int64_t> extents;  // one per axis, outermost first
  std::string call;  // "k::activation_forward<k::ReLU>(i, x, y);" (a statement a line)
};

// One pass: every point of an index space runs a call of a shared body, which names the axes and
// the tensors. `device` is how a GPU runs it, a thread per point; `host` may say how a host (the
// CPU, a microcontroller) runs it where that differs.
struct MapPass {
  MapPass(std::string comment_, std::vector<std::string> axes, std::vector<std::int64_t> extents,
          std::string call, std::optional<PassForm> host_ = std::nullopt)
      : comment(std::move(comment_)),
        device{std::move(axes), std::move(extents), std::move(call)},
        host(std::move(host_)) {}

  std::string comment;  // what the pass does, for a comment above it
  PassForm device;
  // The same pass in fewer, larger calls, where a host runs it so: a plane, a row or a block of
  // channels per call, whose inner loops vectorise, or a channel's sum added in order by one
  // thread. Without it a host runs the points as a GPU does.
  std::optional<PassForm> host;
  // A sum: on a GPU, a block of g::channel_threads threads per point shares the point's terms
  // (staticnet/cuda/channel_sums.hpp), and the device call is a g::per_block body. Needs `host`.
  bool per_block = false;

  // The form a host backend runs.
  const PassForm& host_form() const { return host ? *host : device; }
};

// The identity from `from` to `to` (a Dropout outside training), or nothing where they are one.
struct IdentityCopy {
  std::string from, to;  // tensor names
  std::int64_t elements = 0, bytes = 0;
  bool in_place = false;
  std::string label;  // names the copy in an error: "dropout_7's identity"
};

// One direction of a group: its tensors, then its passes in order.
struct Direction {
  std::vector<TensorUse> tensors;
  std::vector<MapPass> passes;
  // A Dropout's layer: the passes' calls name `key`, the mask's key, which the backend draws
  // from the run's seed and the step number (k::dropout_key) for this layer.
  std::int64_t dropout_layer = -1;
  // Under Accumulate<K>, that layer's elements in one micro-batch: micro-batch m's element e draws
  // its bit as the whole batch's element m · this + e does (k::dropout_slice_key). The functions
  // then take `micro`, the micro-batch.
  std::int64_t dropout_slice_elements = 0;
  // Where set, the direction is this identity outside training (and, without passes, always).
  std::optional<IdentityCopy> identity;
  // Where not empty, the passes that run outside training instead (a BatchNorm's, over the
  // running statistics).
  std::vector<MapPass> evaluation;
  // The passes' calls name `constants`, the step's k::OptimizerConstants (the update).
  bool reads_constants = false;
  // What the passes take for granted of the pointers, which the plan's buffers satisfy and a
  // caller with other pointers must: "y is x".
  std::vector<std::string> expects;

  // Whether a pointer is a micro-batch's slice: the function on the plan's buffers takes `micro`.
  bool slices_batch() const {
    for (const TensorUse& t : tensors)
      if (t.sliced)
        return true;
    return false;
  }

  // Whether training and evaluation run different code: the function takes the flag.
  bool differs_in_evaluation() const {
    return (identity && !passes.empty()) || !evaluation.empty();
  }
};

struct GroupPasses {
  std::string preamble;  // C++ the functions use, before them: "using dropout_7 = ...;"
  std::optional<Direction> forward, backward;
  // Where set, what a recompute step (checkpointing) runs instead of forward: a BatchNorm's
  // normalisation by the statistics its forward kept, which updates no running statistics. Where
  // not, a recompute runs forward's function over the buffers it recomputes.
  std::optional<Direction> recompute;
  std::string no_code;  // where neither direction runs code, the comment that says why
};

// True for every group a family here describes: all but a product's (Linear, Conv2d through a
// GEMM or a library) and a Flatten's (a view, whose gradient describe_view_backward describes).
bool is_described(const FusedGroup& g);
// The description of such a group, by its family.
GroupPasses describe_group(const ModelView& model, const FusedGroup& g, ArenaText& arena);

// The description of group g, for a group with no product, BatchNorm or direct convolution.
GroupPasses describe_map_group(const ModelView& model, const FusedGroup& g, ArenaText& arena);

// True for the groups describe_map_group() describes.
bool is_map_group(const FusedGroup& g);

// A BatchNorm (1d or 2d) with the activation fused after it: batch statistics, the running
// statistics' update and the normalisation in training, the running statistics in evaluation;
// backward through the activation's derivative into dγ, dβ and dx (batch_norm.cpp).
GroupPasses describe_batch_norm(const ModelView& model, const FusedGroup& g, ArenaText& arena);
// A depthwise or grouped convolution computed directly, with its bias (or a folded BatchNorm's
// shift) and activation; backward into dW, db and dx (direct_conv.cpp). On CUDA also a dense
// convolution cuDNN cannot take as planned.
GroupPasses describe_direct_conv(const ModelView& model, const FusedGroup& g, ArenaText& arena);

// A Flatten whose input has another reader: its backward copies or adds d(output) into d(input)
// (view_writes_gradient). Nothing for a view that runs no code.
std::optional<Direction> describe_view_backward(const ModelView& model, const FusedGroup& g,
                                                ArenaText& arena);
// The loss and d(output), one pass over the samples; and the optimizer's update, one pass over
// the contiguous parameter region.
Direction describe_loss(const ModelView& model, ArenaText& arena);
Direction describe_update(const ModelView& model, ArenaText& arena);
// Under mixed precision, the working copy: each parameter rounded from its float master, before
// each forward pass (the plan's parameter_copy, which the products read).
Direction describe_working_copy(const ModelView& model, ArenaText& arena);
// Under Inference, group g's BatchNorm folded into its convolution's weights and bias, once;
// `heading` names the layers ("layers 3-5: BatchNorm 4 into the Conv2d (layer 3)").
struct Fold {
  std::string heading;
  Direction direction;
};
Fold describe_fold(const ModelView& model, const FusedGroup& g, ArenaText& arena);

// A product's own operation, which each backend makes through its own library (staticnet/cpu/'s
// GEMMs and im2col on the CPU, cuBLASLt's and cuDNN's on CUDA): what its calls need.
struct ProductCall {
  bool conv = false;            // a Conv2d; else a Linear
  std::string geometry;         // "conv_3", "linear_7": the geometry literal, CUDA's library member
  bool bias = false;            // forward: adds a bias (or a folded shift); backward: writes dbias
  bool input_gradient = false;  // backward: writes dx
  bool accumulates = false;     // ... added to another reader's part
  std::string activation;       // the fused activation's type: "k::ReLU", "k::Identity"
  // Under mixed precision, the working copy's element type ("k::BF16"), which the weights and
  // bias are read in and the weight gradients rounded to; empty under FP32.
  std::string working;
};

// What finishes a product's output in forward: in the product's own tiles on a host (each tile
// while it is in cache), in passes of their own on a GPU.
struct ProductEpilogue {
  // Each output element, a (row, position) pair, axes {"row", "p"}: the bias and the activation.
  // A Conv2d's row is a sample's channel, over its positions; a Linear's a sample, over its
  // features.
  std::optional<MapPass> bias_activation;
  // Each pooled output (plane, oh, ow): `call` adds the bias, applies the activation and pools the
  // window in one (a GPU's); `host->call` pools a window whose elements bias_activation finished.
  std::optional<MapPass> pool;
  // Conv positions a host thread finishes together: whole rows of pool windows (the pool's kernel
  // rows × the output width), so that each window is pooled by the thread that computed it.
  std::int64_t band = 1;
};

// One direction of a product's group: its tensors; in backward, the passes before the product's
// own (through the pool or the activation's derivative into dz); its call; in forward, what
// finishes its output.
struct ProductDirection {
  Direction direction;
  ProductCall call;
  ProductEpilogue epilogue;
};

struct ProductPasses {
  ProductDirection forward;
  std::optional<ProductDirection> backward;
};

// A Linear or a Conv2d computed as a product, with its bias (or a folded BatchNorm's shift), the
// activation and the pool after it (products.cpp). `scratch` is the tensor the backend's library
// works in (the CPU's "col", im2col of one sample, for a Conv2d; CUDA's "workspace"), last in
// each direction's tensors; none where it needs none.
ProductPasses describe_product(const ModelView& model, const FusedGroup& g, ArenaText& arena,
                               const std::optional<TensorUse>& scratch);

// What the descriptions build their tensors with.
// The tensor `name` over a plan buffer (its element type, pointer and note, + `note_suffix`).
TensorUse buffer_tensor(ArenaText& arena, const std::string& name, int buffer, bool written,
                        const std::string& note_suffix = "");
// "dx": layer l's input gradient, its note saying whether it is in place or added to.
TensorUse input_gradient_tensor(const LayerPlan& l, ArenaText& arena);

// What both renderers write the same way.
// "const float* const x = f32(arena, 1'024);  // activation_3": a tensor as a local pointer.
std::string tensor_declaration(const TensorUse& t);
// A pass's loop: `open` ("c::for_each(pool, 128, [&](index_t i) {"), the body a statement a
// line (a statement of several lines indented as a whole), then `close` (clang-format joins a
// short one onto one line).
std::string loop_text(const std::string& open, const std::vector<std::string>& body,
                      const std::string& close = "});");
// "const float* x, float* y": a direction's tensors as the parameters of the function that runs
// it, so that a recompute or a micro-batch slice is a call with other pointers.
// With `restrict_qualified`, each pointer that shares no memory with another of d's tensors is
// declared __restrict__ (CUDA: the promise the kernels' loads rely on).
std::string tensor_parameters(const Direction& d, bool restrict_qualified = false);
// "const float* __restrict__ x": one of them.
std::string tensor_parameter(const Direction& d, const TensorUse& t, bool restrict_qualified);
// Whether tensor t of d is another of d's tensors in the plan (a layer in place: the same
// pointer), so that neither may be declared __restrict__.
bool shares_memory(const Direction& d, const TensorUse& t);
// The call that runs `function` on the plan's buffers: each tensor's pointer, with its note, then
// `trailing` ("pool"). The body of the overload that takes the arena.
std::string plan_call(const std::string& function, const Direction& d, const std::string& trailing);
// How a backend writes the pieces of a direction; direction_statements() puts them in the order
// the description means, the same for every backend.
struct StatementStyle {
  std::string training;  // the flag of the function around them: "pass.training", "training"
  std::function<std::string(const IdentityCopy&)> identity;
  // Writes `passes` (the training ones, or those of evaluation), `label` naming them in errors.
  std::function<void(Printer&, const std::vector<MapPass>&, const std::string& label)> passes;
  std::string before_training;  // a line before the training passes, or ""
};
// A direction's statements: its tensors as local pointers where `declare` (else they are the
// parameters of the function around them); outside training, its identity or evaluation passes,
// and return; then its passes. Without the function's last newline.
std::string direction_statements(const Direction& d, bool declare, const std::string& label,
                                 const StatementStyle& style);

// Writes the function over a direction's tensors that runs `body`, and the overload that calls
// it on the plan's buffers:
//   // Expects ...                               (expectations_comment)
//   void name(<tensors>, <own>) { <body> }
//   // The same on the plan's buffers:
//   void name(std::byte* arena, <plan>) { name(<the plan's pointers>, <arguments>); }
// `own` and `plan` are the parameters after the tensors and after the arena ("c::ThreadPool&
// pool"), `arguments` what the second passes on after the pointers ("pool"). Where a pointer is a
// micro-batch's slice or a Dropout draws a micro-batch's masks (Accumulate<K>), the second also
// takes `index_t micro` (a Dropout's first too: the caller's `own` and `arguments` say so), and
// `arena` records that the step's calls pass it (ArenaText::takes_micro_batch).
void write_function_pair(Printer& out, ArenaText& arena, const std::string& name,
                         const Direction& d, const std::string& body, const std::string& own,
                         const std::string& plan, const std::string& arguments,
                         bool restrict_qualified = false);
// Checkpointing: the overload on the plan's buffers alone, `name`, that calls the function over
// the tensors `function` (written by write_function_pair) with d's pointers, the buffers a
// recompute step writes:
//   void name(std::byte* arena, <plan>) { function(<d's pointers>, <arguments>); }
// d must have the tensors, in order, of the direction `function` was written for.
void write_recompute_overload(Printer& out, ArenaText& arena, const std::string& name,
                              const std::string& function, const Direction& d,
                              const std::string& plan, const std::string& arguments);
// "// Expects y to be x ...\n": the lines above the function over the tensors, or "" where it
// expects nothing.
std::string expectations_comment(const Direction& d);
// Writes what comes before a group's functions: its preamble; or, for a group that runs no code,
// the comment that says why, returning false (the group has no functions to write).
bool write_preamble(Printer& out, const GroupPasses& d);
// "index_t plane, index_t q": the lambda's parameters for a pass's axes.
std::string axis_parameters(const std::vector<std::string>& axes);

}  // namespace staticnet::codegen
