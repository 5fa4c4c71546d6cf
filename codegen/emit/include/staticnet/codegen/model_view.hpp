#pragma once
// The plan of one model as ordinary run-time values: everything the emitters read. The generator
// program builds it from the compile-time plan (generate.hpp) and hands it to the emitters, which
// are compiled once into a library instead of once per model.
//
// Nothing here is recomputed: the shapes, sizes, offsets and lifetimes are the Plan's own, copied.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/plan.hpp"

namespace staticnet::codegen {

// How the model was named in the build: staticnet_model(NAME HEADER h MODEL T SETUP S).
struct ModelNames {
  std::string name;        // NAME: a C++ identifier, the emitted files' prefix and namespace
  std::string header;      // the user's header as given to staticnet_model()
  std::string model_type;  // T as written, e.g. "staticnet::samples::SimpleCNN"
  std::string setup_type;  // S as written
};

struct ModelView {
  ModelNames names;
  SetupDesc setup;
  Shape input_shape;   // with the batch extent: one micro-batch's (Accumulate<K>)
  Shape output_shape;  // with the batch extent: one micro-batch's
  std::int64_t parameter_count = 0;
  std::int64_t non_trainable_count = 0;  // BatchNorm running statistics
  Footprint footprint;
  HostFootprint host;  // the trainer's host memory beside the arena
  std::array<std::int64_t, region_count> region_offset{};
  std::vector<LayerPlan> layers;
  std::vector<Buffer> buffers;
  std::vector<Step> schedule;
  std::int64_t loss_step = -1;  // the loss's step in the schedule; -1 under Inference
  // Checkpointing: for each buffer, the buffer whose values a recompute step writes into it
  // again (Buffer::recomputed_as, read backwards), or no_buffer.
  std::vector<int> recomputes;

  std::int64_t batch() const { return setup.batch; }
  // Accumulate<K>: the step runs K micro-batches of micro_batch() samples (else 1, of batch()).
  std::int64_t micro_batches() const { return setup.micro_batches; }
  std::int64_t micro_batch() const { return setup.micro_batch(); }
  bool training() const { return setup.mode == Mode::training; }
  // The first buffer with this role, or nullptr (parameters, gradients, input, loss, ...).
  const Buffer* find(BufferRole role) const;
  const Buffer& buffer(int index) const { return buffers.at(static_cast<std::size_t>(index)); }
  // Checkpointing: some layer's forward runs again in backward (LayerPlan::recomputed).
  bool recomputes_any() const;
};

// The model as backward and the recompute steps see it: every buffer a layer reads or writes in
// forward replaced by the one its recompute writes (Buffer::recomputed_as), where there is one.
// Without checkpointing, the model itself.
ModelView as_backward_sees(const ModelView& model);

template <std::size_t L>
ModelView describe(const Plan<L>& plan, ModelNames names) {
  ModelView view;
  view.names = std::move(names);
  view.setup = plan.setup;
  view.input_shape = plan.input_shape;
  view.output_shape = plan.output_shape;
  view.parameter_count = plan.parameter_count;
  view.non_trainable_count = plan.non_trainable_count;
  view.footprint = plan.footprint;
  view.host = plan.host;
  view.region_offset = plan.region_offset;
  view.layers.assign(plan.layers.begin(), plan.layers.end());
  view.buffers.assign(plan.buffers.begin(), plan.buffers.end());
  view.schedule.assign(plan.schedule.begin(), plan.schedule.end());
  for (std::size_t s = 0; s < plan.schedule.size(); ++s)
    if (plan.schedule[s].kind == StepKind::loss)
      view.loss_step = static_cast<std::int64_t>(s);
  view.recomputes.assign(view.buffers.size(), no_buffer);
  for (std::size_t b = 0; b < view.buffers.size(); ++b)
    if (view.buffers[b].recomputed_as != no_buffer)
      view.recomputes.at(static_cast<std::size_t>(view.buffers[b].recomputed_as)) =
          static_cast<int>(b);
  return view;
}

}  // namespace staticnet::codegen
