// analyze(): writes the probe, compiles it (or finds it in the cache), runs it, builds the
// report. See analyze.hpp.
#include "staticnet/analyzer/analyze.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <system_error>

#include <staticnet/device.hpp>
#include <staticnet/setup.hpp>

#include "process.hpp"
#include "staticnet/analyzer/plan_dump.hpp"
#include "table.hpp"

namespace staticnet::analyzer {

namespace fs = std::filesystem;

namespace {

// Bumped when the probe's source or flags change in a way its cache key would not see.
constexpr const char* probe_recipe = "staticnet-probe-1";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

// The staticnet headers the probe compiles against: the installed ones beside this program
// (<prefix>/bin/staticnet and <prefix>/include), else those of the source tree it was built in.
fs::path staticnet_include_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path().parent_path() / "include";
    if (fs::exists(installed / "staticnet" / "analysis" / "probe.hpp"))
      return installed;
  }
  return STATICNET_SOURCE_INCLUDE_DIR;
}

// FNV-1a, 64 bits: the cache key. Not for security; a collision would reuse a wrong probe, and
// at 2^-64 per pair of different inputs that is not a risk worth a dependency.
std::uint64_t fnv1a(std::string_view data, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

std::string quoted_path(const fs::path& p) {
  std::string out = "\"";
  for (char c : p.string()) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string probe_source(const fs::path& header, const AnalyzeOptions& o) {
  std::string s =
      "// Written by `staticnet analyze`: reports the plans of the models in the header.\n"
      "#define STATICNET_ANALYZE 1\n"
      "#include <staticnet/staticnet.hpp>\n"
      "#include " +
      quoted_path(header) +
      "\n"
      // Ends a STATICNET_MODEL line that the header left last without its ';' (else an empty
      // declaration, which only clang's -Wextra-semi would mention).
      "#if defined(__clang__)\n"
      "#pragma clang diagnostic push\n"
      "#pragma clang diagnostic ignored \"-Wextra-semi\"\n"
      "#endif\n"
      ";\n"
      "#if defined(__clang__)\n"
      "#pragma clang diagnostic pop\n"
      "#endif\n";
  if (!o.model.empty()) {
    // A model named on the command line is planned here, in a file the user never wrote; its
    // errors are said at the header's line that declares it instead (STATICNET_MODEL's are at
    // their own line already).
    std::ifstream in(header, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    if (const int line = declaration_line(text, o.model); line > 0)
      s += "#line " + std::to_string(line) + " " + quoted_path(header) + "\n";
    s += "[[maybe_unused]] inline const bool staticnet_command_line_model = "
         "::staticnet::analysis::register_model<" +
         o.model + ", " + o.setup + ">(\"" + o.model + "\", \"" + o.model + "\", \"" + o.setup +
         "\");\n";
  }
  s +=
      "int main(int argc, char** argv) { return ::staticnet::analysis::probe_main(argc, argv); }\n";
  return s;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words)
    s += (s.empty() ? "" : " ") + w;
  return s;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush())
    throw std::runtime_error("cannot write " + path.string());
}

// The compiler's depfile for the probe, rewritten as the rule of `target` without the probe's
// own source (a temporary file that a build system would otherwise always find missing).
void write_depfile(const fs::path& compiler_depfile, const fs::path& probe_source,
                   const fs::path& out, const std::string& target) {
  std::ifstream in(compiler_depfile, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  // Tokens are separated by unescaped blanks; "\\\n" continues a line; "\\ " is a space.
  std::vector<std::string> tokens;
  std::string current;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      current += text[++i];
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      current += text[++i];
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!current.empty())
        tokens.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    tokens.push_back(current);
  auto escaped = [](const std::string& path) {
    std::string e;
    for (char c : path)
      e += c == ' ' ? "\\ " : c == '#' ? "\\#" : c == '$' ? "$$" : std::string(1, c);
    return e;
  };
  std::string rule = escaped(target) + ":";
  bool after_colon = false;
  for (const std::string& t : tokens) {
    if (!after_colon) {
      after_colon = !t.empty() && t.back() == ':';
      continue;
    }
    if (fs::path(t) != probe_source)
      rule += " \\\n  " + escaped(t);
  }
  write_file(out, rule + "\n");
}

// Where the probe for this exact input lives, built if it was not.
struct Probe {
  fs::path program;
  bool compiled = false;
  bool from_cache = false;
  std::string command;
  std::string output;  // the compiler's, when it failed
};

Probe build_probe(const fs::path& header, const AnalyzeOptions& o) {
  std::vector<std::string> compiler = split_words(!o.compiler.empty()   ? o.compiler
                                                  : !env("CXX").empty() ? env("CXX")
                                                                        : "c++");
  if (compiler.empty())
    throw UsageError("no C++ compiler given");
  ProcessResult version;
  try {
    std::vector<std::string> v = compiler;
    v.push_back("--version");
    version = run_process(v);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string(e.what()) +
                     "; staticnet analyze compiles the header with $CXX (else c++): set CXX or "
                     "pass --cxx");
  }
  std::vector<std::string> flags = {"-std=c++20", "-fdiagnostics-color=never",
                                    "-I" + staticnet_include_dir().string()};
  if (version.out.find("clang") != std::string::npos)
    flags.push_back("-fconstexpr-steps=100000000");  // as staticnet::staticnet's users get
  for (const fs::path& dir : o.include_dirs)
    flags.push_back("-I" + fs::absolute(dir).string());

  const fs::path cache = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  fs::create_directories(cache);
  const fs::path work = cache / ("build-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};
  const fs::path source = work / "probe.cpp";
  write_file(source, probe_source(header, o));

  // The key: everything the compiler will read, after preprocessing, and how it is called.
  std::vector<std::string> preprocess = compiler;
  preprocess.insert(preprocess.end(), flags.begin(), flags.end());
  preprocess.insert(preprocess.end(), {"-E", "-P", source.string()});
  const fs::path compiler_depfile = work / "probe.d";
  if (!o.depfile.empty())
    preprocess.insert(preprocess.end(), {"-MD", "-MF", compiler_depfile.string()});
  const ProcessResult pre = run_process(preprocess);
  if (pre.exit_status == 0 && !o.depfile.empty())
    write_depfile(compiler_depfile, source, o.depfile, o.depfile_target);
  std::vector<std::string> compile = compiler;
  compile.insert(compile.end(), flags.begin(), flags.end());
  compile.insert(compile.end(), {source.string(), "-o", (work / "probe").string()});
  Probe probe;
  probe.command = joined(compile);
  if (pre.exit_status != 0) {  // a missing include: the compiler says so
    probe.output = pre.err;
    return probe;
  }
  std::uint64_t key = fnv1a(pre.out);
  key = fnv1a(version.out + "\n" + joined(compiler) + "\n" + joined(flags) + "\n" + probe_recipe,
              key);
  const fs::path entry = cache / ("probe-" + hex(key));
  probe.program = entry / "probe";
  if (fs::exists(probe.program)) {
    probe.compiled = probe.from_cache = true;
    return probe;
  }
  const ProcessResult built = run_process(compile);
  if (built.exit_status != 0) {
    probe.output = built.out + built.err;
    return probe;
  }
  // Publish by renaming the whole directory, so that a concurrent run never sees half a probe.
  std::error_code ec;
  fs::rename(work, entry, ec);
  if (ec && !fs::exists(probe.program))
    throw std::runtime_error("cannot store the probe in " + entry.string() + ": " + ec.message());
  probe.compiled = true;
  return probe;
}

// Said when the probe would not start: the usual cause is a cross compiler without an
// emulator (exit 127 is how a shell, or qemu-user, reports an exec that failed).
std::string cross_compiling_hint(const AnalyzeOptions& o) {
  if (!o.emulator.empty())
    return "; the probe ran through --emulator '" + o.emulator + "'";
  return "; if the compiler builds for another machine, pass --emulator with the command that "
         "runs its programs here (e.g. 'qemu-aarch64 -L /'; in CMake, "
         "CMAKE_CROSSCOMPILING_EMULATOR)";
}

}  // namespace

int declaration_line(const std::string& header_text, const std::string& model) {
  const std::string leaf =
      model.substr(model.rfind("::") == std::string::npos ? 0 : model.rfind("::") + 2);
  if (leaf.empty() || !std::regex_match(leaf, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
    return 0;  // a template-id or worse: no plain name to look for
  // As StaticnetModel.cmake's _staticnet_declaration_line looks for it: first on its line.
  const std::string blank = "[ \\t\\r\\n]";
  const std::string patterns[] = {
      "STATICNET_MODEL[ \\t]*\\([^,()]*," + blank + "*([A-Za-z0-9_]*::)*" + leaf + blank + "*,",
      "using" + blank + "+" + leaf + blank + "*=",
      "(struct|class)" + blank + "+" + leaf + "[^A-Za-z0-9_]"};
  for (const std::string& pattern : patterns) {
    std::smatch match;
    if (std::regex_search(header_text, match, std::regex("(^|\\n)[ \\t]*" + pattern))) {
      // The line of the match's first character that is not the newline before it.
      const auto start = match.position(0) + match.length(1);
      return 1 +
             static_cast<int>(std::count(header_text.begin(), header_text.begin() + start, '\n'));
    }
  }
  return 0;
}

fs::path default_cache_dir() {
  if (!env("STATICNET_CACHE_DIR").empty())
    return env("STATICNET_CACHE_DIR");
  if (!env("XDG_CACHE_HOME").empty())
    return fs::path(env("XDG_CACHE_HOME")) / "staticnet";
  if (!env("HOME").empty())
    return fs::path(env("HOME")) / ".cache" / "staticnet";
  return fs::temp_directory_path() / "staticnet-cache";
}

const std::vector<staticnet::device::Profile>& device_profiles() {
  static const std::vector<staticnet::device::Profile> all = [] {
    std::vector<staticnet::device::Profile> v(std::begin(staticnet::device::profiles),
                                              std::end(staticnet::device::profiles));
    v.insert(v.end(), std::begin(staticnet::device::microcontroller_profiles),
             std::end(staticnet::device::microcontroller_profiles));
    return v;
  }();
  return all;
}

namespace {
// The budget of the device profile `id`; throws UsageError for an unknown one, listing the known.
Budget device_budget(const std::string& id) {
  const staticnet::device::Profile* found = nullptr;
  for (const staticnet::device::Profile& p : device_profiles())
    if (id == p.id)
      found = &p;
  if (!found) {
    std::string known;
    for (const staticnet::device::Profile& p : device_profiles())
      known += std::string(known.empty() ? "" : ", ") + p.id;
    throw UsageError("unknown device '" + id + "'; the known devices are " + known +
                     " (staticnet analyze --list-devices shows their memory)");
  }
  const Device& d = found->device;
  return {found->id,           d.name.text,   d.memory.count,
          d.overhead.count,    d.flash.count, d.flash_overhead.count,
          d.shares_host_memory};
}
Budget plain_budget(std::int64_t bytes) {
  return {"budget", "budget " + human_bytes(bytes), bytes, 0};
}
}  // namespace

std::vector<Budget> budgets_of(const AnalyzeOptions& o) {
  std::vector<Budget> budgets;
  for (const std::string& id : o.devices)
    budgets.push_back(device_budget(id));
  for (std::int64_t b : o.budgets)
    budgets.push_back(plain_budget(b));
  return budgets;
}

std::vector<Budget> fit_budgets_of(const AnalyzeOptions& o) {
  std::vector<Budget> budgets;
  for (const std::string& target : o.fits) {
    const bool is_size = !target.empty() && std::isdigit(static_cast<unsigned char>(target[0]));
    budgets.push_back(is_size ? plain_budget(parse_size(target)) : device_budget(target));
    if (budgets.back().has_flash())
      throw UsageError("--fit " + target +
                       ": a microcontroller runs Int8 inference at batch 1, which no remedy "
                       "shrinks; check it with --device " +
                       target);
  }
  return budgets;
}

AnalyzeResult analyze(const AnalyzeOptions& o) {
  if (o.model.empty() != o.setup.empty())
    throw UsageError(
        "--model and --setup go together: name both types, or neither to report "
        "the models the header registers with STATICNET_MODEL");
  std::error_code ec;
  const fs::path header = fs::absolute(o.header, ec);
  if (ec || !fs::is_regular_file(header))
    throw UsageError("no such header: " + o.header.string());
  for (const std::string& opt : o.optimizers) {
    OptimizerKind kind{};
    if (!parse_optimizer(opt, kind))
      throw UsageError("unknown optimizer '" + opt +
                       "'; the optimizers are SGD, SGDMomentum, Adam and AdamW");
  }
  for (const std::string& precision : o.precisions) {
    PrecisionKind kind{};
    if (!parse_precision(precision, kind))
      throw UsageError("unknown precision '" + precision +
                       "'; the precisions are FP32, Mixed<bf16>, Mixed<f16> and Pure<bf16>");
  }
  for (std::int64_t b : o.batches)
    if (b < 1)
      throw UsageError("a batch must be at least 1, got " + std::to_string(b));
  for (std::int64_t k : o.accumulations)
    if (k < 1)
      throw UsageError("--accumulate takes the micro-batches of a step, at least 1, got " +
                       std::to_string(k));
  bool sweeps_auto = false;
  for (const std::string& policy : o.checkpoints) {
    CheckpointKind kind{};
    std::int64_t every = 0;
    if (!parse_checkpoint(policy, kind, every))
      throw UsageError("unknown checkpointing policy '" + policy +
                       "'; the policies are None, Sqrt, Every<K> with K at least 1, and Auto");
    sweeps_auto = sweeps_auto || kind == CheckpointKind::least;
  }
  const std::vector<Budget> budgets = budgets_of(o);
  if (sweeps_auto && budgets.empty())
    throw UsageError(
        "--checkpoint auto checkpoints to fit a budget: give one with --device or "
        "--budget (Auto fits the first)");
  const std::vector<Budget> fit_budgets = fit_budgets_of(o);

  AnalyzeResult result;
  const Probe probe = build_probe(header, o);
  result.compiler_command = probe.command;
  result.from_cache = probe.from_cache;
  if (!probe.compiled) {
    result.compiler_output = probe.output;
    result.explanations = explain_compiler_output(probe.output);
    // The probe includes the header by its absolute path; say it as the user wrote it.
    const std::string absolute = header.string() + ":";
    for (Explanation& e : result.explanations)
      if (e.where.starts_with(absolute))
        e.where = o.header.string() + e.where.substr(absolute.size() - 1);
    return result;
  }
  result.compiled = true;

  // Runs the probe: every model (or `only`), the sweep, and the largest batch within each of
  // `search_bytes` (Budget::max_batch_search_bytes).
  // (A budget whose device shares its memory with the host searches counting the trainer's host
  // bytes too: --shared-budget.)
  auto run_probe = [&](const std::string& only, const std::vector<std::int64_t>& search_bytes) {
    std::vector<std::string> run = split_words(o.emulator);
    run.push_back(probe.program.string());
    if (!only.empty())
      run.insert(run.end(), {"--only", only});
    for (std::int64_t b : o.batches)
      run.insert(run.end(), {"--batch", std::to_string(b)});
    for (const std::string& opt : o.optimizers)
      run.insert(run.end(), {"--optimizer", opt});
    for (const std::string& precision : o.precisions)
      run.insert(run.end(), {"--precision", precision});
    for (std::int64_t k : o.accumulations)
      run.insert(run.end(), {"--accumulate", std::to_string(k)});
    for (const std::string& policy : o.checkpoints)
      run.insert(run.end(), {"--checkpoint", policy});
    if (sweeps_auto)  // what the model may use of the first budget (its overhead is off)
      run.insert(run.end(),
                 {budgets.front().shares_host_memory ? "--auto-shared-budget" : "--auto-budget",
                  std::to_string(std::max<std::int64_t>(budgets.front().available(), 1))});
    for (std::size_t i = 0; i < search_bytes.size(); ++i) {  // 1 byte where none fits: no batch
      const std::int64_t b = search_bytes[i];
      run.insert(run.end(), {budgets[i].shares_host_memory ? "--shared-budget" : "--budget",
                             std::to_string(b > 0 ? b : 1)});
    }
    for (const Budget& b : fit_budgets)  // what the model may use: the overhead is off
      run.insert(run.end(), {b.shares_host_memory ? "--fit-shared" : "--fit",
                             std::to_string(b.available() > 0 ? b.available() : 1)});
    ProcessResult ran;
    try {
      ran = run_process(run);
    } catch (const std::runtime_error& e) {  // not even started: e.g. built for another machine
      throw std::runtime_error(std::string(e.what()) + cross_compiling_hint(o));
    }
    if (ran.exit_status != 0)
      throw std::runtime_error("the probe built from " + o.header.string() + " failed (exit " +
                               std::to_string(ran.exit_status) + "): " + trim(ran.err) +
                               (ran.exit_status == 127 ? cross_compiling_hint(o) : ""));
    return parse_probe_output(ran.out);
  };
  // First as for a plan that keeps nothing in flash (every plan but an Int8 one)...
  const FootprintBytes nothing_in_flash;
  std::vector<std::int64_t> search_bytes;
  for (const Budget& b : budgets)
    search_bytes.push_back(b.max_batch_search_bytes(nothing_in_flash, "FP32"));
  std::vector<ModelDump> models = run_probe(o.model, search_bytes);
  if (models.empty())
    throw UsageError("no model is registered in " + o.header.string() +
                     ": add STATICNET_MODEL(name, Model, Setup) after the types, or name them "
                     "with --model and --setup");
  // ... then again for each model and precision that keeps bytes in a device's flash, whose
  // searches may take those bytes on top of the SRAM (max_batch_search_bytes).
  for (std::size_t i = 0; i < models.size(); ++i) {
    ModelDump& m = models[i];
    std::vector<std::string> done;
    for (const MaxBatches& entry : m.max_batch) {
      const std::string& precision = entry.precision;
      if (std::find(done.begin(), done.end(), precision) != done.end())
        continue;
      done.push_back(precision);
      // The footprint in that precision: the plan's, or a swept point's (what stays in flash,
      // the weights, does not change with the batch or the optimizer).
      const FootprintBytes* f = precision == m.plan.precision ? &m.plan.footprint : nullptr;
      for (const SweepPoint& p : m.sweep)
        if (!f && p.precision == precision)
          f = &p.footprint;
      if (!f)
        throw ProbeOutputError("the probe reports no footprint in " + precision + " for " + m.name);
      std::vector<std::int64_t> own;
      for (const Budget& b : budgets)
        own.push_back(b.max_batch_search_bytes(*f, precision));
      if (own == search_bytes)
        continue;
      // The same model's entry again: the k-th of the models registered under its name.
      const auto same_name = std::count_if(models.begin(), models.begin() + i,
                                           [&](const ModelDump& d) { return d.name == m.name; });
      const std::vector<ModelDump> again = run_probe(m.name, own);
      std::vector<const ModelDump*> named;
      for (const ModelDump& d : again)
        if (d.name == m.name)
          named.push_back(&d);
      if (static_cast<std::size_t>(same_name) >= named.size())
        throw ProbeOutputError("the probe did not report " + m.name + " again");
      for (MaxBatches& mine : m.max_batch)
        for (const MaxBatches& theirs : named[same_name]->max_batch)
          if (mine.precision == precision && theirs.precision == precision &&
              theirs.optimizer == mine.optimizer && theirs.micro_batches == mine.micro_batches)
            mine.by_budget = theirs.by_budget;
    }
  }
  result.report.header = o.header.string();
  result.report.budgets = budgets;
  result.report.fit_budgets = fit_budgets;
  for (ModelDump& m : models)
    result.report.models.push_back(build_report(std::move(m), budgets, fit_budgets));
  return result;
}

}  // namespace staticnet::analyzer
