// Memory over the training step as SVG: at each step of the schedule, the bytes in use stacked
// by category (weights at the bottom, activations on top), each budget as a dashed line, the
// peak marked. One chart per model, stacked vertically. Like tflite-micro's PrintMemoryPlan in
// picture form; the text report opens the file as a comment, as CuTe's print_svg does.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "staticnet/analyzer/render.hpp"
#include "table.hpp"

namespace staticnet::analyzer {

namespace {

constexpr double width = 1000;
constexpr double chart_height = 560;
constexpr double left = 96, right = 230, top = 64, bottom = 150;  // margins of the plot area
constexpr double plot_w = width - left - right;
constexpr double plot_h = chart_height - top - bottom;

// Colour-blind-safe (Tableau 10), in category order.
constexpr std::array<const char*, categories.size()> colours = {
    "#4e79a7", "#b07aa1", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948"};

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// A round tick spacing in bytes: 1, 2 or 5 times a power of ten of the unit that suits `top`.
struct Axis {
  double max = 1;
  double tick = 1;
};
Axis axis_for(double highest) {
  const double unit = highest >= std::pow(1024.0, 3) ? std::pow(1024.0, 3)
                      : highest >= 1024.0 * 1024     ? 1024.0 * 1024
                      : highest >= 1024.0            ? 1024.0
                                                     : 1.0;
  const double raw = highest / unit / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw > 0 ? raw : 1)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  Axis a;
  a.tick = step * unit;
  a.max = std::ceil(highest / a.tick) * a.tick;
  if (a.max <= 0)
    a.max = a.tick;
  return a;
}

std::string tick_label(double bytes) {
  if (bytes == 0)
    return "0";
  return human_bytes(static_cast<std::int64_t>(std::llround(bytes)));
}

void chart(std::string& out, const ModelReport& m, double y0) {
  const PlanDump& p = m.model.plan;
  const auto steps = static_cast<double>(m.timeline.size());
  // Budgets far above the peak would flatten the bars: draw those within 1.5x of the peak, and
  // list the others in the legend. The bars stack every byte of the plan; on a microcontroller an
  // Int8 plan's weights are in flash, so its SRAM's line is drawn that much higher: a bar under
  // it fits the SRAM.
  auto line_bytes = [](const BudgetCheck& c) {
    return static_cast<double>(c.budget.available() + c.in_flash);
  };
  double highest = static_cast<double>(m.peak_bytes);
  for (const BudgetCheck& c : m.checks)
    if (line_bytes(c) <= 1.5 * m.peak_bytes)
      highest = std::max(highest, line_bytes(c));
  const Axis axis = axis_for(highest * 1.05);
  auto y_of = [&](double bytes) { return y0 + top + plot_h * (1 - bytes / axis.max); };
  const double bar = plot_w / steps;

  out += "<g>\n";
  out += "<text x=\"" + num(left) + "\" y=\"" + num(y0 + 26) +
         "\" font-size=\"17\" font-weight=\"bold\">" + escape(title(m.model)) + "</text>\n";
  out += "<text x=\"" + num(left) + "\" y=\"" + num(y0 + 46) +
         "\" font-size=\"13\" fill=\"#444\">" +
         escape("bytes in use at each step of one " +
                std::string(p.training() ? "training step" : "forward pass") + ", batch " +
                grouped_count(p.batch) +
                (p.micro_batches > 1 ? " as " + grouped_count(p.micro_batches) +
                                           " micro-batches of " + grouped_count(p.micro_batch())
                                     : "") +
                (p.training() ? ", " + p.optimizer : "") + "; arena " +
                human_bytes(p.footprint.total)) +
         "</text>\n";

  // Grid and y axis.
  for (double v = 0; v <= axis.max + axis.tick / 2; v += axis.tick) {
    const double y = y_of(v);
    out += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) +
           "\" y2=\"" + num(y) + "\" stroke=\"#ddd\"/>\n";
    out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) +
           "\" font-size=\"11\" text-anchor=\"end\">" + tick_label(v) + "</text>\n";
  }

  // The bars.
  for (const StepUsage& s : m.timeline) {
    double base = 0;
    const double x = left + bar * static_cast<double>(s.index) + bar * 0.1;
    for (Category c : categories) {
      const double bytes = static_cast<double>(s.bytes[c]);
      if (bytes <= 0)
        continue;
      out += "<rect x=\"" + num(x) + "\" y=\"" + num(y_of(base + bytes)) + "\" width=\"" +
             num(bar * 0.8) + "\" height=\"" + num(y_of(base) - y_of(base + bytes)) + "\" fill=\"" +
             colours[static_cast<int>(c)] + "\"><title>" +
             escape(s.name + ": " + label_of(c) + " " + human_bytes(s.bytes[c])) +
             "</title></rect>\n";
      base += bytes;
    }
  }
  out += "<line x1=\"" + num(left) + "\" y1=\"" + num(y_of(0)) + "\" x2=\"" + num(left + plot_w) +
         "\" y2=\"" + num(y_of(0)) + "\" stroke=\"#000\"/>\n";

  // Step names along the axis: every step when they fit, else every k-th and the peak.
  const auto every = static_cast<std::int64_t>(std::ceil(steps / 48));
  for (const StepUsage& s : m.timeline) {
    if (s.index % every != 0 && s.index != m.peak_step)
      continue;
    const double x = left + bar * (static_cast<double>(s.index) + 0.5);
    const double y = y_of(0) + 10;
    out += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"11\" text-anchor=\"end\"" +
           " transform=\"rotate(-60 " + num(x) + " " + num(y) + ")\"" +
           (s.index == m.peak_step ? " font-weight=\"bold\"" : "") + ">" + escape(s.label) +
           "</text>\n";
  }

  // Accumulate<K>: a bracket under the step names over the loop body (every step but the
  // update), which runs once per micro-batch; the chart shows one iteration.
  if (p.micro_batches > 1) {
    std::int64_t body = 0;
    while (body < static_cast<std::int64_t>(m.timeline.size()) && p.runs_per_step(body) > 1)
      ++body;
    if (body > 0) {
      const double x1 = left + bar * 0.1;
      const double x2 = left + bar * (static_cast<double>(body) - 0.1);
      const double y = y0 + chart_height - 24;
      out += "<path d=\"M" + num(x1) + " " + num(y - 6) + " v6 H" + num(x2) + " v-6\"" +
             " fill=\"none\" stroke=\"#444\" stroke-width=\"1.2\"/>\n";
      out += "<text x=\"" + num((x1 + x2) / 2) + "\" y=\"" + num(y + 15) +
             "\" font-size=\"12\" fill=\"#444\" text-anchor=\"middle\">" +
             escape("× " + grouped_count(p.micro_batches) + ": steps 0–" +
                    std::to_string(body - 1) + " run once per micro-batch of " +
                    grouped_count(p.micro_batch()) + "; the update once") +
             "</text>\n";
    }
  }

  // The peak.
  {
    const double x = left + bar * (static_cast<double>(m.peak_step) + 0.5);
    const double y = y_of(static_cast<double>(m.peak_bytes));
    out += "<path d=\"M" + num(x) + " " + num(y - 3) + " l-6 -10 h12 z\" fill=\"#000\"/>\n";
    const bool near_right = x > left + plot_w * 0.6;
    out += "<text x=\"" + num(x + (near_right ? -10 : 10)) + "\" y=\"" + num(y - 8) +
           "\" font-size=\"12\" font-weight=\"bold\"" + (near_right ? " text-anchor=\"end\"" : "") +
           ">" +
           escape("peak " + human_bytes(m.peak_bytes) + " at " + m.timeline[m.peak_step].name) +
           "</text>\n";
  }

  // Budgets, as the bytes left to the model after the device's runtime overhead.
  double legend_y = y0 + top + 6;
  const double legend_x = left + plot_w + 24;
  for (Category c : categories) {
    if (!shown(c, p.footprint))
      continue;
    out += "<rect x=\"" + num(legend_x) + "\" y=\"" + num(legend_y - 10) +
           "\" width=\"12\" height=\"12\" fill=\"" + colours[static_cast<int>(c)] + "\"/>\n";
    out += "<text x=\"" + num(legend_x + 18) + "\" y=\"" + num(legend_y) + "\" font-size=\"12\">" +
           escape(std::string(label_of(c)) + " " + human_bytes(p.footprint[c])) + "</text>\n";
    legend_y += 20;
  }
  legend_y += 10;
  for (const BudgetCheck& c : m.checks) {
    const double available = line_bytes(c);
    // "Jetson Nano 4GB: 2.50 GiB after overhead"; a plain budget is its own label; a
    // microcontroller's line is its SRAM's ("nRF52840 SRAM: 240.00 KiB after overhead").
    const std::string name = c.budget.name + (c.budget.has_flash() ? " SRAM" : "");
    const std::string after = human_bytes(c.budget.available()) +
                              (c.budget.overhead ? " after overhead" : "") +
                              (c.in_flash > 0 ? " + the weights in flash" : "");
    const std::string label = c.budget.overhead ? name + ": " + after : name;
    if (available <= axis.max) {
      const double y = y_of(available);
      out += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) +
             "\" y2=\"" + num(y) + "\" stroke=\"#c00\" stroke-width=\"1.5\" " +
             "stroke-dasharray=\"6 4\"/>\n";
      out += "<text x=\"" + num(left + plot_w - 4) + "\" y=\"" + num(y - 5) +
             "\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">" + escape(label) + "</text>\n";
    }
    // Off the chart: named in the legend, on lines short enough for its column; a
    // microcontroller's flash is named there too.
    std::vector<std::string> lines;
    if (available > axis.max)
      lines = {name,
               human_bytes(c.budget.available()) + (c.budget.overhead ? " after overhead" : ""),
               "(far above; not drawn)"};
    if (c.budget.has_flash()) {
      if (lines.empty())
        lines.push_back(c.budget.name);
      lines.push_back("flash: " + human_bytes(c.flash_required) + " of " +
                      human_bytes(c.budget.flash) + (c.fits_flash ? "" : ", over"));
    }
    for (const std::string& text : lines) {
      out += "<text x=\"" + num(legend_x) + "\" y=\"" + num(legend_y) +
             "\" font-size=\"11\" fill=\"#c00\">" + escape(text) + "</text>\n";
      legend_y += 14;
    }
    if (!lines.empty())
      legend_y += 8;
  }
  out += "</g>\n";
}

}  // namespace

std::string render_svg(const Report& report) {
  std::string text = render_text(report, false);
  // "--" may not appear inside an XML comment.
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at))
    text.replace(at, 2, "- -");
  const double height =
      chart_height * static_cast<double>(std::max<std::size_t>(1, report.models.size()));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!--\n" + text + "-->\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  for (std::size_t i = 0; i < report.models.size(); ++i)
    chart(out, report.models[i], chart_height * static_cast<double>(i));
  out += "</svg>\n";
  return out;
}

}  // namespace staticnet::analyzer
