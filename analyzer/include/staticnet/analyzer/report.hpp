#pragma once
// The memory report of one model: a value built from its plan (plan_dump.hpp), rendered apart
// (render.hpp) as text, Markdown, JSON or SVG. Building it only arranges the plan's numbers:
// per-step totals are the persistent regions plus the activation bytes the plan says are alive.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "staticnet/analyzer/plan_dump.hpp"

namespace staticnet::analyzer {

// What a model is checked against: a device profile (include/staticnet/device.hpp) or a plain
// budget from --budget (no runtime overhead).
struct Budget {
  std::string id;    // "jetson_nano", or "budget" for --budget
  std::string name;  // "Jetson Nano 4GB", or "budget 3 GiB"
  std::int64_t memory = 0;
  std::int64_t overhead = 0;

  std::int64_t available() const { return memory - overhead; }
  // A step of `footprint` bytes needs them plus the overhead (as staticnet::required_memory).
  std::int64_t required(std::int64_t footprint) const { return footprint + overhead; }
  bool fits(std::int64_t footprint) const { return required(footprint) <= memory; }
};

struct BudgetCheck {
  Budget budget;
  std::int64_t required = 0;  // footprint total + the runtime overhead
  std::int64_t margin = 0;    // memory - required; negative when it does not fit
  bool fits = false;
  std::int64_t max_batch = 0;  // for the setup's optimizer; 0: not even a batch of 1
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
  std::vector<bool> fits;  // per budget check, in order
};

struct SweepMaxBatch {
  std::string optimizer;
  std::string precision;
  std::vector<std::int64_t> by_budget;  // per budget check, in order
};

struct ModelReport {
  ModelDump model;
  std::int64_t total_saved_bytes = 0;
  std::int64_t total_forward_flops = 0;
  std::int64_t total_backward_flops = 0;
  std::vector<StepUsage> timeline;
  std::int64_t peak_step = 0;  // the first step at the peak
  std::int64_t peak_bytes = 0;
  std::vector<Consumer> alive_at_peak;  // activation-region buffers, largest first
  std::vector<Consumer> top_consumers;  // every buffer, largest first, at most 5
  std::vector<BudgetCheck> checks;
  std::vector<SweepColumn> sweep;
  std::vector<SweepMaxBatch> sweep_max_batch;

  bool fits_all() const;
};

struct Report {
  std::string header;  // the header as given on the command line
  std::vector<ModelReport> models;
  std::vector<Budget> budgets;
};

// `budgets` must be the budgets the probe computed max_batch for, in the same order.
ModelReport build_report(ModelDump model, const std::vector<Budget>& budgets);

// A sentence for each budget the model exceeds, for stderr: the last lines of a failed CI log,
// where a "NO" in the report's table above is easy to miss. Empty when it fits them all.
std::vector<std::string> over_budget_sentences(const ModelReport& m);

// "simple_cnn: SimpleCNN as SimpleCNNTraining"; a model named on the command line has no name
// of its own: "ns::Net as ns::Training".
std::string title(const ModelDump& m);
// "backward of layer 3 (Conv2d)" / "B3 Conv2d"
std::string step_name(const PlanDump& plan, std::int64_t step);
std::string step_label(const PlanDump& plan, std::int64_t step);
// "output of layer 0 (Conv2d)", "parameters", ...
std::string buffer_name(const PlanDump& plan, const BufferRow& b);

}  // namespace staticnet::analyzer
