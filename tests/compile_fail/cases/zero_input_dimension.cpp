// MUST NOT COMPILE: an Input with a zero extent.
//
// Input<f32, 3, 0, 32>: dimension index 1 (the height; the batch is not counted) is 0.
// Expected: nonpositive_input_dimension, dimension_index 1, dimension_value 0.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Conv2d<8, sn::Kernel<3>>, sn::Flatten, sn::Linear<10>>;
using Setup = sn::Training<sn::Input<sn::f32, 3, 0, 32>, sn::Batch<8>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
