#pragma once
// LeNet-5 on 28x28 grey images (MNIST), the classic variant: Tanh activations and average
// pooling (LeCun et al. 1998, with the usual simplifications: plain 2x2 average pools without
// trainable scale, a full C3 connection table, and a Linear 84->10 in place of the RBF output).
// The first conv pads by 2, so 28x28 behaves like the paper's 32x32 input.
//
// CHOSEN HERE: batch 64, SGD with momentum (one velocity per parameter), CrossEntropy.
//
// DERIVED BY HAND (B = 64; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #   layer                output            parameters
//   0   Conv2d 1->6 k5 p2    (64, 6, 28, 28)   6*1*5*5 + 6    = 156
//   1   Tanh                 (64, 6, 28, 28)   0
//   2   AvgPool2d 2          (64, 6, 14, 14)   0
//   3   Conv2d 6->16 k5      (64, 16, 10, 10)  16*6*5*5 + 16  = 2,416
//   4   Tanh                 (64, 16, 10, 10)  0
//   5   AvgPool2d 2          (64, 16, 5, 5)    0
//   6   Flatten              (64, 400)         0
//   7   Linear 400->120      (64, 120)         400*120 + 120  = 48,120
//   8   Tanh                 (64, 120)         0
//   9   Linear 120->84       (64, 84)          120*84 + 84    = 10,164
//   10  Tanh                 (64, 84)          0
//   11  Linear 84->10        (64, 10)          84*10 + 10     = 850
//   parameters: 156 + 2,416 + 48,120 + 10,164 + 850 = 61,706
//
// Footprint:
//   weights         al(4 * 61,706 = 246,824) = 965 * 256              = 247,040
//   gradients       same                                             = 247,040
//   optimizer_state SGDMomentum: 1 velocity                          = 247,040
//   inputs          al(64*1*28*28*4 = 200,704) + al(labels 64*4 = 256) = 200,960
//   workspace       largest im2col of one sample: conv1 1*5*5 x 28*28 x 4 = 78,400;
//                   conv2 6*5*5 x 10*10 x 4 = 60,000; al(78,400) = 307 * 256 = 78,592
//   activations     see below                                        = 2,710,016
//   total           247,040*3 + 200,960 + 78,592 + 2,710,016         = 3,730,688
//
// Activation region. L = 12: forward i at step i, loss at 12, backward of layer i at 24 - i,
// update at 25. Each Tanh runs in place over the conv or Linear before it (they save their
// inputs, not their outputs) and saves its output (tanh' = 1 - y^2). AvgPool saves nothing
// (its backward needs only shapes), so a Tanh output lives until that Tanh's backward; each
// conv/Linear input lives until that layer's backward.
//   A0   conv1/tanh out      64*6*28*28*4   = 1,204,224   0..23
//   A2   pool1 out           64*6*14*14*4   =   301,056   2..21  (conv2 input)
//   A3   conv2/tanh out      64*16*10*10*4  =   409,600   3..20
//   A5   pool2 out/flat      64*16*5*5*4    =   102,400   5..17  (fc1 input)
//   A7   fc1/tanh out        64*120*4       =    30,720   7..16
//   A9   fc2/tanh out        64*84*4        =    21,504   9..14
//   A11  logits              64*10*4        =     2,560  11..12
//   Lo   loss                al(64*4)       =       256  12..25
//   Pr   predicted class     al(64*4)       =       256  12..25
//   G11  d(logits)           64*10*4        =     2,560  12..13
//   G10  d(fc3 input)        64*84*4        =    21,504  13..15  (tanh backward in place)
//   G8   d(fc2 input)        64*120*4       =    30,720  15..17
//   G6   d(fc1 input)        64*400*4       =   102,400  17..19  (Flatten in place)
//   G5   d(pool2 input)      64*16*10*10*4  =   409,600  19..21
//   G3   d(conv2 input)      64*6*14*14*4   =   301,056  21..22
//   G2   d(pool1 input)      64*6*28*28*4   = 1,204,224  22..24  (conv1 is first: no d(input))
// Live bytes: 0-1: 1,204,224; 2: 1,505,280; 3-4: 1,914,880; 5-6: 2,017,280; 7-8: 2,048,000;
// 9-10: 2,069,504; 11: 2,072,064; 12: 2,075,136; 13: 2,094,080; 14: 2,091,520;
// 15: 2,100,736; 16: 2,079,232; 17: 2,150,912; 18: 2,017,792; 19: 2,427,392; 20: 2,324,992;
// 21: 2,216,448; 22: 2,710,016; 23: 2,408,960; 24: 1,204,736; 25: 512.
// Peak = step 22 (pool1 backward: the full-resolution d(input) G2 appears while tanh1's saved
// output A0 still waits for step 23): A0 + Lo + Pr + G3 + G2
//   = 1,204,224 + 256 + 256 + 301,056 + 1,204,224 = 2,710,016.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using LeNet5 = Sequential<Conv2d<6, Kernel<5>, Padding<2>>, Tanh, AvgPool2d<2>,  //
                          Conv2d<16, Kernel<5>>, Tanh, AvgPool2d<2>,             //
                          Flatten,                                               //
                          Linear<120, InFeatures<16 * 5 * 5>>, Tanh,             //
                          Linear<84>, Tanh,                                      //
                          Linear<10>>;

using LeNet5Training = Training<Input<f32, 1, 28, 28>, Batch<64>, Loss<CrossEntropy>,
                                Optimizer<SGDMomentum>, Precision<FP32>>;

STATICNET_MODEL(lenet5, LeNet5, LeNet5Training);  // for `staticnet analyze samples/lenet5.hpp`

}  // namespace staticnet::samples
