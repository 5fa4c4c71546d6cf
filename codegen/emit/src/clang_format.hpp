// The generated files through clang-format, so that what a reviewer reads (samples/generated/)
// and what a user's build compiles is formatted as the project's own code is. The generator
// formats before it compares with the file on disk, so an unchanged file keeps its time stamp.
#pragma once

#include <filesystem>
#include <string>

namespace staticnet::codegen {

struct ClangFormat {
  std::filesystem::path program;  // a clang-format of version 14 or later (--style=file:PATH)
  std::filesystem::path style;    // the style file (cmake/generated.clang-format)
};

// `text`, a file that will be named `name`, as `format` writes it. Throws std::runtime_error
// naming the file and the program when clang-format cannot run or fails.
std::string clang_formatted(const std::string& text, const std::string& name,
                            const ClangFormat& format);

}  // namespace staticnet::codegen
