#pragma once
// The generator program's entry point. staticnet_model() writes a main() that includes the
// user's header and calls generator_main<Model, Setup>; compiling it evaluates the plan (a wrong
// model fails right there, with staticnet's diagnostic), and running it writes the emitted files:
//
//   NAME_generator --out DIR [--backend cpu]... [--clang-format PROGRAM --format-style FILE]
//
// With --clang-format, each file is formatted in that style before it is written. Files whose
// content has not changed are left untouched, so a rebuild after an edit that does not change
// the plan recompiles nothing downstream.
#include <string>

#include "staticnet/codegen/model_view.hpp"
#include "staticnet/plan.hpp"

namespace staticnet::codegen {

int run_generator(int argc, char** argv, const ModelView& model);

template <Model M, Setup S>
int generator_main(int argc, char** argv, ModelNames names) {
  return run_generator(argc, argv, describe(plan<M, S>(), std::move(names)));
}

}  // namespace staticnet::codegen
