// Arranges a plan's numbers into a report: per-step totals, the peak, the largest buffers, the
// budget checks and the sweep.
#include "staticnet/analyzer/report.hpp"

#include <algorithm>

#include <staticnet/print.hpp>

namespace staticnet::analyzer {

namespace {

std::string layer_ref(const PlanDump& plan, std::int64_t layer) {
  return "layer " + std::to_string(layer) + " (" + plan.layers.at(layer).kind + ")";
}

Consumer consumer_of(const PlanDump& plan, const BufferRow& b) {
  return {buffer_name(plan, b), name_of(b.category), b.occupied, b.first_step, b.last_step};
}

void sort_largest_first(std::vector<Consumer>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const Consumer& a, const Consumer& b) { return a.bytes > b.bytes; });
}

}  // namespace

std::string title(const ModelDump& m) {
  const std::string types = m.model + " as " + m.setup;
  return m.name == m.model ? types : m.name + ": " + types;
}

std::vector<std::string> over_budget_sentences(const ModelReport& m) {
  std::vector<std::string> sentences;
  const std::int64_t footprint = m.model.plan.footprint.total;
  for (const BudgetCheck& c : m.checks) {
    if (c.fits)
      continue;
    // A --budget's name is its size already ("budget 32.00 MiB"); a device's is not.
    const bool device = c.budget.id != "budget";
    std::string s = title(m.model) + " does not fit " + c.budget.name +
                    (device ? " (" + human(Bytes{c.budget.memory}) + ")" : "") + ": a step needs " +
                    to_string(Bytes{c.required});
    if (c.budget.overhead > 0)
      s += ", the plan's " + human(Bytes{footprint}) + " and the runtime's own " +
           human(Bytes{c.budget.overhead});
    s += ": " + human(Bytes{-c.margin}) + " over; ";
    s += c.max_batch > 0 ? "the largest batch that fits is " + grouped(c.max_batch) +
                               " (this setup's is " + grouped(m.model.plan.batch) + ")"
                         : "not even a batch of 1 fits";
    sentences.push_back(std::move(s));
  }
  return sentences;
}

std::string step_name(const PlanDump& plan, std::int64_t step) {
  const StepRow& s = plan.schedule.at(step);
  if (s.kind == "loss")
    return "loss (" + plan.loss + ")";
  if (s.kind == "update")
    return "optimizer update (" + plan.optimizer + ")";
  return s.kind + " of " + layer_ref(plan, s.layer);
}

std::string step_label(const PlanDump& plan, std::int64_t step) {
  const StepRow& s = plan.schedule.at(step);
  if (s.kind == "loss" || s.kind == "update")
    return s.kind;
  return (s.kind == "forward" ? "F" : "B") + std::to_string(s.layer) + " " +
         plan.layers.at(s.layer).kind;
}

std::string buffer_name(const PlanDump& plan, const BufferRow& b) {
  const std::string& r = b.role;
  if (r == "parameters")
    return "parameters (weights and biases)";
  if (r == "gradients")
    return "parameter gradients";
  if (r == "parameter_copy")
    return "working copy of the parameters (mixed precision)";
  if (r == "loss_scale")
    return "loss scaler (scale, growth count, overflow flag)";
  if (r == "optimizer_moment1")
    return plan.optimizer == "SGDMomentum" ? "momentum buffer"
                                           : "first moments (" + plan.optimizer + ")";
  if (r == "optimizer_moment2")
    return "second moments (" + plan.optimizer + ")";
  if (r == "input")
    return "input batch";
  if (r == "labels")
    return "labels (class indices)";
  if (r == "targets")
    return "targets";
  if (r == "next_batch")
    return "next batch (Prefetch)";
  if (r == "workspace")
    return "workspace (im2col of one sample)";
  if (r == "loss")
    return "per-sample losses";
  if (r == "predictions")
    return "predicted classes";
  if (r == "non_trainable")
    return "running statistics (BatchNorm)";
  if (r == "window_index")
    return "max-pool indices of " + layer_ref(plan, b.layer);
  if (r == "batch_statistics")
    return "batch mean and 1/std of " + layer_ref(plan, b.layer);
  if (r == "dropout_mask")
    return "dropout mask of " + layer_ref(plan, b.layer);
  if (r == "quantization")
    return "per-channel biases, multipliers and shifts (Int8)";
  if (r == "arena_input")
    return "the input (Int8: its bytes shared once read)";
  if (r == "activation")
    return "output of " + layer_ref(plan, b.layer);
  if (r == "activation_gradient") {
    // The loss writes the gradient of the model's output; backward of layer i writes the
    // gradient of layer i's input.
    const bool from_loss = plan.schedule.at(b.first_step).kind == "loss";
    return (from_loss ? "gradient of the output of " : "gradient of the input of ") +
           layer_ref(plan, b.layer);
  }
  return r;
}

bool ModelReport::fits_all() const {
  return std::all_of(checks.begin(), checks.end(), [](const BudgetCheck& c) { return c.fits; });
}

ModelReport build_report(ModelDump model, const std::vector<Budget>& budgets) {
  ModelReport r;
  const PlanDump& plan = model.plan;
  for (const LayerRow& l : plan.layers) {
    r.total_saved_bytes += l.saved_bytes;
    r.total_forward_flops += l.forward_flops;
    r.total_backward_flops += l.backward_flops;
  }

  // The timeline: regions other than activations hold their bytes for the whole step.
  FootprintBytes persistent = plan.footprint;
  persistent.by_category[static_cast<int>(Category::activations)] = 0;
  persistent.total = plan.footprint.total - plan.footprint[Category::activations];
  for (std::int64_t s = 0; s < static_cast<std::int64_t>(plan.schedule.size()); ++s) {
    StepUsage u{s, step_name(plan, s), step_label(plan, s), persistent};
    const std::int64_t live = plan.schedule[s].live_activation_bytes;
    u.bytes.by_category[static_cast<int>(Category::activations)] = live;
    u.bytes.total += live;
    if (u.bytes.total > r.peak_bytes) {
      r.peak_bytes = u.bytes.total;
      r.peak_step = s;
    }
    r.timeline.push_back(std::move(u));
  }

  for (const BufferRow& b : plan.buffers) {
    r.top_consumers.push_back(consumer_of(plan, b));
    if (b.category == Category::activations && b.first_step <= r.peak_step &&
        r.peak_step <= b.last_step)
      r.alive_at_peak.push_back(consumer_of(plan, b));
  }
  sort_largest_first(r.top_consumers);
  if (r.top_consumers.size() > 5)
    r.top_consumers.resize(5);
  sort_largest_first(r.alive_at_peak);

  for (std::size_t i = 0; i < budgets.size(); ++i) {
    BudgetCheck c;
    c.budget = budgets[i];
    c.required = c.budget.required(plan.footprint.total);
    c.margin = c.budget.memory - c.required;
    c.fits = c.budget.fits(plan.footprint.total);
    c.max_batch = model.max_batch.empty() ? 0 : model.max_batch.front().by_budget.at(i);
    r.checks.push_back(c);
  }
  for (const SweepPoint& p : model.sweep) {
    SweepColumn col{p.batch, p.optimizer, p.precision, p.footprint, {}};
    for (const Budget& b : budgets)
      col.fits.push_back(b.fits(p.footprint.total));
    r.sweep.push_back(std::move(col));
  }
  if (!model.sweep.empty())
    for (const MaxBatches& m : model.max_batch)
      r.sweep_max_batch.push_back({m.optimizer, m.precision, m.by_budget});
  r.model = std::move(model);
  return r;
}

}  // namespace staticnet::analyzer
