#include "staticnet/codegen/text.hpp"

#include <cctype>
#include <cstdio>
#include <vector>

#include "staticnet/print.hpp"

namespace staticnet::codegen {

std::string literal(std::int64_t value) {
  std::string text = grouped(value);
  for (char& c : text)
    if (c == ',')
      c = '\'';
  return text;
}

std::string float_literal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9gf", static_cast<double>(static_cast<float>(value)));
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos)  // "1f" is no float literal: "1.0f"
    out.insert(out.size() - 1, ".0");
  return out;
}

std::string string_literal(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)  // not a UTF-8 continuation byte
      ++width;
  return width;
}

std::string pad(std::string_view text, std::size_t width) {
  std::string out(text);
  const std::size_t have = display_width(text);
  if (have < width)
    out.append(width - have, ' ');
  return out;
}

std::string wrap_comment(std::string_view text, std::string_view prefix,
                         std::string_view continuation) {
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && text[i] == ' ')
      ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ')
      ++j;
    if (j > i)
      words.push_back(text.substr(i, j - i));
    i = j;
  }
  std::string out, line(prefix);
  bool empty = true;
  for (std::string_view w : words) {
    if (!empty && display_width(line) + 1 + display_width(w) > line_width) {
      out += line + "\n";
      line = std::string(continuation);
      empty = true;
    }
    if (!empty)
      line += ' ';
    line += w;
    empty = false;
  }
  return out + line;
}

std::string phrase_list(const std::vector<std::string>& phrases) {
  std::vector<std::string> given;
  for (const std::string& p : phrases)
    if (!p.empty())
      given.push_back(p);
  std::string text;
  for (std::size_t i = 0; i < given.size(); ++i)
    text += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
  return text;
}

bool names_word(std::string_view code, std::string_view word) {
  const auto identifier_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t at = code.find(word); at != std::string_view::npos;
       at = code.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || !identifier_char(code[at - 1])) &&
        (end == code.size() || !identifier_char(code[end])))
      return true;
  }
  return false;
}

}  // namespace staticnet::codegen
