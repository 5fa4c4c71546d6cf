// MUST NOT COMPILE: a MaxPool2d window larger than its padded input (pooled once too often).
//
// LeNet-like, Input (1, 28, 28):
//   0 Conv2d<6, Kernel<5>>   28 -> 24      1 ReLU      2 MaxPool2d<2>   24 -> 12
//   3 Conv2d<16, Kernel<5>>  12 -> 8       4 ReLU      5 MaxPool2d<2>    8 -> 4
//   6 MaxPool2d<8, Padding<1>>: padded input 4 + 2*1 = 6 in each direction, window 8 > 6.
// (Padding 1 is within half the window, so the padding check does not fire first.)
// Expected: kernel_larger_than_padded_input at layer 6 (MaxPool2d), kernel 8x8, padded 6x6.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<6, sn::Kernel<5>>, sn::ReLU, sn::MaxPool2d<2>,
                             sn::Conv2d<16, sn::Kernel<5>>, sn::ReLU, sn::MaxPool2d<2>,
                             sn::MaxPool2d<8, sn::Padding<1>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 28, 28>, sn::Batch<64>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
