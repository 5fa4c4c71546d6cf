#pragma once
// Small text helpers for emitted files: numbers as compilers like them (staticnet::grouped in
// <staticnet/print.hpp> writes them for readers), padding that
// counts characters rather than bytes (layer descriptions hold "→" and "×"), and comments
// wrapped to the width the rest of the project uses, and a search for an identifier.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace staticnet::codegen {

inline constexpr std::size_t line_width = 100;

// 8388608 -> "8'388'608" (a C++ literal with digit separators)
std::string literal(std::int64_t value);
// 0.001 -> "0.00100000005f": the float nearest `value`, written so that it reads back exactly.
std::string float_literal(double value);
// A C++ string literal of `text` (quotes and backslashes escaped): names written in CMake.
std::string string_literal(const std::string& text);
// Characters as a terminal shows them (UTF-8 code points).
std::size_t display_width(std::string_view text);
// `text` followed by spaces up to `width` display columns.
std::string pad(std::string_view text, std::size_t width);
// `text` as comment lines of at most line_width characters, each starting with `prefix`
// (e.g. "// " or "//   "), words kept whole; lines after the first start with `continuation`.
std::string wrap_comment(std::string_view text, std::string_view prefix,
                         std::string_view continuation);
// Whether `code` names `word` as a whole identifier ("k::ReLU" in "k::ReLU>" but not in
// "k::ReLUx" or "xk::ReLU").
bool names_word(std::string_view code, std::string_view word);
// The non-empty phrases as a sentence lists them: "a", "a and b", "a, b and c".
std::string phrase_list(const std::vector<std::string>& phrases);

}  // namespace staticnet::codegen
