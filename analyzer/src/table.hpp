#pragma once
// Aligned columns for the text and Markdown reports, and the text helpers the analyzer shares.
// Cells are plain text; colour is applied by the caller to whole lines, never inside a cell, so
// widths stay right.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace staticnet::analyzer {

enum class Align { left, right };

class Table {
 public:
  explicit Table(std::vector<Align> align) : align_(std::move(align)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Each row as one line, columns two spaces apart, the given indent in front; trailing spaces
  // trimmed. The first row is the header.
  std::vector<std::string> text_lines(std::size_t indent) const;
  // A GitHub-flavoured Markdown table (the first row is the header).
  std::string markdown() const;

 private:
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// "(128, 3, 32, 32)"; "128 × 8 × 8" with the separator given
std::string shape_text(const std::vector<std::int64_t>& dims);
std::string product_text(const std::vector<std::int64_t>& dims);
// 115343360 -> "115.3 M"; under 1000 the number itself
std::string si(std::int64_t n);
// "20.74 MiB"; "21,747,200 B"
std::string human_bytes(std::int64_t n);
std::string exact_bytes(std::int64_t n);
std::string grouped_count(std::int64_t n);
// s without the white space at either end
std::string trim(std::string_view s);

}  // namespace staticnet::analyzer
