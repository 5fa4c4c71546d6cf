// MUST NOT COMPILE: a Linear with a negative number of outputs (a typo'd or computed Out).
//
// Input (20). Flattened: 0 Linear<-3>.
// Expected: nonpositive_output at layer 0 (Linear), Out written -3.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<-3>>;
using Setup = sn::Inference<sn::Input<sn::f32, 20>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
