#pragma once
// Small models that, between them, put every layer kind and every way the CPU emitter can treat
// it through a gradient check (test_finite_differences.cpp): fused and standalone, in place and
// not, with and without bias, tiling and overlapping pools, 1- and 2-byte window indices, the
// first layer with parameters (no dx) and layers before it (no backward at all), both losses,
// TensorFlow's 'same' pools, and a tensor read twice, whose gradient each reader's backward adds
// to (pools, activations, products, a Flatten).
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

// TensorFlow's 'same' on pools (Keras' MaxPool2D((3, 1), padding='same')): a rectangular window;
// a max over the real elements; a mean over the real elements, not the window, with the odd row
// of padding after (count_include_pad false):
//   Conv2d 1×7×6 → 2×7×6; MaxPool (3, 1) stride (3, 1): 3×6, padding 1/1 rows;
//   AvgPool (2, 3) stride 1: 3×6, padding 0/1 rows, 1/1 columns; AvgPool 2: 2×3, padding 0/1 rows.
using SamePools = sn::Sequential<sn::Conv2d<2, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                 sn::MaxPool2d<sn::Kernel<3, 1>{}, sn::PaddingSame>,
                                 sn::AvgPool2d<sn::Kernel<2, 3>{}, sn::Stride<1>, sn::PaddingSame>,
                                 sn::AvgPool2d<2, sn::PaddingSame>, sn::Flatten, sn::Linear<3>>;
using SamePoolsSetup = sn::Training<sn::Input<sn::f32, 1, 7, 6>, sn::Batch<3>,
                                    sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;

// Tensors read twice (identity shortcuts), where the body's first layer adds its part of the input
// gradient to what the sum wrote first: a max-pool, a 'same' avg-pool, an activation that cannot
// run in place, a convolution, a Linear, and a Flatten (its input also read by the shortcut's
// global pool, which writes first).
using TwoReaders = sn::Sequential<
    sn::Conv2d<2, sn::Kernel<3>, sn::Padding<1>>,                                     // 0
    sn::Residual<sn::MaxPool2d<3, sn::Stride<1>, sn::Padding<1>>>,                    // 1, 2
    sn::Residual<sn::AvgPool2d<sn::Kernel<3, 1>{}, sn::Stride<1>, sn::PaddingSame>>,  // 3, 4
    sn::Residual<sn::Tanh>,                                                           // 5, 6
    sn::Residual<sn::Conv2d<2, sn::Kernel<3>, sn::Padding<1>>>,                       // 7, 8
    sn::Residual<sn::Sequential<sn::Flatten, sn::Linear<4>>,                          // 9-10,
                 sn::Sequential<sn::GlobalAvgPool2d, sn::Linear<4>>>,                 // 11-12, 13
    sn::Residual<sn::Linear<4>>,                                                      // 14, 15
    sn::Linear<3>>;
using TwoReadersSetup = sn::Training<sn::Input<sn::f32, 2, 5, 4>, sn::Batch<3>,
                                     sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

// A Flatten whose input another reader's backward reaches second: the Flatten copies its gradient
// into the input's (the shortcut's global pool then adds to it).
using FlattenFirst = sn::Sequential<sn::Conv2d<2, sn::Kernel<1>>,
                                    sn::Residual<sn::Sequential<sn::GlobalAvgPool2d, sn::Linear<4>>,
                                                 sn::Sequential<sn::Flatten, sn::Linear<4>>>,
                                    sn::Tanh, sn::Linear<3>>;
using FlattenFirstSetup = sn::Training<sn::Input<sn::f32, 3, 3, 2>, sn::Batch<2>,
                                       sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

}  // namespace gradient_models
