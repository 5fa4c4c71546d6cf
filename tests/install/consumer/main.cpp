// An MLP for MNIST, trained on a small board. If the training step does not fit the board, this
// file does not compile, and the error says how many bytes it needs and where they go.
#include <staticnet/print.hpp>
#include <staticnet/staticnet.hpp>

#include <iostream>

namespace sn = staticnet;

using Mlp = sn::Sequential<sn::Linear<256>, sn::ReLU, sn::Linear<10>>;
using Step = sn::Training<sn::Input<sn::f32, 784>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                          sn::Optimizer<sn::SGDMomentum>>;

// Our board: MY_BOARD_MEMORY_MIB (set in CMake) of memory, 256 KiB of it taken by the runtime.
inline constexpr sn::Device my_board{sn::MiB(MY_BOARD_MEMORY_MIB), sn::KiB(256), "my board"};

static_assert(sn::assert_fits<Mlp, Step, my_board>());

int main() {
  constexpr auto& plan = sn::plan<Mlp, Step>();
  static_assert(plan.output_shape == sn::Shape{32, 10});
  std::cout << "parameters " << plan.parameter_count << "\n";
  sn::print_footprint(std::cout, plan.footprint);
  std::cout << "required on my board " << (plan.footprint.total() + my_board.overhead).count
            << " of " << my_board.memory.count << " bytes\n";
  return 0;
}
