// The report as aligned text, for a terminal or a CI log.
#include <algorithm>
#include <string>

#include "sections.hpp"
#include "staticnet/analyzer/render.hpp"

namespace staticnet::analyzer {

namespace {

class Writer {
 public:
  explicit Writer(bool colour) : colour_(colour) {}
  void heading(const std::string& s) { line(style("1", s)); }
  void line(const std::string& s = "") { out_ += s + "\n"; }
  // A paragraph, wrapped at 100 columns.
  void paragraph(const std::string& s, std::size_t indent) {
    std::string current(indent, ' ');
    std::size_t start = 0;
    while (start < s.size()) {
      std::size_t end = s.find(' ', start);
      if (end == std::string::npos)
        end = s.size();
      const std::string word = s.substr(start, end - start);
      if (current.size() > indent && current.size() + 1 + word.size() > 100) {
        line(current);
        current = std::string(indent, ' ');
      }
      current += (current.size() > indent ? " " : "") + word;
      start = end + 1;
    }
    line(current);
  }
  void table(const Table& t, std::size_t indent, const char* header_style = "2") {
    const auto lines = t.text_lines(indent);
    for (std::size_t i = 0; i < lines.size(); ++i)
      line(i == 0 ? style(header_style, lines[i]) : lines[i]);
  }
  // Rows of a check table: a budget the model exceeds reads red.
  void check_table(const Table& t, const std::vector<bool>& row_fits) {
    const auto lines = t.text_lines(4);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i == 0)
        line(style("2", lines[i]));
      else
        line(row_fits.at(i - 1) ? lines[i] : style("31", lines[i]));
    }
  }
  std::string style(const char* code, const std::string& s) const {
    return colour_ ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
  std::string str() const { return out_; }

 private:
  bool colour_;
  std::string out_;
};

void render_model(Writer& w, const ModelReport& m) {
  const ModelDump& d = m.model;
  const PlanDump& p = d.plan;
  w.heading("== " + title(d));
  w.line("  " + setup_line(p));
  w.line("  " + shape_line(p));
  w.line();
  w.heading("  Layers");
  w.table(layer_table(m), 4);
  w.paragraph(flop_conventions(p), 4);
  w.line();
  w.heading("  " + footprint_heading(p));
  w.table(footprint_table(m), 4);
  w.line();
  w.heading("  Peak: " + peak_line(m));
  w.line("    " + arena_line(m));
  if (const std::string loop = loop_line(p); !loop.empty())
    w.paragraph(loop, 4);
  if (!m.alive_at_peak.empty()) {
    w.line("    Activation buffers alive then:");
    w.table(consumer_table(m, m.alive_at_peak), 6);
  }
  w.line();
  w.heading("  Largest buffers");
  w.table(consumer_table(m, m.top_consumers), 4);
  if (!m.checks.empty()) {
    w.line();
    w.heading("  Budgets (" + check_rule(m) + ")");
    std::vector<bool> row_fits;
    const Table checks = check_table(m, &row_fits);
    w.check_table(checks, row_fits);
    // A microcontroller's note, then its sums, a line each (unwrapped: a number stays whole).
    const std::vector<std::string> flash = flash_lines(m);
    for (std::size_t i = 0; i < flash.size(); ++i) {
      if (i == 0)
        w.paragraph(flash[i], 4);
      else
        w.line("    " + flash[i]);
    }
    for (const std::string& line : host_lines(m))
      w.paragraph(line, 4);
  }
  for (const FitMenu& menu : m.fit_menus) {
    w.line();
    w.heading("  " + fit_heading(menu));
    if (menu.options.empty())
      w.paragraph(nothing_fits_line(m, menu), 4);
    else
      w.table(fit_table(m, menu), 4);
  }
  if (has_sweep(m)) {
    w.line();
    w.heading("  What-if: the footprint by batch" +
              std::string(std::any_of(m.sweep.begin(), m.sweep.end(),
                                      [&](const SweepColumn& c) {
                                        return c.optimizer != m.model.plan.optimizer;
                                      })
                              ? " and optimizer"
                              : "") +
              (sweeps_precision(m) ? " and precision" : "") +
              (sweeps_accumulation(m) ? " and micro-batches" : "") +
              (sweeps_checkpoint(m) ? " and checkpointing" : ""));
    if (!m.sweep.empty())
      w.table(sweep_table(m), 4);
    for (const std::string& line : precision_lines(m))
      w.line("    " + line);
    for (const std::string& line : accumulation_lines(m))
      w.line("    " + line);
    for (const std::string& line : checkpoint_lines(m))
      w.line("    " + line);
    for (const std::string& line : not_applicable_lines(m))
      w.line("    " + line);
    if (!m.checks.empty()) {
      w.line();
      w.table(sweep_max_batch_table(m), 4);
    }
  }
}

}  // namespace

std::string render_text(const Report& report, bool colour) {
  Writer w(colour);
  for (std::size_t i = 0; i < report.models.size(); ++i) {
    if (i)
      w.line();
    render_model(w, report.models[i]);
  }
  return w.str();
}

}  // namespace staticnet::analyzer
