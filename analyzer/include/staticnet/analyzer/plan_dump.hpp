#pragma once
// The plans a probe printed (include/staticnet/analysis/probe.hpp), read back as values. Every
// number here was computed by the compiler; nothing is derived in this file (a buffer's region
// and the bytes it occupies come from the core's Buffer, as in the planner).
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <staticnet/plan.hpp>

namespace staticnet::analyzer {

// The arena's regions (plan.hpp), in their order; the report stacks them bottom to top in this
// order too. name_of(Category) is the core's: "optimizer_state".
using Category = staticnet::Region;
inline constexpr std::array<Category, 7> categories = {
    Category::weights, Category::non_trainable, Category::gradients,  Category::optimizer_state,
    Category::inputs,  Category::workspace,     Category::activations};
const char* label_of(Category c);  // "optimizer state", "non-trainable"

struct FootprintBytes {
  std::array<std::int64_t, categories.size()> by_category{};  // indexed by Category
  std::int64_t total = 0;
  // The trainer's host bytes beside the arena (plan.host.total()): not part of `total`, counted
  // only by a budget whose device shares its memory with the host.
  std::int64_t host = 0;

  std::int64_t operator[](Category c) const { return by_category[static_cast<int>(c)]; }
};

// Whether the text and picture reports list a category: all of them, except non-trainable state
// in models that keep none (only BatchNorm keeps any). The JSON report lists every one.
inline bool shown(Category c, const FootprintBytes& f) {
  return c != Category::non_trainable || f[c] > 0;
}

using Dims = std::vector<std::int64_t>;

struct LayerRow {
  std::string kind;                  // "Conv2d"
  std::vector<std::int64_t> inputs;  // the layers it reads; -1 is the model's input
  std::int64_t out = 0;
  Dims kernel, stride;
  Dims padding, padding_end;  // (h, w): top and left, then bottom and right
  bool bias = true;
  Dims input_shape, output_shape;  // with the batch extent
  std::int64_t parameters = 0;     // trainable
  std::int64_t non_trainable = 0;  // BatchNorm's running mean and variance
  std::int64_t saved_bytes = 0;
  std::int64_t forward_flops = 0;
  std::int64_t backward_flops = 0;
  std::int64_t recompute_flops = 0;  // checkpointing: its forward run again in backward
  std::int64_t workspace_bytes = 0;
  bool runs_backward = false;
  bool in_place = false;
  bool folded = false;  // Inference: a BatchNorm folded into the layer it reads
  // The pass the generated kernels run it in (the planner's fusion stage), on each backend: the
  // first and last layer of its group.
  std::array<std::int64_t, 2> pass_cpu{}, pass_cuda{};
};

struct BufferRow {
  std::string role;   // "activation", "window_index", ... (plan.hpp's BufferRole names)
  std::string dtype;  // "f32", "u8", ... (a bit mask's: u8)
  std::int64_t elements = 0;
  Category category = Category::activations;  // the arena region the plan puts it in
  std::int64_t layer = -1;
  std::int64_t size = 0;
  std::int64_t occupied = 0;  // size rounded up to 256 B
  std::int64_t offset = 0;
  std::int64_t first_step = 0;
  std::int64_t last_step = 0;
};

// One buffer a step reads, writes or updates (plan_types.hpp's Access).
struct AccessRow {
  std::int64_t buffer = 0;  // index into PlanDump::buffers
  std::int64_t version = 0;
  std::string kind;  // "read", "write", "update"
};

struct StepRow {
  std::string kind;  // "forward", "loss", "backward", "update", "recompute"
  std::int64_t layer = -1;
  std::int64_t live_activation_bytes = 0;
  std::vector<AccessRow> accesses;
};

// What the trainer holds in host memory beside the arena (staticnet's HostFootprint).
struct HostBytes {
  std::int64_t batch_slots = 0, pinned_staging = 0, checkpoint_state = 0, total = 0;
};

struct PlanDump {
  std::string mode;        // "training" or "inference"
  std::int64_t batch = 0;  // the optimizer's: the whole batch, under Accumulate<K> too
  // Accumulate<K>: a step runs K micro-batches of batch / K samples, the steps before the update
  // once each (the layers' shapes and the activations are one micro-batch's); else 1.
  std::int64_t micro_batches = 1;
  std::string checkpoint = "None";  // P of Checkpoint<P>: "None", "Sqrt", "Every<K>"
  std::string input_dtype, loss, optimizer, precision;
  bool prefetch = false;  // Prefetch: the arena holds the next batch too
  Dims input_shape, output_shape;
  std::int64_t parameter_count = 0;      // trainable
  std::int64_t non_trainable_count = 0;  // BatchNorm's running statistics
  FootprintBytes footprint;
  HostBytes host;
  std::vector<LayerRow> layers;
  std::vector<BufferRow> buffers;
  std::vector<StepRow> schedule;

  bool training() const { return mode == "training"; }
  std::int64_t micro_batch() const { return micro_batches > 0 ? batch / micro_batches : batch; }
  // How often step s runs in one training step: the update once, every other step once per
  // micro-batch (plan_types.hpp's Plan::runs_per_step).
  std::int64_t runs_per_step(std::int64_t step) const;
};

struct SweepPoint {
  std::int64_t batch = 0;
  std::string optimizer;
  std::string precision;  // "FP32", "Mixed<bf16>", ...
  FootprintBytes footprint;
  std::int64_t micro_batches = 1;  // --accumulate: K of Accumulate<K>
  // Why a point the sweep asked for does not plan (ModelDump::not_applicable), as the probe names
  // it: "micro_batches_do_not_divide", "batch_norm_one_value_per_channel" or (Checkpoint<Auto>)
  // "checkpoint_budget_too_small".
  std::string reason;
  std::string checkpoint = "None";   // --checkpoint: P of Checkpoint<P> (Auto: to fit the first
                                     // budget)
  std::int64_t step_flops = 0;       // forward and backward
  std::int64_t recompute_flops = 0;  // what its checkpointing adds to them
  // Not applicable, "checkpoint_budget_too_small": the bytes the least cut set needs (Auto).
  std::int64_t needs = 0;

  std::int64_t micro_batch() const { return batch / micro_batches; }
};

// The largest batch that fits each budget the probe was given, in the order given.
struct MaxBatches {
  std::string optimizer;
  std::string precision;
  std::vector<std::int64_t> by_budget;  // under Accumulate<K>, multiples of K
  std::int64_t micro_batches = 1;
  std::string checkpoint = "None";
};

// A setup that fits a --fit budget (fit.hpp's for_each_fitting): the setup's own, or one
// remedy applied to it.
struct FitOption {
  std::string remedy;  // "none", "accumulate", "checkpoint" or "smaller_batch"
  std::int64_t batch = 0;
  std::int64_t micro_batches = 1;
  std::string checkpoint = "None";  // the policy: "None", "Every<K>" or "Sqrt"
  std::int64_t required = 0;        // bytes, without the device's runtime overhead
  std::int64_t step_flops = 0;      // forward and backward
  std::int64_t recompute_flops = 0;
};

struct ModelDump {
  std::string name;   // as registered: STATICNET_MODEL(name, ...)
  std::string model;  // the model type as written there
  std::string setup;  // the setup type as written there
  PlanDump plan;
  std::vector<SweepPoint> sweep;
  // Swept points that do not plan: their K does not divide their batch (footprint all 0).
  std::vector<SweepPoint> not_applicable;
  std::vector<MaxBatches> max_batch;  // the setup's optimizer, precision and micro-batches first
  // Per --fit budget, in the order given: the setups that fit it, cheapest first (none: nothing).
  std::vector<std::vector<FitOption>> fit;
};

// The precision a plan dump names ("Int8"): every PrecisionKind, as name_of spells it (setup.hpp's
// parse_precision reads only those a training step takes). Throws ProbeOutputError for another.
PrecisionKind precision_kind(const std::string& name);
// The slot each of the plan's buffers is rounded up to: 256 B, or 16 B in an Int8 plan (256 B
// for a precision it does not name).
std::int64_t slot_bytes(const PlanDump& plan);

// The probe's output is not what this analyzer expects (another version, or a crash mid-write).
struct ProbeOutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ProbeOutputError.
std::vector<ModelDump> parse_probe_output(std::string_view json);

}  // namespace staticnet::analyzer
