#pragma once
// How a kernel file names the arena's buffers, for every backend: "f32(arena, 2'015'744)" for a
// buffer's first element, the comment naming it, its element type, and the accessor functions
// ("f32", "u8", ...) the file must define because it used them. Also the buffers every step
// finds by role, and the order in which the fused groups run.
#include <set>
#include <string>
#include <vector>

#include "staticnet/codegen/fusion.hpp"
#include "staticnet/codegen/model_view.hpp"

namespace staticnet::codegen {

// Throws std::invalid_argument unless the model has parameters: without them a trainer has
// nothing to train and an inference program nothing to load.
void require_parameters(const ModelView& model);

class ArenaText {
 public:
  explicit ArenaText(const ModelView& model) : m_(model) {}

  // The buffer with this role, or a std::logic_error naming the role.
  const Buffer& role(BufferRole r) const;
  int index(BufferRole r) const { return static_cast<int>(&role(r) - m_.buffers.data()); }
  // The buffer the loss writes d(output) into.
  int loss_gradient() const;

  // "f32(arena, 2'015'744)": a buffer's first element, through the accessor of its element type.
  std::string at(int buffer);
  std::string at(BufferRole r) { return at(index(r)); }
  // "bytes(arena, 2'236'928)": a buffer's first byte (scratch handed to a library).
  std::string bytes(int buffer);
  // "loss_scale(arena, 1'024)": the loss scaler's state (k::LossScaleState), under Mixed<f16>.
  std::string loss_scale();
  // A parameter tensor (or its gradient, or a moment) inside the contiguous parameter region.
  std::string parameter(std::int64_t element_offset, BufferRole region);
  // The same places as byte offsets into the arena (whose base is 256-byte aligned).
  std::int64_t offset(int buffer) const { return m_.buffer(buffer).offset; }
  std::int64_t parameter_offset(std::int64_t element_offset, BufferRole region) const {
    return role(region).offset + 4 * element_offset;
  }
  // "k::WindowIndex8": the C++ element type of a buffer.
  std::string element(int buffer) const;
  // "// activation_0"
  std::string note(int buffer) const;

  // The definitions of every accessor used so far, in a fixed order.
  std::string accessor_definitions() const;

  // Under Accumulate<K>, the buffers that hold the whole batch (the input, the labels or targets,
  // each sample's loss and prediction), of which a micro-batch's pass reads or writes one slice:
  // at() gives that slice, "f32(arena, 663'552) + micro * 12'288", at the micro-batch `micro`
  // that the function on the plan's buffers takes. Elements of one slice: slice_elements().
  bool sliced(int buffer) const;
  std::int64_t slice_elements(int buffer) const;
  std::int64_t slice_bytes(int buffer) const {
    return m_.buffer(buffer).size / m_.setup.micro_batches;
  }
  // The functions on the plan's buffers that take `micro` (write_function_pair records them), so
  // that the step's calls pass it.
  void note_takes_micro_batch(const std::string& function) { micro_functions_.insert(function); }
  bool takes_micro_batch(const std::string& function) const {
    return micro_functions_.count(function) > 0;
  }

 private:
  const ModelView& m_;
  std::set<std::string> used_;
  std::set<std::string> micro_functions_;
};

// What runs of a group during backward: its backward, or under checkpointing its forward again
// (a recompute step's).
struct BackwardRun {
  const FusedGroup* group = nullptr;
  bool recompute = false;
};

// The fused groups in the order the step runs them: forward (views included, at their place)
// and backward (only the groups that run one, and those recomputed, each at its place).
struct GroupOrder {
  std::vector<const FusedGroup*> forward;
  std::vector<BackwardRun> backward;
};
GroupOrder group_order(const ModelView& model, const std::vector<FusedGroup>& groups);

}  // namespace staticnet::codegen
