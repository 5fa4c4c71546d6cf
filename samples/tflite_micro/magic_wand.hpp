#pragma once
// TensorFlow Lite Micro's magic_wand gesture model (4 classes: wing, ring, slope, negative) from
// 128 accelerometer readings of 3 axes, as its training script writes it in Keras
// (tflite-micro, tensorflow/lite/micro/examples/magic_wand/train/train.py, build_cnn):
//
//   Conv2D(8, (4, 3), padding="same", activation="relu", input_shape=(128, 3, 1))
//   MaxPool2D((3, 3))
//   Dropout(0.1)
//   Conv2D(16, (4, 1), padding="same", activation="relu")
//   MaxPool2D((3, 1), padding="same")
//   Dropout(0.1)
//   Flatten()
//   Dense(16, activation="relu")
//   Dropout(0.1)
//   Dense(4, activation="softmax")        (here logits; CrossEntropy applies the softmax)
//
// One for one: Keras' (128, 3, 1) is (C, H, W) = (1, 128, 3); a pool's rectangular window is
// the value Kernel<3, 1>{}, its stride defaulting to the window as in Keras; a Keras activation
// argument is its own layer. Flatten orders the 16 × 14 × 1 features channel first (Keras: last),
// the same count, so a Keras checkpoint's Dense weights need their rows permuted.
//
// CHOSEN HERE (the script's training): batch 64, Adam, CrossEntropy.
//
// DERIVED BY HAND (B = 64):
//   #   layer                                 output            parameters
//   0   Conv2d 1->8 k4x3 same                 (64, 8, 128, 3)   1*4*3*8 + 8 = 104
//       (rows: (128-1)*1 + 4 - 128 = 3 of padding, 1 above and 2 below; columns 1 and 1)
//   1   ReLU
//   2   MaxPool2d 3x3, stride 3               (64, 8, 42, 1)    (128-3)/3+1 = 42, (3-3)/3+1 = 1
//   3   Dropout 0.1
//   4   Conv2d 8->16 k4x1 same                (64, 16, 42, 1)   8*4*1*16 + 16 = 528
//   5   ReLU
//   6   MaxPool2d 3x1 same, stride (3, 1)     (64, 16, 14, 1)   ceil(42/3) = 14 (no padding
//                                                               needed: (14-1)*3 + 3 - 42 = 0)
//   7   Dropout 0.1
//   8   Flatten                               (64, 224)
//   9   Linear 224->16                        (64, 16)          224*16 + 16 = 3,600
//   10  ReLU
//   11  Dropout 0.1
//   12  Linear 16->4                          (64, 4)           16*4 + 4 = 68
//   parameters: 104 + 528 + 3,600 + 68 = 4,300 (Keras' model.summary(): 4,300)
//
// Footprint (Adam):
//   weights          al(4 * 4,300 = 17,200) = 68 * 256              = 17,408
//   gradients        the same                                       = 17,408
//   optimizer_state  2 moments                                      = 34,816
//   inputs           64*1*128*3*4 = 98,304 + al(64*4 = 256) = 256   = 98,560
//   workspace        the first convolution's im2col: 1*4*3 rows x 128*3 columns x 4 = 18,432
//                    (the second's is 8*4*1 x 42*1 x 4 = 5,376)
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using MagicWand =
    Sequential<Conv2d<8, Kernel<4, 3>, PaddingSame>, ReLU, MaxPool2d<3>, Dropout<10>,
               Conv2d<16, Kernel<4, 1>, PaddingSame>, ReLU, MaxPool2d<Kernel<3, 1>{}, PaddingSame>,
               Dropout<10>, Flatten, Linear<16>, ReLU, Dropout<10>, Linear<4>>;

using MagicWandTraining = Training<Input<f32, 1, 128, 3>, Batch<64>, Loss<CrossEntropy>,
                                   Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(magic_wand, MagicWand, MagicWandTraining);

}  // namespace staticnet::samples
