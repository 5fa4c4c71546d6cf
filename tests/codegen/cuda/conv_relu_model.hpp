#pragma once
// A convolution followed by a ReLU and no pool: the one place the CUDA emitter asks cuDNN to fuse
// bias and ReLU into the convolution's graph (with a pool after it, our own pass does bias,
// activation and pool in one visit). The samples all pool, so this model exists to run that path.
#include <staticnet/staticnet.hpp>

namespace cuda_test_models {

namespace sn = staticnet;

using ConvRelu = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::Flatten,
                                sn::Linear<3>>;
using ConvReluSetup = sn::Training<sn::Input<sn::f32, 2, 6, 6>, sn::Batch<3>,
                                   sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;
// The same with Prefetch: the CUDA backend copies each batch in while the step before runs
// (test_prefetch_cuda.cpp).
using ConvReluPrefetchSetup =
    sn::Training<sn::Input<sn::f32, 2, 6, 6>, sn::Batch<3>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Prefetch>;

}  // namespace cuda_test_models
