#include "clang_format.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace staticnet::codegen {
namespace {

// `text` quoted for /bin/sh: inside single quotes every character is literal but the quote
// itself, written as '\''.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Removes the scratch file however the formatting ends.
struct RemoveOnExit {
  std::filesystem::path path;
  ~RemoveOnExit() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

std::string clang_formatted(const std::string& text, const std::string& name,
                            const ClangFormat& format) {
  // The text goes through a temporary file of this process's own (not in the output directory,
  // where a killed run would leave it among the generated files): clang-format reads it from
  // stdin, and --assume-filename tells it the language (.cu, .h) from the real name.
  const RemoveOnExit input{std::filesystem::temp_directory_path() /
                           ("staticnet-" + std::to_string(::getpid()) + "-" + name)};
  {
    std::ofstream out(input.path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
      throw std::runtime_error("cannot write " + input.path.string());
  }
  const std::string command = shell_quoted(format.program.string()) +
                              " --style=file:" + shell_quoted(format.style.string()) +
                              " --assume-filename=" + shell_quoted(name) + " < " +
                              shell_quoted(input.path.string());
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    throw std::runtime_error("cannot run " + format.program.string() + " to format " + name);
  std::string formatted;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    formatted.append(buffer, n);
  const bool read_failed = std::ferror(pipe) != 0;
  const int status = ::pclose(pipe);
  if (read_failed || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(format.program.string() + " failed formatting " + name +
                             " (its message is above); configure with "
                             "-DSTATICNET_CLANG_FORMAT=OFF to write the files unformatted");
  if (formatted.empty() && !text.empty())
    throw std::runtime_error(format.program.string() + " wrote nothing for " + name);
  return formatted;
}

}  // namespace staticnet::codegen
