// `staticnet analyze`: the memory report of the models in a header, and `staticnet explain`:
// staticnet's compile errors in a build log, one sentence each. The work is in the analyzer
// library (staticnet/analyzer/analyze.hpp, render.hpp, explain.hpp).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <staticnet/device.hpp>
#include <staticnet/print.hpp>

#include "commands.hpp"
#include "staticnet/analyzer/analyze.hpp"
#include "staticnet/analyzer/explain.hpp"
#include "staticnet/analyzer/render.hpp"

namespace staticnet::cli {

namespace {

namespace an = staticnet::analyzer;

struct AnalyzeArgs {
  an::AnalyzeOptions options;
  std::string header;
  std::vector<std::string> includes;
  std::vector<std::string> budgets;
  std::vector<std::int64_t> batches;
  std::string format = "text";
  std::string colour = "auto";
  std::string output;
  std::string depfile;
  bool print = false;
  bool list_devices = false;
  bool verbose = false;
};

void list_devices() {
  std::cout << "device profiles (include/staticnet/device.hpp); a model may use memory - "
               "overhead\n";
  std::printf("  %-20s %-24s %12s %12s %12s\n", "id", "name", "memory", "overhead", "available");
  for (const auto& p : staticnet::device::profiles)
    std::printf("  %-20s %-24s %12s %12s %12s\n", p.id, p.device.name.text,
                staticnet::human(p.device.memory).c_str(),
                staticnet::human(p.device.overhead).c_str(),
                staticnet::human(p.device.available()).c_str());
  // The microcontrollers: two budgets each. The same first columns, memory being the SRAM.
  std::cout << "\nmicrocontroller profiles: the arena in SRAM (a model may use SRAM - overhead), "
               "an Int8 plan's weights in flash (flash - flash overhead)\n";
  std::printf("  %-20s %-24s %12s %12s %12s %12s %15s %12s\n", "id", "name", "SRAM", "overhead",
              "available", "flash", "flash overhead", "available");
  for (const auto& p : staticnet::device::microcontroller_profiles)
    std::printf(
        "  %-20s %-24s %12s %12s %12s %12s %15s %12s\n", p.id, p.device.name.text,
        staticnet::human(p.device.memory).c_str(), staticnet::human(p.device.overhead).c_str(),
        staticnet::human(p.device.available()).c_str(), staticnet::human(p.device.flash).c_str(),
        staticnet::human(p.device.flash_overhead).c_str(),
        staticnet::human(p.device.flash - p.device.flash_overhead).c_str());
  std::fflush(stdout);
}

bool use_colour(const std::string& mode, bool to_file) {
  if (mode == "always")
    return true;
  if (mode == "never" || to_file)
    return false;
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR") &&
         !(term && std::string(term) == "dumb");
}

an::Format format_of(const std::string& name) {
  if (name == "json")
    return an::Format::json;
  if (name == "markdown")
    return an::Format::markdown;
  if (name == "svg")
    return an::Format::svg;
  return an::Format::text;
}

// The report, to --output or stdout.
void write_report(const AnalyzeArgs& a, const std::string& text) {
  if (a.output.empty()) {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(a.output, std::ios::binary);
  out << text;
  if (!out.flush())
    throw std::runtime_error("cannot write " + a.output);
}

int analyze_and_report(AnalyzeArgs& a);

int run_analyze(AnalyzeArgs& a) {
  if (a.list_devices) {
    list_devices();
    return 0;
  }
  if (a.format != "json")
    return analyze_and_report(a);
  // A tool that parses the JSON gets a document whatever happens (main() still says the error
  // on stderr, and exits 2 for a usage error, 1 for another).
  try {
    return analyze_and_report(a);
  } catch (const an::UsageError& e) {
    write_report(a, an::render_json_usage_error(a.header, e.what()));
    throw;
  } catch (const std::exception& e) {
    write_report(a, an::render_json_error(a.header, e.what()));
    throw;
  }
}

int analyze_and_report(AnalyzeArgs& a) {
  if (a.header.empty())
    throw an::UsageError("name a header: staticnet analyze path/to/model.hpp");
  a.options.header = a.header;
  for (const std::string& dir : a.includes)
    a.options.include_dirs.emplace_back(dir);
  for (const std::string& b : a.budgets)
    a.options.budgets.push_back(an::parse_size(b));
  a.options.batches = a.batches;
  if (!a.depfile.empty()) {
    if (a.output.empty())
      throw an::UsageError("--depfile names the dependencies of --output: give both");
    a.options.depfile = a.depfile;
    a.options.depfile_target = a.output;
  }

  const an::AnalyzeResult result = an::analyze(a.options);
  if (a.verbose) {
    if (result.from_cache)
      std::cerr << "staticnet analyze: the probe was in the cache\n";
    else
      std::cerr << "staticnet analyze: compiled the probe: " << result.compiler_command << "\n";
  }
  if (!result.compiled) {
    if (a.format == "json")
      write_report(a, an::render_json_does_not_compile(a.header, result.explanations,
                                                       result.compiler_output));
    if (result.explanations.empty() || a.verbose)
      std::cerr << result.compiler_output;
    std::cerr << "staticnet analyze: " << a.header << " does not compile";
    if (result.explanations.empty()) {
      std::cerr << " (the compiler's output is above)\n";
    } else {
      std::cerr << ":\n";
      for (const an::Explanation& e : result.explanations)
        std::cerr << "  " << (e.where.empty() ? "" : e.where + ": ") << e.sentence << "\n";
      if (!a.verbose)
        std::cerr << "(--verbose shows the compiler's output)\n";
    }
    return 3;
  }
  const bool to_file = !a.output.empty();
  write_report(a, an::render(result.report, format_of(a.format), use_colour(a.colour, to_file)));
  if (to_file && a.print)
    std::cout << an::render_text(result.report, use_colour(a.colour, false)) << std::flush;
  int status = 0;
  for (const an::ModelReport& m : result.report.models)
    for (const std::string& sentence : an::over_budget_sentences(m)) {
      std::cerr << "staticnet analyze: error: " << sentence << "\n";
      status = 1;
    }
  return status;
}

int run_explain(const std::string& file) {
  std::string log;
  if (file.empty() || file == "-") {
    log.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in)
      throw std::runtime_error("cannot read " + file);
    log.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto explained = an::explain_compiler_output(log);
  // As compilers write errors, so that editors and CI annotations find the line.
  for (const an::Explanation& e : explained)
    std::cout << (e.where.empty() ? "" : e.where + ": ") << "error: " << e.sentence << "\n";
  std::cout << std::flush;
  if (explained.empty()) {
    // Say so: an empty answer reads as "nothing wrong", or as the wrong file given.
    const std::string source = file.empty() || file == "-" ? "stdin" : file;
    const std::size_t others = an::count_compiler_errors(log);
    std::cerr << "staticnet explain: no staticnet error in " << source;
    if (others > 0)
      std::cerr << " (it holds " << others << " other compiler error" << (others == 1 ? "" : "s")
                << ": read them as the compiler wrote them)";
    std::cerr << "\n";
  }
  return explained.empty() ? 1 : 0;
}

}  // namespace

void add_analyze_commands(CLI::App& app, Runner& run) {
  auto a = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "Report the memory of each model a header registers (STATICNET_MODEL) or names "
      "(--model/--setup): per layer, by category, the peak and its step, against devices and "
      "budgets.\nExit status: 0 done and every model fits every budget given; 1 a model "
      "exceeds a --device or --budget, or nothing fits a --fit; 2 a usage error (unknown device, "
      "missing header, no "
      "model); 3 the header does not compile (staticnet's errors explained, others passed "
      "through)");
  cmd->add_option("header", a->header, "The header that declares the model and setup types");
  cmd->add_option("-I,--include-dir", a->includes, "A directory the header's includes need");
  cmd->add_option("--model", a->options.model, "A model type (with --setup), e.g. ns::Net");
  cmd->add_option("--setup", a->options.setup, "Its setup type, e.g. ns::Training");
  cmd->add_option("--device", a->options.devices,
                  "Check against a device profile (repeat for several; --list-devices); a "
                  "microcontroller's (nrf52840, stm32h743) checks its SRAM and its flash apart");
  cmd->add_option("--budget", a->budgets, "Check against a budget, e.g. 3GiB, 512MiB, 2GB");
  cmd->add_option("--fit", a->options.fits,
                  "List the setups that fit a device profile or a budget (e.g. jetson_nano, "
                  "2GiB), cheapest first: the setup as it is, as micro-batches "
                  "(Accumulate<K>), checkpointed (Checkpoint<Sqrt>), then the largest batch "
                  "(sn::fit)")
      ->delimiter(',');
  cmd->add_option("--batch", a->batches, "What-if: footprints at these batches, e.g. 32,64,128")
      ->delimiter(',');
  cmd->add_option("--optimizer", a->options.optimizers,
                  "What-if: with these optimizers (SGD, SGDMomentum, Adam, AdamW)")
      ->delimiter(',');
  cmd->add_option("--precision", a->options.precisions,
                  "What-if: in these precisions (FP32, Mixed<bf16>, Mixed<f16>, Pure<bf16>), "
                  "side by side; the trainers do not offer them yet")
      ->delimiter(',');
  cmd->add_option("--accumulate", a->options.accumulations,
                  "What-if: each step as K micro-batches of batch/K (gradient accumulation, "
                  "Accumulate<K>), e.g. 1,4; training setups only. A batch that K does not "
                  "divide is left out of the table, with a note")
      ->delimiter(',');
  cmd->add_option("--checkpoint", a->options.checkpoints,
                  "What-if: under these checkpointing policies (None, Sqrt, Every<K>, and Auto, "
                  "the least recomputation that fits the first --device or --budget; "
                  "Checkpoint<P>), with the FLOPs each recomputes; training setups only")
      ->delimiter(',');
  cmd->add_option("--format", a->format, "text (default), json, markdown or svg")
      ->check(CLI::IsMember({"text", "json", "markdown", "svg"}));
  cmd->add_option("-o,--output", a->output, "Write the report to this file, not stdout");
  cmd->add_option("--color", a->colour,
                  "auto (default: on a terminal, unless NO_COLOR), "
                  "always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--cxx", a->options.compiler, "The C++ compiler (default: $CXX, else c++)");
  cmd->add_option("--emulator", a->options.emulator,
                  "Runs the probe when --cxx builds for another machine, e.g. "
                  "'qemu-aarch64 -L /'");
  cmd->add_option("--cache-dir", a->options.cache_dir,
                  "Where built probes are kept (default: $STATICNET_CACHE_DIR, else "
                  "~/.cache/staticnet)");
  cmd->add_option("--depfile", a->depfile,
                  "With --output: write the files the header includes to this depfile (Make "
                  "syntax), so a build reruns the analysis when one changes");
  cmd->add_flag("--print", a->print, "With --output: also print the text report");
  cmd->add_flag("--list-devices", a->list_devices, "List the device profiles and exit");
  cmd->add_flag("-v,--verbose", a->verbose, "Show the compiler's command and full output");
  cmd->callback([a, &run] { run = [a] { return run_analyze(*a); }; });

  auto file = std::make_shared<std::string>();
  auto* explain = app.add_subcommand(
      "explain",
      "Read a compiler's output (a file, or stdin) and say each staticnet error in it in one "
      "sentence with its numbers.\nExit status: 0 some explained, 1 none found");
  explain->add_option("log", *file, "The compiler's output (default: stdin)");
  explain->callback([file, &run] { run = [file] { return run_explain(*file); }; });
}

}  // namespace staticnet::cli
