#pragma once
// Seed 004, Example 2: LargerConvNetwork, SmallNetwork with 64 conv channels instead of 16.
//
//   self.conv1 = nn.Conv2d(3, 64, kernel_size=3)   # no padding: 32x32 -> 30x30
//   self.fc1 = nn.Linear(64*30*30, 128)
//   forward: relu(conv1(x)) -> x.view(-1, 64*30*30) -> fc1
//
// Same choices as SmallNetwork (the seed trains neither): batch 4, Adam, CrossEntropy over the
// 128 outputs. The seed's point shows here: 4x the channels makes the Linear 4x larger, and the
// Linear is 99.98% of the parameters.
//
// DERIVED BY HAND (B = 4; f32 = 4 bytes; "al(n)" = n rounded up to a multiple of 256)
//
//   #  layer               output             parameters
//   0  Conv2d 3->64 k3     (4, 64, 30, 30)    64*3*3*3 + 64     = 1,792
//   1  ReLU                (4, 64, 30, 30)    0
//   2  Flatten             (4, 57600)         0
//   3  Linear 57600->128   (4, 128)           57600*128 + 128   = 7,372,928
//   parameters: 1,792 + 7,372,928 = 7,374,720
//
// Footprint:
//   weights         4 * 7,374,720 = 29,498,880 (= 115,230 * 256, no rounding) = 29,498,880
//   gradients       same                                             = 29,498,880
//   optimizer_state Adam, 2 * 29,498,880                             = 58,997,760
//   inputs          al(4*3*32*32*4 = 49,152) + al(labels 4*4 = 16) = 49,152 + 256 = 49,408
//   workspace       im2col of one sample: 3*3*3 x 30*30 x 4 = 97,200 (independent of the
//                   output channels); al(97,200)                     = 97,280
//   activations     see below                                        = 1,845,760
//   total           29,498,880*4 + 49,408 + 97,280 + 1,845,760       = 119,987,968
//
// Activation region: the buffers and lifetimes of SmallNetwork, with 64 channels.
// L = 4: forward i at step i, loss at 4, backward of layer i at 8 - i, update at 9.
//   A0  conv/relu/flatten out  4*64*30*30*4 = 921,600 (= 3600*256)  0..7
//   A3  logits                 4*128*4      =   2,048               3..4
//   Lo  loss                   al(4*4 = 16) =     256               4..9
//   Pr  predicted class        al(4*4 = 16) =     256               4..9
//   G3  d(logits)              4*128*4      =   2,048               4..5
//   G2  d(fc input)            4*57600*4    = 921,600               5..8
// Live bytes: 0-2: 921,600; 3: 923,648; 4: 926,208; 5: 1,845,760; 6-7: 1,843,712;
// 8: 922,112; 9: 512. Peak = step 5 (fc backward):
//   A0 + Lo + Pr + G3 + G2 = 921,600 + 256 + 256 + 2,048 + 921,600 = 1,845,760.
#include <staticnet/staticnet.hpp>

namespace staticnet::samples {

using LargerConvNetwork =
    Sequential<Conv2d<64, Kernel<3>>, ReLU, Flatten, Linear<128, InFeatures<64 * 30 * 30>>>;

using LargerConvNetworkTraining =
    Training<Input<f32, 3, 32, 32>, Batch<4>, Loss<CrossEntropy>, Optimizer<Adam>, Precision<FP32>>;

STATICNET_MODEL(larger_conv_network, LargerConvNetwork, LargerConvNetworkTraining);  // for `staticnet analyze samples/larger_conv_network.hpp`

}  // namespace staticnet::samples
