#pragma once
// Every layer kind with every option it takes, in models that `staticnet analyze` accepts: each
// must generate, build and train on every backend (matrix/CMakeLists.txt trains each one epoch
// on the CPU, and on a GPU where there is one). Between them the models also cover every
// optimizer, both losses, Prefetch, layers before the first with parameters, products fused with
// each activation and pool, and a tensor read twice after every layer kind (a residual block's
// input, whose gradient each reader's backward adds to).
//
// Shapes are (C, H, W) after each line; 'same' pads ceil(in / stride) outputs.
#include <staticnet/staticnet.hpp>

namespace layer_matrix {

namespace sn = staticnet;

// Conv2d and DepthwiseConv2d: square and rectangular kernels, strides, symmetric and 'same'
// padding (an even kernel pads unevenly), no bias, groups; Linear with InFeatures and without a
// bias; each activation fused after a product.
using Convolutions = sn::Sequential<
    sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,  // 4×12×10
    sn::Conv2d<4, sn::Kernel<3, 1>, sn::Stride<2, 1>, sn::Padding<1, 0>, sn::NoBias>,
    sn::LeakyReLU,                                                              // 4×6×10
    sn::Conv2d<6, sn::Kernel<2>, sn::PaddingSame, sn::Groups<2>>, sn::Sigmoid,  // 6×6×10
    sn::DepthwiseConv2d<sn::Kernel<3>, sn::Stride<2>, sn::PaddingSame, sn::NoBias>,
    sn::Tanh,                                                  // 6×3×5
    sn::DepthwiseConv2d<sn::Kernel<1, 3>, sn::Padding<0, 1>>,  // 6×3×5
    sn::Conv2d<4, sn::Kernel<2>, sn::PaddingSame>,             // 4×3×5, uneven
    sn::Flatten, sn::Linear<5, sn::NoBias>, sn::ReLU, sn::Linear<3, sn::InFeatures<5>>>;
using ConvolutionsTraining = sn::Training<sn::Input<sn::f32, 3, 12, 10>, sn::Batch<4>,
                                          sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGD>>;

// Pools: square and rectangular windows (Kernel<H, W>{}), strides, padding and 'same', alone and
// fused after a convolution whose output their windows tile.
using Pools =
    sn::Sequential<sn::Conv2d<3, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                   sn::MaxPool2d<2>,  // 3×8×6, fused
                   sn::Conv2d<3, sn::Kernel<1>>, sn::AvgPool2d<sn::Kernel<2, 1>{}>,  // 3×4×6, fused
                   sn::MaxPool2d<sn::Kernel<3, 1>{}, sn::PaddingSame>,               // 3×2×6
                   sn::AvgPool2d<sn::Kernel<2, 3>{}, sn::Stride<1>, sn::PaddingSame>,    // 3×2×6
                   sn::MaxPool2d<3, sn::Stride<2>, sn::Padding<1>>,                      // 3×1×3
                   sn::AvgPool2d<sn::Kernel<1, 2>{}, sn::Stride<1>, sn::Padding<0, 1>>,  // 3×1×4
                   sn::Flatten, sn::Linear<3>>;
using PoolsTraining = sn::Training<sn::Input<sn::f32, 2, 16, 12>, sn::Batch<3>,
                                   sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::SGDMomentum>>;

// BatchNorm2d and BatchNorm1d with their options, Dropout, GlobalAvgPool2d.
using Normalization = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>, sn::NoBias>,
                                     sn::BatchNorm2d<sn::Epsilon<1, 1000>, sn::Momentum<1, 100>>,
                                     sn::ReLU, sn::Dropout<25>, sn::BatchNorm2d<>,
                                     sn::GlobalAvgPool2d, sn::BatchNorm1d<sn::Epsilon<1, 100>>,
                                     sn::Tanh, sn::Dropout<1, 10>, sn::Linear<3>>;
using NormalizationTraining = sn::Training<sn::Input<sn::f32, 3, 6, 6>, sn::Batch<4>,
                                           sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;

// Residual blocks with identity and projection shortcuts, nested; after every layer kind a
// tensor that two layers read.
using Residuals = sn::Sequential<
    sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>,  // 4×8×8
    sn::Residual<sn::MaxPool2d<3, sn::Stride<1>, sn::Padding<1>>>,
    sn::Residual<sn::AvgPool2d<sn::Kernel<3, 1>{}, sn::Stride<1>, sn::PaddingSame>>,
    sn::Residual<sn::ReLU>, sn::Residual<sn::Sigmoid>,
    sn::Residual<sn::Conv2d<4, sn::Kernel<3>, sn::Padding<1>>>,
    sn::Residual<sn::DepthwiseConv2d<sn::Kernel<3>, sn::PaddingSame>>,
    sn::Residual<sn::BatchNorm2d<>>, sn::Residual<sn::Dropout<10>>,
    sn::Residual<
        sn::Sequential<sn::Conv2d<8, sn::Kernel<3>, sn::Stride<2>, sn::Padding<1>>, sn::ReLU,
                       sn::Residual<sn::Sequential<sn::Conv2d<8, sn::Kernel<3>, sn::Padding<1>>,
                                                   sn::BatchNorm2d<>>>>,
        sn::Conv2d<8, sn::Kernel<1>, sn::Stride<2>>>,  // 8×4×4
    sn::ReLU,
    sn::Residual<sn::Sequential<sn::Flatten, sn::Linear<6>>,
                 sn::Sequential<sn::GlobalAvgPool2d, sn::Linear<6>>>,  // 6
    sn::Residual<sn::Linear<6>>, sn::Residual<sn::BatchNorm1d<>>, sn::Residual<sn::Tanh>,
    sn::Residual<sn::Dropout<10>>, sn::Linear<3>>;
using ResidualsTraining = sn::Training<sn::Input<sn::f32, 3, 8, 8>, sn::Batch<4>,
                                       sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::AdamW>>;

// MSE on an image (an autoencoder's output), with the next batch prefetched.
using ImageRegression = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>, sn::PaddingSame>, sn::ReLU,
                                       sn::Conv2d<1, sn::Kernel<3>, sn::PaddingSame>>;
using ImageRegressionTraining =
    sn::Training<sn::Input<sn::f32, 1, 8, 8>, sn::Batch<4>, sn::Loss<sn::MSE>,
                 sn::Optimizer<sn::Adam>, sn::Prefetch>;

// MSE on features, the first layer without parameters (no backward before the Linear).
using FeatureRegression =
    sn::Sequential<sn::Tanh, sn::Linear<8>, sn::Tanh, sn::Dropout<10>, sn::Linear<2>>;
using FeatureRegressionTraining =
    sn::Training<sn::Input<sn::f32, 6>, sn::Batch<5>, sn::Loss<sn::MSE>, sn::Optimizer<sn::SGD>>;

// Each setup above in Mixed<bf16>, which the CPU backend trains (staticnet::detail:: until the CUDA
// backend does too): every layer kind and option in bf16, with its working copy of the weights.
template <class Setup>
struct InMixedBF16;
template <class... Options>
struct InMixedBF16<sn::Training<Options...>> {
  using type = sn::Training<Options..., sn::Precision<sn::detail::Mixed<sn::bf16>>>;
};
template <class Setup>
using MixedBF16 = typename InMixedBF16<Setup>::type;
using ConvolutionsMixed = MixedBF16<ConvolutionsTraining>;
using PoolsMixed = MixedBF16<PoolsTraining>;
using NormalizationMixed = MixedBF16<NormalizationTraining>;
using ResidualsMixed = MixedBF16<ResidualsTraining>;
using ImageRegressionMixed = MixedBF16<ImageRegressionTraining>;
using FeatureRegressionMixed = MixedBF16<FeatureRegressionTraining>;

}  // namespace layer_matrix
