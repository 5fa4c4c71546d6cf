#pragma once
// Small models whose forward pass is worked out by hand (test_inference.cpp).
#include <staticnet/staticnet.hpp>

namespace inference_models {

namespace sn = staticnet;

// One 1x1 convolution without bias, a BatchNorm with ε = 1/4 (so that a running variance of 3/4
// makes √(var + ε) exactly 1) and a ReLU, over a 1x1x2 input: under Inference the BatchNorm is
// folded into the convolution, and the ReLU joins the same pass.
using ConvBnRelu = sn::Sequential<sn::Conv2d<1, sn::Kernel<1>, sn::NoBias>,
                                  sn::BatchNorm2d<sn::Epsilon<1, 4>>, sn::ReLU>;
using ConvBnReluSetup = sn::Inference<sn::Input<sn::f32, 1, 1, 2>, sn::Batch<1>>;

// The same with a bias, which folds into the shift; and a depthwise convolution's (direct
// kernel) fold, with two channels.
using ConvBiasBn = sn::Sequential<sn::Conv2d<1, sn::Kernel<1>>, sn::BatchNorm2d<sn::Epsilon<1, 4>>>;
using DepthwiseBnRelu = sn::Sequential<sn::DepthwiseConv2d<sn::Kernel<1>>,
                                       sn::BatchNorm2d<sn::Epsilon<1, 4>>, sn::ReLU>;
using DepthwiseSetup = sn::Inference<sn::Input<sn::f32, 2, 1, 1>, sn::Batch<1>>;

// A single output, a regression's (Linear 3 -> 1): the inference program scores it by its mean
// squared error, and a CSV column holds its targets.
using Regression = sn::Sequential<sn::Linear<1>>;
using RegressionSetup = sn::Inference<sn::Input<sn::f32, 3>, sn::Batch<2>>;

}  // namespace inference_models
