#pragma once
// LeNet-5 (samples/lenet5.hpp) trained with Adam, as the CPU benchmark compares it.
#include "samples/lenet5.hpp"

namespace bench {
using LeNet5Adam =
    staticnet::Training<staticnet::Input<staticnet::f32, 1, 28, 28>, staticnet::Batch<64>,
                        staticnet::Loss<staticnet::CrossEntropy>,
                        staticnet::Optimizer<staticnet::Adam>>;
}  // namespace bench
