#pragma once
// Seed 001, Example 2: DeepCNN on 3x64x64 images, batch 64, Adam, CrossEntropy, CORRECTED.
//
//   conv1 = Conv2d(3, 32, 3, padding=1); conv2 = Conv2d(32, 64, 3, padding=1);
//   conv3 = Conv2d(64, 128, 3, padding=1); pool1 = MaxPool2d(2) (applied after each block)
//   fc = nn.Linear(128*4*4, 10)   # "Assume 64x64 downsampled to 4x4"
//
// The seed's fc is wrong: three 2x2 pools take 64x64 to 8x8, not 4x4, so the flattened
// features are 128*8*8 = 8192 and PyTorch would fail at fc with "mat1 and mat2 shapes cannot be
// multiplied (64x8192 and 2048x10)". Written as the seed has it, Linear<10, InFeatures<2048>>
// fails the build with linear_in_features_mismatch<layer<10, Linear>, in_features_written<2048>,
// features_arriving<8192>, shape<128, 8, 8>>. Here it is corrected to Linear<10, InFeatures<8192>>.
//
// DERIVED BY HAND (B = 64; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #   layer                 output             parameters
//   0   Conv2d 3->32 k3 p1    (64, 32, 64, 64)   32*3*9 + 32   = 896
//   1   ReLU                  (64, 32, 64, 64)   0
//   2   MaxPool2d 2           (64, 32, 32, 32)   0
//   3   Conv2d 32->64 k3 p1   (64, 64, 32, 32)   64*32*9 + 64  = 18,496
//   4   ReLU                  (64, 64, 32, 32)   0
//   5   MaxPool2d 2           (64, 64, 16, 16)   0
//   6   Conv2d 64->128 k3 p1  (64, 128, 16, 16)  128*64*9 + 128 = 73,856
//   7   ReLU                  (64, 128, 16, 16)  0
//   8   MaxPool2d 2           (64, 128, 8, 8)    0
//   9   Flatten               (64, 8192)         0
//   10  Linear 8192->10       (64, 10)           8192*10 + 10  = 81,930
//   parameters: 896 + 18,496 + 73,856 + 81,930 = 175,178
//
// Footprint:
//   weights         al(4 * 175,178 = 700,712)                        = 700,928
//   gradients       same                                             = 700,928
//   optimizer_state Adam, 2 * 700,928                                = 1,401,856
//   inputs          al(64*3*64*64*4 = 3,145,728) + al(labels 64*4 = 256) = 3,145,984
//   workspace       largest im2col of one sample (Cin*3*3 x Ho*Wo x 4):
//                   conv1 27*4096*4 = 442,368; conv2 288*1024*4 = 1,179,648;
//                   conv3 576*256*4 = 589,824 -> conv2              = 1,179,648
//   activations     the live peak, see below (the planner: 87,032,320)  = 85,459,456
//   total   700,928*2 + 1,401,856 + 3,145,984 + 1,179,648 + 85,459,456 = 92,588,800
//           (the planner: 94,161,664, from its activations)
//
// Activation region. L = 11: forward i at step i, loss at 11, backward of layer i at 22 - i,
// update at 23. Each ReLU runs in place over its conv's output (the conv saves its own input,
// not its output) and saves it; each pool keeps a 1-byte window index; each conv saves its
// input (the previous pool's output); Linear saves the pooled, flattened A8.
//   A0  conv1/relu1 out   64*32*64*64*4  = 33,554,432   0..21
//   W2  pool1 index       64*32*32*32    =  2,097,152   2..20
//   A2  pool1 out         64*32*32*32*4  =  8,388,608   2..19  (conv2 input)
//   A3  conv2/relu2 out   64*64*32*32*4  = 16,777,216   3..18
//   W5  pool2 index       64*64*16*16    =  1,048,576   5..17
//   A5  pool2 out         64*64*16*16*4  =  4,194,304   5..16  (conv3 input)
//   A6  conv3/relu3 out   64*128*16*16*4 =  8,388,608   6..15
//   W8  pool3 index       64*128*8*8     =    524,288   8..14
//   A8  pool3 out/flat    64*128*8*8*4   =  2,097,152   8..12  (fc input)
//   A10 logits            64*10*4        =      2,560  10..11
//   Lo  loss              al(64*4)       =        256  11..23
//   Pr  predicted class   al(64*4)       =        256  11..23
//   G10 d(logits)         64*10*4        =      2,560  11..12
//   G9  d(fc input)       64*8192*4      =  2,097,152  12..14  (Flatten backward in place)
//   G8  d(pool3 input)    64*128*16*16*4 =  8,388,608  14..16  (relu3 backward in place)
//   G6  d(conv3 input)    64*64*16*16*4  =  4,194,304  16..17
//   G5  d(pool2 input)    64*64*32*32*4  = 16,777,216  17..19
//   G3  d(conv2 input)    64*32*32*32*4  =  8,388,608  19..20
//   G2  d(pool1 input)    64*32*64*64*4  = 33,554,432  20..22
// Live bytes at the busiest steps: 12: 79,170,560; 14: 85,459,456; 15: 82,838,016;
// 16: 78,643,712; 17: 82,838,016; 20: 77,595,136.
// Peak = step 14 (pool3 backward, the G9 -> G8 step): every forward activation except A8 and
// A10, i.e. A0 + W2 + A2 + A3 + W5 + A5 + A6 + W8, plus Lo + Pr + G9 + G8
//   = 33,554,432 + 2,097,152 + 8,388,608 + 16,777,216 + 1,048,576 + 4,194,304 + 8,388,608
//     + 524,288 + 256 + 256 + 2,097,152 + 8,388,608 = 85,459,456.
// The later steps free the forward tensors more slowly than they allocate gradients, but never
// exceed it (step 17: 82,838,016).
//
// PLANNER DISAGREES: its activation region is 87,032,320 bytes, 1,572,864 (1.5 MiB, 1.8%) above
// the peak. Its live bytes per step equal the ones above (same buffers, same lifetimes), so the
// difference is placement alone. The online walk gives 110,627,840; greedy-by-size gives
// 87,032,320: placing the big tensors first, it puts G3 (8 MiB, steps 19..20) at 72..80 MiB and
// G6 (4 MiB, 16..17) at 76..80 MiB of the region; the window index W5 (1 MiB, alive 5..17)
// overlaps G6 in time, finds no hole, and lands on top of W2 at 82..83 MiB, while at step 14
// the 1.5 MiB at 78.5..80 MiB stand empty. The peak IS achievable: in units of 512 KiB,
//   A0 0 | W2 64 | A3 68 | W5 100 | A2 102 | A6 118 | W8 134 | G9 135 | A5 139 | G8 147 | Lo 163
//   (and Pr 256 bytes above Lo)
// with A8 at 147, A10 and G10 at 151 (in G8's bytes, before G8 exists), G6 at 118 (A6's bytes),
// G5 at 131, G3 at 68 (A3's bytes) and G2 at 84: every pair of buffers alive together is
// disjoint and the top is 163 units + 512 = 85,459,456 bytes (tests/core/test_samples.cpp
// checks this placement against the planner's buffers). So the hand number is the optimum and
// the planner's placement, though valid, is 1.5 MiB above it. Reported; the test pins the
// planner's current number as peak + 1.5 MiB so that a better planner shows up there.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using DeepCNN = Sequential<Conv2d<32, Kernel<3>, Padding<1>>, ReLU, MaxPool2d<2>,   //
                           Conv2d<64, Kernel<3>, Padding<1>>, ReLU, MaxPool2d<2>,   //
                           Conv2d<128, Kernel<3>, Padding<1>>, ReLU, MaxPool2d<2>,  //
                           Flatten, Linear<10, InFeatures<128 * 8 * 8>>>;

using DeepCNNTraining = Training<Input<f32, 3, 64, 64>, Batch<64>, Loss<CrossEntropy>,
                                 Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(deep_cnn, DeepCNN, DeepCNNTraining);  // for `staticnet analyze samples/deep_cnn.hpp`

}  // namespace staticnet::samples
