// MUST NOT COMPILE: a residual block nested in another's body, its projection shortcut giving
// the wrong channel count.
//
// Input (8) features, Batch 4. 0 Linear<16>: (4, 16). The outer block starts at 1: its body is
// 1 ReLU, then the inner block, which starts at 2: body 2 Linear<16> (4, 16), shortcut
// 3 Linear<12> (4, 12). 4 Add: body (4, 16), shortcut (4, 12).
// Expected: residual_shapes_differ at layer 4 (Add), block from layer 2, body (4, 16),
// shortcut (4, 12).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Inner = sn::Residual<sn::Linear<16>, sn::Linear<12>>;
using Model =
    sn::Sequential<sn::Linear<16>, sn::Residual<sn::Sequential<sn::ReLU, Inner>>, sn::Linear<2>>;
using Setup = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
