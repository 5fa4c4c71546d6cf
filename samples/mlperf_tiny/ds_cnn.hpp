#pragma once
// DS-CNN, the MLPerf Tiny keyword spotting model (12 classes, 49x10 MFCCs), as mlcommons/tiny
// writes it (benchmark/training/keyword_spotting/keras_model.py, get_model, 'ds_cnn'): a 10x4
// stride-2 'same' convolution, then four depthwise-separable blocks (3x3 depthwise 'same', 1x1
// pointwise to 64 channels, each followed by BatchNorm and ReLU), Dropout 0.2 after the first
// block and 0.4 before the pooling; every convolution with a bias.
//
// The pooling: the repository computes AveragePooling2D's window from the *input* halved,
// (int(49/2), int(10/2)) = (24, 5), over a 25x5 map, so it averages 24 rows and silently drops
// the last time step. The reference model pools all 25x5; GlobalAvgPool2d does.
//
// CHOSEN HERE (the reference's training): batch 100, Adam, CrossEntropy.
//
// DERIVED BY HAND (B = 100). The 10x4 stride-2 'same' convolution over 49x10: out = ceil(49/2) x
// ceil(10/2) = 25 x 5; padding (25-1)*2 + 10 - 49 = 9 rows, 4 above and 5 below, and
// (5-1)*2 + 4 - 10 = 2 columns, 1 each side.
//
//   #      layer                          output           trainable             non-trainable
//   0      Conv2d 1->64 k10x4 s2 same     (100, 64, 25, 5) 1*10*4*64 + 64 = 2,624
//   1      BatchNorm2d 64                                  128                   128
//   2      ReLU
//   3      Dropout 0.2
//   4+6b   DepthwiseConv2d 64 k3 same     (100, 64, 25, 5) 64*9 + 64 = 640
//   5+6b   BatchNorm2d 64                                  128                   128
//   6+6b   ReLU
//   7+6b   Conv2d 64->64 k1               (100, 64, 25, 5) 64*64 + 64 = 4,160
//   8+6b   BatchNorm2d 64                                  128                   128
//   9+6b   ReLU                           (blocks b = 0..3: layers 4-27)
//   28     Dropout 0.4
//   29     GlobalAvgPool2d                (100, 64)
//   30     Linear 64->12                  (100, 12)        64*12 + 12 = 780
//   trainable: 2,624 + 128 + 4 * (640 + 128 + 4,160 + 128) + 780 = 23,756
//   non-trainable: 9 BatchNorms * 2 * 64 = 1,152
//
// Footprint (Adam):
//   weights          al(4 * 23,756 = 95,024) = 372 * 256                    =  95,232
//   non_trainable    4 * 1,152                                              =   4,608
//   gradients        same as weights                                        =  95,232
//   optimizer_state  2 moments                                              = 190,464
//   inputs           al(100*1*49*10*4 = 196,000) = 196,096 + al(400) = 512  = 196,608
//   workspace        the pointwise im2col, 64 rows x 25*5 columns x 4 (the first
//                    convolution's is 1*10*4 x 125 x 4 = 20,000; depthwise needs none) = 32,000
//                    (the CPU step reads a 1x1 convolution's input as its im2col: the
//                    planned bytes are the CUDA libraries' scratch)
#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/keras_layers.hpp"

namespace staticnet::samples {

namespace ds_cnn {
using DepthwiseSeparable =
    Sequential<DepthwiseConv2d<Kernel<3>, PaddingSame>, keras::BatchNorm2d, ReLU,
               Conv2d<64, Kernel<1>, PaddingSame>, keras::BatchNorm2d, ReLU>;
}  // namespace ds_cnn

using DSCNN =
    Sequential<Conv2d<64, Kernel<10, 4>, Stride<2>, PaddingSame>, keras::BatchNorm2d, ReLU,
               Dropout<20>,  //
               ds_cnn::DepthwiseSeparable, ds_cnn::DepthwiseSeparable, ds_cnn::DepthwiseSeparable,
               ds_cnn::DepthwiseSeparable,  //
               Dropout<40>, GlobalAvgPool2d, Linear<12>>;

using DSCNNTraining = Training<Input<f32, 1, 49, 10>, Batch<100>, Loss<CrossEntropy>,
                               Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(ds_cnn, DSCNN, DSCNNTraining);

}  // namespace staticnet::samples
