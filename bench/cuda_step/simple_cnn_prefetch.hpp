#pragma once
// SimpleCNN (samples/simple_cnn.hpp) with its setup plus Prefetch: the CUDA step benchmark times
// it beside the sample to show what overlapping the batch's copy with the step buys.
#include "samples/simple_cnn.hpp"

namespace bench {
using SimpleCNNPrefetch =
    staticnet::Training<staticnet::Input<staticnet::f32, 3, 32, 32>, staticnet::Batch<128>,
                        staticnet::Loss<staticnet::CrossEntropy>,
                        staticnet::Optimizer<staticnet::Adam>,
                        staticnet::Precision<staticnet::FP32>, staticnet::Prefetch>;
}  // namespace bench
