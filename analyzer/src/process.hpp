#pragma once
// Runs a program and collects what it prints, without a shell (paths with spaces stay whole).
#include <string>
#include <vector>

namespace staticnet::analyzer {

struct ProcessResult {
  int exit_status = -1;  // the program's, or 128 + the signal that ended it
  std::string out;       // stdout
  std::string err;       // stderr
};

// Throws std::runtime_error when the program cannot be started (not found, not executable).
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace staticnet::analyzer
