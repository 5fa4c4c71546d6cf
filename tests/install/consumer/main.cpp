// An MLP for MNIST, trained on a small board. If the training step does not fit the board, this
// file does not compile, and the error says how many bytes it needs and where they go.
#include <iostream>

#include "mlp.hpp"

static_assert(sn::assert_fits<Mlp, Step, my_board>());
static_assert(plan.output_shape == sn::Shape{32, 10});

int main() {
  std::cout << "parameters " << plan.parameter_count << "\n";
  report(std::cout);
  return 0;
}
