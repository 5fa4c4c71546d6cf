#pragma once
// The model the trainer program tests run: small enough that its data files are a few hundred
// bytes. Input (1, 4, 4), 3 classes, batch 4, SGD with momentum.
//
// DERIVED BY HAND (f32; "al(n)" = n rounded up to a multiple of 256):
//   0 Conv2d 1->2 k3 p1  (4, 2, 4, 4)  2*9 + 2 = 20 parameters
//   1 ReLU (in place)    2 Flatten (a view: (4, 32))   3 Linear 32->3  96 + 3 = 99 parameters
//   weights al(4 * 119 = 476) = 512; gradients 512; momentum 512
//   inputs al(4*16*4 = 256) + al(labels 16) = 512; workspace al(9 rows * 16 * 4 = 576) = 768
//   activations (L = 4: forward i at step i, loss 4, backward of layer i at 8 - i, update 9):
//     A0 conv/ReLU/Flatten out 512 [0,7]   logits al(48) 256 [3,4]   loss 256 [4,9]
//     predictions 256 [4,9]   d(logits) 256 [4,5]   d(Linear input) 512 [5,8]
//     peak at step 5: 512 + 256 + 256 + 256 + 512 = 1,792, which largest-first placement meets
//     (A0 @0, dx @512, logits @512, loss @1024, predictions @1280, d(logits) @1536)
//   total 512 * 3 + 512 + 768 + 1,792 = 4,608 bytes
#include <staticnet/staticnet.hpp>

namespace cli {

namespace sn = staticnet;

using Net = sn::Sequential<sn::Conv2d<2, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::Flatten,
                           sn::Linear<3>>;
using Training = sn::Training<sn::Input<sn::f32, 1, 4, 4>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                              sn::Optimizer<sn::SGDMomentum>>;
// The same net in Mixed<f16> with Adam: the trainer's loss scaling (scenarios.cmake's
// loss_scaling).
using TrainingMixedF16 =
    sn::Training<sn::Input<sn::f32, 1, 4, 4>, sn::Batch<4>, sn::Loss<sn::CrossEntropy>,
                 sn::Optimizer<sn::Adam>, sn::Precision<sn::detail::Mixed<sn::f16>>>;

}  // namespace cli
