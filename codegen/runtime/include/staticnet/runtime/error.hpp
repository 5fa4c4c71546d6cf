#pragma once
// The one error type every runtime parser throws. A message always names the file, where in it
// (byte offset, or line and column for text), what was expected and what was found, so that a
// user can act on it without a debugger.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace staticnet::runtime {

struct Location {
  std::string file;                          // path as the user gave it
  std::optional<std::uint64_t> byte_offset;  // binary formats
  std::optional<std::uint64_t> line;         // text formats, 1-based
  std::optional<std::uint64_t> column;       // text formats, 1-based
};

// "data/train.idx: byte 4: expected 1 to 4 dimensions, found 9"
class FormatError : public std::runtime_error {
 public:
  FormatError(Location where, std::string expected, std::string found)
      : std::runtime_error(render(where, expected, found)),
        where_(std::move(where)),
        expected_(std::move(expected)),
        found_(std::move(found)) {}

  const Location& where() const noexcept { return where_; }
  const std::string& expected() const noexcept { return expected_; }
  const std::string& found() const noexcept { return found_; }

 private:
  static std::string render(const Location& w, const std::string& expected,
                            const std::string& found) {
    std::string text = w.file;
    if (w.byte_offset)
      text += ": byte " + std::to_string(*w.byte_offset);
    if (w.line) {
      text += ": line " + std::to_string(*w.line);
      if (w.column)
        text += ", column " + std::to_string(*w.column);
    }
    text += ": expected " + expected + ", found " + found;
    return text;
  }

  Location where_;
  std::string expected_;
  std::string found_;
};

// An operating-system failure (open, mmap, write, fsync, rename) with the path and errno text.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command-line option that cannot apply to what it came with (--label-column on IDX data,
// --mean with more values than the input has channels): the programs exit with status 2, as for
// an option the parser refuses, where bad data or a bad checkpoint exits with 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace staticnet::runtime
