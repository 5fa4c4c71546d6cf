// The report as GitHub-flavoured Markdown, for pull-request comments and job summaries.
#include <string>

#include "sections.hpp"
#include "staticnet/analyzer/render.hpp"

namespace staticnet::analyzer {

namespace {

void render_model(std::string& out, const ModelReport& m) {
  const ModelDump& d = m.model;
  const PlanDump& p = d.plan;
  out += "## " + title(d) + "\n\n";
  out += setup_line(p) + "  \n" + shape_line(p) + "\n\n";
  out += "### Layers\n\n" + layer_table(m).markdown() + "\n" + flop_conventions(p) + "\n\n";
  out += "### " + footprint_heading(p) + "\n\n" + footprint_table(m).markdown() + "\n";
  out += "### Peak\n\n" + peak_line(m) + ". " + arena_line(m);
  if (const std::string loop = loop_line(p); !loop.empty())
    out += " " + loop;
  out += "\n\n";
  if (!m.alive_at_peak.empty())
    out +=
        "Activation buffers alive then:\n\n" + consumer_table(m, m.alive_at_peak).markdown() + "\n";
  out += "### Largest buffers\n\n" + consumer_table(m, m.top_consumers).markdown() + "\n";
  if (!m.checks.empty()) {
    std::string rule = check_rule(m);
    rule[0] = 'R';  // "required = ..." begins a sentence here
    out += "### Budgets\n\n" + rule + ".\n\n" + check_table(m).markdown() + "\n";
    for (const std::string& line : flash_lines(m))
      out += line + "\n\n";
    for (const std::string& line : host_lines(m))
      out += line + "\n\n";
  }
  for (const FitMenu& menu : m.fit_menus) {
    out += "### " + fit_heading(menu) + "\n\n";
    out += menu.options.empty() ? nothing_fits_line(m, menu) + "\n\n"
                                : fit_table(m, menu).markdown() + "\n";
  }
  if (has_sweep(m)) {
    out += "### What-if\n\n";
    if (!m.sweep.empty())
      out += sweep_table(m).markdown() + "\n";
    for (const std::string& line : precision_lines(m))
      out += line + "\n\n";
    for (const std::string& line : accumulation_lines(m))
      out += line + "\n\n";
    for (const std::string& line : checkpoint_lines(m))
      out += line + "\n\n";
    for (const std::string& line : not_applicable_lines(m))
      out += line + "\n\n";
    if (!m.checks.empty())
      out += sweep_max_batch_table(m).markdown() + "\n";
  }
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "# staticnet memory report: `" + report.header + "`\n\n";
  for (const ModelReport& m : report.models)
    render_model(out, m);
  return out;
}

}  // namespace staticnet::analyzer
