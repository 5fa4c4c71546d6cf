#pragma once
// The model, its training step and its plan, shared by every file of the project that needs them
// (main.cpp and report.cpp here). `inline` keeps one definition of `plan` however many files
// include this header: a plain `constexpr auto&` at namespace scope is an external definition of
// its own in each, and the link fails with "multiple definition of `plan`".
#include <staticnet/staticnet.hpp>

#include <iosfwd>

namespace sn = staticnet;

using Mlp = sn::Sequential<sn::Linear<256>, sn::ReLU, sn::Linear<10>>;
using Step = sn::Training<sn::Input<sn::f32, 784>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                          sn::Optimizer<sn::SGDMomentum>>;

inline constexpr auto& plan = sn::plan<Mlp, Step>();

// Our board: MY_BOARD_MEMORY_MIB (set in CMake) of memory, 256 KiB of it taken by the runtime.
inline constexpr sn::Device my_board{sn::MiB(MY_BOARD_MEMORY_MIB), sn::KiB(256), "my board"};

// report.cpp: the footprint and what the board must hold.
void report(std::ostream& out);
