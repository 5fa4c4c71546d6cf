#pragma once
// The `staticnet` subcommands. Each registers its options on the app and leaves a runner that
// main() calls after parsing; the work itself is done by library functions that tests call
// directly (staticnet/runtime/data_check.hpp, checkpoint_show.hpp, progress.hpp).
#include <CLI/CLI.hpp>

#include <functional>

namespace staticnet::cli {

// Returns the process exit status: 0 on success. Exceptions propagate to main(), which prints
// them on stderr and exits 1.
using Runner = std::function<int()>;

// `staticnet data check [options] FILE...`
void add_data_commands(CLI::App& app, Runner& run);
// `staticnet checkpoint show FILE`
void add_checkpoint_commands(CLI::App& app, Runner& run);
// `staticnet analyze HEADER [options]` and `staticnet explain [LOG]`
void add_analyze_commands(CLI::App& app, Runner& run);

}  // namespace staticnet::cli
