#include "staticnet/codegen/printer.hpp"

#include <stdexcept>
#include <vector>

namespace staticnet::codegen {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

void Printer::outdent() {
  if (indent_ < 2)
    throw std::logic_error("Printer: outdent() without a matching indent()");
  indent_ -= 2;
}

void Printer::line(std::string_view text) {
  if (!text.empty())
    out_.append(static_cast<std::size_t>(indent_), ' ');
  out_ += text;
  out_ += '\n';
}

void Printer::emit(const Vars& vars, std::string_view text) {
  std::vector<std::string_view> lines = split_lines(text);
  if (!lines.empty() && is_blank(lines.front()))
    lines.erase(lines.begin());
  // A raw string ends with the closing line's indentation: drop that last, blank line.
  if (!lines.empty() && is_blank(lines.back()))
    lines.pop_back();
  std::size_t common = std::string_view::npos;
  for (std::string_view l : lines)
    if (!is_blank(l))
      common = std::min(common, l.find_first_not_of(' '));
  if (common == std::string_view::npos)
    common = 0;

  for (std::string_view raw : lines) {
    if (is_blank(raw)) {
      out_ += '\n';
      continue;
    }
    const std::string_view body = raw.substr(common);
    // Substitute, then indent each resulting line (a multi-line value continues at the column of
    // the line it was substituted into).
    std::string expanded;
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (body[i] != '$') {
        expanded += body[i];
        continue;
      }
      const std::size_t close = body.find('$', i + 1);
      if (close == std::string_view::npos)
        throw std::logic_error("Printer: unmatched $ in \"" + std::string(body) + "\"");
      const std::string_view name = body.substr(i + 1, close - i - 1);
      if (name.empty()) {
        expanded += '$';
      } else {
        const auto it = vars.find(name);
        if (it == vars.end())
          throw std::logic_error("Printer: no value for $" + std::string(name) + "$");
        expanded += it->second;
      }
      i = close;
    }
    const std::size_t lead = body.find_first_not_of(' ');
    const std::string continuation(static_cast<std::size_t>(indent_) + lead, ' ');
    std::size_t start = 0;
    bool first = true;
    for (;;) {
      const std::size_t end = expanded.find('\n', start);
      const std::string_view piece = std::string_view(expanded).substr(
          start, end == std::string::npos ? std::string::npos : end - start);
      if (!piece.empty()) {
        if (first)
          out_.append(static_cast<std::size_t>(indent_), ' ');
        else
          out_ += continuation;
      }
      out_ += piece;
      out_ += '\n';
      first = false;
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
}

}  // namespace staticnet::codegen
