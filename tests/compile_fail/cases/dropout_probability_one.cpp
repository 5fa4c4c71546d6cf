// MUST NOT COMPILE: Dropout<10, 10> drops everything (probability 1), so 1/(1 - p) divides by 0.
//
// Input (8), Batch 2. 0 Linear<4>, 1 Dropout<10, 10>.
// Expected: dropout_probability_out_of_range at layer 1 (Dropout), numerator 10, denominator 10.
#include <staticnet/staticnet.hpp>

namespace sn = staticnet;

using Model = sn::Sequential<sn::Linear<4>, sn::Dropout<10, 10>, sn::Linear<2>>;
using Setup = sn::Training<sn::Input<sn::f32, 8>, sn::Batch<2>>;

constexpr auto& p = sn::plan<Model, Setup>();

int main() {
  return 0;
}
