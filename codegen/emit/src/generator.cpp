#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "clang_format.hpp"
#include "staticnet/codegen/emitters.hpp"
#include "staticnet/codegen/generate.hpp"

namespace staticnet::codegen {
namespace {

namespace fs = std::filesystem;

// Writes `text` unless the file already holds exactly it. Returns whether it wrote. The text goes
// to a temporary file of this process's own first, then is renamed over the file, so a reader
// never sees half a file and two generators writing the same directory (a build system that runs
// the command twice) never collide on the temporary.
bool write_if_changed(const fs::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream old;
      old << in.rdbuf();
      if (old.str() == text)
        return false;
    }
  }
  const fs::path temp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error("cannot write " + temp.string());
    }
  }
  fs::rename(temp, path);
  return true;
}

const Backend* backend_named(std::string_view name) {
  for (const Backend& b : backends())
    if (b.name == name)
      return &b;
  return nullptr;
}

int usage(const char* program, const std::string& problem) {
  std::string known;
  for (const Backend& b : backends())
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  std::fprintf(stderr,
               "%s: %s\nusage: %s --out DIR [--program trainer|inference] [--backend NAME]... "
               "[--clang-format PROGRAM --format-style FILE]   (backends: %s; default all)\n",
               program, problem.c_str(), program, known.c_str());
  return 2;
}

}  // namespace

int run_generator(int argc, char** argv, const ModelView& model) {
  const char* program = argc > 0 ? argv[0] : "generator";
  fs::path out;
  std::string program_kind;  // what staticnet_model() builds over the files: checked below
  std::vector<const Backend*> chosen;
  ClangFormat format;  // unformatted where no program is given
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--out" || arg == "--backend" || arg == "--program" || arg == "--clang-format" ||
         arg == "--format-style") &&
        i + 1 >= argc)
      return usage(program, std::string(arg) + " needs a value");
    if (arg == "--out") {
      out = argv[++i];
    } else if (arg == "--clang-format") {
      format.program = argv[++i];
    } else if (arg == "--format-style") {
      format.style = argv[++i];
    } else if (arg == "--program") {
      program_kind = argv[++i];
      if (program_kind != "trainer" && program_kind != "inference")
        return usage(program, "--program is trainer or inference, not \"" + program_kind + "\"");
    } else if (arg == "--backend") {
      const Backend* b = backend_named(argv[++i]);
      if (!b)
        return usage(program, std::string("unknown backend \"") + argv[i] + "\"");
      chosen.push_back(b);
    } else {
      return usage(program, std::string("unknown argument \"") + std::string(arg) + "\"");
    }
  }
  if (out.empty())
    return usage(program, "--out is required");
  if (format.program.empty() != format.style.empty())
    return usage(program, "--clang-format and --format-style go together");
  if (chosen.empty())  // every backend
    for (const Backend& b : backends())
      chosen.push_back(&b);
  // CMake cannot see the setup's kind, so staticnet_model() says what it will build; a mismatch
  // is the user's, and the message says which line to change.
  const std::string& n = model.names.name;
  if (program_kind == "trainer" && !model.training()) {
    std::fprintf(stderr,
                 "staticnet_model(%s): error: SETUP %s is an Inference setup: add INFERENCE to "
                 "staticnet_model(%s ...) to build %s_infer_cpu, an inference program (a trainer "
                 "needs a Training setup)\n",
                 n.c_str(), model.names.setup_type.c_str(), n.c_str(), n.c_str());
    return 1;
  }
  if (program_kind == "inference" && model.training()) {
    std::fprintf(stderr,
                 "staticnet_model(%s): error: INFERENCE needs an Inference setup "
                 "(sn::Inference<...>), and SETUP %s is a Training setup\n",
                 n.c_str(), model.names.setup_type.c_str());
    return 1;
  }

  // Mixed and Pure precision are planned for every setup, rendered so far by the CPU backend for
  // Mixed<bf16> and Mixed<f16> training from an f32 input (they are not public yet: setup.hpp's
  // detail::); Int8 inference is the mcu backend's, and the mcu backend renders nothing else.
  // Anything else is refused here, naming what is missing, rather than emitted as code that does
  // not compile.
  const PrecisionKind precision = model.setup.precision;
  std::string missing;
  for (const Backend* b : chosen) {
    const std::string_view backend = b->name;
    if (backend == "mcu" && precision != PrecisionKind::Int8)
      missing =
          std::string("the mcu backend renders Int8 inference only, not ") + name_of(precision);
    else if (backend != "mcu" && precision == PrecisionKind::Int8)
      missing = "Int8 inference is the mcu backend's (BACKENDS mcu); the " + std::string(backend) +
                " backend runs FP32 or mixed precision";
    else if (backend != "cpu" && backend != "mcu" && precision != PrecisionKind::FP32)
      missing =
          "the " + std::string(backend) + " backend does not render " + name_of(precision) + " yet";
  }
  // The trainers' and the inference programs' loaders write f32 samples into the arena's input;
  // an input of another dtype there is smaller than what they write.
  if (missing.empty() && precision != PrecisionKind::Int8 &&
      model.setup.input_dtype != DType::f32)
    missing = std::string("the trainers and inference programs take an f32 input so far (their "
                          "loaders write f32 samples), not ") +
              name_of(model.setup.input_dtype) +
              ": write sn::Input<sn::f32, ...> (the loader scales integer data, --scale)";
  if (missing.empty() && precision != PrecisionKind::FP32 && precision != PrecisionKind::Int8) {
    if (precision == PrecisionKind::PureBF16 || !model.training())
      missing = std::string(
                    "the backends render only Mixed<bf16> and Mixed<f16> training so "
                    "far, not ") +
                name_of(precision) + (model.training() ? "" : " inference");
  }
  if (!missing.empty()) {
    std::fprintf(stderr, "staticnet_model(%s): error: %s\n", n.c_str(), missing.c_str());
    return 1;
  }

  try {
    // (Int8 has no inference program: the mcu backend's files are the whole of it.)
    std::vector<EmittedFile> files{emit_model_header(model)};
    if (model.training())
      files.push_back(emit_trainer_header(model));
    else if (precision != PrecisionKind::Int8)
      files.push_back(emit_inference_header(model));
    for (const Backend* b : chosen)
      for (EmittedFile& f : b->emit(model))
        files.push_back(std::move(f));
    // Every file is formatted before any is written: a formatter that fails writes no file.
    if (!format.program.empty())
      for (EmittedFile& f : files)
        f.text = clang_formatted(f.text, f.name, format);
    fs::create_directories(out);
    for (const EmittedFile& f : files)
      write_if_changed(out / f.name, f.text);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "staticnet_model(%s): error: %s\n", model.names.name.c_str(), e.what());
    return 1;
  }
  return 0;
}

}  // namespace staticnet::codegen
