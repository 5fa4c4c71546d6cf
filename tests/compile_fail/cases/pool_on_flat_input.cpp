// MUST NOT COMPILE: a pool on a flat Input<f32, 100>, which has no height or width.
//
// Input (100), Batch 8: layer 0 MaxPool2d<2> gets (8, 100).
// Expected: needs_spatial_input at layer 0 (MaxPool2d), input shape (8, 100).
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::MaxPool2d<2>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 100>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
