#pragma once
// Small models that, between them, put every layer kind and every way the CPU emitter can treat
// it through a gradient check (test_finite_differences.cpp): fused and standalone, in place and
// not, with and without bias, tiling and overlapping pools, 1- and 2-byte window indices, the
// first layer with parameters (no dx) and layers before it (no backward at all), both losses.
#include <staticnet/staticnet.hpp>

namespace gradient_models {

namespace sn = staticnet;

// Linear + ReLU and Linear + Tanh fused; a last Linear with bias only; dx through Linears.
using Mlp = sn::Sequential<sn::Linear<5>, sn::ReLU, sn::Linear<4>, sn::Tanh, sn::Linear<3>>;
using MlpSetup = sn::Training<sn::Input<sn::f32, 6>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                              sn::Optimizer<sn::SGD>>;

// Conv + ReLU + 2×2 max-pool fused (tiles 8×8, no dx: the first layer with parameters); then a
// strided, padded conv + LeakyReLU + max-pool fused that needs dx (col2im with stride 2).
using ConvMaxPool =
    sn::Sequential<sn::Conv2d<3, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::MaxPool2d<2>,
                   sn::Conv2d<4, sn::Kernel<3>, sn::Stride<2>, sn::Padding<1>>, sn::LeakyReLU,
                   sn::MaxPool2d<2>, sn::Flatten, sn::Linear<3>>;
using ConvMaxPoolSetup = sn::Training<sn::Input<sn::f32, 2, 8, 8>, sn::Batch<3>,
                                      sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;

// Conv without bias + Sigmoid + 2×2 avg-pool fused; MSE.
using ConvAvgPoolMse = sn::Sequential<sn::Conv2d<3, sn::Kernel<3>, sn::NoBias>, sn::Sigmoid,
                                      sn::AvgPool2d<2>, sn::Flatten, sn::Linear<2>>;
using ConvAvgPoolMseSetup = sn::Training<sn::Input<sn::f32, 2, 6, 6>, sn::Batch<3>,
                                         sn::Loss<sn::MSE>, sn::Optimizer<sn::SGDMomentum>>;

// Pools that do not tile, so they run alone: an overlapping 3×3/2 max-pool after a conv with no
// activation (its group is bias only), a standalone Tanh, a padded avg-pool; an asymmetric kernel.
using StandalonePools =
    sn::Sequential<sn::Conv2d<2, sn::Kernel<3, 2>, sn::Padding<1, 0>>,
                   sn::MaxPool2d<3, sn::Stride<2>>, sn::Tanh, sn::AvgPool2d<2, sn::Padding<1>>,
                   sn::Flatten, sn::Linear<3>>;
using StandalonePoolsSetup = sn::Training<sn::Input<sn::f32, 1, 9, 7>, sn::Batch<2>,
                                          sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::AdamW>>;

// A Sigmoid saves its output, so the ReLU after it cannot run in place: activations standalone,
// out of place, forward and backward.
using ChainedActivations = sn::Sequential<sn::Linear<6>, sn::Sigmoid, sn::ReLU, sn::Linear<2>>;
using ChainedActivationsSetup = sn::Training<sn::Input<sn::f32, 3>, sn::Batch<5>,
                                             sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

// A pool fused right after a conv with no activation between (the identity's backward reads
// nothing); a pool and a Flatten before any parameter (no backward, no window index kept).
using PoolFirst = sn::Sequential<sn::MaxPool2d<2>, sn::Conv2d<2, sn::Kernel<3>>, sn::MaxPool2d<2>,
                                 sn::Flatten, sn::Linear<2>>;
using PoolFirstSetup = sn::Training<sn::Input<sn::f32, 1, 12, 12>, sn::Batch<2>,
                                    sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

// A 17×17 max-pool has 289 window positions: a 2-byte window index, fused after a 1×1 conv.
using WideWindow = sn::Sequential<sn::Conv2d<2, sn::Kernel<1>>, sn::ReLU, sn::MaxPool2d<17>,
                                  sn::Flatten, sn::Linear<3>>;
using WideWindowSetup = sn::Training<sn::Input<sn::f32, 2, 17, 17>, sn::Batch<2>,
                                     sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

}  // namespace gradient_models
