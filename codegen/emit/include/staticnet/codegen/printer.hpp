#pragma once
// Builds the text of an emitted file: named substitutions and indentation, the way protobuf's
// io::Printer does, so that templates of emitted C++ read like the C++ they emit (no doubled
// braces, no positional arguments).
//
//   Printer p;
//   p.emit({{"name", "forward_0_2"}, {"bytes", "8,388,608"}}, R"(
//     void $name$(std::byte* arena) {  // $bytes$ B
//     }
//   )");
//
// * $var$ is replaced by the variable's value; $$ is a literal $. A variable that is not given is
//   an emitter bug: emit throws std::logic_error naming it.
// * The text is re-indented: its common leading whitespace is removed (so a raw string can be
//   indented like the code around it), a first line that is empty is dropped, and every line
//   gets the printer's current indentation (indent() / outdent(), two spaces each).
// * A value with several lines keeps the indentation of the line it is substituted into.
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace staticnet::codegen {

class Printer {
 public:
  using Vars = std::map<std::string, std::string, std::less<>>;

  void emit(const Vars& vars, std::string_view text);
  void emit(std::string_view text) { emit(Vars{}, text); }
  // Appends one line (indented), without substitution.
  void line(std::string_view text);
  void blank() { out_ += '\n'; }

  void indent() { indent_ += 2; }
  void outdent();

  const std::string& text() const { return out_; }

 private:
  std::string out_;
  int indent_ = 0;
};

}  // namespace staticnet::codegen
