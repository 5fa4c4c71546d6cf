// MUST NOT COMPILE: a pool padded by more than half its window (PyTorch refuses it too: "pad
// should be at most half of effective kernel size").
//
// Input (3, 16, 16). Flattened: 0 Conv2d<8, Kernel<3>>, 1 ReLU, 2 MaxPool2d<3, Padding<2>>:
// padding 2 > 3 / 2.
// Expected: pool_padding_too_large at layer 2 (MaxPool2d), padding 2, kernel 3.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::ReLU,
                             sn::MaxPool2d<3, sn::Padding<2>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 16, 16>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
