#pragma once
// The LeNet of PyTorch's tutorials, beside the classic one (samples/lenet5.hpp): ReLU and max
// pooling, no padding, so 28x28 -> 24 -> 12 -> 8 -> 4. It is about half the work of the padded
// Tanh/average-pool LeNet-5, and the ~3.3 ms a step the issue quotes for PyTorch matches this
// variant rather than the classic one; the benchmark times both. Batch 64, Adam.
#include <staticnet/staticnet.hpp>

namespace bench {
using LeNetReLU = staticnet::Sequential<
    staticnet::Conv2d<6, staticnet::Kernel<5>>, staticnet::ReLU, staticnet::MaxPool2d<2>,   //
    staticnet::Conv2d<16, staticnet::Kernel<5>>, staticnet::ReLU, staticnet::MaxPool2d<2>,  //
    staticnet::Flatten,                                                                     //
    staticnet::Linear<120>, staticnet::ReLU,                                                //
    staticnet::Linear<84>, staticnet::ReLU,                                                 //
    staticnet::Linear<10>>;

using LeNetReLUAdam =
    staticnet::Training<staticnet::Input<staticnet::f32, 1, 28, 28>, staticnet::Batch<64>,
                        staticnet::Loss<staticnet::CrossEntropy>,
                        staticnet::Optimizer<staticnet::Adam>>;
}  // namespace bench
