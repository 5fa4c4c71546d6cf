#pragma once
// A small CNN for scikit-learn's 8x8 handwritten digits (1,797 images of 0-9, pixel values 0-16;
// samples/digits/ holds them as .npy, written by make_digits.py). Trained by the generated CPU
// trainer in the README's tour, in tests (it must reach 95% on the held-out images) and in
// bench/digits/ beside the same model in PyTorch.
//
// CHOSEN HERE: batch 32, Adam, CrossEntropy.
//
// DERIVED BY HAND (B = 32; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer                 output            parameters
//   0  Conv2d 1->16 k3 p1    (32, 16, 8, 8)    16*1*3*3 + 16 = 160
//   1  ReLU                  (32, 16, 8, 8)    0
//   2  MaxPool2d 2           (32, 16, 4, 4)    0
//   3  Flatten               (32, 256)         0
//   4  Linear 256->10        (32, 10)          256*10 + 10 = 2,570
//   parameters: 160 + 2,570 = 2,730
//
// Footprint:
//   weights         al(4 * 2,730 = 10,920) = 43 * 256                = 11,008
//   gradients       same                                             = 11,008
//   optimizer_state Adam: 2 moments                                  = 22,016
//   inputs          al(32*1*8*8*4 = 8,192) + al(labels 32*4 = 128)  = 8,448
//   workspace       im2col of one sample: 1*3*3 rows x 8*8 columns x 4 = 2,304
//   activations     see below                                        = 303,616
//   total           11,008*2 + 22,016 + 8,448 + 2,304 + 303,616      = 358,400
//
// Activation region: SimpleCNN's buffers (samples/simple_cnn.hpp) at this batch and size.
// L = 5: forward i at step i, loss at 5, backward of layer i at 10 - i, update at 11.
//   A0  conv out = ReLU out (in place), saved by the ReLU  32*16*8*8*4 = 131,072   0..9
//   W2  max-pool window index, 1 byte per output           32*16*4*4   =   8,192   2..8
//   A2  max-pool out = Flatten out; the Linear saves it    32*256*4    =  32,768   2..6
//   A4  logits                                              32*10*4     =   1,280   4..5
//   Lo  per-sample loss                                     al(32*4)    =     256   5..11
//   Pr  predicted class per sample                          al(32*4)    =     256   5..11
//   G4  d(logits)                                           32*10*4     =   1,280   5..6
//   G3  d(Linear input) = d(pool out)                       32*256*4    =  32,768   6..8
//   G2  d(pool input) = d(conv out)                         32*16*8*8*4 = 131,072   8..10
// Live bytes: 0-1: 131,072; 2-3: 172,032; 4: 173,312; 5: 175,104; 6: 206,592; 7: 172,544;
// 8: 303,616; 9: 262,656; 10: 131,584; 11: 512.
// Peak = step 8 (max-pool backward): A0 + W2 + Lo + Pr + G3 + G2
//      = 131,072 + 8,192 + 256 + 256 + 32,768 + 131,072 = 303,616.
// Reachable, as for SimpleCNN: A0 at 0; G2 and A2 at 131,072; A4, G4 above A2; G3 at 262,144;
// W2 at 294,912; Lo and Pr at 303,104.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using DigitsCNN = Sequential<Conv2d<16, Kernel<3>, Padding<1>>, ReLU, MaxPool2d<2>, Flatten,
                             Linear<10, InFeatures<16 * 4 * 4>>>;

using DigitsTraining =
    Training<Input<f32, 1, 8, 8>, Batch<32>, Loss<CrossEntropy>, Optimizer<Adam>, Precision<FP32>>;

// The deployed model: one image at a time, forward only (the inference programs `digits_infer_cpu`
// and, where the CUDA backend is built, `digits_infer_cuda` run a trainer's checkpoint through it).
using DigitsInference = Inference<Input<f32, 1, 8, 8>, Batch<1>>;

// On a microcontroller: int8, as TensorFlow Lite runs it (digits_int8_quantize turns a trainer's
// checkpoint into the weights; docs/microcontrollers.md). 2,704 int8 weights and 26 channels'
// bias, multiplier and shift (3 × 26 int32) in flash: 2,704 + 312 rounded up to 16 = 3,024 B.
// SRAM: the input (64 B) and the activations: the conv's output (1,024 B) beside the input,
// then the pool's (256 B) over the input's 64 rounded to 16 and beyond, the logits over the
// conv's: 1,024 + 256 = 1,280 B at the peak.
using DigitsInt8 = Inference<Input<f32, 1, 8, 8>, Batch<1>, Precision<Int8>>;

STATICNET_MODEL(digits_cnn, DigitsCNN,
                DigitsTraining);  // for `staticnet analyze samples/digits_cnn.hpp`

}  // namespace staticnet::samples
