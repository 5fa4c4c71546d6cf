// The staticnet headers a generated kernels file includes: those whose names its text uses, and
// no others. Each header is listed with the names it declares that emitted code writes
// (k:: staticnet::kernels, c:: staticnet::cpu, g:: staticnet::cuda); a header whose names the
// text never mentions is left out. A name an emitter starts writing must be added here, or the
// file it writes does not compile (every sample, fixture and layer-matrix model is compiled by
// the tests).
#pragma once

#include <string>

namespace staticnet::codegen {

// "#include <staticnet/...>" lines, sorted, one per header `text` uses.
std::string used_includes(const std::string& text);

// `text` with its line "// @staticnet-includes@" (the emitters' templates put it where the
// staticnet includes go) replaced by used_includes(text).
std::string with_includes(const std::string& text);

}  // namespace staticnet::codegen
