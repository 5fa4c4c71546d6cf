// MUST NOT COMPILE: a Linear with zero outputs.
//
// Input (20). Flattened: 0 Linear<16>, 1 ReLU, 2 Linear<0>.
// Expected: nonpositive_output at layer 2 (Linear), Out written 0.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<16>, sn::ReLU, sn::Linear<0>>;
using Setup = sn::Training<sn::Input<sn::f32, 20>, sn::Batch<4>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
