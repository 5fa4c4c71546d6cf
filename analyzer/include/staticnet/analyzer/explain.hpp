#pragma once
// Reads staticnet's diagnostics out of a compiler's output and says each in one sentence with
// its numbers. A wrong model fails to compile in a template of include/staticnet/errors.hpp
// whose name and arguments carry the facts, e.g. (g++)
//
//   In instantiation of 'struct staticnet::error::linear_in_features_mismatch<
//     staticnet::error::layer<10, staticnet::LayerKind::Linear,
//                             staticnet::error::nesting<staticnet::error::entry<11> > >,
//     staticnet::error::in_features_written<2048>, staticnet::error::features_arriving<8192>,
//     staticnet::error::shape<128, 8, 8> >'
//
// which explains as
//
//   layer 10 (Linear): `InFeatures<2048>` is written, but 8192 features arrive (128 × 8 × 8);
//   write InFeatures<8192>, or drop InFeatures to infer it
//
// g++, clang++ and nvcc spell the instantiation alike (nvcc adds an L to 64-bit numbers).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace staticnet::analyzer {

struct Explanation {
  std::string error;     // the template's name: "linear_in_features_mismatch"
  std::string sentence;  // what it means, with the numbers
  // Where the user's code asks for the plan ("train.cpp:12:31"), which tells one model's error
  // from another's in a log of several: g++'s "required from here", clang's last "requested
  // here". Empty when the log does not say.
  std::string where;
  // The layer the error is about, where it is about one: its index in the flattened model, its
  // kind ("Linear"), and its place in the model as written ("the 11th entry of the outer
  // Sequential"; empty where the index says it all, or the log is of an older staticnet).
  std::int64_t layer = -1;
  std::string kind;
  std::string place;
};

// Every distinct staticnet diagnostic in `compiler_output`, in order of appearance, then the
// mistakes that fail before staticnet sees the model (a pool's window written as a type); empty
// when there is none (the error is somebody else's).
std::vector<Explanation> explain_compiler_output(std::string_view compiler_output);

// The errors of any kind in `compiler_output`: its lines with g++'s or clang's "error:" (or
// "fatal error:") after the location.
std::size_t count_compiler_errors(std::string_view compiler_output);

// The error templates this decodes: every one in include/staticnet/errors.hpp.
const std::vector<std::string>& explained_errors();

}  // namespace staticnet::analyzer
