// MUST NOT COMPILE: seed 001's SimpleCNN (Conv2d 3->16 k3 p1, ReLU, MaxPool2d 2, Flatten,
// Linear 4096->10), batch 128, Adam, CrossEntropy, on a 16 MiB device whose runtime takes 1 MiB.
// Derived by hand from the rules at the top of include/staticnet/plan.hpp (sizes occupy
// multiples of 256):
//   parameters 16*27 + 16 = 448, 10*4096 + 10 = 40970; 4 * 41418 = 165672 -> 165888
//   weights 165888, gradients 165888, optimizer_state (Adam, 2 moments) 331776
//   inputs 128*3*32*32*4 = 1572864, + labels 128*4 = 512: 1573376
//   workspace (im2col, one sample) 3*9*32*32*4 = 110592
//   activations, KiB [first, last step]; L = 5: forward i at i, loss 5, backward of i at 10 - i:
//     A0 conv out, ReLU in place 8192 [0,9]   W2 window index 512 [2,8]   A2 pool out 2048 [2,6]
//     A4 logits 5 [4,5]   loss 0.5 [5,11]   predictions 0.5 [5,11]   G4 d(logits) 5 [5,6]
//     G3 d(pool out) 2048 [6,8]   G1 d(ReLU out) 8192 [8,10]
//     largest first: A0 @0, G1 @8192, A2 @8192, G3 @16384, W2 @18432, A4 @10240, G4 @10245,
//     loss @18944, predictions @18944.5 -> 18945 KiB = 19399680 B (the step-by-step placement
//     reaches 21003 KiB)
//   total 21747200; + overhead 1048576 = required 22795776 > budget 16777216.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using SimpleCNN = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                 sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>, sn::Optimizer<sn::Adam>,
                           sn::Loss<sn::CrossEntropy>>;

static_assert(sn::assert_fits<SimpleCNN, Setup, sn::Device{sn::MiB(16), sn::MiB(1)}>());

int main() {
  return 0;
}
