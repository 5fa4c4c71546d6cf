#pragma once
// The samples' own training setups in Mixed<bf16>, for the CPU step's cost of mixed precision
// (bench/RESULTS.md): the same model, batch and optimizer, only the precision changed.
#include "samples/lenet5.hpp"
#include "samples/mlperf_tiny/ds_cnn.hpp"
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/simple_cnn.hpp"

namespace bench {

namespace sn = staticnet;
using MixedBF16 = sn::Precision<sn::detail::Mixed<sn::bf16>>;

using SimpleCNNMixed = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                                    sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>, MixedBF16>;
using LeNet5Mixed = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>,
                                 sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>, MixedBF16>;
using ResNet8Mixed = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<32>,
                                  sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>, MixedBF16>;
using DSCNNMixed = sn::Training<sn::Input<sn::f32, 1, 49, 10>, sn::Batch<100>,
                                sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>, MixedBF16>;

}  // namespace bench
