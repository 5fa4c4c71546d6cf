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
// average pool, a residual sum, Dropout; maps.cpp) and the step's own passes (a Flatten's
// gradient, the loss, the update, the inference folds; step_passes.cpp). Products, BatchNorm and
// the direct convolutions still have an emitter per backend (cpu/, cuda/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
};

// Every point of an index space runs `call`, which names the axes and the tensors.
struct MapPass {
  std::string comment;                // what one point does, for a comment above the pass
  std::vector<std::string> axes;      // the call's index names: {"i"} or {"plane", "p"}
  std::vector<std::int64_t> extents;  // one per axis, outermost first
  std::string call;                   // "k::activation_forward<k::ReLU>(i, x, y);"
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
  // Where set, the direction is this identity outside training (and, without passes, always).
  std::optional<IdentityCopy> identity;
  // The passes' calls name `constants`, the step's k::OptimizerConstants (the update).
  bool reads_constants = false;
  // What the passes take for granted of the pointers, which the plan's buffers satisfy and a
  // caller with other pointers must: "y is x".
  std::vector<std::string> expects;
};

struct GroupPasses {
  std::string preamble;  // C++ the functions use, before them: "using dropout_7 = ...;"
  std::optional<Direction> forward, backward;
  std::string no_code;  // where neither direction runs code, the comment that says why
};

// The description of group g, for a group with no product, BatchNorm or direct convolution.
GroupPasses describe_map_group(const ModelView& model, const FusedGroup& g, ArenaText& arena);

// True for the groups describe_map_group() describes.
bool is_map_group(const FusedGroup& g);

// A Flatten whose input has another reader: its backward copies or adds d(output) into d(input)
// (view_writes_gradient). Nothing for a view that runs no code.
std::optional<Direction> describe_view_backward(const ModelView& model, const FusedGroup& g,
                                                ArenaText& arena);
// The loss and d(output), one pass over the samples; and the optimizer's update, one pass over
// the contiguous parameter region.
Direction describe_loss(const ModelView& model, ArenaText& arena);
Direction describe_update(const ModelView& model, ArenaText& arena);
// Under Inference, group g's BatchNorm folded into its convolution's weights and bias, once;
// `heading` names the layers ("layers 3-5: BatchNorm 4 into the Conv2d (layer 3)").
struct Fold {
  std::string heading;
  Direction direction;
};
Fold describe_fold(const ModelView& model, const FusedGroup& g, ArenaText& arena);

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
// line, then "});" (clang-format joins a short one onto one line).
std::string loop_text(const std::string& open, const std::vector<std::string>& body);
// "const float* x, float* y": a direction's tensors as the parameters of the function that runs
// it, so that a recompute or a micro-batch slice is a call with other pointers.
std::string tensor_parameters(const Direction& d);
// The call that runs `function` on the plan's buffers: each tensor's pointer, with its note, then
// `trailing` ("pool"). The body of the overload that takes the arena.
std::string plan_call(const std::string& function, const Direction& d, const std::string& trailing);
// "// Expects y to be x ...\n": the lines above the function over the tensors, or "" where it
// expects nothing.
std::string expectations_comment(const Direction& d);
// Writes what comes before a group's functions: its preamble; or, for a group that runs no code,
// the comment that says why, returning false (the group has no functions to write).
bool write_preamble(Printer& out, const GroupPasses& d);
// "index_t plane, index_t q": the lambda's parameters for a pass's axes.
std::string axis_parameters(const MapPass& pass);

}  // namespace staticnet::codegen
