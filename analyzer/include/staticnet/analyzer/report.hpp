#pragma once
// The memory report of one model: a value built from its plan (plan_dump.hpp), rendered apart
// (render.hpp) as text, Markdown, JSON or SVG. Building it only arranges the plan's numbers:
// per-step totals are the persistent regions plus the activation bytes the plan says are alive.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <staticnet/device.hpp>

#include "staticnet/analyzer/plan_dump.hpp"

namespace staticnet::analyzer {

// What a model is checked against: a device profile (include/staticnet/device.hpp) or a plain
// budget from --budget (no runtime overhead). A microcontroller's profile has a flash besides its
// memory (its SRAM): an Int8 plan's weights count against the flash, the rest against the SRAM,
// each with its own overhead (budget.hpp: flash_part, required_memory, required_flash).
struct Budget {
  std::string id;    // "jetson_nano", or "budget" for --budget
  std::string name;  // "Jetson Nano 4GB", or "budget 3 GiB"
  std::int64_t memory = 0;
  std::int64_t overhead = 0;
  std::int64_t flash = 0;           // 0: none, everything counts against `memory`
  std::int64_t flash_overhead = 0;  // what the firmware's code takes of the flash
  // One memory for host and device (a Jetson's): the trainer's host bytes count against `memory`.
  bool shares_host_memory = false;

  bool has_flash() const { return flash > 0; }
  std::int64_t available() const { return memory - overhead; }
  // The device as budget.hpp's helpers take it.
  staticnet::Device device() const;
  // What of a plan whose footprint is `f`, in `precision` ("Int8", as the plan dump names it),
  // stays in this device's flash: budget.hpp's flash_part (0 unless an Int8 plan on a device with
  // flash). Throws ProbeOutputError for a precision staticnet does not name.
  std::int64_t flash_part(const FootprintBytes& f, const std::string& precision) const;
  // The trainer's host bytes this device counts: all where it shares host memory, else none.
  std::int64_t host_part(const FootprintBytes& f) const { return shares_host_memory ? f.host : 0; }
  // The memory (SRAM) it needs with the runtime overhead (and host_part), as
  // staticnet::required_memory.
  std::int64_t required(const FootprintBytes& f, const std::string& precision) const;
  // The flash it needs with the firmware's code, as staticnet::required_flash (0 without flash).
  std::int64_t required_flash(const FootprintBytes& f, const std::string& precision) const;
  // Both fit, as staticnet::fits.
  bool fits(const FootprintBytes& f, const std::string& precision) const;
  // The bytes a whole plan may take for the probe's largest-batch search to find budget.hpp's
  // max_batch(Device): the memory available, plus what stays in flash (those bytes do not grow
  // with the batch, so "all but them fit the SRAM" is "all of them fit the SRAM and them"); 0
  // when they do not fit the flash, where no batch helps.
  std::int64_t max_batch_search_bytes(const FootprintBytes& f, const std::string& precision) const;
};

struct BudgetCheck {
  Budget budget;
  // The memory (a microcontroller's SRAM) needed: the footprint, less what stays in flash, + the
  // runtime overhead.
  std::int64_t required = 0;
  std::int64_t margin = 0;  // memory - required; negative when it does not fit
  bool fits = false;        // in memory, and in flash where the device has one
  // For the setup's optimizer and micro-batches (under Accumulate<K> a multiple of K); 0: not even
  // a batch of 1 (of K).
  std::int64_t max_batch = 0;
  // On a device with flash (budget.has_flash()); else 0, and fits_memory == fits.
  std::int64_t in_flash = 0;        // the plan's bytes that stay in flash (Int8: its weights)
  std::int64_t flash_required = 0;  // in_flash + the firmware's code
  std::int64_t flash_margin = 0;    // flash - flash_required
  bool fits_memory = false;
  bool fits_flash = true;
  std::int64_t host = 0;  // of `required`: the trainer's host bytes, where the device shares them
};

// Bytes in use while one step of the schedule runs.
struct StepUsage {
  std::int64_t index = 0;
  std::string name;      // "backward of layer 3 (Conv2d)"
  std::string label;     // "B3 Conv2d", for axes
  FootprintBytes bytes;  // persistent regions, plus the activation buffers alive at the step
};

struct Consumer {
  std::string what;        // "output of layer 0 (Conv2d)"
  std::string category;    // name_of(Category)
  std::int64_t bytes = 0;  // as placed (rounded up to 256 B)
  std::int64_t first_step = 0, last_step = 0;
};

struct SweepColumn {
  std::int64_t batch = 0;
  std::string optimizer;
  std::string precision;
  FootprintBytes footprint;
  std::vector<bool> fits;            // per budget check, in order
  std::int64_t micro_batches = 1;    // Accumulate<K>'s K
  std::string checkpoint = "None";   // Checkpoint<P>'s P
  std::int64_t step_flops = 0;       // forward and backward
  std::int64_t recompute_flops = 0;  // what its checkpointing adds to them

  std::int64_t micro_batch() const { return batch / micro_batches; }
};

struct SweepMaxBatch {
  std::string optimizer;
  std::string precision;
  std::vector<std::int64_t> by_budget;  // per budget check, in order; multiples of micro_batches
  std::int64_t micro_batches = 1;
  std::string checkpoint = "None";
};

// The setups that fit one --fit budget, cheapest first (fit.hpp), each option's `required` with
// the device's runtime overhead; no options: nothing fits.
struct FitMenu {
  Budget budget;
  std::vector<FitOption> options;
};

struct ModelReport {
  ModelDump model;
  std::int64_t total_saved_bytes = 0;
  std::int64_t total_forward_flops = 0;
  std::int64_t total_backward_flops = 0;
  std::int64_t total_recompute_flops = 0;  // checkpointing's price (0 without it)
  std::vector<StepUsage> timeline;
  std::int64_t peak_step = 0;  // the first step at the peak
  std::int64_t peak_bytes = 0;
  std::vector<Consumer> alive_at_peak;  // activation-region buffers, largest first
  std::vector<Consumer> top_consumers;  // every buffer, largest first, at most 5
  std::vector<BudgetCheck> checks;
  std::vector<SweepColumn> sweep;
  std::vector<SweepMaxBatch> sweep_max_batch;
  std::vector<FitMenu> fit_menus;  // per --fit budget, in order

  bool fits_all() const;
};

struct Report {
  std::string header;  // the header as given on the command line
  std::vector<ModelReport> models;
  std::vector<Budget> budgets;
  std::vector<Budget> fit_budgets;  // --fit
};

// `budgets` must be the budgets the probe computed max_batch for, in the same order, and
// `fit_budgets` those it listed the setups that fit for (ModelDump::fit).
ModelReport build_report(ModelDump model, const std::vector<Budget>& budgets,
                         const std::vector<Budget>& fit_budgets = {});

// A sentence for each budget the model exceeds, for stderr: the last lines of a failed CI log,
// where a "NO" in the report's table above is easy to miss. Empty when it fits them all.
std::vector<std::string> over_budget_sentences(const ModelReport& m);
// What fit tried before nothing fitted, in its order (fit.hpp): "not as micro-batches, not
// checkpointed, not a smaller batch". Micro-batches and checkpointing in training only, and
// checkpointing where the setup does not checkpoint already.
std::string remedies_tried(const PlanDump& plan);

// "simple_cnn: SimpleCNN as SimpleCNNTraining"; a model named on the command line has no name
// of its own: "ns::Net as ns::Training".
std::string title(const ModelDump& m);
// "backward of layer 3 (Conv2d)" / "B3 Conv2d"
std::string step_name(const PlanDump& plan, std::int64_t step);
std::string step_label(const PlanDump& plan, std::int64_t step);
// "output of layer 0 (Conv2d)", "parameters", ...
std::string buffer_name(const PlanDump& plan, const BufferRow& b);

}  // namespace staticnet::analyzer
