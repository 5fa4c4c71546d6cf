#include "table.hpp"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>

#include <staticnet/print.hpp>

namespace staticnet::analyzer {

namespace {
// Columns count code points, so that "×" and "→" take one column.
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}
}  // namespace

std::vector<std::string> Table::text_lines(std::size_t indent) const {
  std::vector<std::size_t> width(align_.size(), 0);
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  std::vector<std::string> lines;
  for (const auto& row : rows_) {
    std::string line(indent, ' ');
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      const std::string pad(width[c] - display_width(row[c]), ' ');
      if (c)
        line += "  ";
      line += align_[c] == Align::right ? pad + row[c] : row[c] + pad;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string Table::markdown() const {
  std::string out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    out += "|";
    for (const std::string& cell : rows_[r])
      out += " " + cell + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < rows_[r].size(); ++c)
        out += align_.at(c) == Align::right ? "---:|" : "---|";
      out += "\n";
    }
  }
  return out;
}

std::string shape_text(const std::vector<std::int64_t>& dims) {
  Shape shape;  // print.hpp's printer, so that shapes read the same in every tool
  shape.rank = static_cast<int>(std::min<std::size_t>(dims.size(), max_rank));
  std::copy_n(dims.begin(), shape.rank, shape.dims);
  return staticnet::to_string(shape);
}

std::string product_text(const std::vector<std::int64_t>& dims) {
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? " × " : "") + std::to_string(dims[i]);
  return out;
}

std::string si(std::int64_t n) {
  if (n < 1000 && n > -1000)
    return std::to_string(n);
  const char* units[] = {"k", "M", "G", "T", "P"};
  double scaled = static_cast<double>(n) / 1000.0;
  int unit = 0;
  while (unit < 4 && (scaled >= 1000.0 || scaled <= -1000.0)) {
    scaled /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", scaled, units[unit]);
  return text;
}

std::string human_bytes(std::int64_t n) {
  return staticnet::human(Bytes{n});
}

std::string exact_bytes(std::int64_t n) {
  return staticnet::grouped(n) + " B";
}

std::string grouped_count(std::int64_t n) {
  return staticnet::grouped(n);
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

}  // namespace staticnet::analyzer
