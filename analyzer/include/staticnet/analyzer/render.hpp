#pragma once
// The report's four forms. Each renders the whole Report; none computes a number of its own
// beyond sums and percentages of what the report holds.
#include <string>
#include <vector>

#include "staticnet/analyzer/explain.hpp"
#include "staticnet/analyzer/report.hpp"

namespace staticnet::analyzer {

enum class Format { text, json, markdown, svg };

// The version of the JSON report's layout; its JSON Schema is analyzer/schema/report-1.json,
// installed as share/staticnet/report-1.schema.json. A new field keeps the version; a renamed,
// removed or retyped one changes it.
inline constexpr int report_schema_version = 1;

// Aligned columns, sizes in binary units with exact bytes beside the totals. `colour` adds ANSI
// colour (bold headings; red for a budget a model exceeds).
std::string render_text(const Report& report, bool colour);
std::string render_markdown(const Report& report);
// Every JSON document says how the run ended, in `status` and `exit_status` (ok 0, over_budget 1,
// error 1, usage_error 2, does_not_compile 3), and lists the reasons in `errors`, so that a CI job
// that parses the report learns why it failed without reading stderr.
std::string render_json(const Report& report);
// A header that did not compile: no models; each staticnet error decoded, with the user's line
// and the layer, and the compiler's own output.
std::string render_json_does_not_compile(const std::string& header,
                                         const std::vector<Explanation>& explanations,
                                         const std::string& compiler_output);
// A command line that asks for something that cannot be (exit status 2).
std::string render_json_usage_error(const std::string& header, const std::string& message);
// Anything else that stopped the run (a probe that would not start or crashed, a cache that
// cannot be written): exit status 1, as for a model over budget; `status` tells them apart.
std::string render_json_error(const std::string& header, const std::string& message);
// Memory over the training step, stacked by category, one chart per model, the budgets as
// lines and the peak marked. The text report opens the document as a comment.
std::string render_svg(const Report& report);

std::string render(const Report& report, Format format, bool colour);

}  // namespace staticnet::analyzer
