#pragma once
// Seed 004, Example 1 (and Example 3's batch): SmallNetwork on 3x32x32 images.
//
//   self.conv1 = nn.Conv2d(3, 16, kernel_size=3)   # no padding: 32x32 -> 30x30
//   self.fc1 = nn.Linear(16*30*30, 128)
//   forward: relu(conv1(x)) -> x.view(-1, 16*30*30) -> fc1
//
// x.view(-1, 16*30*30) keeps the batch as the leading extent (each sample has exactly
// 16*30*30 values), so it is Flatten. The seed never trains the model: it runs forward passes
// of batch 1 and 4. CHOSEN HERE: batch 4 (its Example 3), Adam, and CrossEntropy over the 128
// outputs read as class logits (the seed gives no loss; 128 outputs, no targets).
//
// DERIVED BY HAND (B = 4; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer               output             parameters
//   0  Conv2d 3->16 k3     (4, 16, 30, 30)    16*3*3*3 + 16     = 448
//   1  ReLU                (4, 16, 30, 30)    0
//   2  Flatten             (4, 14400)         0
//   3  Linear 14400->128   (4, 128)           14400*128 + 128   = 1,843,328
//   parameters: 448 + 1,843,328 = 1,843,776 (the seed's print shows the same number)
//
// Footprint:
//   weights         4 * 1,843,776 = 7,375,104 (= 28,809 * 256, no rounding needed) = 7,375,104
//   gradients       same                                             = 7,375,104
//   optimizer_state Adam, 2 * 7,375,104                              = 14,750,208
//   inputs          al(4*3*32*32*4 = 49,152) + al(labels 4*4 = 16) = 49,152 + 256 = 49,408
//   workspace       im2col of one sample: 3*3*3 rows x 30*30 columns x 4 = 97,200
//                   al(97,200) = 380 * 256                           = 97,280
//   activations     see below                                        = 463,360
//   total           7,375,104*4 + 49,408 + 97,280 + 463,360          = 30,110,464
//
// Activation region. L = 4: forward i at step i, loss at 4, backward of layer i at 8 - i,
// update at 9. ReLU runs in place over the conv output (the conv saves its input, the batch)
// and saves it; Flatten aliases it; the Linear saves the same storage as its input.
//   A0  conv/relu/flatten out  4*16*30*30*4 = 230,400 (= 900*256)   0..7  (relu backward at 7)
//   A3  logits                 4*128*4      =   2,048               3..4
//   Lo  loss                   al(4*4 = 16) =     256               4..9
//   Pr  predicted class        al(4*4 = 16) =     256               4..9
//   G3  d(logits)              4*128*4      =   2,048               4..5
//   G2  d(fc input)            4*14400*4    = 230,400               5..8  (Flatten and ReLU
//                                             backward in place; the conv is first: no d(input))
// Live bytes: 0-2: 230,400; 3: 232,448; 4: 235,008; 5: 463,360; 6-7: 461,312; 8: 230,912;
// 9: 512. Peak = step 5 (fc backward: reads A0 for dW and G3, writes G2):
//   A0 + Lo + Pr + G3 + G2 = 230,400 + 256 + 256 + 2,048 + 230,400 = 463,360.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using SmallNetwork =
    Sequential<Conv2d<16, Kernel<3>>, ReLU, Flatten, Linear<128, InFeatures<16 * 30 * 30>>>;

using SmallNetworkTraining =
    Training<Input<f32, 3, 32, 32>, Batch<4>, Loss<CrossEntropy>, Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(small_network, SmallNetwork, SmallNetworkTraining);  // for `staticnet analyze samples/small_network.hpp`

}  // namespace staticnet::samples
