// MUST NOT COMPILE: a Conv2d window wider than its padded input.
//
// Input (3, 12, 6). Layer 0 Conv2d<4, Kernel<3>> (no padding): (12-3)/1+1 = 10, (6-3)/1+1 = 4,
// so (4, 10, 4). Layer 1 ReLU. Layer 2 Conv2d<8, Kernel<3, 7>, Padding<1>> sees 10+2 = 12 rows
// and 4+2 = 6 columns after padding; its kernel is 3 high (fits) and 7 wide (7 > 6).
// Expected: kernel_larger_than_padded_input at layer 2 (Conv2d), kernel 3x7, padded input 12x6.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<4, sn::Kernel<3>>, sn::ReLU,
                   sn::Conv2d<8, sn::Kernel<3, 7>, sn::Padding<1>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 12, 6>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
