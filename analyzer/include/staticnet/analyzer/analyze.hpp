#pragma once
// `staticnet analyze`: from a model header to a Report. It writes a probe (a main() that
// includes the header; see include/staticnet/analysis/probe.hpp), compiles it with the user's
// compiler, caches the program by the content of everything it includes, runs it and reads the
// plans it prints. A header that does not compile comes back with the compiler's output and
// staticnet's diagnostics explained.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "staticnet/analyzer/explain.hpp"
#include "staticnet/analyzer/report.hpp"

namespace staticnet::analyzer {

// The command line asks for something that cannot be (an unknown device, a missing header, no
// model to report): exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct AnalyzeOptions {
  std::filesystem::path header;
  std::vector<std::filesystem::path> include_dirs;  // -I
  std::string model, setup;          // --model/--setup: both or neither; else the registered models
  std::vector<std::string> devices;  // profile ids (device_profiles())
  std::vector<std::int64_t> budgets;    // --budget, bytes
  std::vector<std::string> fits;        // --fit: device ids, or sizes ("3GiB")
  std::vector<std::int64_t> batches;    // --batch sweep
  std::vector<std::string> optimizers;  // --optimizer sweep
  std::vector<std::string> precisions;  // --precision sweep
  // --accumulate sweep: K micro-batches per step (Accumulate<K>); a point whose K does not divide
  // its batch is not planned (ModelDump::not_applicable)
  std::vector<std::int64_t> accumulations;
  // --checkpoint sweep: policies as Checkpoint<P> spells P ("None", "Sqrt", "Every<4>"; any case)
  std::vector<std::string> checkpoints;
  std::string compiler;  // empty: $CXX, else c++ (split at spaces, so "ccache g++" works)
  // Runs the probe when `compiler` builds for another machine (CMake's
  // CMAKE_CROSSCOMPILING_EMULATOR, e.g. "qemu-aarch64 -L /"); split at spaces. Empty: the probe
  // runs here.
  std::string emulator;
  std::filesystem::path cache_dir;  // empty: default_cache_dir()
  // When set, a Makefile-syntax depfile naming every file the header includes, as the rule of
  // `depfile_target`: build systems rerun the analysis when any of them changes.
  std::filesystem::path depfile;
  std::string depfile_target;
};

struct AnalyzeResult {
  bool compiled = false;
  bool from_cache = false;       // the probe program was already built
  std::string compiler_command;  // as run, for --verbose
  std::string compiler_output;   // when it did not compile
  std::vector<Explanation> explanations;
  Report report;  // when it compiled
};

// The line (from 1) of a header's text that declares `model` (e.g. "my::Net"): its
// STATICNET_MODEL line, else `using Net =`, `struct Net` or `class Net`; 0 when there is none.
// The probe's, and staticnet_model()'s generator's, errors are said at that line.
int declaration_line(const std::string& header_text, const std::string& model);

// $STATICNET_CACHE_DIR, else $XDG_CACHE_HOME/staticnet, else ~/.cache/staticnet.
std::filesystem::path default_cache_dir();

// Every device profile --device takes, by id: staticnet::device::profiles, then the
// microcontrollers (device::microcontroller_profiles), which have a flash besides their SRAM.
const std::vector<staticnet::device::Profile>& device_profiles();

// The budgets a command line names, in its order: devices first, then plain budgets. Throws
// UsageError for an unknown device id, listing the known ones.
std::vector<Budget> budgets_of(const AnalyzeOptions& options);

// The budgets --fit names, in its order: a device id or a size each. Throws UsageError for an
// unknown device, or a microcontroller's (its Int8 inference runs at batch 1: nothing to remedy).
std::vector<Budget> fit_budgets_of(const AnalyzeOptions& options);

// Throws UsageError (see above) and std::runtime_error (no compiler, an unwritable cache).
AnalyzeResult analyze(const AnalyzeOptions& options);

// "3GiB", "512 MiB", "1.5GB", "1000000" (bytes) -> bytes. Binary units KiB, MiB, GiB, TiB and
// decimal kB/KB, MB, GB, TB. Throws UsageError naming the text.
std::int64_t parse_size(const std::string& text);

}  // namespace staticnet::analyzer
