// MUST NOT COMPILE: a SimpleCNN-like model trained with Adam at batch 128 on a 16 MiB device
// whose runtime takes 1 MiB first. Every number below is derived by hand from the memory rules
// at the top of include/staticnet/plan.hpp (each buffer occupies its size rounded up to 256).
//
// Model, Input (3, 32, 32), B = 128, CrossEntropy, Adam:
//   0 Conv2d<16, K3, P1>  (3,32,32) -> (16,32,32)   params 16*3*9 + 16 = 448
//   1 ReLU                in place over 0's output
//   2 MaxPool2d<2>        -> (16,16,16)
//   3 Conv2d<32, K3, P1>  -> (32,16,16)            params 32*16*9 + 32 = 4640
//   4 ReLU                in place over 3's output
//   5 MaxPool2d<2>        -> (32,8,8)
//   6 Flatten             -> 2048 (aliases 5's output)
//   7 Linear<10>                                    params 10*2048 + 10 = 20490
// Parameters 448 + 4640 + 20490 = 25578; 4 * 25578 = 102312 B -> 400 * 256 = 102400.
//   weights          102400
//   gradients        102400
//   optimizer_state  204800   (Adam: two moments)
//   inputs          1573376   = 128*3*32*32*4 = 1572864, + labels 128*4 = 512
//   workspace        147456   = max im2col: conv 0 3*9*32*32*4 = 110592, conv 3 16*9*16*16*4
//   activations    21496832   (below)
//   total          23627264;  + overhead 1048576 = required 24675840 > budget 16777216.
//
// Activations, in KiB (1 KiB = 1024 B), with [first step, last step]. Training schedule for L = 8:
// forward i at step i, loss at 8, backward of layer i at 16 - i.
//   A0 out of conv 0 (ReLU in place)  8192 [0,15]  read by ReLU backward at 15
//   A2 out of pool 2                  2048 [2,13]  saved by conv 3 (backward at 13)
//   W2 window index of pool 2          512 [2,14]  1 B per output element
//   A3 out of conv 3 (ReLU in place)  4096 [3,12]
//   A5 out of pool 5 (= Flatten)      1024 [5, 9]  saved by the Linear (backward at 9)
//   W5 window index of pool 5          256 [5,11]
//   A7 logits                           5  [7, 8]
//   LS per-sample loss                 0.5 [8,17]
//   PR predicted classes               0.5 [8,17]
//   G7 d(logits)                        5  [8, 9]
//   G6 d(Flatten out) = d(A5)         1024 [9,11]  (Flatten backward in place)
//   G5 d(ReLU 4 out) = d(A3)          4096 [11,13] (ReLU backward in place)
//   G3 d(A2)                          2048 [13,14]
//   G2 d(ReLU 1 out) = d(A0)          8192 [14,16]
// Largest-first placement (the smallest the planner finds: the step-by-step walk reaches 24326,
// longest-lived-first 23041, largest-area-first the same 20993): A0 @0, G2 @8192, A3 @8192,
// G5 @12288, A2 @16384, G3 @18432, A5 @12288, G6 @18432, W2 @20480, W5 @19456, A7 @13312,
// G7 @13317, LS @20992, PR @20992.5 -> top 20993 KiB = 21496832 B.
// (The most alive at once is 20225 KiB at step 11; the placement is 768 KiB above that.)
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using SimpleCNN = sn::Sequential<sn::Conv2d<16, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU,
                                 sn::MaxPool2d<2>, sn::Conv2d<32, sn::Kernel<3>, sn::Padding<1>>,
                                 sn::ReLU, sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<128>,
                           sn::Loss<sn::CrossEntropy>, sn::Optimizer<sn::Adam>>;

static_assert(sn::assert_fits<SimpleCNN, Setup, sn::Device{sn::MiB(16), sn::MiB(1)}>());

int main() {
  return 0;
}
