// MUST NOT COMPILE: a Linear straight on a (C, H, W) activation; Flatten is missing.
//
// Input (3, 32, 32), Batch 4. 0 Conv2d<8, Kernel<3>, Padding<1>> keeps 32x32: (4, 8, 32, 32).
// 1 ReLU. 2 Linear<10> gets the rank-4 (4, 8, 32, 32).
// Expected: linear_needs_flat_input at layer 2 (Linear), input shape (4, 8, 32, 32).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model =
    sn::Sequential<sn::Conv2d<8, sn::Kernel<3>, sn::Padding<1>>, sn::ReLU, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 32, 32>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
