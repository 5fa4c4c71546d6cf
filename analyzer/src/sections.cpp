#include "sections.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

#include <staticnet/fit.hpp>

namespace staticnet::analyzer {

namespace {

std::string percent(std::int64_t part, std::int64_t whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
  return text;
}

std::string lifetime(const ModelReport& m, const Consumer& c) {
  const std::int64_t last = static_cast<std::int64_t>(m.timeline.size()) - 1;
  if (c.first_step == 0 && c.last_step == last)
    return "the whole step";
  return "steps " + std::to_string(c.first_step) + "–" + std::to_string(c.last_step) + ": " +
         m.timeline.at(c.first_step).label + " → " + m.timeline.at(c.last_step).label;
}

std::string input_name(std::int64_t layer) {
  return layer < 0 ? "the input" : std::to_string(layer);
}

// The layer's kind, and what it reads where that is not the layer before: "Add (7 + 2)",
// "Conv2d (reads 9)", as the samples' hand-derived tables write a graph; a folded BatchNorm says
// where it went: "BatchNorm2d (folded into 0)".
std::string layer_text(const LayerRow& l, std::int64_t index) {
  if (l.folded && l.inputs.size() == 1)
    return l.kind + " (folded into " + input_name(l.inputs[0]) + ")";
  if (l.inputs.size() == 2)
    return l.kind + " (" + input_name(l.inputs[0]) + " + " + input_name(l.inputs[1]) + ")";
  if (l.inputs.size() == 1 && l.inputs[0] != index - 1)
    return l.kind + " (reads " + input_name(l.inputs[0]) + ")";
  return l.kind;
}

// The layers the generated kernels run as one pass with this one: "0–2"; "0–1, CUDA alone" where
// the backends fuse differently; empty where the layer runs alone on both.
std::string pass_text(const LayerRow& l) {
  auto span = [](const std::array<std::int64_t, 2>& p) {
    return std::to_string(p[0]) + "–" + std::to_string(p[1]);
  };
  const bool fused_cpu = l.pass_cpu[1] > l.pass_cpu[0];
  const bool fused_cuda = l.pass_cuda[1] > l.pass_cuda[0];
  if (l.pass_cpu == l.pass_cuda)
    return fused_cpu ? span(l.pass_cpu) : "";
  return (fused_cpu ? span(l.pass_cpu) : "alone") + ", CUDA " +
         (fused_cuda ? span(l.pass_cuda) : "alone");
}

// Whether a microcontroller (a device with flash) is among the budgets.
bool any_flash(const ModelReport& m) {
  return std::ranges::any_of(m.checks, [](const BudgetCheck& c) { return c.budget.has_flash(); });
}

// "batch 64 as 4 micro-batches of 16", "batch 64 as 1 micro-batch" (a sweep's point), or
// "batch 64" where the report says nothing of micro-batches.
std::string batch_text(std::int64_t batch, std::int64_t micro_batches, bool say_micro_batches) {
  std::string s = "batch " + grouped_count(batch);
  if (say_micro_batches)
    s += micro_batches > 1 ? " as " + grouped_count(micro_batches) + " micro-batches of " +
                                 grouped_count(batch / micro_batches)
                           : " as 1 micro-batch";
  return s;
}

// "4 micro-batches of 16", "1 micro-batch of 64": a sweep's row.
std::string micro_batch_text(std::int64_t batch, std::int64_t micro_batches) {
  return grouped_count(micro_batches) +
         (micro_batches == 1 ? " micro-batch of " : " micro-batches of ") +
         grouped_count(batch / micro_batches);
}

}  // namespace

std::string setup_line(const PlanDump& plan) {
  if (!plan.training())
    return "inference (forward only): batch " + grouped_count(plan.batch) + ", " + plan.precision;
  const bool accumulates = plan.micro_batches > 1;
  return "training step: " + batch_text(plan.batch, plan.micro_batches, accumulates) +
         (accumulates ? " (Accumulate<" + std::to_string(plan.micro_batches) + ">)" : "") + ", " +
         plan.optimizer + ", " + plan.loss + ", " + plan.precision +
         (plan.checkpoint != "None" ? ", Checkpoint<" + plan.checkpoint + ">" : "") +
         (plan.prefetch ? ", Prefetch (the next batch arrives during the step)" : "");
}

std::string shape_line(const PlanDump& plan) {
  const std::size_t layers = plan.layers.size();
  return "input " + plan.input_dtype + " " + shape_text(plan.input_shape) + " → output " +
         shape_text(plan.output_shape) + (plan.micro_batches > 1 ? " per micro-batch" : "") + "; " +
         grouped_count(plan.parameter_count) + " parameters" +
         (plan.non_trainable_count > 0
              ? " (and " + grouped_count(plan.non_trainable_count) + " non-trainable)"
              : std::string()) +
         "; " + std::to_string(layers) + (layers == 1 ? " layer; " : " layers; ") +
         std::to_string(plan.buffers.size()) + " buffers over " +
         std::to_string(plan.schedule.size()) + " steps";
}

Table layer_table(const ModelReport& m) {
  const PlanDump& p = m.model.plan;
  // A forward pass saves nothing and runs no backward: those columns would be all zeros; nor
  // does a model without BatchNorm keep non-trainable values.
  const bool training = p.training();
  const bool statistics = p.non_trainable_count > 0;
  std::vector<Align> align = {Align::right, Align::left,  Align::left,
                              Align::left,  Align::right, Align::right};
  std::vector<std::string> head = {"#", "layer", "input", "output", "parameters"};
  if (statistics) {
    align.push_back(Align::right);
    head.push_back("non-trainable");
  }
  if (training) {
    align.insert(align.end(), {Align::right, Align::right});
    head.push_back("saved for backward");
  }
  head.push_back("forward FLOPs");
  if (training)
    head.push_back("backward FLOPs");
  // Checkpointing's price, where some layer's forward runs again in backward.
  const bool recomputes = m.total_recompute_flops > 0;
  if (recomputes) {
    align.push_back(Align::right);
    head.push_back("recompute FLOPs");
  }
  // Which layers run as one pass (the planner's fusion stage), where any do.
  const bool passes = std::ranges::any_of(p.layers, [](const LayerRow& l) {
    return l.pass_cpu[1] > l.pass_cpu[0] || l.pass_cuda[1] > l.pass_cuda[0];
  });
  if (passes) {
    align.push_back(Align::left);
    head.push_back("one pass");
  }
  Table t(align);
  t.add(head);
  auto row = [&](std::vector<std::string> cells, std::int64_t non_trainable, std::int64_t saved,
                 std::int64_t forward, std::int64_t backward, std::int64_t recompute,
                 std::string pass) {
    if (statistics)
      cells.push_back(grouped_count(non_trainable));
    if (training)
      cells.push_back(human_bytes(saved));
    cells.push_back(si(forward));
    if (training)
      cells.push_back(si(backward));
    if (recomputes)
      cells.push_back(recompute > 0 ? si(recompute) : "");
    if (passes)
      cells.push_back(std::move(pass));
    t.add(cells);
  };
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const LayerRow& l = p.layers[i];
    row({std::to_string(i), layer_text(l, static_cast<std::int64_t>(i)), shape_text(l.input_shape),
         shape_text(l.output_shape), grouped_count(l.parameters)},
        l.non_trainable, l.saved_bytes, l.forward_flops, l.backward_flops, l.recompute_flops,
        pass_text(l));
  }
  row({"", "total", "", "", grouped_count(p.parameter_count)}, p.non_trainable_count,
      m.total_saved_bytes, m.total_forward_flops, m.total_backward_flops, m.total_recompute_flops,
      "");
  return t;
}

std::string flop_conventions(const PlanDump& plan) {
  std::string s =
      "FLOPs: a multiply-add counts 2; bias adds count; a pool counts one per window element; "
      "an activation 1 per element (sigmoid 3; backward: sigmoid and tanh 3).";
  if (plan.training())
    s += " Backward counts the weight gradient and, except in layers before the first with "
         "parameters, the input gradient. Saved for backward: what a layer keeps from forward "
         "(its input, its output, or pool indices); a tensor two layers keep (an in-place "
         "activation's output, kept again as the next layer's input) is in both rows, so the "
         "total can exceed the activations below, which hold each tensor once.";
  if (plan.micro_batches > 1)
    s += " Under Accumulate<" + std::to_string(plan.micro_batches) +
         ">: the shapes and saved bytes are one micro-batch's (" +
         grouped_count(plan.micro_batch()) + " samples), the FLOPs the whole step's (its " +
         grouped_count(plan.micro_batches) + " micro-batches).";
  if (std::ranges::any_of(plan.layers, [](const LayerRow& l) {
        return l.pass_cpu[1] > l.pass_cpu[0] || l.pass_cuda[1] > l.pass_cuda[0];
      }))
    s += " One pass: the layers the generated kernels run as one pass over memory (a product "
         "with its bias, activation and pool; a BatchNorm or a residual sum with its "
         "activation), where the backends differ, CUDA's after the CPU's.";
  std::int64_t recompute = 0, step = 0;
  for (const LayerRow& l : plan.layers) {
    recompute += l.recompute_flops;
    step += l.forward_flops + l.backward_flops;
  }
  if (recompute > 0)
    s += " Recompute FLOPs (checkpointing): a layer's forward run again during backward, as the "
         "plan's recompute steps run it (a BatchNorm only normalises, by its first pass's "
         "statistics): " +
         si(recompute) + " more, " + percent(recompute, step) +
         " of the step's forward and backward.";
  if (!plan.training() &&
      std::ranges::any_of(plan.layers, [](const LayerRow& l) { return l.folded; }))
    s += " A BatchNorm folded into the layer it reads runs no pass of its own: the layer's "
         "weights are scaled once at load and the shift is added where its bias was (an add per "
         "element if it had none).";
  return s;
}

std::string footprint_heading(const PlanDump& plan) {
  return std::string(plan.training() ? "Memory of one training step"
                                     : "Memory of one forward "
                                       "pass") +
         " (1 KiB = 1,024 B; each buffer rounded up to " + grouped_count(slot_bytes(plan)) + " B)";
}

Table footprint_table(const ModelReport& m) {
  Table t({Align::left, Align::right, Align::right, Align::right});
  t.add({"category", "bytes", "", "share"});
  const FootprintBytes& f = m.model.plan.footprint;
  for (Category c : categories)
    if (shown(c, f))
      t.add({label_of(c), exact_bytes(f[c]), human_bytes(f[c]), percent(f[c], f.total)});
  t.add({"total", exact_bytes(f.total), human_bytes(f.total), "100.0%"});
  return t;
}

std::string peak_line(const ModelReport& m) {
  return exact_bytes(m.peak_bytes) + " (" + human_bytes(m.peak_bytes) + ") at step " +
         std::to_string(m.peak_step) + " of " + std::to_string(m.timeline.size()) + ", " +
         m.timeline.at(m.peak_step).name;
}

std::string arena_line(const ModelReport& m) {
  const std::int64_t arena = m.model.plan.footprint.total;
  if (arena == m.peak_bytes)
    return "The arena (one allocation of " + exact_bytes(arena) + ") is exactly this peak.";
  return "The arena (one allocation of " + exact_bytes(arena) + ") is " +
         exact_bytes(arena - m.peak_bytes) + " (" + human_bytes(arena - m.peak_bytes) +
         ") above the peak: buffers placed at fixed offsets leave that gap.";
}

std::string loop_line(const PlanDump& plan) {
  if (plan.micro_batches <= 1 || plan.schedule.empty())
    return "";
  // The loop body: every step but the update, which is last.
  const auto steps = static_cast<std::int64_t>(plan.schedule.size());
  std::int64_t body = 0;
  while (body < steps && plan.runs_per_step(body) > 1)
    ++body;
  if (body == 0)
    return "";
  std::string s =
      "Steps 0–" + std::to_string(body - 1) + " (forward, loss and backward) run " +
      grouped_count(plan.micro_batches) + " times in a training step, once per micro-batch of " +
      grouped_count(plan.micro_batch()) + ", in the same buffers each time (shown once here)";
  if (body < steps)
    s += "; the update, step " + std::to_string(body) + ", runs once, after the last";
  return s + ".";
}

Table consumer_table(const ModelReport& m, const std::vector<Consumer>& consumers) {
  Table t({Align::right, Align::left, Align::left, Align::left});
  t.add({"bytes", "category", "buffer", "alive"});
  for (const Consumer& c : consumers)
    t.add({human_bytes(c.bytes), c.category, c.what, lifetime(m, c)});
  return t;
}

std::string check_rule(const ModelReport& m) {
  std::string rule = any_flash(m)
                         ? "required = the footprint + the device's runtime overhead; a "
                           "microcontroller's SRAM and flash apart"
                         : "required = the step's footprint + the device's runtime overhead";
  if (std::ranges::any_of(m.checks,
                          [](const BudgetCheck& c) { return c.budget.shares_host_memory; }))
    rule += " + the trainer's host bytes where they share its memory";
  // Accumulate<K>: the batches that plan are those K divides.
  if (const std::int64_t k = m.model.plan.micro_batches; k > 1)
    rule += "; under Accumulate<" + std::to_string(k) + "> the largest batch is a multiple of " +
            grouped_count(k);
  return rule;
}

Table check_table(const ModelReport& m, std::vector<bool>* row_fits) {
  Table t({Align::left, Align::right, Align::right, Align::right, Align::right, Align::left,
           Align::right});
  t.add({"budget", "memory", "runtime overhead", "required", "margin", "fits", "largest batch"});
  auto row = [&](std::string name, std::int64_t memory, std::int64_t overhead,
                 std::int64_t required, std::int64_t margin, bool fits, std::string max_batch) {
    t.add({std::move(name), human_bytes(memory), human_bytes(overhead), human_bytes(required),
           human_bytes(margin), fits ? "yes" : "NO", std::move(max_batch)});
    if (row_fits)
      row_fits->push_back(fits);
  };
  for (const BudgetCheck& c : m.checks) {
    if (!c.budget.has_flash()) {
      row(c.budget.name, c.budget.memory, c.budget.overhead, c.required, c.margin, c.fits,
          grouped_count(c.max_batch));
      continue;
    }
    // A microcontroller: its SRAM, then its flash; the largest batch counts the SRAM.
    row(c.budget.name + ": SRAM", c.budget.memory, c.budget.overhead, c.required, c.margin,
        c.fits_memory, grouped_count(c.max_batch));
    row(c.budget.name + ": flash", c.budget.flash, c.budget.flash_overhead, c.flash_required,
        c.flash_margin, c.fits_flash, "");
  }
  return t;
}

std::vector<std::string> flash_lines(const ModelReport& m) {
  if (!any_flash(m))
    return {};
  const PlanDump& p = m.model.plan;
  std::vector<std::string> lines;
  const BudgetCheck& first =
      *std::ranges::find_if(m.checks, [](const BudgetCheck& c) { return c.budget.has_flash(); });
  const std::int64_t in_flash = first.in_flash;  // the same on every device with flash
  const std::int64_t in_sram = p.footprint.total - in_flash;
  if (in_flash > 0)
    lines.push_back("On a microcontroller the " + p.precision +
                    " plan's weights and per-channel numbers, " + exact_bytes(in_flash) +
                    ", stay in flash beside the firmware's code; the rest, " +
                    exact_bytes(in_sram) +
                    ", is in SRAM beside the firmware's stack and data. The largest batch counts "
                    "the SRAM (0 where the weights do not fit the flash: no batch helps).");
  else
    lines.push_back("On a microcontroller this " + p.precision + " plan is all in SRAM, " +
                    exact_bytes(in_sram) +
                    ", beside the firmware's stack and data (its program writes the weights when "
                    "it loads them; only an Int8 plan keeps them in flash); the flash holds the "
                    "firmware's code.");
  for (const BudgetCheck& c : m.checks)
    if (c.budget.has_flash())
      lines.push_back(c.budget.name + ": SRAM " + grouped_count(in_sram) + " + " +
                      grouped_count(c.budget.overhead) + " = " + exact_bytes(c.required) + " of " +
                      exact_bytes(c.budget.memory) + (c.fits_memory ? "" : " (over)") + "; flash " +
                      grouped_count(c.in_flash) + " + " + grouped_count(c.budget.flash_overhead) +
                      " = " + exact_bytes(c.flash_required) + " of " + exact_bytes(c.budget.flash) +
                      (c.fits_flash ? "" : " (over)") + ".");
  return lines;
}

std::vector<std::string> host_lines(const ModelReport& m) {
  const auto shared = std::ranges::find_if(
      m.checks, [](const BudgetCheck& c) { return c.budget.shares_host_memory; });
  if (shared == m.checks.end() || m.model.plan.mode != "training")  // inference: no trainer
    return {};
  const HostBytes& h = m.model.plan.host;
  return {shared->budget.name + " shares its memory with the host: the trainer's host bytes, " +
          exact_bytes(h.total) + " (batch slots " + grouped_count(h.batch_slots) +
          ", pinned staging " + grouped_count(h.pinned_staging) + ", the state's copy " +
          grouped_count(h.checkpoint_state) + "), count there."};
}

std::string fit_heading(const FitMenu& menu) {
  const Budget& b = menu.budget;
  const bool device = b.id != "budget";
  return "What fits " + b.name +
         (device ? " (" + human_bytes(b.memory) + ", of which " + human_bytes(b.overhead) +
                       " the runtime's" +
                       (b.shares_host_memory ? "; the trainer's host bytes count" : "") + ")"
                 : "") +
         ", cheapest first";
}

namespace {
// A BatchNorm in training normalises what one pass sees: under Accumulate<K>, a micro-batch.
bool normalises_per_micro_batch(const PlanDump& p) {
  return p.training() && std::ranges::any_of(p.layers, [](const LayerRow& l) {
           return l.kind.starts_with("BatchNorm");
         });
}

// |flops| in percent of a step's, rounded as assert_fits rounds it (fit.hpp).
std::int64_t percent_of(std::int64_t flops, std::int64_t step_flops) {
  return extra_compute_percent(flops < 0 ? -flops : flops, step_flops);
}

// What a setup's checkpointing adds to its step: "+22 % (2,129,920 FLOPs recomputed)".
std::string recompute_text(const FitOption& o) {
  return "+" + std::to_string(percent_of(o.recompute_flops, o.step_flops)) + " % (" +
         grouped_count(o.recompute_flops) + " FLOPs recomputed)";
}
}  // namespace

Table fit_table(const ModelReport& m, const FitMenu& menu) {
  const PlanDump& p = m.model.plan;
  Table t({Align::left, Align::right, Align::right, Align::left});
  t.add({"setup", "required", "margin", "extra compute"});
  for (const FitOption& o : menu.options) {
    std::string setup, extra;
    if (o.remedy == "none") {
      setup =
          "as it is: batch " + grouped_count(o.batch) +
          (o.micro_batches > 1 ? " as " + grouped_count(o.micro_batches) + " micro-batches" : "");
      extra = "none";
    } else if (o.remedy == "accumulate") {
      setup = "Accumulate<" + std::to_string(o.micro_batches) + ">: batch " +
              grouped_count(o.batch) + " as " + grouped_count(o.micro_batches) +
              " micro-batches of " + grouped_count(o.batch / o.micro_batches);
      extra = normalises_per_micro_batch(p) ? "none (each BatchNorm normalises a micro-batch)"
                                            : "none (the same arithmetic)";
    } else if (o.remedy == "checkpoint") {
      setup =
          "Checkpoint<" + o.checkpoint + ">: batch " + grouped_count(o.batch) +
          (o.micro_batches > 1 ? " as " + grouped_count(o.micro_batches) + " micro-batches" : "");
      extra = recompute_text(o);
    } else {
      setup =
          "Batch<" + std::to_string(o.batch) + ">" +
          (o.micro_batches > 1 ? " as " + grouped_count(o.micro_batches) + " micro-batches" : "");
      extra =
          "none, but " + grouped_count(o.batch) + " samples a step, not " + grouped_count(p.batch);
    }
    if (o.remedy != "checkpoint" && o.recompute_flops > 0)  // the setup checkpoints already
      extra += "; its checkpointing " + recompute_text(o);
    t.add({setup, human_bytes(o.required), human_bytes(menu.budget.memory - o.required), extra});
  }
  return t;
}

std::string nothing_fits_line(const ModelReport& m, const FitMenu& menu) {
  const bool training = m.model.plan.training();
  return "Nothing fits " + menu.budget.name + ": not the batch of " +
         grouped_count(m.model.plan.batch) + " as it is, " + remedies_tried(m.model.plan) + " (" +
         (training ? "the weights, gradients and optimizer state" : "the weights") +
         " do not shrink with the batch).";
}

bool sweeps_precision(const ModelReport& m) {
  for (const SweepColumn& c : m.sweep)
    if (c.precision != m.model.plan.precision)
      return true;
  return false;
}

bool has_sweep(const ModelReport& m) {
  return !m.sweep.empty() || !m.model.not_applicable.empty();
}

bool sweeps_accumulation(const ModelReport& m) {
  const std::int64_t own = m.model.plan.micro_batches;
  return std::ranges::any_of(m.sweep,
                             [&](const SweepColumn& c) { return c.micro_batches != own; }) ||
         std::ranges::any_of(m.model.not_applicable,
                             [&](const SweepPoint& p) { return p.micro_batches != own; });
}

bool shows_micro_batches(const ModelReport& m) {
  return m.model.plan.micro_batches > 1 || sweeps_accumulation(m);
}

bool sweeps_checkpoint(const ModelReport& m) {
  const std::string& own = m.model.plan.checkpoint;
  return std::ranges::any_of(m.sweep, [&](const SweepColumn& c) { return c.checkpoint != own; }) ||
         std::ranges::any_of(m.model.not_applicable,
                             [&](const SweepPoint& p) { return p.checkpoint != own; });
}

bool shows_checkpoint(const ModelReport& m) {
  return m.model.plan.checkpoint != "None" || sweeps_checkpoint(m);
}

namespace {

// Calls `each(point, same_group)` once per group of the sweep's points that `same` puts together,
// in the sweep's order, with the group's first point and a test for its members: the lines that
// compare the sweep along one axis (precision, micro-batches, checkpointing) at each point of the
// others.
template <class Same, class Each>
void for_each_group(const std::vector<SweepColumn>& sweep, Same same, Each each) {
  for (std::size_t first = 0; first < sweep.size(); ++first) {
    const SweepColumn& point = sweep[first];
    auto same_group = [&](const SweepColumn& o) { return same(o, point); };
    if (std::any_of(sweep.begin(), sweep.begin() + static_cast<std::ptrdiff_t>(first), same_group))
      continue;  // this group has its line
    each(point, same_group);
  }
}

// The comparisons along one axis: per group of points that `same` puts together, its reference
// (the last member `is_reference` accepts, else the group's first) and `describe(o, reference)`
// of each other member, joined by "; ". Calls `emit(point, reference, text)` for each group of
// more than one point.
template <class Same, class IsReference, class Describe, class Emit>
void compare_within_groups(const std::vector<SweepColumn>& sweep, Same same,
                           IsReference is_reference, Describe describe, Emit emit) {
  for_each_group(sweep, same, [&](const SweepColumn& point, auto same_point) {
    const SweepColumn* reference = &point;
    for (const SweepColumn& o : sweep)
      if (same_point(o) && is_reference(o))
        reference = &o;
    std::string text;
    for (const SweepColumn& o : sweep)
      if (same_point(o) && &o != reference)
        text += (text.empty() ? "" : "; ") + describe(o, *reference);
    if (!text.empty())  // else this point was swept at one value of the axis only
      emit(point, *reference, text);
  });
}

}  // namespace

std::vector<std::string> precision_lines(const ModelReport& m) {
  if (!sweeps_precision(m))
    return {};
  std::vector<std::string> lines;
  const std::string& own = m.model.plan.precision;
  const bool say_micro_batches = shows_micro_batches(m);
  // One line per (batch, optimizer, micro-batches), in the sweep's order: its smallest
  // precision, and against the setup's precision where the sweep has it, what each other saves
  // or costs.
  auto same = [](const SweepColumn& a, const SweepColumn& b) {
    return a.batch == b.batch && a.optimizer == b.optimizer && a.micro_batches == b.micro_batches &&
           a.checkpoint == b.checkpoint;
  };
  for_each_group(m.sweep, same, [&](const SweepColumn& point, auto same_point) {
    const SweepColumn *smallest = &point, *setups = nullptr;
    for (const SweepColumn& o : m.sweep) {
      if (!same_point(o))
        continue;
      if (o.footprint.total < smallest->footprint.total)
        smallest = &o;
      if (o.precision == own)
        setups = &o;
    }
    std::string line =
        batch_text(point.batch, point.micro_batches, say_micro_batches) + ", " + point.optimizer +
        (sweeps_checkpoint(m) ? ", Checkpoint<" + point.checkpoint + ">" : "") + ": ";
    if (smallest == setups)
      line += own + " (the setup's) is the smallest, " + human_bytes(smallest->footprint.total);
    else
      line += smallest->precision + " is the smallest, " + human_bytes(smallest->footprint.total);
    if (setups && smallest != setups)
      line += ", " + human_bytes(setups->footprint.total - smallest->footprint.total) +
              " less than " + own + " (the setup's)";
    // Where a precision costs more than the setup's (a working copy larger than what it halves).
    if (setups)
      for (const SweepColumn& o : m.sweep)
        if (same_point(o) && o.footprint.total > setups->footprint.total)
          line += "; " + o.precision + " costs " +
                  human_bytes(o.footprint.total - setups->footprint.total) + " more";
    lines.push_back(line);
  });
  lines.push_back(
      "Mixed and Pure precision are priced here to the byte; the generated CPU trainer trains "
      "Mixed<bf16> and Mixed<f16> (a setup names them as staticnet::detail::Mixed<...> until the "
      "CUDA trainer does too), and Pure<bf16> is priced only.");
  return lines;
}

std::vector<std::string> accumulation_lines(const ModelReport& m) {
  if (!sweeps_accumulation(m))
    return {};
  std::vector<std::string> lines;
  const std::int64_t own = m.model.plan.micro_batches;
  const bool precisions = sweeps_precision(m);
  // One line per (batch, optimizer, precision) swept at more than one K, in the sweep's order:
  // each other K against the setup's (else the first swept).
  auto same = [](const SweepColumn& a, const SweepColumn& b) {
    return a.batch == b.batch && a.optimizer == b.optimizer && a.precision == b.precision &&
           a.checkpoint == b.checkpoint;
  };
  auto describe = [](const SweepColumn& o, const SweepColumn& reference) {
    const std::int64_t a = o.footprint.total, b = reference.footprint.total;
    return "as " + micro_batch_text(o.batch, o.micro_batches) + ", " + human_bytes(a) + ", " +
           (a == b ? std::string("the same as")
                   : human_bytes(a < b ? b - a : a - b) + (a < b ? " less than" : " more than")) +
           " as " + micro_batch_text(reference.batch, reference.micro_batches);
  };
  compare_within_groups(
      m.sweep, same, [&](const SweepColumn& o) { return o.micro_batches == own; }, describe,
      [&](const SweepColumn& point, const SweepColumn& reference, const std::string& text) {
        lines.push_back("batch " + grouped_count(point.batch) + ", " + point.optimizer +
                        (precisions ? ", " + point.precision : "") +
                        (sweeps_checkpoint(m) ? ", Checkpoint<" + point.checkpoint + ">" : "") +
                        ": " + text + (reference.micro_batches == own ? " (the setup's)" : ""));
      });
  lines.push_back(
      "Accumulate<K> runs a step as K micro-batches of batch / K samples, one after another, "
      "adding up their gradients: the activations (what backward saves among them) are one "
      "micro-batch's, the inputs region holds the whole batch, and the weights, gradients and "
      "optimizer state do not change.");
  return lines;
}

std::vector<std::string> checkpoint_lines(const ModelReport& m) {
  if (!sweeps_checkpoint(m))
    return {};
  std::vector<std::string> lines;
  const std::string& own = m.model.plan.checkpoint;
  const bool precisions = sweeps_precision(m);
  const bool say_micro_batches = shows_micro_batches(m);
  // One line per (batch, optimizer, precision, micro-batches) swept under more than one policy,
  // in the sweep's order: each other policy against the setup's (else the first swept).
  auto same = [](const SweepColumn& a, const SweepColumn& b) {
    return a.batch == b.batch && a.optimizer == b.optimizer && a.precision == b.precision &&
           a.micro_batches == b.micro_batches;
  };
  auto describe = [](const SweepColumn& o, const SweepColumn& reference) {
    const std::int64_t a = o.footprint.total, b = reference.footprint.total;
    const std::int64_t flops = o.recompute_flops - reference.recompute_flops;
    return o.checkpoint + " " + human_bytes(a) + ", " +
           (a == b ? std::string("the same bytes")
                   : human_bytes(a < b ? b - a : a - b) + (a < b ? " less" : " more")) +
           ", " +
           (flops == 0 ? std::string("the same compute")
                       : std::to_string(percent_of(flops, o.step_flops)) +
                             (flops < 0 ? " % less" : " % more") + " compute");
  };
  compare_within_groups(
      m.sweep, same, [&](const SweepColumn& o) { return o.checkpoint == own; }, describe,
      [&](const SweepColumn& point, const SweepColumn& reference, const std::string& text) {
        lines.push_back(batch_text(point.batch, point.micro_batches, say_micro_batches) + ", " +
                        point.optimizer + (precisions ? ", " + point.precision : "") +
                        ", against " + reference.checkpoint +
                        (reference.checkpoint == own ? " (the setup's)" : "") + ": " + text);
      });
  lines.push_back(
      "Checkpoint<P> keeps each segment's input and what backward reads of its last layer, drops "
      "the rest and computes it again before the segment's backward: Every<K> makes segments of "
      "K units (a unit runs between two tensors every path crosses), Sqrt of about the square "
      "root of their number. The compute is the FLOPs recomputed against the step's forward and "
      "backward; where a model's peak is in a segment recomputed whole, checkpointing saves "
      "nothing.");
  return lines;
}

std::vector<std::string> not_applicable_lines(const ModelReport& m) {
  // Per reason and K, in the order swept, the batches left out (each once, whatever the optimizer
  // and precision).
  struct Group {
    std::string reason;
    std::int64_t k = 1;
    std::vector<std::int64_t> batches;
  };
  std::vector<Group> groups;
  std::vector<std::string> lines;
  for (const SweepPoint& p : m.model.not_applicable) {
    if (p.reason == "checkpoint_budget_too_small") {  // its own line: its own bytes
      lines.push_back("Not applicable, left out: batch " + grouped_count(p.batch) +
                      " under Auto (no cut set fits the budget; the least needs " +
                      exact_bytes(p.needs) + " (" + human_bytes(p.needs) + ")" +
                      ": checkpoint_budget_too_small).");
      continue;
    }
    auto it = std::ranges::find_if(
        groups, [&](const Group& g) { return g.reason == p.reason && g.k == p.micro_batches; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {p.reason, p.micro_batches, {}});
    if (std::ranges::find(it->batches, p.batch) == it->batches.end())
      it->batches.push_back(p.batch);
  }
  for (const auto& [reason, k, batches] : groups) {
    std::string list;
    for (std::size_t i = 0; i < batches.size(); ++i)
      list += (i == 0 ? "" : i + 1 == batches.size() ? " or " : ", ") + grouped_count(batches[i]);
    const std::string which =
        k > 1 ? grouped_count(k) + " micro-batches with batch " + list : "batch " + list;
    std::string why;
    if (reason == "micro_batches_do_not_divide")
      why = "Accumulate<" + std::to_string(k) + "> splits a batch into " + grouped_count(k) +
            " of equal size, but " + grouped_count(k) + " does not divide " +
            (batches.size() == 1 ? "it" : "them");
    else if (reason == "batch_norm_one_value_per_channel")
      why =
          std::string(k > 1 ? "micro-batches of one sample give" : "a batch of one sample gives") +
          " a BatchNorm one value per channel, which it cannot normalise: "
          "batch_norm_one_value_per_channel";
    else
      why = "the model does not plan there: staticnet explain says why";
    lines.push_back("Not applicable, left out: " + which + " (" + why + ").");
  }
  return lines;
}

// One row per point of the sweep, so that a sweep of many batches and optimizers grows down the
// page, not across it (8 batches × 2 optimizers as columns made a table 330 characters wide).
Table sweep_table(const ModelReport& m) {
  const bool precisions = sweeps_precision(m);
  const bool micro_batches = shows_micro_batches(m);
  std::vector<Align> align = {Align::right, Align::left};
  std::vector<std::string> head = {"batch", "optimizer"};
  if (precisions) {
    align.push_back(Align::left);
    head.push_back("precision");
  }
  if (micro_batches) {
    align.push_back(Align::left);
    head.push_back("micro-batches");
  }
  const bool checkpoints = shows_checkpoint(m);
  if (checkpoints) {
    align.push_back(Align::left);
    head.push_back("checkpoint");
  }
  std::vector<Category> shown_categories;
  for (Category cat : categories) {
    if (!shown(cat, m.model.plan.footprint))
      continue;
    shown_categories.push_back(cat);
    align.push_back(Align::right);
    head.push_back(label_of(cat));
  }
  align.push_back(Align::right);
  head.push_back("total");
  if (checkpoints) {
    align.push_back(Align::right);
    head.push_back("recomputed");
  }
  if (!m.checks.empty()) {
    align.push_back(Align::left);
    head.push_back("fits");
  }
  Table t(align);
  t.add(head);
  for (const SweepColumn& c : m.sweep) {
    std::vector<std::string> row = {grouped_count(c.batch), c.optimizer};
    if (precisions)
      row.push_back(c.precision);
    if (micro_batches)
      row.push_back(grouped_count(c.micro_batches) + " × " + grouped_count(c.micro_batch()));
    if (checkpoints)
      row.push_back(c.checkpoint);
    for (Category cat : shown_categories)
      row.push_back(human_bytes(c.footprint[cat]));
    row.push_back(human_bytes(c.footprint.total));
    if (checkpoints)
      row.push_back(c.recompute_flops > 0 ? grouped_count(c.recompute_flops) + " FLOPs" : "none");
    if (!m.checks.empty()) {
      std::string missed;
      for (std::size_t b = 0; b < m.checks.size(); ++b) {
        if (c.fits.at(b))
          continue;
        missed += (missed.empty() ? "NO: not " : ", not ") + m.checks[b].budget.name;
        const Budget& budget = m.checks[b].budget;
        if (budget.has_flash()) {  // which of its two budgets
          const bool sram = budget.required(c.footprint, c.precision) > budget.memory;
          const bool flash = budget.required_flash(c.footprint, c.precision) > budget.flash;
          missed += sram && flash ? " (SRAM, flash)" : sram ? " (SRAM)" : " (flash)";
        }
      }
      row.push_back(missed.empty() ? (m.checks.size() == 1 ? "yes" : "yes, every budget") : missed);
    }
    t.add(row);
  }
  return t;
}

Table sweep_max_batch_table(const ModelReport& m) {
  std::vector<Align> align = {Align::left};
  std::vector<std::string> head = {"largest batch that fits"};
  for (const BudgetCheck& c : m.checks) {
    align.push_back(Align::right);
    head.push_back(c.budget.name);
  }
  Table t(align);
  t.add(head);
  const bool micro_batches = shows_micro_batches(m);
  for (const SweepMaxBatch& s : m.sweep_max_batch) {
    std::vector<std::string> row = {
        "with " + s.optimizer + (sweeps_precision(m) ? ", " + s.precision : "") +
        (micro_batches ? ", " + grouped_count(s.micro_batches) +
                             (s.micro_batches == 1 ? " micro-batch" : " micro-batches")
                       : "") +
        (shows_checkpoint(m) ? ", Checkpoint<" + s.checkpoint + ">" : "")};
    for (std::int64_t b : s.by_budget)
      row.push_back(grouped_count(b));
    t.add(row);
  }
  return t;
}

}  // namespace staticnet::analyzer
