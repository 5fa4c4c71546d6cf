// Arranges a plan's numbers into a report: per-step totals, the peak, the largest buffers, the
// budget checks and the sweep.
#include "staticnet/analyzer/report.hpp"

#include <algorithm>

#include <staticnet/budget.hpp>
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

staticnet::Footprint footprint_of(const FootprintBytes& f) {
  staticnet::Footprint out;
  out.weights = Bytes{f[Category::weights]};
  out.non_trainable = Bytes{f[Category::non_trainable]};
  out.gradients = Bytes{f[Category::gradients]};
  out.optimizer_state = Bytes{f[Category::optimizer_state]};
  out.inputs = Bytes{f[Category::inputs]};
  out.workspace = Bytes{f[Category::workspace]};
  out.activations = Bytes{f[Category::activations]};
  return out;
}

// "a step" / "a forward pass", for the sentences below.
std::string run_of(const PlanDump& plan) {
  return plan.training() ? "a step" : "a forward pass";
}

// What a batch search's answer says in a sentence about a budget exceeded.
std::string batch_clause(const ModelReport& m, std::int64_t max_batch) {
  const std::int64_t k = m.model.plan.micro_batches;
  if (k > 1)  // Accumulate<K>: the batches K divides
    return max_batch > 0
               ? "the largest batch that fits in " + grouped(k) + " micro-batches is " +
                     grouped(max_batch) + " (this setup's is " + grouped(m.model.plan.batch) + ")"
               : "not even a batch of " + grouped(k) + " (" + grouped(k) +
                     " micro-batches of 1) fits";
  return max_batch > 0 ? "the largest batch that fits is " + grouped(max_batch) +
                             " (this setup's is " + grouped(m.model.plan.batch) + ")"
                       : "not even a batch of 1 fits";
}

}  // namespace

staticnet::Device Budget::device() const {
  staticnet::Device d{Bytes{memory}, Bytes{overhead}};
  d.flash = Bytes{flash};
  d.flash_overhead = Bytes{flash_overhead};
  d.shares_host_memory = shares_host_memory;
  return d;
}

std::int64_t Budget::flash_part(const FootprintBytes& f, const std::string& precision) const {
  if (!has_flash())  // nothing in flash, whatever the precision (a plain --budget has none)
    return 0;
  SetupDesc setup;
  setup.precision = precision_kind(precision);
  return staticnet::flash_part(footprint_of(f), setup, device()).count;
}

// As budget.hpp's required_memory and required_flash, which take a whole Plan: the footprint
// less flash_part, plus the trainer's host bytes where the device shares them, plus the overhead;
// flash_part plus the firmware's code.
std::int64_t Budget::required(const FootprintBytes& f, const std::string& precision) const {
  return f.total - flash_part(f, precision) + host_part(f) + overhead;
}

std::int64_t Budget::required_flash(const FootprintBytes& f, const std::string& precision) const {
  return has_flash() ? flash_part(f, precision) + flash_overhead : 0;
}

bool Budget::fits(const FootprintBytes& f, const std::string& precision) const {
  return required(f, precision) <= memory && required_flash(f, precision) <= flash;
}

// budget.hpp's max_batch(Device) plans each batch b and asks whether total(b) - flash_part(b)
// fits available(); flash_part is the weights region and the per-channel numbers, which do not
// grow with b, so that is total(b) <= available() + flash_part: the probe's search over whole
// plans, given that many bytes, finds the same batch (tests/analyzer checks it against
// max_batch). It returns 0 when the flash part does not fit the flash.
std::int64_t Budget::max_batch_search_bytes(const FootprintBytes& f,
                                            const std::string& precision) const {
  if (required_flash(f, precision) > flash)
    return 0;
  return available() + flash_part(f, precision);
}

std::string title(const ModelDump& m) {
  const std::string types = m.model + " as " + m.setup;
  return m.name == m.model ? types : m.name + ": " + types;
}

std::string remedies_tried(const PlanDump& plan) {
  const bool training = plan.training();
  return std::string(training ? "not as micro-batches, " : "") +
         (training && plan.checkpoint == "None" ? "not checkpointed, " : "") +
         "not a smaller batch";
}

std::vector<std::string> over_budget_sentences(const ModelReport& m) {
  std::vector<std::string> sentences;
  for (const FitMenu& menu : m.fit_menus)
    if (menu.options.empty())
      sentences.push_back(title(m.model) + ": nothing fits " + menu.budget.name + ", " +
                          remedies_tried(m.model.plan));
  const std::int64_t footprint = m.model.plan.footprint.total;
  for (const BudgetCheck& c : m.checks) {
    if (c.fits)
      continue;
    if (c.budget.has_flash()) {
      // A microcontroller: SRAM and flash apart, each said with its numbers, as assert_fits'
      // does_not_fit_sram and does_not_fit_flash say them.
      if (!c.fits_memory)
        sentences.push_back(title(m.model) + " does not fit the SRAM of " + c.budget.name + ": " +
                            run_of(m.model.plan) + " needs " + to_string(Bytes{c.required}) +
                            " of SRAM, the plan's " + grouped(footprint - c.in_flash) + " B" +
                            (c.in_flash > 0 ? " (all but its weights, which are in flash)" : "") +
                            " and the firmware's own " + grouped(c.budget.overhead) +
                            " B, but the SRAM is " + to_string(Bytes{c.budget.memory}) + ": " +
                            to_string(Bytes{-c.margin}) + " over; " + batch_clause(m, c.max_batch));
      if (!c.fits_flash)
        sentences.push_back(
            title(m.model) + " does not fit the flash of " + c.budget.name + ": it needs " +
            to_string(Bytes{c.flash_required}) + " of flash, its weights and per-channel numbers " +
            grouped(c.in_flash) + " B and the firmware's code " + grouped(c.budget.flash_overhead) +
            " B, but the flash is " + to_string(Bytes{c.budget.flash}) + ": " +
            to_string(Bytes{-c.flash_margin}) +
            " over; no batch fits (the weights do not shrink with the batch)");
      continue;
    }
    // A --budget's name is its size already ("budget 32.00 MiB"); a device's is not.
    const bool device = c.budget.id != "budget";
    std::string s = title(m.model) + " does not fit " + c.budget.name +
                    (device ? " (" + human(Bytes{c.budget.memory}) + ")" : "") + ": a step needs " +
                    to_string(Bytes{c.required});
    if (c.budget.overhead > 0)
      s += ", the plan's " + human(Bytes{footprint}) + " and the runtime's own " +
           human(Bytes{c.budget.overhead});
    s += ": " + human(Bytes{-c.margin}) + " over; " + batch_clause(m, c.max_batch);
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
  const char* letter = s.kind == "forward" ? "F" : s.kind == "recompute" ? "R" : "B";
  return letter + std::to_string(s.layer) + " " + plan.layers.at(s.layer).kind;
}

namespace {
// What a buffer of this role holds (buffer_name, less checkpointing's "recomputed").
std::string role_name(const PlanDump& plan, const BufferRow& b) {
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
}  // namespace

std::string buffer_name(const PlanDump& plan, const BufferRow& b) {
  // Checkpointing: a buffer a recompute step makes holds a dropped one's values again.
  const bool recomputed = plan.schedule.at(b.first_step).kind == "recompute";
  return (recomputed ? "recomputed " : "") + role_name(plan, b);
}

bool ModelReport::fits_all() const {
  return std::all_of(checks.begin(), checks.end(), [](const BudgetCheck& c) { return c.fits; });
}

ModelReport build_report(ModelDump model, const std::vector<Budget>& budgets,
                         const std::vector<Budget>& fit_budgets) {
  ModelReport r;
  if (model.fit.size() != fit_budgets.size())
    throw ProbeOutputError("the probe listed what fits " + std::to_string(model.fit.size()) +
                           " budgets, not the " + std::to_string(fit_budgets.size()) + " asked");
  for (std::size_t i = 0; i < fit_budgets.size(); ++i) {
    FitMenu menu{fit_budgets[i], model.fit[i]};
    for (FitOption& o : menu.options)
      o.required += menu.budget.overhead;
    r.fit_menus.push_back(std::move(menu));
  }
  const PlanDump& plan = model.plan;
  for (const LayerRow& l : plan.layers) {
    r.total_saved_bytes += l.saved_bytes;
    r.total_forward_flops += l.forward_flops;
    r.total_backward_flops += l.backward_flops;
    r.total_recompute_flops += l.recompute_flops;
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
    c.in_flash = c.budget.flash_part(plan.footprint, plan.precision);
    c.required = c.budget.required(plan.footprint, plan.precision);
    c.host = c.budget.host_part(plan.footprint);
    c.margin = c.budget.memory - c.required;
    c.fits_memory = c.required <= c.budget.memory;
    if (c.budget.has_flash()) {
      c.flash_required = c.budget.required_flash(plan.footprint, plan.precision);
      c.flash_margin = c.budget.flash - c.flash_required;
      c.fits_flash = c.flash_required <= c.budget.flash;
    }
    c.fits = c.fits_memory && c.fits_flash;
    c.max_batch = model.max_batch.empty() ? 0 : model.max_batch.front().by_budget.at(i);
    r.checks.push_back(c);
  }
  for (const SweepPoint& p : model.sweep) {
    SweepColumn col{p.batch,         p.optimizer,  p.precision,  p.footprint,      {},
                    p.micro_batches, p.checkpoint, p.step_flops, p.recompute_flops};
    for (const Budget& b : budgets)
      col.fits.push_back(b.fits(p.footprint, p.precision));
    r.sweep.push_back(std::move(col));
  }
  if (!model.sweep.empty() || !model.not_applicable.empty())
    for (const MaxBatches& m : model.max_batch)
      r.sweep_max_batch.push_back(
          {m.optimizer, m.precision, m.by_budget, m.micro_batches, m.checkpoint});
  r.model = std::move(model);
  return r;
}

}  // namespace staticnet::analyzer
