// MUST NOT COMPILE: an InFeatures mismatch deep inside nested Sequentials; the error's index
// counts the FLATTENED layers, not positions inside the inner Sequential.
//
// Input (100). Flattened: 0 Linear<64>, 1 ReLU, 2 Linear<32>, 3 ReLU, 4 Linear<10, InFeatures<64>>.
// Layer 2 produces 32 features, so layer 4 (position 1 of the innermost Sequential) gets 32, not
// the 64 written.
// Expected: linear_in_features_mismatch at layer 4 (Linear), written 64, arriving 32.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Encoder = sn::Sequential<sn::Linear<64>, sn::ReLU>;
using Head =
    sn::Sequential<sn::Linear<32>, sn::Sequential<sn::ReLU, sn::Linear<10, sn::InFeatures<64>>>>;
using Model = sn::Sequential<Encoder, Head>;
using Setup = sn::Training<sn::Input<sn::f32, 100>, sn::Batch<16>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
