// MUST NOT COMPILE: a rectangular window given to a pool as an option, as Conv2d takes it. A
// pool's window is its first argument (MaxPool2d<sn::Kernel<3, 1>{}>); its options are Stride and
// Padding.
//
// Input (1, 12, 12). Flattened: 0 Conv2d<4, Kernel<3>> (-> 4×10×10), 1 MaxPool2d<3, Kernel<3, 1>>.
// Expected: option_not_accepted at layer 1 (MaxPool2d), option Kernel.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<4, sn::Kernel<3>>, sn::MaxPool2d<3, sn::Kernel<3, 1>>,
                             sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 1, 12, 12>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
