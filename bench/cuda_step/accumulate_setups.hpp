#pragma once
// SimpleCNN (samples/simple_cnn.hpp) and ResNet-8 (samples/mlperf_tiny/resnet8.hpp) with their
// samples' setups plus Accumulate<4>: the same batch the optimizer steps on, run as four
// micro-batches. The CUDA step benchmark times each beside its sample, to show what the smaller
// arena costs in step time (torch_cuda_step.py --accumulate 4 is PyTorch's loop for the same).
#include "samples/mlperf_tiny/resnet8.hpp"
#include "samples/simple_cnn.hpp"

namespace bench {
namespace sn = staticnet;
using SimpleCNNAccumulate4 =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::FP32>, sn::Accumulate<4>>;
using ResNet8Accumulate4 =
    sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<32>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::FP32>, sn::Accumulate<4>>;
}  // namespace bench
