#pragma once
// ResNet-8, the MLPerf Tiny image classification model (CIFAR-10), as mlcommons/tiny v1.1 writes
// it (benchmark/training/image_classification/keras_model.py, resnet_v1_eembc, 16 filters):
// three stacks of one residual block each, the second and third downsampling with a stride-2 3x3
// convolution in the body and a 1x1 stride-2 convolution (with bias, no BatchNorm) as the
// shortcut; every convolution 'same'-padded with a bias; BatchNorm with Keras' defaults; a ReLU
// after each Add. The reference pools with AveragePooling2D(8) on the 8x8 map and flattens:
// GlobalAvgPool2d is the same.
//
// CHOSEN HERE (the reference's training): batch 32, Adam, CrossEntropy.
//
// DERIVED BY HAND (B = 32; 'same' with stride 1 and a 3x3 kernel pads 1 on each side; with
// stride 2 on an even input it pads 0 before and 1 after, and out = in / 2)
//
//   #   layer                          output            trainable              non-trainable
//   0   Conv2d 3->16 k3 same           (32, 16, 32, 32)  3*9*16 + 16  =    448
//   1   BatchNorm2d 16                 (32, 16, 32, 32)  2*16         =     32   2*16 = 32
//   2   ReLU
//   3   Conv2d 16->16 k3 same          (32, 16, 32, 32)  16*9*16 + 16 =  2,320
//   4   BatchNorm2d 16                                   32                     32
//   5   ReLU
//   6   Conv2d 16->16 k3 same                            2,320
//   7   BatchNorm2d 16                                   32                     32
//   8   Add (7 + 2): identity shortcut (32, 16, 32, 32)
//   9   ReLU
//   10  Conv2d 16->32 k3 s2 same       (32, 32, 16, 16)  16*9*32 + 32 =  4,640
//   11  BatchNorm2d 32                                   64                     64
//   12  ReLU
//   13  Conv2d 32->32 k3 same          (32, 32, 16, 16)  32*9*32 + 32 =  9,248
//   14  BatchNorm2d 32                                   64                     64
//   15  Conv2d 16->32 k1 s2 (shortcut, reads 9)          16*32 + 32   =    544
//   16  Add (14 + 15)                  (32, 32, 16, 16)
//   17  ReLU
//   18  Conv2d 32->64 k3 s2 same       (32, 64, 8, 8)    32*9*64 + 64 = 18,496
//   19  BatchNorm2d 64                                   128                   128
//   20  ReLU
//   21  Conv2d 64->64 k3 same          (32, 64, 8, 8)    64*9*64 + 64 = 36,928
//   22  BatchNorm2d 64                                   128                   128
//   23  Conv2d 32->64 k1 s2 (shortcut, reads 17)         32*64 + 64   =  2,112
//   24  Add (22 + 23)                  (32, 64, 8, 8)
//   25  ReLU
//   26  GlobalAvgPool2d                (32, 64)
//   27  Linear 64->10                  (32, 10)          64*10 + 10   =    650
//   trainable:     78,186 (the reference's count);  non-trainable: 2*(16*3 + 32*2 + 64*2) = 480
//
// Footprint (Adam):
//   weights          al(4 * 78,186 = 312,744) = 1,222 * 256                 =   312,832
//   non_trainable    al(4 * 480 = 1,920)                                    =     2,048
//   gradients        same as weights                                        =   312,832
//   optimizer_state  2 moments                                              =   625,664
//   inputs           32*3*32*32*4 = 393,216 + al(labels 32*4) = 256          =   393,472
//   workspace        the largest im2col of one sample: layers 3 and 6,
//                    16*9 rows x 32*32 columns x 4                          =   589,824
//   activations      planned; the tests check it against the bytes alive at the busiest step
#include <staticnet/staticnet.hpp>

#include "samples/mlperf_tiny/keras_layers.hpp"

namespace staticnet::samples {

namespace resnet8 {
// Conv2d 3x3 'same' + BatchNorm: the body's unit.
template <std::int64_t Channels, std::int64_t Stride = 1>
using ConvBatchNorm =
    Sequential<Conv2d<Channels, Kernel<3>, staticnet::Stride<Stride>, PaddingSame>,
               keras::BatchNorm2d>;
// One stack: conv-BN-ReLU-conv-BN plus the shortcut, then a ReLU.
template <std::int64_t Channels, std::int64_t Stride, class Shortcut>
using Stack = Sequential<
    Residual<Sequential<ConvBatchNorm<Channels, Stride>, ReLU, ConvBatchNorm<Channels>>, Shortcut>,
    ReLU>;
template <std::int64_t Channels>
using Downsample = Conv2d<Channels, Kernel<1>, Stride<2>, PaddingSame>;
}  // namespace resnet8

using ResNet8 =
    Sequential<Conv2d<16, Kernel<3>, PaddingSame>, keras::BatchNorm2d, ReLU,
               resnet8::Stack<16, 1, Identity>, resnet8::Stack<32, 2, resnet8::Downsample<32>>,
               resnet8::Stack<64, 2, resnet8::Downsample<64>>,  //
               GlobalAvgPool2d, Linear<10>>;

using ResNet8Training = Training<Input<f32, 3, 32, 32>, Batch<32>, Loss<CrossEntropy>,
                                 Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(resnet8, ResNet8, ResNet8Training);

// Serving one image at a time, as MLPerf Tiny's single-stream scenario does: every BatchNorm
// folded into the convolution before it. Its generated code is kept in samples/generated/.
using ResNet8Serving = Inference<Input<f32, 3, 32, 32>, Batch<1>>;

}  // namespace staticnet::samples
