#pragma once
// MobileNetV1 x0.25, the MLPerf Tiny visual wake words model (person / no person, 96x96 RGB), as
// mlcommons/tiny writes it (benchmark/training/visual_wake_words/vww_model.py, mobilenet_v1): a
// 3x3 stride-2 convolution to 8 channels, then 13 depthwise-separable blocks (3x3 depthwise,
// 1x1 pointwise), every convolution 'same'-padded with a bias and followed by BatchNorm and ReLU;
// the 3x3 map averaged (AveragePooling2D(3) and Flatten, which is GlobalAvgPool2d) into a
// Linear to 2 classes. No residual connections, no Dropout.
//
// CHOSEN HERE (the reference's training): batch 32, Adam, CrossEntropy.
//
// DERIVED BY HAND (B = 32). Blocks (depthwise stride, pointwise channels) and maps:
//   conv 3x3 s2 -> 8 @ 48x48;  (1, 16) @48;  (2, 32) @24;  (1, 32) @24;  (2, 64) @12;
//   (1, 64) @12;  (2, 128) @6;  5 x (1, 128) @6;  (2, 256) @3;  (1, 256) @3
// Layers: 0-2 the first conv, BN, ReLU; block b (0..12) at 3 + 6b: depthwise, BN, ReLU,
// pointwise, BN, ReLU; 81 GlobalAvgPool2d; 82 Linear 256->2.
// Trainable, with Cin and Cout each block's input and output channels:
//   first conv 3*9*8 + 8 = 224, its BN 16
//   depthwise  sum 10*Cin  = 10 * (8+16+32+32+64+64+6*128+256) = 10 * 1,240 = 12,400
//   pointwise  sum Cin*Cout + Cout = 196,224 + 1,488 = 197,712
//   BNs        2 * (1,240 + 1,488) = 5,456
//   Linear     256*2 + 2 = 514
//   total      224 + 16 + 12,400 + 197,712 + 5,456 + 514 = 216,322 (the reference's count)
// Non-trainable: 2 * (8 + 1,240 + 1,488) = 5,472.
//
// Footprint (Adam):
//   weights          al(4 * 216,322 = 865,288) = 3,381 * 256                =   865,536
//   non_trainable    al(4 * 5,472 = 21,888) = 86 * 256                      =    22,016
//   gradients        same as weights                                        =   865,536
//   optimizer_state  2 moments                                              = 1,731,072
//   inputs           32*3*96*96*4 = 3,538,944 + al(labels 128) = 256        = 3,539,200
//   workspace        the first conv's im2col, 3*9 rows x 48*48 columns x 4 (the largest
//                    pointwise one is 8 x 48*48 x 4 = 73,728)               =   248,832
#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/keras_layers.hpp"

namespace staticnet::samples {

namespace mobilenet_v1 {
template <std::int64_t Stride, std::int64_t Channels>
using DepthwiseSeparable =
    Sequential<DepthwiseConv2d<Kernel<3>, staticnet::Stride<Stride>, PaddingSame>,
               keras::BatchNorm2d, ReLU, Conv2d<Channels, Kernel<1>, PaddingSame>,
               keras::BatchNorm2d, ReLU>;
}  // namespace mobilenet_v1

using MobileNetV1 =
    Sequential<Conv2d<8, Kernel<3>, Stride<2>, PaddingSame>, keras::BatchNorm2d, ReLU,
               mobilenet_v1::DepthwiseSeparable<1, 16>, mobilenet_v1::DepthwiseSeparable<2, 32>,
               mobilenet_v1::DepthwiseSeparable<1, 32>, mobilenet_v1::DepthwiseSeparable<2, 64>,
               mobilenet_v1::DepthwiseSeparable<1, 64>, mobilenet_v1::DepthwiseSeparable<2, 128>,
               mobilenet_v1::DepthwiseSeparable<1, 128>, mobilenet_v1::DepthwiseSeparable<1, 128>,
               mobilenet_v1::DepthwiseSeparable<1, 128>, mobilenet_v1::DepthwiseSeparable<1, 128>,
               mobilenet_v1::DepthwiseSeparable<1, 128>, mobilenet_v1::DepthwiseSeparable<2, 256>,
               mobilenet_v1::DepthwiseSeparable<1, 256>, GlobalAvgPool2d, Linear<2>>;

using MobileNetV1Training = Training<Input<f32, 3, 96, 96>, Batch<32>, Loss<CrossEntropy>,
                                     Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(mobilenet_v1, MobileNetV1, MobileNetV1Training);

}  // namespace staticnet::samples
