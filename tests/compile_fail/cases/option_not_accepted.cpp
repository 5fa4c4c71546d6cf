// MUST NOT COMPILE: Stride is a window option; a Linear has no window.
//
// Input (3, 8, 8). Flattened: 0 Flatten (-> 192), 1 Linear<64>, 2 ReLU, 3 Linear<10, Stride<2>>.
// Expected: option_not_accepted at layer 3 (Linear), option Stride.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Flatten, sn::Linear<64>, sn::ReLU, sn::Linear<10, sn::Stride<2>>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 8, 8>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
