// `staticnet`: the memory analyzer and command-line tools over the runtime library. Exit status:
// 0 success, 1 a problem with the data or the checkpoint (the message on stderr names the file
// and where in it) or a model over a budget, 2 a usage error, 3 a header that does not compile
// (`analyze`).
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "staticnet/analyzer/analyze.hpp"
#include "staticnet/runtime/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"staticnet: memory reports of models, and inspection of data sets and checkpoints",
               "staticnet"};
  app.require_subcommand(1);
  staticnet::cli::Runner run;
  staticnet::cli::add_data_commands(app, run);
  staticnet::cli::add_checkpoint_commands(app, run);
  staticnet::cli::add_analyze_commands(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto report = [](const std::exception& e, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "staticnet: error: %s\n", e.what());
    return status;
  };
  try {
    return run ? run() : 2;
  } catch (const staticnet::analyzer::UsageError& e) {
    return report(e, 2);
  } catch (const staticnet::runtime::UsageError& e) {  // e.g. a data set of too many files
    return report(e, 2);
  } catch (const std::exception& e) {
    return report(e, 1);
  }
}
