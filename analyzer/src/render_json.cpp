// The report as JSON, laid out as analyzer/schema/report-1.json says.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "staticnet/analyzer/render.hpp"

namespace staticnet::analyzer {

namespace {

using nlohmann::ordered_json;

ordered_json footprint_json(const FootprintBytes& f) {
  ordered_json j;
  for (Category c : categories)
    j[name_of(c)] = f[c];
  j["total"] = f.total;
  return j;
}

ordered_json consumer_json(const Consumer& c) {
  return {{"buffer", c.what},
          {"category", c.category},
          {"bytes", c.bytes},
          {"first_step", c.first_step},
          {"last_step", c.last_step}};
}

ordered_json model_json(const ModelReport& m) {
  const ModelDump& d = m.model;
  const PlanDump& p = d.plan;
  ordered_json j;
  j["name"] = d.name;
  j["model"] = d.model;
  j["setup"] = d.setup;
  j["mode"] = p.mode;
  j["batch"] = p.batch;
  // Accumulate<K>: K micro-batches of micro_batch samples; the timeline's steps before the update
  // run once per micro-batch (1 without Accumulate: the whole batch at once).
  j["micro_batches"] = p.micro_batches;
  j["micro_batch"] = p.micro_batch();
  j["checkpoint"] = p.checkpoint;  // Checkpoint<P>'s P: "None", "Sqrt" or "Every<K>"
  j["optimizer"] = p.training() ? ordered_json(p.optimizer) : ordered_json(nullptr);
  j["loss"] = p.training() ? ordered_json(p.loss) : ordered_json(nullptr);
  j["precision"] = p.precision;
  j["prefetch"] = p.prefetch;
  j["input_dtype"] = p.input_dtype;
  j["input_shape"] = p.input_shape;
  j["output_shape"] = p.output_shape;
  j["parameter_count"] = p.parameter_count;
  j["non_trainable_count"] = p.non_trainable_count;
  ordered_json layers = ordered_json::array();
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const LayerRow& l = p.layers[i];
    layers.push_back({{"index", i},
                      {"kind", l.kind},
                      {"inputs", l.inputs},
                      {"padding", l.padding},
                      {"padding_end", l.padding_end},
                      {"input_shape", l.input_shape},
                      {"output_shape", l.output_shape},
                      {"parameters", l.parameters},
                      {"non_trainable", l.non_trainable},
                      {"saved_bytes", l.saved_bytes},
                      {"forward_flops", l.forward_flops},
                      {"backward_flops", l.backward_flops},
                      {"workspace_bytes", l.workspace_bytes},
                      {"in_place", l.in_place},
                      {"folded", l.folded},
                      {"pass", {{"cpu", l.pass_cpu}, {"cuda", l.pass_cuda}}}});
    if (m.total_recompute_flops > 0)  // checkpointing: each layer's, 0 where not recomputed
      layers.back()["recompute_flops"] = l.recompute_flops;
  }
  j["layers"] = layers;
  j["layer_totals"] = {{"parameters", p.parameter_count},
                       {"non_trainable", p.non_trainable_count},
                       {"saved_bytes", m.total_saved_bytes},
                       {"forward_flops", m.total_forward_flops},
                       {"backward_flops", m.total_backward_flops}};
  if (m.total_recompute_flops > 0)
    j["layer_totals"]["recompute_flops"] = m.total_recompute_flops;
  j["footprint"] = footprint_json(p.footprint);
  if (p.mode == "training")
    j["host"] = {{"batch_slots", p.host.batch_slots},
                 {"pinned_staging", p.host.pinned_staging},
                 {"checkpoint_state", p.host.checkpoint_state},
                 {"total", p.host.total}};
  ordered_json alive = ordered_json::array();
  for (const Consumer& c : m.alive_at_peak)
    alive.push_back(consumer_json(c));
  j["peak"] = {{"step", m.peak_step},
               {"step_name", m.timeline.at(m.peak_step).name},
               {"bytes", m.peak_bytes},
               {"alive_activations", alive}};
  ordered_json top = ordered_json::array();
  for (const Consumer& c : m.top_consumers)
    top.push_back(consumer_json(c));
  j["top_consumers"] = top;
  ordered_json timeline = ordered_json::array();
  for (const StepUsage& s : m.timeline)
    timeline.push_back({{"step", s.index}, {"name", s.name}, {"bytes", footprint_json(s.bytes)}});
  j["timeline"] = timeline;
  ordered_json checks = ordered_json::array();
  for (const BudgetCheck& c : m.checks) {
    ordered_json check = {{"id", c.budget.id},
                          {"name", c.budget.name},
                          {"memory", c.budget.memory},
                          {"overhead", c.budget.overhead},
                          {"required", c.required},
                          {"margin", c.margin},
                          {"fits", c.fits},
                          {"max_batch", c.max_batch}};
    if (c.budget.has_flash()) {  // a microcontroller: its flash too, and each budget's verdict
      check["flash"] = c.budget.flash;
      check["flash_overhead"] = c.budget.flash_overhead;
      check["in_flash"] = c.in_flash;
      check["flash_required"] = c.flash_required;
      check["flash_margin"] = c.flash_margin;
      check["fits_sram"] = c.fits_memory;
      check["fits_flash"] = c.fits_flash;
    }
    if (c.budget.shares_host_memory)
      check["host"] = c.host;
    checks.push_back(std::move(check));
  }
  j["budgets"] = checks;
  ordered_json points = ordered_json::array();
  for (const SweepColumn& c : m.sweep)
    points.push_back({{"batch", c.batch},
                      {"optimizer", c.optimizer},
                      {"precision", c.precision},
                      {"micro_batches", c.micro_batches},
                      {"checkpoint", c.checkpoint},
                      {"step_flops", c.step_flops},
                      {"recompute_flops", c.recompute_flops},
                      {"footprint", footprint_json(c.footprint)},
                      {"fits", c.fits}});
  ordered_json max_batch = ordered_json::array();
  for (const SweepMaxBatch& s : m.sweep_max_batch)
    max_batch.push_back({{"optimizer", s.optimizer},
                         {"precision", s.precision},
                         {"micro_batches", s.micro_batches},
                         {"checkpoint", s.checkpoint},
                         {"by_budget", s.by_budget}});
  // Points the sweep asked for that do not plan: K micro-batches that do not divide the batch, or
  // a BatchNorm given one sample.
  ordered_json not_applicable = ordered_json::array();
  for (const SweepPoint& point : d.not_applicable) {
    not_applicable.push_back({{"batch", point.batch},
                              {"optimizer", point.optimizer},
                              {"precision", point.precision},
                              {"micro_batches", point.micro_batches},
                              {"checkpoint", point.checkpoint},
                              {"reason", point.reason}});
    if (point.needs > 0)
      not_applicable.back()["needs"] = point.needs;
  }
  j["sweep"] = {{"points", points}, {"max_batch", max_batch}, {"not_applicable", not_applicable}};
  // --fit: per budget, the setups that fit, cheapest first (empty: nothing fits). Only when asked,
  // so that reports without it keep their shape.
  if (!m.fit_menus.empty()) {
    ordered_json fit = ordered_json::array();
    for (const FitMenu& menu : m.fit_menus) {
      ordered_json options = ordered_json::array();
      for (const FitOption& o : menu.options)
        options.push_back({{"remedy", o.remedy},
                           {"batch", o.batch},
                           {"micro_batches", o.micro_batches},
                           {"checkpoint", o.checkpoint},
                           {"required", o.required},
                           {"margin", menu.budget.memory - o.required},
                           {"step_flops", o.step_flops},
                           {"recompute_flops", o.recompute_flops}});
      fit.push_back({{"id", menu.budget.id},
                     {"name", menu.budget.name},
                     {"memory", menu.budget.memory},
                     {"overhead", menu.budget.overhead},
                     {"shares_host_memory", menu.budget.shares_host_memory},
                     {"options", options}});
    }
    j["fit"] = fit;
  }
  return j;
}

// "src/net.hpp:12:31" -> {"file": "src/net.hpp", "line": 12, "column": 31}; null when empty.
ordered_json location_json(const std::string& where) {
  if (where.empty())
    return nullptr;
  ordered_json j;
  std::string rest = where;
  std::vector<std::int64_t> numbers;  // the column, then the line, read from the end
  while (numbers.size() < 2) {
    const auto colon = rest.rfind(':');
    const std::string tail = colon == std::string::npos ? "" : rest.substr(colon + 1);
    if (tail.empty() || tail.find_first_not_of("0123456789") != std::string::npos)
      break;
    numbers.push_back(std::stoll(tail));
    rest.resize(colon);
  }
  j["file"] = rest;
  j["line"] = numbers.empty() ? ordered_json(nullptr) : ordered_json(numbers.back());
  j["column"] = numbers.size() == 2 ? ordered_json(numbers.front()) : ordered_json(nullptr);
  return j;
}

ordered_json error_json(const std::string& error, const std::string& message,
                        const std::string& where, const Explanation* e) {
  ordered_json j;
  j["error"] = error;
  j["message"] = message;
  j["location"] = location_json(where);
  if (e != nullptr && e->layer >= 0)
    j["layer"] = {{"index", e->layer},
                  {"kind", e->kind},
                  {"place", e->place.empty() ? ordered_json(nullptr) : ordered_json(e->place)}};
  else
    j["layer"] = nullptr;
  return j;
}

// The document as text. A compiler echoes the user's source, which need not be UTF-8 (a Latin-1
// comment): such bytes become U+FFFD rather than costing the whole document.
std::string text_of(const ordered_json& j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

// The fields every document has, whatever became of the header.
ordered_json document(const std::string& header, const char* status, int exit_status) {
  ordered_json j;
  j["schema"] = "staticnet-report";
  j["schema_version"] = report_schema_version;
  j["header"] = header;
  j["status"] = status;
  j["exit_status"] = exit_status;
  j["units"] = {{"bytes", "B (exact counts; each buffer rounded up to 256 B)"},
                {"flops", "FLOP; a multiply-add counts 2"}};
  return j;
}

}  // namespace

std::string render_json(const Report& report) {
  ordered_json errors = ordered_json::array();
  for (const ModelReport& m : report.models)
    for (const std::string& sentence : over_budget_sentences(m))
      errors.push_back(error_json("over_budget", sentence, "", nullptr));
  ordered_json j =
      errors.empty() ? document(report.header, "ok", 0) : document(report.header, "over_budget", 1);
  j["errors"] = errors;
  ordered_json models = ordered_json::array();
  for (const ModelReport& m : report.models)
    models.push_back(model_json(m));
  j["models"] = models;
  return text_of(j);
}

std::string render_json_does_not_compile(const std::string& header,
                                         const std::vector<Explanation>& explanations,
                                         const std::string& compiler_output) {
  ordered_json j = document(header, "does_not_compile", 3);
  ordered_json errors = ordered_json::array();
  for (const Explanation& e : explanations)
    errors.push_back(error_json(e.error, e.sentence, e.where, &e));
  j["errors"] = errors;
  j["compiler_output"] = compiler_output;
  j["models"] = ordered_json::array();
  return text_of(j);
}

std::string render_json_usage_error(const std::string& header, const std::string& message) {
  ordered_json j = document(header, "usage_error", 2);
  j["errors"] = ordered_json::array({error_json("usage_error", message, "", nullptr)});
  j["models"] = ordered_json::array();
  return text_of(j);
}

std::string render_json_error(const std::string& header, const std::string& message) {
  ordered_json j = document(header, "error", 1);
  j["errors"] = ordered_json::array({error_json("error", message, "", nullptr)});
  j["models"] = ordered_json::array();
  return text_of(j);
}

std::string render(const Report& report, Format format, bool colour) {
  switch (format) {
    case Format::text:
      return render_text(report, colour);
    case Format::json:
      return render_json(report);
    case Format::markdown:
      return render_markdown(report);
    case Format::svg:
      return render_svg(report);
  }
  return {};
}

}  // namespace staticnet::analyzer
