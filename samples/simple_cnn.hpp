#pragma once
// Seed 001, Example 1: SimpleCNN on 3x32x32 images, batch 128, Adam, CrossEntropy.
//
//   self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
//   self.relu1 = nn.ReLU(); self.pool1 = nn.MaxPool2d(2)
//   self.fc = nn.Linear(16 * 16 * 16, 10)
//   forward: pool1(relu1(conv1(x))) -> view(B, -1) -> fc
//
// DERIVED BY HAND (B = 128; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer                 output             parameters
//   0  Conv2d 3->16 k3 p1    (128, 16, 32, 32)  16*3*3*3 + 16 = 448
//   1  ReLU                  (128, 16, 32, 32)  0
//   2  MaxPool2d 2           (128, 16, 16, 16)  0
//   3  Flatten               (128, 4096)        0
//   4  Linear 4096->10       (128, 10)          4096*10 + 10 = 40970
//   parameters: 448 + 40970 = 41418
//
// Footprint:
//   weights         al(4 * 41418 = 165672)                          = 165,888
//   gradients       same as weights                                  = 165,888
//   optimizer_state Adam: 2 moments, 2 * 165,888                     = 331,776
//   inputs          al(128*3*32*32*4 = 1,572,864) + al(labels 128*4 = 512)
//                                                  = 1,572,864 + 512 = 1,573,376
//   workspace       im2col of one sample for the one conv: 3*3*3 rows x 32*32 columns x 4
//                   = 110,592 (already a multiple of 256)           = 110,592
//   activations     see below                                       = 19,399,680
//   total           165,888*2 + 331,776 + 1,573,376 + 110,592 + 19,399,680 = 21,747,200
//
// Activation region. L = 5 layers: forward of layer i at step i (0..4), loss at step 5,
// backward of layer i at step 10 - i (layer 4 at 6 ... layer 0 at 10), update at 11.
//   buffer                                                    bytes (all multiples of 256)  alive
//   A0  conv out = ReLU out, in place (the conv saves its input, the input batch, so nothing
//       pins the conv output); ReLU saves it                  128*16*32*32*4 = 8,388,608   0..9
//   W2  maxpool window index, 1 byte per output               128*16*16*16   =   524,288   2..8
//   A2  maxpool out = Flatten out (alias); Linear saves it    128*16*16*16*4 = 2,097,152   2..6
//   A4  logits                                                128*10*4       =     5,120   4..5
//   Lo  per-sample loss                                       al(128*4)      =       512   5..11
//   Pr  predicted class per sample (int32)                    al(128*4)      =       512   5..11
//   G4  d(logits)                                             128*10*4       =     5,120   5..6
//   G3  d(Linear input) = d(pool out) (Flatten in place)      128*4096*4     = 2,097,152   6..8
//   G2  d(pool input) = d(conv out) (ReLU in place)           128*16*32*32*4 = 8,388,608   8..10
// Live bytes per step: 0-1: 8,388,608; 2-3: 11,010,048; 4: 11,015,168; 5: 11,021,312;
// 6: 13,113,344; 7: 11,011,072; 8: 19,399,680; 9: 16,778,240; 10: 8,389,632; 11: 1,024.
// Peak = step 8 (MaxPool backward): A0 + W2 + Lo + Pr + G3 + G2
//      = 8,388,608 + 524,288 + 512 + 512 + 2,097,152 + 8,388,608 = 19,399,680.
// Achievable: A0 at 0; G2 and A2 both at 8 MiB (never alive together), A4 and G4 just above A2;
// G3 at 16 MiB; W2 at 18 MiB; Lo at 18.5 MiB, Pr above it: the region is exactly the step-8
// peak. The
// planner's greedy-by-size placement finds this layout (see the test).
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using SimpleCNN = Sequential<Conv2d<16, Kernel<3>, Padding<1>>, ReLU, MaxPool2d<2>, Flatten,
                             Linear<10, InFeatures<16 * 16 * 16>>>;

using SimpleCNNTraining = Training<Input<f32, 3, 32, 32>, Batch<128>, Loss<CrossEntropy>,
                                   Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(simple_cnn, SimpleCNN, SimpleCNNTraining);  // for `staticnet analyze samples/simple_cnn.hpp`

}  // namespace staticnet::samples
